package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A partition state at the same leader epoch may change the assigned
// replicas (a reassignment adds one before it joins the ISR): the leader's
// replica list and its ISR bookkeeping change together, as Kafka's
// updateAssignmentAndIsr does, so an added replica fetches at once and is
// proposed into the ISR once caught up, and a removed one is refused and no
// longer counts.
func TestAReplicaAddedAtTheSameEpochCanFetch(t *testing.T) {
	const L, F, X = 1, 2, 3
	g := newGroup(t, replica.Options{}, L, F, X)
	g.st = replica.PartitionState{Leader: L, LeaderEpoch: 1, PartitionEpoch: 1, Replicas: []int32{L, F}, ISR: []int32{L, F}, MinISR: 1}
	g.publish()
	l := g.r[L]
	g.produce(wire.AcksLeader, "a", "b")
	g.fetch(F)
	g.fetch(F)

	g.st.PartitionEpoch, g.st.Replicas = 2, []int32{L, F, X} // X added, same leader epoch
	g.publish()
	if resp := g.fetch(X); resp.ErrorCode != wire.CodeNone || len(resp.Records) == 0 {
		t.Fatalf("X's fetch answered %v with %d bytes, want records", resp.ErrorCode, len(resp.Records))
	}
	g.fetch(X) // X reports LEO 2: caught up
	if leo, ok := l.ISRState().FollowerLEO(X); !ok || leo != 2 {
		t.Fatalf("X's LEO at the leader %d (%v), want 2", leo, ok)
	}
	if isr, ok := g.alter(); !ok || !slices.Equal(isr, []int32{L, F, X}) {
		t.Fatalf("proposed %v (%v), want X in: [1 2 3]", isr, ok)
	}
	g.publish()

	g.st.PartitionEpoch, g.st.Replicas, g.st.ISR = g.st.PartitionEpoch+1, []int32{L, X}, []int32{L, X} // F removed
	g.publish()
	if _, ok := l.ISRState().FollowerLEO(F); ok {
		t.Fatal("the leader still tracks F after F was unassigned")
	}
	p := wire.FetchPartition{Topic: "t", CurrentLeaderEpoch: g.st.LeaderEpoch, FetchOffset: 2, LastFetchedEpoch: g.st.LeaderEpoch}
	if _, _, err := l.HandleFetch(replica.FetchFrom{ReplicaID: F, ReplicaEpoch: -1}, &p, 1<<20, nil, g.now); err == nil {
		t.Fatal("a fetch from an unassigned replica was served")
	}
}
