package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// fullProducer returns a producer whose buffer one record in flight
// fills, and that record's request, held by the fake broker.
func fullProducer(t *testing.T, maxBlockMs int64) (*Producer, *clock.Manual, *fakeReq, chan outcome, chan struct{}) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, MaxBufferedBytes: 100, MaxBlockMs: maxBlockMs})
	if err != nil {
		t.Fatal(err)
	}
	blocked := make(chan struct{}, 1)
	p.onBlock = func() { blocked <- struct{}{} }
	first := produceAsync(t, p, tp, string(make([]byte, 80)))
	r := fc.brokers[1].next(t)
	return p, clk, r, first, blocked
}

// ProduceAsync never waits: with the buffer full it returns ErrBufferFull
// at once. Send waits for room as Kafka's send() does, up to MaxBlockMs on
// the client's clock, then returns ErrBufferFull; a Send that finds room
// in time hands its record over.
func TestSendWaitsForRoomUpToMaxBlockMs(t *testing.T) {
	tp := TopicPartition{"t", 0}
	rec := Record{Topic: tp.Topic, Value: make([]byte, 80)}

	t.Run("ProduceAsync does not wait", func(t *testing.T) {
		p, _, _, _, _ := fullProducer(t, 0)
		if err := p.ProduceAsync(rec, nil); err != ErrBufferFull {
			t.Fatalf("ProduceAsync on a full buffer: %v, want ErrBufferFull", err)
		}
		if n, err := p.ProduceManyAsync([]Record{rec}, nil); n != 0 || err != ErrBufferFull {
			t.Fatalf("ProduceManyAsync on a full buffer: %d, %v; want 0, ErrBufferFull", n, err)
		}
	})
	t.Run("Send gives up after MaxBlockMs", func(t *testing.T) {
		const maxBlock = 5000
		p, clk, _, _, blocked := fullProducer(t, maxBlock)
		sent := make(chan error, 1)
		go func() { sent <- p.Send(context.Background(), rec, nil) }()
		awaitSignal(t, blocked, "Send to wait for room")
		clk.Advance(maxBlock - 1)
		select {
		case err := <-sent:
			t.Fatalf("Send returned before MaxBlockMs: %v", err)
		default:
		}
		clk.Advance(1)
		select {
		case err := <-sent:
			if !errors.Is(err, ErrBufferFull) {
				t.Fatalf("Send after MaxBlockMs: %v, want ErrBufferFull", err)
			}
			t.Logf("%v", err)
		case <-time.After(waitGuard):
			t.Fatal("Send still waits after MaxBlockMs")
		}
	})
	t.Run("Send takes the room that frees up", func(t *testing.T) {
		p, _, r, first, blocked := fullProducer(t, 0)
		done := make(chan outcome, 1)
		sent := make(chan error, 1)
		go func() {
			sent <- p.Send(context.Background(), rec, func(off Offset, err error) { done <- outcome{off, err} })
		}()
		awaitSignal(t, blocked, "Send to wait for room")
		r.answerProduce(t, wire.CodeNone, 0)
		if o := await(t, first); o.err != nil {
			t.Fatal(o.err)
		}
		select {
		case err := <-sent:
			if err != nil {
				t.Fatalf("Send once room freed: %v", err)
			}
		case <-time.After(waitGuard):
			t.Fatal("Send still waits with room free")
		}
	})
	t.Run("Send ends with its context", func(t *testing.T) {
		p, _, _, _, blocked := fullProducer(t, 0)
		ctx, cancel := context.WithCancel(context.Background())
		sent := make(chan error, 1)
		go func() { sent <- p.Send(ctx, rec, nil) }()
		awaitSignal(t, blocked, "Send to wait for room")
		cancel()
		if err := <-sent; err != context.Canceled {
			t.Fatalf("Send after cancel: %v", err)
		}
	})
}

// awaitSignal waits for a signal on ch, saying what it waited for.
func awaitSignal(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitGuard):
		t.Fatalf("still waiting, after %s, for %s", waitGuard, what)
	}
}
