package replica_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// Epoch is checked before role, as Kafka does (Partition.fetchRecords,
// lastOffsetForLeaderEpoch): a follower at epoch 5 asked with epoch 4
// answers FENCED_LEADER_EPOCH, with 6 UNKNOWN_LEADER_EPOCH, and only at 5
// NOT_LEADER_OR_FOLLOWER.
func TestEpochIsCheckedBeforeRole(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	for range 5 {
		g.elect(1, 1, 2)
	}
	if g.st.LeaderEpoch != 5 {
		t.Fatalf("epoch %d, want 5", g.st.LeaderEpoch)
	}
	follower := g.r[2]
	for _, c := range []struct {
		epoch int32
		want  error
	}{
		{4, wire.ErrFencedLeaderEpoch},
		{6, wire.ErrUnknownLeaderEpoch},
		{5, wire.ErrNotLeaderOrFollower},
		{wire.NoEpoch, wire.ErrNotLeaderOrFollower},
	} {
		p := wire.FetchPartition{CurrentLeaderEpoch: c.epoch, LastFetchedEpoch: wire.NoEpoch}
		resp, _, err := follower.HandleFetch(replica.FetchFrom{ReplicaID: 3, ReplicaEpoch: -1}, &p, 1<<20, nil, g.now)
		if !errors.Is(err, c.want) || resp.ErrorCode != wire.CodeOf(c.want) {
			t.Errorf("fetch at epoch %d: err %v code %v, want %v", c.epoch, err, resp.ErrorCode, c.want)
		}
		q := wire.OffsetsForLeaderEpochPartition{CurrentLeaderEpoch: c.epoch, LeaderEpoch: 0}
		qr, err := follower.HandleOffsetsForLeaderEpoch(&q)
		if !errors.Is(err, c.want) || qr.ErrorCode != wire.CodeOf(c.want) {
			t.Errorf("offsets question at epoch %d: err %v code %v, want %v", c.epoch, err, qr.ErrorCode, c.want)
		}
	}
	// A refusal by a follower names the leader, so the asker goes there.
	p := wire.FetchPartition{CurrentLeaderEpoch: 5, LastFetchedEpoch: wire.NoEpoch}
	resp, _, _ := follower.HandleFetch(replica.FetchFrom{ReplicaID: -1, ReplicaEpoch: -1}, &p, 1<<20, nil, g.now)
	if !resp.HasCurrentLeader || resp.CurrentLeader != (wire.LeaderAndEpoch{LeaderID: 1, LeaderEpoch: 5}) {
		t.Errorf("refusal carries current leader %v %+v, want 1 at 5", resp.HasCurrentLeader, resp.CurrentLeader)
	}
}

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

// A stale partition state — an older leader epoch, or the same epoch with
// an older partition epoch, or a new leader at the same epoch — is refused
// and changes nothing.
func TestStaleStatesAreRefused(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	g.elect(2, 1, 2) // epoch 2: broker 2 leads
	old := replica.PartitionState{Leader: 1, LeaderEpoch: 1, PartitionEpoch: 1, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, MinISR: 1}
	if err := g.r[1].BecomeLeader(old, g.now); !errors.Is(err, replica.ErrStaleEpoch) {
		t.Fatalf("an older epoch: %v", err)
	}
	sameEpochOtherLeader := g.st
	sameEpochOtherLeader.Leader, sameEpochOtherLeader.PartitionEpoch = 1, g.st.PartitionEpoch+1
	if err := g.r[1].BecomeLeader(sameEpochOtherLeader, g.now); !errors.Is(err, replica.ErrStaleEpoch) {
		t.Fatalf("a new leader at the same epoch: %v", err)
	}
	if g.r[1].Role() != replica.RoleFollower || g.r[1].LeaderID() != 2 {
		t.Fatalf("broker 1 is %v of %d", g.r[1].Role(), g.r[1].LeaderID())
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
