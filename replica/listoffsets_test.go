package replica_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A new leader whose high watermark still lags the start of its epoch does
// not answer a consumer's "where does the log end?" (KIP-207, Kafka's
// Partition.fetchOffsetForTimestamp): its high watermark may be below one
// the previous leader already gave out, and a consumer told to start there
// would read again what it has read. It answers OFFSET_NOT_AVAILABLE
// (retriable) until its high watermark reaches the epoch's start; a
// follower asking gets the log end as always.
func TestANewLeaderWithALaggingHWDoesNotGiveOutTheLogEnd(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2, 3)
	g.elect(1, 1, 2, 3)
	g.produce(wire.AcksLeader, "a", "b")
	for range 2 {
		g.fetch(2)
		g.fetch(3)
	}
	g.produce(wire.AcksLeader, "c")
	g.fetch(2)
	g.fetch(3) // both hold a b c
	g.fetch(2) // 2 says so; 3 has not yet: the HW is 2, and 2 learns 2
	g.fetch(3) // 3 says so: the leader's HW is 3, 2 still knows 2
	latest := &wire.ListOffsetsPartition{Timestamp: wire.LatestTimestamp, CurrentLeaderEpoch: wire.NoEpoch}
	old, err := g.r[1].HandleListOffsets(wire.ConsumerReplicaID, latest)
	if err != nil || old.Offset != 3 {
		t.Fatalf("the first leader's log end for a consumer: %d, %v; want 3", old.Offset, err)
	}
	if hw := g.r[2].HighWatermark(); hw != 2 {
		t.Fatalf("broker 2's HW %d, the test needs it one round behind (2)", hw)
	}
	g.elect(2, 1, 2, 3) // 2 leads with HW 2, its epoch starting at 3
	resp, err := g.r[2].HandleListOffsets(wire.ConsumerReplicaID, latest)
	if !errors.Is(err, wire.ErrOffsetNotAvailable) {
		t.Fatalf("a new leader with HW 2 below its epoch start 3 told a consumer the log ends at %d (err %v); a consumer was told 3 before",
			resp.Offset, err)
	}
	if f, err := g.r[2].HandleListOffsets(3, latest); err != nil || f.Offset != 3 {
		t.Fatalf("a follower's ListOffsets: %d, %v; want the log end 3", f.Offset, err)
	}
	g.fetch(1)
	g.fetch(3) // the followers reach 3: the HW passes the epoch start
	if resp, err := g.r[2].HandleListOffsets(wire.ConsumerReplicaID, latest); err != nil || resp.Offset != 3 {
		t.Fatalf("once the HW reached the epoch start: %d, %v; want 3", resp.Offset, err)
	}
}
