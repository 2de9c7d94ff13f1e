package isr

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// chapterState is the chapter's replica-demo after its four rounds: leader 1,
// follower 2, min.insync.replicas 2, every fetch at --now-ms 1700000000000.
// In each round the producer writes first, so the follower fetches one
// behind the leader's LEO and is caught up as of its previous fetch.
func chapterState(t testing.TB) *State {
	t.Helper()
	s := mustState(t, Config{LeaderID: 1, ISR: []int32{1, 2}, MinISR: 2, LagMaxMs: 30000}, t0)
	for round := uint64(1); round <= 4; round++ {
		must(t, s.Observe(2, round-1, round, t0))
	}
	return s
}

func TestShrinkISRChapterDemo(t *testing.T) {
	s := chapterState(t)
	if at, ok := s.LastCaughtUpMs(2); !ok || at != 1700000000000 {
		t.Fatalf("LastCaughtUpMs(2) = (%d, %v), want last fetch 1700000000000", at, ok)
	}

	// At exactly the cutoff the follower stays.
	if s.ShrinkISR(1700000030000) {
		t.Fatal("ShrinkISR(1700000030000) = true; caught up exactly at the cutoff must stay")
	}
	if diff := cmp.Diff([]int32{1, 2}, s.ISR()); diff != "" {
		t.Fatalf("ISR mismatch (-want +got):\n%s", diff)
	}

	// One millisecond past it, the follower goes.
	if !s.ShrinkISR(1700000030001) {
		t.Fatal("ShrinkISR(1700000030001) = false, want true")
	}
	if diff := cmp.Diff([]int32{1}, s.ISR()); diff != "" {
		t.Fatalf("ISR mismatch (-want +got):\n%s", diff)
	}
	if !s.UnderMinISR() {
		t.Fatal("UnderMinISR() = false with ISR [1] and min 2")
	}
	if s.ShrinkISR(1700000030001) {
		t.Fatal("second ShrinkISR reported a change")
	}
}

func TestShrinkISRChapterDemoFreshStateAtCutoff(t *testing.T) {
	// The boundary on its own, without a prior call at cutoff+1.
	s := chapterState(t)
	if s.ShrinkISR(1700000030000) || !s.InISR(2) {
		t.Fatal("ShrinkISR(1700000030000) removed replica 2")
	}
}

func TestShrinkISRNeverRemovesLeader(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, ISR: []int32{1, 2, 3}, MinISR: 1, LagMaxMs: 10}, 0)
	for _, now := range []int64{11, 1 << 40, math.MaxInt64} {
		s.ShrinkISR(now)
		if !s.InISR(1) {
			t.Fatalf("ShrinkISR(%d) removed the leader", now)
		}
	}
	if diff := cmp.Diff([]int32{1}, s.ISR()); diff != "" {
		t.Fatalf("ISR mismatch (-want +got):\n%s", diff)
	}
}

func TestShrinkISRKeepsFetchingFollowers(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, ISR: []int32{1, 2, 3}, MinISR: 1, LagMaxMs: 100}, 0)
	// Replica 2 keeps up with a leader whose LEO moves every fetch; replica 3 stops.
	for now := int64(10); now <= 500; now += 10 {
		leo := uint64(now)
		must(t, s.Observe(2, leo-10, leo, now)) // always one write behind
	}
	if !s.ShrinkISR(500) {
		t.Fatal("ShrinkISR(500) = false, want replica 3 removed")
	}
	if diff := cmp.Diff([]int32{1, 2}, s.ISR()); diff != "" {
		t.Fatalf("ISR mismatch (-want +got):\n%s", diff)
	}
}

func TestShrinkISRNeverCaughtUpReadmittedFollowerLeaves(t *testing.T) {
	// Replica 3 was outside the initial ISR, fetched up to the HW but never to
	// the leader's LEO; the controller readmits it. With no caught-up time it
	// counts as older than any cutoff, like Kafka's lastCaughtUpTimeMs = 0.
	s := mustState(t, Config{LeaderID: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2}, MinISR: 1}, t0)
	must(t, s.Observe(3, 5, 9, t0))
	must(t, s.Readmit(3, 5, 0))
	if !s.ShrinkISR(t0) || s.InISR(3) {
		t.Fatal("ShrinkISR kept a readmitted follower that was never caught up")
	}
}

func TestShrinkISRClockNearMinInt64(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, ISR: []int32{1, 2}, MinISR: 1}, math.MinInt64)
	if s.ShrinkISR(math.MinInt64 + 5) {
		t.Fatal("cutoff wrapped around and removed a follower caught up at construction")
	}
}
