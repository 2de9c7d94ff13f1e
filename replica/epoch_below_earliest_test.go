package replica_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// An epoch older than every entry of the leader's epoch cache gets Kafka's
// answer (LeaderEpochFileCache.endOffsetFor below its first entry) on both
// paths: the epoch asked, ending at the earliest entry's start offset. A
// fetch past that offset is told so as a DivergingEpoch; the
// OffsetsForLeaderEpoch question finds the same pair, not "not found". Here
// broker 2 wrote 3 records at epoch 1 alone; broker 1, which holds none,
// leads epoch 2 (an unclean election), so its cache starts at (2, 0).
func TestAnEpochBelowTheLeadersEarliestEndsAtItsStart(t *testing.T) {
	for _, rule := range []replica.TruncationRule{replica.TruncateOnFetch, replica.TruncateByLeaderEpoch} {
		t.Run(rule.String(), func(t *testing.T) {
			g := newGroup(t, replica.Options{Truncation: rule}, 1, 2)
			g.st = replica.PartitionState{Leader: 2, LeaderEpoch: 1, PartitionEpoch: 1, Replicas: []int32{1, 2}, ISR: []int32{2}, MinISR: 1}
			g.publish()
			g.produce(wire.AcksLeader, "a", "b", "c")
			g.st = replica.PartitionState{Leader: 1, LeaderEpoch: 2, PartitionEpoch: 2, Replicas: []int32{1, 2}, ISR: []int32{1}, MinISR: 1}
			g.publish()
			l := g.r[1]

			p := wire.FetchPartition{Topic: "t", CurrentLeaderEpoch: 2, FetchOffset: 3, LastFetchedEpoch: 1}
			resp, _, err := l.HandleFetch(replica.FetchFrom{ReplicaID: 2, ReplicaEpoch: -1}, &p, 1<<20, nil, g.now)
			if want := (wire.EpochEndOffset{Epoch: 1, EndOffset: 0}); err != nil || !resp.HasDivergingEpoch || resp.DivergingEpoch != want {
				t.Fatalf("fetch: %v, diverging %v %+v; want DivergingEpoch %+v", err, resp.HasDivergingEpoch, resp.DivergingEpoch, want)
			}
			q := wire.OffsetsForLeaderEpochPartition{Topic: "t", CurrentLeaderEpoch: 2, LeaderEpoch: 1}
			answer, err := l.HandleOffsetsForLeaderEpoch(&q)
			if err != nil || !answer.Found || answer.Epoch != 1 || answer.EndOffset != 0 {
				t.Fatalf("offsets for epoch 1: %v, found %v (%d, %d); want (1, 0)", err, answer.Found, answer.Epoch, answer.EndOffset)
			}

			// The follower, by either rule, cuts its epoch-1 records and
			// fetches what the leader has.
			g.fetch(2)
			if got := g.r[2].LEO(); got != 0 {
				t.Fatalf("follower LEO %d after its first exchange, want 0", got)
			}
		})
	}
}
