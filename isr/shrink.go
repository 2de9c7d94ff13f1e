package isr

import (
	"math"
	"slices"
)

// ShrinkISR applies the leader's time rule at nowMs and reports whether the
// ISR changed. It removes every follower whose last caught-up time is
// strictly older than the cutoff nowMs - LagMaxMs (a follower caught up
// exactly at the cutoff stays), and every ISR follower that has never been
// caught up. It never removes the leader and never adds anyone: time only
// takes replicas out of the ISR; only Readmit puts them back.
//
// This is the only function in the package that compares a clock with the
// cutoff. Nothing calls it on a timer: the caller decides when time has
// passed and passes nowMs, which keeps every run reproducible.
func (s *State) ShrinkISR(nowMs int64) bool {
	cutoff := saturatingSub(nowMs, s.lagMaxMs)
	before := len(s.isr)
	s.isr = slices.DeleteFunc(s.isr, func(id int32) bool {
		if id == s.leaderID {
			return false
		}
		i, _ := s.follower(id) // invariant: every non-leader ISR member is a follower
		f := s.followers[i]
		return !f.caughtUp || f.lastCaughtUpMs < cutoff
	})
	return len(s.isr) != before
}

// saturatingSub returns a-b (b > 0) clamped at math.MinInt64, so a nowMs near
// the bottom of the range cannot wrap around and remove every follower.
func saturatingSub(a, b int64) int64 {
	if a < math.MinInt64+b {
		return math.MinInt64
	}
	return a - b
}
