package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// encodeBatch returns a stored batch at base holding values, as a leader
// at epoch would have written it.
func encodeBatch(t *testing.T, base uint64, epoch int32, vals ...string) []byte {
	t.Helper()
	b := log.Batch{BaseOffset: base, PartitionLeaderEpoch: epoch, BaseTimestamp: 5000, MaxTimestamp: 5000 + int64(len(vals)) - 1, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}
	for i, v := range vals {
		b.Records = append(b.Records, log.Record{OffsetDelta: int32(i), TimestampDelta: int64(i), Value: []byte(v)})
	}
	out, err := log.AppendBatch(nil, &b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// consumed is one pair a consumer's iteration yielded.
type consumed struct {
	rec Record
	err error
}

// consume runs an iteration in a goroutine, handing over what it yields
// until it has yielded n records (then it stops) or an error.
func consume(cons *Consumer, ctx context.Context, tp TopicPartition, from Position, n int) chan consumed {
	ch := make(chan consumed, 100)
	go func() {
		defer close(ch)
		got := 0
		for rec, err := range cons.Records(ctx, tp, from) {
			ch <- consumed{rec, err}
			if got++; err != nil || got == n {
				return
			}
		}
	}()
	return ch
}

// take returns the iteration's next pair.
func take(t *testing.T, ch chan consumed) consumed {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(waitGuard):
		t.Fatal("the consumer yielded nothing")
		return consumed{}
	}
}

// fetchReq returns r as a fetch, checked to be a consumer's for tp.
func fetchReq(t *testing.T, r *fakeReq, tp TopicPartition) (*wire.FetchRequest, *wire.FetchPartition) {
	t.Helper()
	m, ok := r.msg.(*wire.FetchRequest)
	if !ok || len(m.Partitions) != 1 || m.Partitions[0].Topic != tp.Topic || m.Partitions[0].Partition != tp.Partition {
		t.Fatalf("request %+v, want a fetch of %s", r.msg, tp)
	}
	if m.ReplicaID != wire.ConsumerReplicaID {
		t.Fatalf("fetch from replica %d, want a consumer's -1", m.ReplicaID)
	}
	return m, &m.Partitions[0]
}

// A consumer starts where ListOffsets says, long-polls (MaxWaitMs,
// MinBytes), skips the records of a batch below its position, never shows
// a record at or above the high watermark, and yields each record once
// with its absolute offset.
func TestConsumerReadsCommittedRecordsFromItsPosition(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	c := newTestClient(t, fc, clock.NewManual(0))
	cons, err := c.NewConsumer(ConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{"t", 0}
	ch := consume(cons, context.Background(), tp, FromStart(), 6)
	broker := fc.brokers[1]

	r := broker.next(t)
	lo, ok := r.msg.(*wire.ListOffsetsRequest)
	if !ok || lo.ReplicaID != wire.ConsumerReplicaID || lo.Partitions[0].Timestamp != wire.EarliestTimestamp {
		t.Fatalf("first request %+v, want ListOffsets for the earliest offset", r.msg)
	}
	r.reply(&wire.ListOffsetsResponse{Partitions: []wire.ListOffsetsPartitionResponse{{Topic: "t", Partition: 0, Offset: 9, Timestamp: -1, Found: true}}})

	r = broker.next(t)
	f, fp := fetchReq(t, r, tp)
	if fp.FetchOffset != 9 || f.MaxWaitMs != DefaultMaxWaitMs || f.MinBytes != DefaultMinBytes || fp.CurrentLeaderEpoch != 0 {
		t.Fatalf("fetch %+v %+v", f, fp)
	}
	records := append(encodeBatch(t, 8, 0, "a", "b", "c"), encodeBatch(t, 11, 0, "d", "e", "f")...)
	r.reply(&wire.FetchResponse{Partitions: []wire.FetchPartitionResponse{{Topic: "t", Partition: 0, HighWatermark: 13, Records: records}}})

	var got []string
	for range 4 {
		c := take(t, ch)
		if c.err != nil {
			t.Fatal(c.err)
		}
		got = append(got, fmt.Sprintf("%d:%s", c.rec.Offset, c.rec.Value))
	}
	if want := []string{"9:b", "10:c", "11:d", "12:e"}; !slices.Equal(got, want) {
		t.Fatalf("yielded %v, want %v", got, want)
	}
	r = broker.next(t)
	if _, fp := fetchReq(t, r, tp); fp.FetchOffset != 13 {
		t.Fatalf("next fetch from %d, want 13", fp.FetchOffset)
	}
	r.reply(&wire.FetchResponse{Partitions: []wire.FetchPartitionResponse{{Topic: "t", Partition: 0, HighWatermark: 15, Records: records}}})
	for _, want := range []string{"13:f"} {
		if c := take(t, ch); c.err != nil || fmt.Sprintf("%d:%s", c.rec.Offset, c.rec.Value) != want || c.rec.TimestampMs != 5002 {
			t.Fatalf("yielded %+v %v, want %s at 5002", c.rec, c.err, want)
		}
	}
}

// OFFSET_OUT_OF_RANGE ends the iteration with an *OffsetOutOfRangeError
// that says where the partition starts and ends; the client does not move
// the position by itself.
func TestConsumerOffsetOutOfRangeIsTheCallersError(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	c := newTestClient(t, fc, clock.NewManual(0))
	cons, _ := c.NewConsumer(ConsumerConfig{})
	tp := TopicPartition{"t", 0}
	ch := consume(cons, context.Background(), tp, FromOffset(100), 1)
	r := fc.brokers[1].next(t)
	fetchReq(t, r, tp)
	r.reply(&wire.FetchResponse{Partitions: []wire.FetchPartitionResponse{{Topic: "t", Partition: 0, ErrorCode: wire.CodeOffsetOutOfRange, LogStartOffset: 10, HighWatermark: 42}}})
	got := take(t, ch)
	var oor *OffsetOutOfRangeError
	if !errors.As(got.err, &oor) || !errors.Is(got.err, wire.ErrOffsetOutOfRange) {
		t.Fatalf("%v, want an *OffsetOutOfRangeError", got.err)
	}
	if *oor != (OffsetOutOfRangeError{TopicPartition: tp, Offset: 100, LogStartOffset: 10, HighWatermark: 42}) {
		t.Fatalf("%+v", *oor)
	}
	if _, open := <-ch; open {
		t.Fatal("the iteration went on after its error")
	}
}

// A batch whose CRC does not verify ends the iteration with an error
// matching CORRUPT_MESSAGE and the log's own.
func TestConsumerVerifiesBatches(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	c := newTestClient(t, fc, clock.NewManual(0))
	cons, _ := c.NewConsumer(ConsumerConfig{})
	tp := TopicPartition{"t", 0}
	ch := consume(cons, context.Background(), tp, FromOffset(0), 1)
	records := encodeBatch(t, 0, 0, "a")
	records[len(records)-1] ^= 1
	fc.brokers[1].next(t).reply(&wire.FetchResponse{Partitions: []wire.FetchPartitionResponse{{Topic: "t", Partition: 0, HighWatermark: 1, Records: records}}})
	if got := take(t, ch); !errors.Is(got.err, wire.ErrCorruptMessage) || !errors.Is(got.err, log.ErrBadCRC) {
		t.Fatalf("%v, want CORRUPT_MESSAGE and a bad CRC", got.err)
	}
}

// NOT_LEADER_OR_FOLLOWER with the new leader in CurrentLeader (KIP-951):
// the consumer backs off on the client's clock, then fetches from the new
// leader at its epoch — even though the controller's answer, still on the
// old epoch, arrives meanwhile: older metadata never replaces newer.
func TestConsumerFollowsTheLeader(t *testing.T) {
	fc := newFakeCluster(t, 2, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	sleeps := make(chan int64, 10)
	c.onSleep = func(ms int64) { sleeps <- ms }
	cons, _ := c.NewConsumer(ConsumerConfig{})
	tp := TopicPartition{"t", 0}
	ch := consume(cons, context.Background(), tp, FromOffset(5), 1)
	r := fc.brokers[1].next(t)
	fetchReq(t, r, tp)
	r.reply(&wire.FetchResponse{Partitions: []wire.FetchPartitionResponse{{Topic: "t", Partition: 0, ErrorCode: wire.CodeNotLeaderOrFollower,
		HasCurrentLeader: true, CurrentLeader: wire.LeaderAndEpoch{LeaderID: 2, LeaderEpoch: 1}}}})
	select {
	case ms := <-sleeps:
		clk.Advance(ms)
	case <-time.After(waitGuard):
		t.Fatal("no backoff")
	}
	r = fc.brokers[2].next(t)
	if _, fp := fetchReq(t, r, tp); fp.FetchOffset != 5 || fp.CurrentLeaderEpoch != 1 {
		t.Fatalf("fetch from broker 2: %+v", fp)
	}
	r.reply(&wire.FetchResponse{Partitions: []wire.FetchPartitionResponse{{Topic: "t", Partition: 0, HighWatermark: 6, Records: encodeBatch(t, 5, 1, "x")}}})
	if got := take(t, ch); got.err != nil || got.rec.Offset != 5 || got.rec.LeaderEpoch != 1 {
		t.Fatalf("%+v %v", got.rec, got.err)
	}
}
