package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// ISR changes go through the controller: the lag timer proposes a removal,
// the high watermark keeps counting the follower until the controller
// commits it, and only then does the leader's ISR shrink.
func TestLagTimerProposesAndTheControllerCommits(t *testing.T) {
	g := newGroup(t, replica.Options{LagMaxMs: 1000}, 1, 2, 3)
	g.elect(1, 1, 2, 3)
	g.produce(wire.AcksLeader, "a")
	g.fetch(2)
	g.now += 1001
	g.fetch(2) // 2 is caught up at the new time; 3 never fetched
	g.r[1].Tick(g.now)
	req, ok := g.r[1].AlterPartition(g.now)
	if !ok || len(req.NewISR) != 2 || req.NewISR[0].BrokerID != 1 || req.NewISR[1].BrokerID != 2 {
		t.Fatalf("proposal %+v, %v; want [1 2]", req.NewISR, ok)
	}
	if !slices.Equal(g.r[1].ISR(), []int32{1, 2, 3}) {
		t.Fatalf("ISR %v changed before the controller answered", g.r[1].ISR())
	}
	if g.r[1].HighWatermark() != 0 {
		t.Fatalf("HW %d: replica 3 (LEO 0) must still hold it back", g.r[1].HighWatermark())
	}
	if _, again := g.r[1].AlterPartition(g.now); again {
		t.Fatal("the proposal went out twice before the retry interval")
	}
	resp := wire.AlterPartitionResponse{Leader: 1, LeaderEpoch: g.st.LeaderEpoch, ISR: []int32{1, 2}, PartitionEpoch: g.st.PartitionEpoch + 1}
	if err := g.r[1].ApplyAlterPartition(&req, &resp, g.now); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.r[1].ISR(), []int32{1, 2}) || g.r[1].HighWatermark() != 1 {
		t.Fatalf("after the commit: ISR %v HW %d, want [1 2] and 1", g.r[1].ISR(), g.r[1].HighWatermark())
	}
}

// Kafka's answers to a refused proposal (Partition.handleAlterPartitionError).
func TestRefusedProposals(t *testing.T) {
	for _, c := range []struct {
		code      wire.ErrorCode
		resent    bool // sent again after the retry interval
		reverted  bool // the maximal ISR went back
		stillHeld bool // nothing more is proposed until new metadata
	}{
		{wire.CodeOperationNotAttempted, false, true, false},
		{wire.CodeIneligibleReplica, false, true, false},
		{wire.CodeFencedLeaderEpoch, false, false, true},
		{wire.CodeInvalidUpdateVersion, false, false, true},
		{wire.CodeNotController, true, false, false},
	} {
		t.Run(c.code.String(), func(t *testing.T) {
			g := newGroup(t, replica.Options{AlterPartitionRetryMs: 100}, 1, 2, 3)
			g.elect(1, 1, 2)
			g.produce(wire.AcksLeader, "a")
			g.fetch(3) // 3 caught up: proposed back in
			req, ok := g.r[1].AlterPartition(g.now)
			if !ok {
				t.Fatal("no expansion proposed")
			}
			resp := wire.AlterPartitionResponse{ErrorCode: c.code}
			g.r[1].ApplyAlterPartition(&req, &resp, g.now)
			_, again := g.r[1].AlterPartition(g.now + 100)
			if again != c.resent {
				t.Errorf("resent %v, want %v", again, c.resent)
			}
			maximal := g.r[1].ISRState().Maximal()
			if reverted := slices.Equal(maximal, []int32{1, 2}); reverted != c.reverted {
				t.Errorf("maximal ISR %v, reverted %v, want %v", maximal, reverted, c.reverted)
			}
			if c.stillHeld {
				g.elect(1, 1, 2) // the controller's next state settles it
				if _, inFlight := g.r[1].ISRState().InFlight(); inFlight {
					t.Error("a new partition state did not end the held proposal")
				}
			}
		})
	}
}

// A new leader's ISR is the controller's, never "everyone": a follower the
// controller left out stays out until it catches up and is proposed back.
func TestNewLeaderTakesTheControllersISR(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2, 3)
	g.elect(1, 1, 2) // 3 out
	if !slices.Equal(g.r[1].ISR(), []int32{1, 2}) {
		t.Fatalf("ISR %v, want [1 2]", g.r[1].ISR())
	}
	g.elect(2, 1, 2) // a new leader, same ISR
	if !slices.Equal(g.r[2].ISR(), []int32{1, 2}) {
		t.Fatalf("new leader's ISR %v, want the controller's [1 2]", g.r[2].ISR())
	}
}

// The chapter's hw_lags_one_round_trip at the replica level: the follower
// holds the record a round before it learns it is committed.
func TestHighWatermarkLagsOneRound(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.st.MinISR = 2
	g.elect(1, 1, 2)
	g.produce(wire.AcksLeader, "m0")
	first := g.fetch(2)
	if g.r[2].LEO() != 1 || g.r[2].HighWatermark() != 0 || first.HighWatermark != 0 {
		t.Fatalf("round 1: follower LEO %d HW %d, response HW %d; want 1 0 0", g.r[2].LEO(), g.r[2].HighWatermark(), first.HighWatermark)
	}
	second := g.fetch(2)
	if g.r[1].HighWatermark() != 1 || g.r[2].HighWatermark() != 1 || len(second.Records) != 0 {
		t.Fatalf("round 2: leader HW %d follower HW %d records %d; want 1 1 0", g.r[1].HighWatermark(), g.r[2].HighWatermark(), len(second.Records))
	}
}
