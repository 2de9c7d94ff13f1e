package clock_test

import (
	"math"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
)

// A deadline past the range of int64 is Never, not a time in the past.
func TestADeadlineNeverWrapsIntoThePast(t *testing.T) {
	for _, c := range []struct{ now, ms, want int64 }{
		{1000, 0, 1000},
		{1000, 30_000, 31_000},
		{math.MaxInt64 - 10, 10, math.MaxInt64},
		{math.MaxInt64 - 10, 11, clock.Never},
		{1, math.MaxInt64, clock.Never},
		{-5, math.MaxInt64, math.MaxInt64 - 5},
	} {
		if got := clock.Deadline(c.now, c.ms); got != c.want {
			t.Errorf("Deadline(%d, %d) = %d, want %d", c.now, c.ms, got, c.want)
		}
	}
}
