package client

import (
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A produce request carries at most MaxRecordBytes of batches (Kafka's
// max.request.size bounds the request, not only a record), unless it
// carries one batch alone: a leader of many partitions otherwise gets one
// batch of each in one request, which can pass the frame limit it accepts
// (found by review: with a 256 KiB limit, a request of 8 batches of 60
// KiB, 492,226 bytes). The broker then closes the connection, and every
// request in flight on it fails with it: retried, and with acks=1 written
// twice when it had been appended.
func TestProduceRequestsAreBoundedByMaxRecordBytes(t *testing.T) {
	const parts, limit = 8, 64 << 10
	fc := newFakeCluster(t, 1, parts)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	for i := range int32(parts) {
		primeMetadata(t, c, TopicPartition{"t", i})
	}
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, LingerMs: 10, BatchBytes: 32 << 10, MaxRecordBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	var outs []chan outcome
	for i := range int32(parts) {
		outs = append(outs, produceAsync(t, p, TopicPartition{"t", i}, strings.Repeat("x", 30<<10)))
	}
	clk.Advance(10) // every partition's batch is ready at once
	var base uint64
	for sent := 0; sent < parts; {
		r := fc.brokers[1].next(t)
		req := r.produce(t)
		size := 0
		for _, pp := range req.Partitions {
			size += len(pp.Records)
		}
		if len(req.Partitions) > 1 && size > limit {
			t.Fatalf("a produce request of %d batches, %d bytes, above MaxRecordBytes %d", len(req.Partitions), size, limit)
		}
		sent += len(req.Partitions)
		r.answerProduce(t, wire.CodeNone, base)
		base++
	}
	for _, ch := range outs {
		if o := await(t, ch); o.err != nil {
			t.Fatal(o.err)
		}
	}
}
