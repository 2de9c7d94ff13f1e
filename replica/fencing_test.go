package replica_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A replica's refusals are Go errors that match their sentinel and carry
// their wire code: never a success-shaped zero value beside a code.
func TestRefusalsCarryTheirWireCode(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.st.MinISR = 2
	g.elect(1, 1) // ISR [1] under min ISR 2
	_, _, err := g.produce(wire.AcksAll, "x")
	if !errors.Is(err, wire.ErrNotEnoughReplicas) || wire.CodeOf(err) != wire.CodeNotEnoughReplicas {
		t.Fatalf("acks=all under min ISR: %v (code %v)", err, wire.CodeOf(err))
	}
	if g.r[1].LEO() != 0 {
		t.Fatalf("a refused acks=all wrote: LEO %d", g.r[1].LEO())
	}
	_, _, err = g.r[2].Produce(1, nil, wire.AcksLeader, 0, g.now)
	if !errors.Is(err, replica.ErrNotLeader) || !errors.Is(err, wire.ErrNotLeaderOrFollower) || wire.CodeOf(err) != wire.CodeNotLeaderOrFollower {
		t.Fatalf("produce to a follower: %v", err)
	}
	_, _, err = g.r[1].Produce(1, nil, 7, 0, g.now)
	if !errors.Is(err, wire.ErrInvalidRequiredAcks) {
		t.Fatalf("acks 7: %v", err)
	}
	_, _, err = g.r[1].Produce(1, zeroRecordBatch(), wire.AcksLeader, 0, g.now)
	if c := wire.CodeOf(err); c != wire.CodeInvalidRecord && c != wire.CodeCorruptMessage {
		t.Fatalf("a zero-record batch: %v (code %v), want INVALID_RECORD or CORRUPT_MESSAGE", err, c)
	}
}

// A follower's epoch answer or fetch response that arrives after it became
// leader (or moved to another epoch) is dropped, not an error.
func TestLateAnswersAreDropped(t *testing.T) {
	g := newGroup(t, replica.Options{Truncation: replica.TruncateByLeaderEpoch}, 1, 2)
	g.elect(1, 1, 2)
	g.produce(wire.AcksLeader, "a")
	g.elect(2, 1, 2) // broker 2 leads at epoch 2; broker 1 must ask about its epochs
	q, ok := g.r[1].NextEpochQuery(g.now)
	if !ok {
		t.Fatal("broker 1 asks nothing")
	}
	g.elect(1, 1, 2) // epoch 3: broker 1 leads again before the answer comes back
	answer := wire.OffsetsForLeaderEpochPartitionResponse{EpochEndOffset: wire.EpochEndOffset{Epoch: 1, EndOffset: 0}, Found: true}
	if err := g.r[1].ApplyEpochAnswer(&q, &answer, g.now); err != nil {
		t.Fatalf("a late epoch answer: %v", err)
	}
	if g.r[1].LEO() != 1 {
		t.Fatalf("a late epoch answer truncated the new leader to %d", g.r[1].LEO())
	}
	stale := wire.FetchPartition{CurrentLeaderEpoch: 2, FetchOffset: g.r[2].LEO(), LastFetchedEpoch: wire.NoEpoch}
	resp := wire.FetchPartitionResponse{HasDivergingEpoch: true, DivergingEpoch: wire.EpochEndOffset{Epoch: 0, EndOffset: 0}}
	if n, err := g.r[2].ApplyFetch(&stale, &resp, g.now); n != 0 || err != nil {
		t.Fatalf("a late fetch response: %d, %v", n, err)
	}
}

// zeroRecordBatch is a well-framed batch with a valid CRC and no records:
// the header alone.
func zeroRecordBatch() []byte {
	b, _ := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: []log.Record{{Value: []byte("x")}}})
	b = b[:log.BatchHeaderSize]
	binary.BigEndian.PutUint32(b[8:12], uint32(log.BatchHeaderSize-log.BatchLogOverhead))
	binary.BigEndian.PutUint32(b[57:61], 0)
	binary.BigEndian.PutUint32(b[17:21], log.ChecksumCRC32C(b[21:]))
	return b
}
