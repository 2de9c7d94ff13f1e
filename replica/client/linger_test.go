package client

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A batch waits LingerMs after its first record for more, on the client's
// clock, then goes as one RecordBatch.
func TestLingerGathersRecordsUntilItEnds(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(1_000_000)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, LingerMs: 10})
	if err != nil {
		t.Fatal(err)
	}
	a := produceAsync(t, p, tp, "a")
	clk.Advance(9)
	b := produceAsync(t, p, tp, "b")
	cc := produceAsync(t, p, tp, "c")
	clk.Advance(1)

	r := fc.brokers[1].next(t)
	req := r.produce(t)
	if req.Acks != wire.AcksLeader || len(req.Partitions) != 1 {
		t.Fatalf("acks %d, %d partitions", req.Acks, len(req.Partitions))
	}
	batch := batchOf(t, req.Partitions[0])
	if got := values(batch); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("batch holds %q, want a b c: the linger did not wait", got)
	}
	if batch.BaseTimestamp != 1_000_000 || batch.MaxTimestamp != 1_000_009 {
		t.Errorf("timestamps %d..%d, want the clock's 1000000..1000009", batch.BaseTimestamp, batch.MaxTimestamp)
	}
	if batch.ProducerID != -1 || batch.BaseSequence != -1 {
		t.Errorf("acks=1 batch has producer %d sequence %d, want none", batch.ProducerID, batch.BaseSequence)
	}
	r.answerProduce(t, wire.CodeNone, 40)
	for i, ch := range []chan outcome{a, b, cc} {
		o := await(t, ch)
		if o.err != nil || !o.off.HasOffset || o.off.Offset != uint64(40+i) || o.off.Topic != "t" || o.off.Partition != 0 {
			t.Errorf("record %d: %+v %v, want offset %d", i, o.off, o.err, 40+i)
		}
	}
}

// A batch that reaches BatchBytes goes at once, whatever the linger. The
// linger stays below the request timeout: a jump of the manual clock past it
// could otherwise catch a connection's writer between finishing a write and
// clearing its deadline, and fail a healthy connection.
func TestFullBatchGoesBeforeLinger(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	// 61 bytes of header, then records of 47 bytes (40 of value, 7 of
	// framing): three fill 202 bytes.
	const batchBytes = 61 + 3*47
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, LingerMs: 20_000, BatchBytes: batchBytes, DeliveryTimeoutMs: 200_000})
	if err != nil {
		t.Fatal(err)
	}
	value := string(make([]byte, 40))
	var outs []chan outcome
	for range 10 {
		outs = append(outs, produceAsync(t, p, tp, value))
	}
	var offsets uint64
	for want := 3; offsets < 9; {
		r := fc.brokers[1].next(t)
		part := r.produce(t).Partitions[0]
		if len(part.Records) > batchBytes {
			t.Fatalf("batch of %d bytes, above BatchBytes %d", len(part.Records), batchBytes)
		}
		if n := len(batchOf(t, part).Records); n != want {
			t.Fatalf("full batch of %d records, want %d", n, want)
		}
		r.answerProduce(t, wire.CodeNone, offsets)
		for i := offsets; i < offsets+uint64(want); i++ {
			if o := await(t, outs[i]); o.err != nil || o.off.Offset != i {
				t.Errorf("record %d: %+v %v", i, o.off, o.err)
			}
		}
		offsets += uint64(want)
	}
	fc.brokers[1].none(t)
	clk.Advance(20_000) // the tenth record's linger
	r := fc.brokers[1].next(t)
	if n := len(batchOf(t, r.produce(t).Partitions[0]).Records); n != 1 {
		t.Fatalf("last batch of %d records, want 1", n)
	}
	r.answerProduce(t, wire.CodeNone, 9)
	if o := await(t, outs[9]); o.err != nil || o.off.Offset != 9 {
		t.Errorf("record 9: %+v %v", o.off, o.err)
	}
}
