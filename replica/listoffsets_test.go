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

// A lookup by time answers the first record whose timestamp is at least
// the one asked for, and MaxTimestamp (-3, KIP-734) the first record with
// the largest timestamp, each with its timestamp and its batch's epoch; a
// consumer is told only records below the high watermark, and a lookup
// that finds none answers no offset without an error, as Kafka does
// (Partition.fetchOffsetForTimestamp). A follower is told what the log
// holds.
func TestListOffsetsLooksUpByTimeBelowTheHighWatermark(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	base := g.now
	g.produce(wire.AcksLeader, "a", "b") // offsets 0-1 at base
	g.now += 1000
	g.produce(wire.AcksLeader, "c") // offset 2 at base+1000
	g.now += 1000
	g.produce(wire.AcksLeader, "d") // offset 3 at base+2000
	ask := func(replicaID int32, ts int64) wire.ListOffsetsPartitionResponse {
		t.Helper()
		resp, err := g.r[1].HandleListOffsets(replicaID, &wire.ListOffsetsPartition{Timestamp: ts, CurrentLeaderEpoch: wire.NoEpoch})
		if err != nil || resp.ErrorCode != wire.CodeNone {
			t.Fatalf("ListOffsets(%d) for %d: %+v, %v", ts, replicaID, resp, err)
		}
		return resp
	}
	if hw := g.r[1].HighWatermark(); hw != 0 {
		t.Fatalf("HW %d before any follower fetch, the test needs 0", hw)
	}
	if r := ask(wire.ConsumerReplicaID, base); r.Found {
		t.Fatalf("a consumer was told offset %d above the HW 0", r.Offset)
	}
	if r := ask(2, wire.MaxTimestamp); !r.Found || r.Offset != 3 || r.Timestamp != base+2000 {
		t.Fatalf("a follower's max-timestamp lookup: %+v, want offset 3 at %d", r, base+2000)
	}
	for range 3 {
		g.fetch(2)
	}
	if hw := g.r[1].HighWatermark(); hw != 4 {
		t.Fatalf("HW %d, want 4", hw)
	}
	for _, tc := range []struct {
		ts    int64
		found bool
		off   uint64
		at    int64
	}{
		{0, true, 0, base},
		{base, true, 0, base},
		{base + 1, true, 2, base + 1000},
		{base + 1000, true, 2, base + 1000},
		{base + 1999, true, 3, base + 2000},
		{base + 2001, false, 0, 0},
		{wire.MaxTimestamp, true, 3, base + 2000},
	} {
		r := ask(wire.ConsumerReplicaID, tc.ts)
		if r.Found != tc.found || (r.Found && (r.Offset != tc.off || r.Timestamp != tc.at || r.LeaderEpoch != 1)) {
			t.Errorf("ListOffsets(%d) = %+v; want found %v, offset %d, timestamp %d, epoch 1", tc.ts, r, tc.found, tc.off, tc.at)
		}
	}
	if r := ask(wire.ConsumerReplicaID, wire.LatestTimestamp); !r.Found || r.Offset != 4 || r.Timestamp != -1 {
		t.Fatalf("latest: %+v", r)
	}
}
