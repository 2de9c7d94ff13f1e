package isr

import (
	"math"
	"slices"
)

// ShrinkISR applies the leader's time rule at nowMs and reports whether the
// ISR changed. It removes every follower that OutOfSync(nowMs) names. It
// never removes the leader and never adds anyone: time only takes replicas
// out of the ISR; only Readmit (or a controller's Commit) puts them back.
//
// ShrinkISR commits the removal at once, as the chapter's single-process
// leader does. A leader that answers to a controller proposes the same
// removal with ProposeShrink instead and applies it when the controller
// commits it. Nothing calls either on a timer: the caller decides when time
// has passed and passes nowMs, which keeps every run reproducible.
func (s *State) ShrinkISR(nowMs int64) bool {
	out := s.outOfSync(nowMs)
	if len(out) == 0 {
		return false
	}
	s.setCommitted(without(s.isr, out))
	return true
}

// OutOfSync returns, sorted, the ISR followers that the time rule removes at
// nowMs: every follower whose last caught-up time is strictly older than the
// cutoff nowMs - LagMaxMs (a follower caught up exactly at the cutoff
// stays), and every ISR follower that has never been caught up. The leader
// is never among them. This is the only rule in the package that compares a
// clock with a cutoff; ShrinkISR and ProposeShrink apply it.
func (s *State) OutOfSync(nowMs int64) []int32 { return s.outOfSync(nowMs) }

func (s *State) outOfSync(nowMs int64) []int32 {
	cutoff := saturatingSub(nowMs, s.lagMaxMs)
	var out []int32
	for _, id := range s.isr {
		if id == s.leaderID {
			continue
		}
		i, _ := s.follower(id) // invariant: every non-leader ISR member is a follower
		if !s.followers[i].caughtUpSince(cutoff) {
			out = append(out, id)
		}
	}
	return out
}

// caughtUpSince reports that the follower was last caught up at or after
// cutoff (nowMs - LagMaxMs): the time rule that keeps it in the ISR, and that
// makes a follower outside it hold the high watermark back (ProposeHW).
func (f *follower) caughtUpSince(cutoff int64) bool {
	return f.caughtUp && f.lastCaughtUpMs >= cutoff
}

// without returns a new sorted slice of the ids in set that are not in drop.
func without(set, drop []int32) []int32 {
	return slices.DeleteFunc(slices.Clone(set), func(id int32) bool { return slices.Contains(drop, id) })
}

// saturatingSub returns a-b (b > 0) clamped at math.MinInt64, so a nowMs near
// the bottom of the range cannot wrap around and remove every follower.
func saturatingSub(a, b int64) int64 {
	if a < math.MinInt64+b {
		return math.MinInt64
	}
	return a - b
}
