package wallclock_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/examples/wallclock"
)

// TestTimerNeverEarly: a timer's function sees NowMs at least the due time
// it was scheduled for, so a Driver never ticks before NextTickMs.
func TestTimerNeverEarly(t *testing.T) {
	c := wallclock.New()
	for _, ms := range []int64{-5, 0, 1, 3} {
		start := c.NowMs()
		got := make(chan int64, 1)
		c.AfterFunc(ms, func() { got <- c.NowMs() })
		if at := <-got; at < start+max(ms, 0) {
			t.Errorf("AfterFunc(%d) at %d ran at %d, before %d", ms, start, at, start+ms)
		}
	}
}

// TestStop: a stopped timer does not run, and Stop reports it was pending.
func TestStop(t *testing.T) {
	c := wallclock.New()
	ran := make(chan struct{}, 1)
	tm := c.AfterFunc(60_000, func() { ran <- struct{}{} })
	if !tm.Stop() {
		t.Fatal("Stop of a pending timer reported false")
	}
	if tm.Stop() {
		t.Fatal("second Stop reported true")
	}
	select {
	case <-ran:
		t.Fatal("a stopped timer ran")
	default:
	}
}
