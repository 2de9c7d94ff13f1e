package isr

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The leader's side of AlterPartition: it proposes, the controller commits.

// TestShrinkIsProposedNotApplied: a follower falls behind; the leader
// proposes its removal, but until the controller commits it the follower
// still holds the high watermark and counts for min ISR (Kafka's
// PendingShrinkIsr never applies a removal optimistically).
func TestShrinkIsProposedNotApplied(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, ISR: []int32{1, 2, 3}, MinISR: 2, LagMaxMs: 1000}, t0)
	must(t, s.Observe(2, 5, 5, t0+1500))
	must(t, s.Observe(3, 1, 5, t0+100)) // 3 holds offsets below 1 only

	proposed, ok := s.ProposeShrink(t0 + 1500)
	if !ok || !cmp.Equal(proposed, []int32{1, 2}) {
		t.Fatalf("ProposeShrink = %v, %v; want [1 2], true", proposed, ok)
	}
	if hw, ok := s.ProposeHW(5, t0+1500, nil); !ok || hw != 1 {
		t.Fatalf("while the shrink is in flight the HW proposal is %d, %v; want 1 (replica 3 still counts)", hw, ok)
	}
	if !cmp.Equal(s.ISR(), []int32{1, 2, 3}) || !cmp.Equal(s.Maximal(), []int32{1, 2, 3}) {
		t.Fatalf("in flight: committed %v maximal %v, want both [1 2 3]", s.ISR(), s.Maximal())
	}
	if _, again := s.ProposeShrink(t0 + 5000); again {
		t.Fatal("a second proposal went out while one is in flight")
	}
	if got, ok := s.InFlight(); !ok || !cmp.Equal(got, []int32{1, 2}) {
		t.Fatalf("InFlight = %v, %v", got, ok)
	}

	must(t, s.Commit([]int32{2, 1}, t0+1600))
	if !cmp.Equal(s.ISR(), []int32{1, 2}) || !cmp.Equal(s.Maximal(), []int32{1, 2}) {
		t.Fatalf("committed %v maximal %v, want [1 2]", s.ISR(), s.Maximal())
	}
	if _, ok := s.InFlight(); ok {
		t.Fatal("the commit did not end the proposal")
	}
	if hw, ok := s.ProposeHW(5, t0+1600, nil); !ok || hw != 5 {
		t.Fatalf("after the commit the HW proposal is %d, %v; want 5", hw, ok)
	}
}

// TestExpansionCountsAtOnce: a caught-up follower's addition is proposed and
// it joins the maximal ISR at once, holding the high watermark back before
// the controller answers; a refusal reverts to the committed ISR.
func TestExpansionCountsAtOnce(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2}, MinISR: 2}, t0)
	must(t, s.Observe(2, 10, 10, t0))
	must(t, s.Observe(3, 4, 10, t0))

	// Not caught up: LEO 4 below the HW 8.
	if _, ok, err := s.ProposeExpansion(3, 8, 0); ok || !errors.Is(err, ErrNotCaughtUp) {
		t.Fatalf("ProposeExpansion below the HW = %v, %v", ok, err)
	}
	// Not caught up: past the HW but below the start of the leader's epoch.
	must(t, s.Observe(3, 8, 10, t0+1))
	if _, ok, err := s.ProposeExpansion(3, 8, 9); ok || !errors.Is(err, ErrNotCaughtUp) {
		t.Fatalf("ProposeExpansion below the epoch start = %v, %v", ok, err)
	}
	proposed, ok, err := s.ProposeExpansion(3, 8, 6)
	if err != nil || !ok || !cmp.Equal(proposed, []int32{1, 2, 3}) {
		t.Fatalf("ProposeExpansion = %v, %v, %v", proposed, ok, err)
	}
	if !cmp.Equal(s.Maximal(), []int32{1, 2, 3}) || !cmp.Equal(s.ISR(), []int32{1, 2}) {
		t.Fatalf("maximal %v committed %v", s.Maximal(), s.ISR())
	}
	if hw, _ := s.ProposeHW(10, t0+1, nil); hw != 8 {
		t.Fatalf("the joining follower does not hold the HW back: proposal %d, want 8", hw)
	}
	if g := s.Gate(8); g.ISRSize != 3 {
		t.Fatalf("acks=all counts %d members, want the maximal 3", g.ISRSize)
	}

	s.Abort()
	if !cmp.Equal(s.Maximal(), []int32{1, 2}) {
		t.Fatalf("after Abort maximal %v, want [1 2]", s.Maximal())
	}
	if hw, _ := s.ProposeHW(10, t0+1, nil); hw != 10 {
		t.Fatalf("after Abort the HW proposal is %d, want 10", hw)
	}
}

func TestCommitRefusesInvalidISR(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2}, MinISR: 1}, t0)
	for _, c := range []struct {
		isr  []int32
		want error
	}{
		{[]int32{2}, ErrLeaderNotInISR},
		{[]int32{1, 4}, ErrUnknownReplica},
		{[]int32{1, 2, 2}, ErrDuplicateReplica},
		{[]int32{1, -1}, ErrInvalidReplicaID},
	} {
		if err := s.Commit(c.isr, t0); !errors.Is(err, c.want) {
			t.Errorf("Commit(%v) = %v, want %v", c.isr, err, c.want)
		}
		if !cmp.Equal(s.ISR(), []int32{1, 2}) {
			t.Fatalf("a refused Commit changed the ISR to %v", s.ISR())
		}
	}
}

// TestCommitOfAFollowerThatNeverCaughtUp: the controller may publish an ISR
// the leader did not propose (a new leader's initial state); a member never
// seen caught up starts its lag window at the commit, not in the past.
func TestCommitOfAFollowerThatNeverCaughtUp(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, Replicas: []int32{1, 2}, ISR: []int32{1}, MinISR: 1, LagMaxMs: 1000}, t0)
	must(t, s.Commit([]int32{1, 2}, t0+10))
	if out := s.OutOfSync(t0 + 1010); len(out) != 0 {
		t.Fatalf("OutOfSync right after the commit = %v", out)
	}
	if out := s.OutOfSync(t0 + 1011); !cmp.Equal(out, []int32{2}) {
		t.Fatalf("OutOfSync after a full lag window = %v, want [2]", out)
	}
}

// TestEffectiveMinISRIsCappedAtTheReplicationFactor follows Kafka's
// Partition.effectiveMinIsr: min.insync.replicas 3 on two replicas behaves
// as 2.
func TestEffectiveMinISRIsCappedAtTheReplicationFactor(t *testing.T) {
	s := mustState(t, Config{LeaderID: 1, ISR: []int32{1, 2}, MinISR: 3}, t0)
	if s.EffectiveMinISR() != 2 || s.UnderMinISR() {
		t.Fatalf("EffectiveMinISR %d UnderMinISR %v, want 2 false", s.EffectiveMinISR(), s.UnderMinISR())
	}
	must(t, s.Observe(2, 7, 7, t0))
	if hw, ok := s.ProposeHW(7, t0, nil); !ok || hw != 7 {
		t.Fatalf("ProposeHW = %d, %v; want 7, true", hw, ok)
	}
}
