package client

import (
	"context"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// Flush returns only once every record handed over before it has had its
// done called — also a record whose batch the broker already answered but
// whose outcome still waits behind earlier callbacks (the completer calls
// them one after the other), which no batch of the producer holds any
// more.
func TestFlushWaitsForOutcomesAlreadyDecided(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	c := newTestClient(t, fc, clock.NewManual(0))
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader})
	if err != nil {
		t.Fatal(err)
	}
	// a's callback holds the completer until released.
	started, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	defer unblock()
	if err := p.ProduceAsync(Record{Topic: "t", Value: []byte("a")}, func(Offset, error) {
		close(started)
		<-release
	}); err != nil {
		t.Fatal(err)
	}
	fc.brokers[1].next(t).answerProduce(t, wire.CodeNone, 0)
	<-started
	bDone := make(chan struct{})
	if err := p.ProduceAsync(Record{Topic: "t", Value: []byte("b")}, func(Offset, error) { close(bDone) }); err != nil {
		t.Fatal(err)
	}
	fc.brokers[1].next(t).answerProduce(t, wire.CodeNone, 1)
	// b's batch is answered: it has left the producer's batches, and its
	// outcome waits behind a's callback.
	waitProducer(t, p, func() bool { return len(p.parts[tp].batches) == 0 && p.parts[tp].open == nil && p.buffered == 0 })

	// Flush, while a's callback still runs: it must not return before b's
	// done is called.
	p.mu.Lock()
	flushing := p.nextEvent() // Flush's own event
	p.mu.Unlock()
	type result struct {
		err   error
		bDone bool
	}
	flushed := make(chan result, 1)
	go func() {
		err := p.Flush(context.Background())
		select {
		case <-bDone:
			flushed <- result{err, true}
		default:
			flushed <- result{err, false}
		}
	}()
	var r result
	select {
	case r = <-flushed:
	case <-flushing:
		unblock()
		r = <-flushed
	}
	if r.err != nil || !r.bDone {
		t.Fatalf("Flush returned %v with b's done called: %v", r.err, r.bDone)
	}
}

// A callback may call Flush when nothing else is pending: it returns at
// once rather than wait for the completer that runs the callback itself.
func TestFlushFromACallbackWithNothingPending(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	c := newTestClient(t, fc, clock.NewManual(0))
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader})
	if err != nil {
		t.Fatal(err)
	}
	flushed := make(chan error, 1)
	if err := p.ProduceAsync(Record{Topic: "t", Value: []byte("a")}, func(Offset, error) {
		ctx, cancel := context.WithTimeout(context.Background(), waitGuard)
		defer cancel()
		flushed <- p.Flush(ctx)
	}); err != nil {
		t.Fatal(err)
	}
	fc.brokers[1].next(t).answerProduce(t, wire.CodeNone, 0)
	if err := <-flushed; err != nil {
		t.Fatalf("Flush from a callback: %v", err)
	}
}
