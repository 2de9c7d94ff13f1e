package isr

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A leader re-elected at a new epoch keeps its followers' LEOs (Kafka's
// resetReplicaState with isNewLeader false); their fetch times restart: an
// ISR member is caught up at the re-election, one outside it never was.
func TestReelectKeepsFollowerLEOsAndRestartsFetchTimes(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, MinISR: 1, LagMaxMs: 1000}, t0)
	must(t, s.Observe(2, 7, 7, t0+10))
	must(t, s.Observe(3, 4, 7, t0+10))

	n, err := s.Reelect(Config{LeaderID: 1, Replicas: []int32{1, 2, 3, 4}, ISR: []int32{1, 2}, MinISR: 1, LagMaxMs: 1000}, 7, t0+500)
	must(t, err)
	for id, want := range map[int32]uint64{2: 7, 3: 4} {
		if leo, ok := n.FollowerLEO(id); !ok || leo != want {
			t.Errorf("follower %d LEO %d (%v), want %d kept", id, leo, ok, want)
		}
	}
	if _, ok := n.FollowerLEO(4); ok {
		t.Error("a follower new to the state has a LEO")
	}
	if at, ok := n.LastCaughtUpMs(2); !ok || at != t0+500 {
		t.Errorf("ISR member 2 caught up at %d (%v), want the re-election's t0+500", at, ok)
	}
	if _, ok := n.LastCaughtUpMs(3); ok {
		t.Error("follower 3, outside the new ISR, counts as caught up")
	}
	if hw, ok := n.ProposeHW(9, t0+500, nil); !ok || hw != 7 {
		t.Errorf("HW proposal %d, %v; want 7 (member 2's kept LEO)", hw, ok)
	}
	// Its fetch history restarted at the epoch start (7): a fetch at 7,
	// the leader now at 9, is caught up as of the re-election.
	must(t, n.Observe(2, 7, 9, t0+1400))
	if at, _ := n.LastCaughtUpMs(2); at != t0+500 {
		t.Errorf("caught up at %d, want t0+500", at)
	}
	if leo, _ := s.FollowerLEO(3); leo != 4 {
		t.Error("Reelect changed the State it started from")
	}
	if _, err := s.Reelect(Config{LeaderID: 2, ISR: []int32{2}, MinISR: 1}, 7, t0); !errors.Is(err, ErrUnknownReplica) {
		t.Errorf("another leader's re-election: %v, want ErrUnknownReplica", err)
	}
}

// A same-epoch state that changes the assignment changes the followers
// with it (Kafka's updateAssignmentAndIsr): one added can be observed, one
// removed is forgotten, the others keep their history.
func TestUpdateAssignmentAddsAndForgetsFollowers(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, MinISR: 1}, t0)
	must(t, s.Observe(2, 5, 5, t0+1))
	must(t, s.UpdateAssignment([]int32{1, 2, 4}, []int32{1, 2}, t0+2))
	if !cmp.Equal(s.Replicas(), []int32{1, 2, 4}) || !cmp.Equal(s.ISR(), []int32{1, 2}) {
		t.Fatalf("replicas %v ISR %v, want [1 2 4] and [1 2]", s.Replicas(), s.ISR())
	}
	if leo, ok := s.FollowerLEO(2); !ok || leo != 5 {
		t.Errorf("follower 2 LEO %d (%v), want 5 kept", leo, ok)
	}
	must(t, s.Observe(4, 3, 5, t0+3))
	if err := s.Observe(3, 5, 5, t0+3); !errors.Is(err, ErrUnknownReplica) {
		t.Errorf("observing removed follower 3: %v, want ErrUnknownReplica", err)
	}
	for _, bad := range []struct{ replicas, isr []int32 }{
		{[]int32{2, 4}, []int32{2}},       // the leader unassigned
		{[]int32{1, 2}, []int32{1, 2, 4}}, // an ISR member unassigned
		{[]int32{1, 2}, []int32{2}},       // the leader out of the ISR
		{[]int32{1, 2, 2}, []int32{1}},    // a duplicate
	} {
		if err := s.UpdateAssignment(bad.replicas, bad.isr, t0+4); err == nil {
			t.Errorf("UpdateAssignment(%v, %v) accepted", bad.replicas, bad.isr)
		}
	}
	if !cmp.Equal(s.Replicas(), []int32{1, 2, 4}) || !cmp.Equal(s.ISR(), []int32{1, 2}) {
		t.Fatalf("a refused update changed the state: replicas %v ISR %v", s.Replicas(), s.ISR())
	}
}
