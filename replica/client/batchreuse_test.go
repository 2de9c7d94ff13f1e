package client

import (
	"runtime"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A batch the broker answered gives its buffer to the next batch; spares
// are kept up to MaxBufferedBytes of BatchBytes buffers, and a buffer of
// another size (a record larger than BatchBytes) goes back to the pool.
func TestAnsweredBatchBuffersAreReused(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, BatchBytes: 1024, MaxBufferedBytes: 2 * 1024})
	if err != nil {
		t.Fatal(err)
	}
	first := produceAsync(t, p, tp, "a")
	var buf *byte
	inPartition(p, tp, func(part *partition) { buf = &part.batches[0].buf[0] })
	fc.brokers[1].next(t).answerProduce(t, wire.CodeNone, 0)
	await(t, first)
	// The completer gives the batch back right after the callbacks, on
	// its own goroutine, which is no event of the producer's: yield until
	// it has, a bounded number of times.
	for i := 0; ; i++ {
		p.spareMu.Lock()
		n := len(p.spares)
		p.spareMu.Unlock()
		if n == 1 {
			break
		}
		if i == 100000 {
			t.Fatalf("%d spares after the answer, want 1", n)
		}
		runtime.Gosched()
	}
	second := produceAsync(t, p, tp, "b")
	inPartition(p, tp, func(part *partition) {
		if got := &part.batches[0].buf[0]; got != buf {
			t.Error("the second batch did not take the answered batch's buffer")
		}
	})
	r := fc.brokers[1].next(t)
	if got := values(batchOf(t, r.produce(t).Partitions[0])); len(got) != 1 || got[0] != "b" {
		t.Fatalf("reused batch holds %q, want b alone", got)
	}
	r.answerProduce(t, wire.CodeNone, 1)
	await(t, second)

	p.spareMu.Lock()
	for _, b := range p.spares {
		b.buf = b.buf[:0]
	}
	p.spareMu.Unlock()
	for range 3 {
		p.recycle(&batch{buf: make([]byte, 0, 1024)})
	}
	p.recycle(&batch{buf: make([]byte, 0, 4096)})
	p.spareMu.Lock()
	defer p.spareMu.Unlock()
	if len(p.spares) != 2 {
		t.Errorf("%d spares, want 2: MaxBufferedBytes of 1024-byte buffers", len(p.spares))
	}
	for _, b := range p.spares {
		if cap(b.buf) != 1024 {
			t.Errorf("a spare of %d bytes, want only BatchBytes", cap(b.buf))
		}
	}
}
