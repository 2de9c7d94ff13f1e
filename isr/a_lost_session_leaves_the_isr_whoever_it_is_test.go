package isr

import (
	"slices"
	"testing"
)

// The session rule: the replica that lost its session leaves the ISR
// whatever its fetch history; the controller applies it to a leader as to a
// follower (and elects another), the others keep their order.
func TestALostSessionLeavesTheISRWhoeverItIs(t *testing.T) {
	for _, c := range []struct {
		isr  []int32
		id   int32
		want []int32
		in   bool
	}{
		{[]int32{1, 2}, 2, []int32{1}, true}, // the chapter's TwoJudges: [1 2] -> [1]
		{[]int32{2, 3, 1}, 2, []int32{3, 1}, true},
		{[]int32{2, 3, 1}, 1, []int32{2, 3}, true},
		{[]int32{1}, 1, []int32{}, true},
		{[]int32{1, 3}, 2, []int32{1, 3}, false},
		{nil, 2, nil, false},
	} {
		before := slices.Clone(c.isr)
		got, in := WithoutLostSession(c.isr, c.id)
		if !slices.Equal(got, c.want) || in != c.in {
			t.Errorf("WithoutLostSession(%v, %d) = %v, %v; want %v, %v", c.isr, c.id, got, in, c.want, c.in)
		}
		if !slices.Equal(c.isr, before) {
			t.Errorf("WithoutLostSession changed its argument %v to %v", before, c.isr)
		}
	}
}

// State.RemoveLostSession is WithoutLostSession on the leader's State.
func TestRemoveLostSessionIsWithoutLostSession(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, ISR: []int32{1, 2, 3}, MinISR: 1}, t0)
	want, _ := WithoutLostSession(s.ISR(), 3)
	if changed, err := s.RemoveLostSession(3); err != nil || !changed || !slices.Equal(s.ISR(), want) {
		t.Fatalf("RemoveLostSession(3) = %v, %v, ISR %v; want ISR %v", changed, err, s.ISR(), want)
	}
}
