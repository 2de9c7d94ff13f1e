package client

import (
	"context"
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// Close fails what is not acknowledged with ErrClosed, ends consumers'
// iterations with ErrClosed, and returns only once every goroutine the
// client started (connections' readers and writers, the producers'
// completers, timers' callbacks) has ended; later calls get ErrClosed.
func TestCloseReleasesEverything(t *testing.T) {
	fc := newFakeCluster(t, 2, 2)
	clk := clock.NewManual(0)
	c, err := New(Config{Controller: fc.controller.addr(), Clock: clk, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{LingerMs: 50})
	if err != nil {
		t.Fatal(err)
	}
	inFlight := produceAsync(t, p, tp, "in flight")
	clk.Advance(50)
	fc.brokers[1].next(t) // never answered
	lingering := produceAsync(t, p, TopicPartition{"t", 1}, "lingering")

	cons, err := c.NewConsumer(ConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	iterDone := make(chan error, 1)
	go func() {
		for _, err := range cons.Records(context.Background(), tp, FromOffset(0)) {
			if err != nil {
				iterDone <- err
				return
			}
		}
		iterDone <- nil
	}()
	fc.brokers[1].next(t) // its fetch, never answered

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]chan outcome{"in flight": inFlight, "lingering": lingering} {
		if o := await(t, ch); !errors.Is(o.err, ErrClosed) {
			t.Errorf("%s record: %v, want ErrClosed", name, o.err)
		}
	}
	if err := <-iterDone; !errors.Is(err, ErrClosed) {
		t.Errorf("consumer ended with %v, want ErrClosed", err)
	}
	noClientGoroutines(t)
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := p.ProduceAsync(Record{Topic: "t"}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("produce after Close: %v", err)
	}
	if _, err := c.NewProducer(ProducerConfig{}); !errors.Is(err, ErrClosed) {
		t.Errorf("NewProducer after Close: %v", err)
	}
	for _, err := range cons.Records(context.Background(), tp, FromStart()) {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Records after Close: %v", err)
		}
	}
	if clk.Pending() != 0 {
		t.Errorf("%d timers still pending on the clock", clk.Pending())
	}
}

// ProduceAsync refuses a record the buffer has no room for; Produce waits
// for the room instead. A record larger than MaxRecordBytes is refused
// with MESSAGE_TOO_LARGE's error.
func TestBufferBoundsWhatTheProducerHolds(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, MaxBufferedBytes: 100, MaxRecordBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 80)
	first := make(chan outcome, 1)
	if err := p.ProduceAsync(Record{Topic: "t", Value: big}, func(o Offset, err error) { first <- outcome{o, err} }); err != nil {
		t.Fatal(err)
	}
	if err := p.ProduceAsync(Record{Topic: "t", Value: big}, nil); !errors.Is(err, ErrBufferFull) {
		t.Fatalf("second 80-byte record in a 100-byte buffer: %v, want ErrBufferFull", err)
	}
	if err := p.ProduceAsync(Record{Topic: "t", Value: make([]byte, 200)}, nil); !errors.Is(err, wire.ErrMessageTooLarge) {
		t.Fatalf("record above MaxRecordBytes: %v", err)
	}
	if err := p.ProduceAsync(Record{Topic: "not a topic!"}, nil); !errors.Is(err, wire.ErrInvalidTopic) {
		t.Fatalf("invalid topic: %v", err)
	}
	second := make(chan outcome, 1)
	go func() {
		off, err := p.Produce(context.Background(), Record{Topic: "t", Value: big})
		second <- outcome{off, err}
	}()
	fc.brokers[1].next(t).answerProduce(t, wire.CodeNone, 0)
	if o := await(t, first); o.err != nil {
		t.Fatal(o.err)
	}
	fc.brokers[1].next(t).answerProduce(t, wire.CodeNone, 1)
	if o := await(t, second); o.err != nil || o.off.Offset != 1 {
		t.Fatalf("Produce that waited for room: %+v %v", o.off, o.err)
	}
}

// MaxRecordBytes holds for every record, whichever batch it joins: a record
// too large alone is refused even when an open batch has room for it, so
// whether it is taken never depends on the batch it happens to meet (Kafka
// checks each record against max.request.size).
func TestMaxRecordBytesHoldsInAnOpenBatch(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	c := newTestClient(t, fc, clock.NewManual(0))
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, LingerMs: 1000, BatchBytes: 4096, MaxRecordBytes: 300})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.ProduceAsync(Record{Topic: "t", Value: []byte("opens the batch")}, nil); err != nil {
		t.Fatal(err)
	}
	big := Record{Topic: "t", Value: make([]byte, 300)}
	if err := p.ProduceAsync(big, nil); !errors.Is(err, wire.ErrMessageTooLarge) {
		t.Fatalf("ProduceAsync of a record above MaxRecordBytes into an open batch: %v", err)
	}
	n, err := p.ProduceManyAsync([]Record{{Topic: "t", Value: []byte("fits")}, big}, nil)
	if n != 1 || !errors.Is(err, wire.ErrMessageTooLarge) {
		t.Fatalf("ProduceManyAsync took %d, %v; want 1 and a record too large", n, err)
	}
	// Just under the bound, alone, it is taken in the open batch.
	fits := Record{Topic: "t", Value: make([]byte, 300-61-9)}
	if err := p.ProduceAsync(fits, nil); err != nil {
		t.Fatalf("a record within MaxRecordBytes: %v", err)
	}
}
