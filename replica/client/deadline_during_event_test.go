package client

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// lateClock is a manual clock on which the work of one event of a
// producer takes time: after late(ms, p), the next reading made under p's
// lock (the start of an event) is the clock's, and every reading after it
// is ms further on — as on a loaded machine, where an event's work outlasts
// a deadline that event looked at. Timers stay on the manual clock's time,
// shifted alike, so a timer set for a moment already past runs at the next
// Advance.
type lateClock struct {
	*clock.Manual
	mu    sync.Mutex
	skew  int64
	armed int64
	by    *sync.Mutex // the lock the armed reading is made under
}

func (c *lateClock) late(ms int64, p *Producer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armed, c.by = ms, &p.mu
}

func (c *lateClock) NowMs() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.Manual.NowMs() + c.skew
	if c.by != nil && !c.by.TryLock() { // held: this reading is the producer's
		c.skew += c.armed
		c.armed, c.by = 0, nil
	} else if c.by != nil {
		c.by.Unlock()
	}
	return now
}

// A deadline that passes while the producer handles an event — a linger
// that ends, a backoff that ends, a delivery timeout that falls due, while
// it is still working on what it read the clock for — still wakes it. The
// producer looked at the deadline before it passed and found it not due;
// had it then left the deadline out of its next tick as already past, the
// batch would wait for the next unrelated event (in the worst case until
// its delivery timeout, or for ever for the delivery timeout itself).
func TestADeadlinePassedDuringAnEventStillWakesTheProducer(t *testing.T) {
	setup := func(t *testing.T, cfg ProducerConfig) (*fakeCluster, *lateClock, *Producer, TopicPartition) {
		fc := newFakeCluster(t, 1, 1)
		clk := &lateClock{Manual: clock.NewManual(1_000_000)}
		c, err := New(Config{Controller: fc.controller.addr(), Clock: clk, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		tp := TopicPartition{"t", 0}
		primeMetadata(t, c, tp)
		p, err := c.NewProducer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return fc, clk, p, tp
	}

	t.Run("the linger ends while the first record is handed over", func(t *testing.T) {
		fc, clk, p, tp := setup(t, ProducerConfig{Acks: AcksLeader, LingerMs: 5})
		clk.late(5, p) // produce reads the clock, then the linger is over
		out := produceAsync(t, p, tp, "v")
		clk.Advance(1)
		r := fc.brokers[1].next(t)
		r.answerProduce(t, wire.CodeNone, 7)
		if o := await(t, out); o.err != nil || o.off.Offset != 7 {
			t.Fatalf("%+v %v", o.off, o.err)
		}
	})

	t.Run("the backoff ends while the refusal is handled", func(t *testing.T) {
		fc, clk, p, tp := setup(t, ProducerConfig{Acks: AcksLeader})
		out := produceAsync(t, p, tp, "v")
		broker := fc.brokers[1]
		clk.late(500, p) // the answer reads the clock, then the backoff (at most 120 ms) is over
		broker.next(t).answerProduce(t, wire.CodeNotEnoughReplicas, 0)
		waitProducer(t, p, func() bool {
			part := p.parts[tp]
			return len(part.batches) == 1 && part.batches[0].state == stRetry
		})
		clk.Advance(1)
		broker.next(t).answerProduce(t, wire.CodeNone, 7)
		if o := await(t, out); o.err != nil || o.off.Offset != 7 {
			t.Fatalf("%+v %v", o.off, o.err)
		}
	})

	t.Run("the delivery timeout falls due while a tick handles the linger", func(t *testing.T) {
		// No leader: the batch waits, and only its delivery timeout,
		// one millisecond after its linger, can end it.
		fc, clk, p, tp := setup(t, ProducerConfig{Acks: AcksLeader, LingerMs: 10, AckTimeoutMs: 1, DeliveryTimeoutMs: 11})
		fc.setLeader(tp, wire.NoLeader, 1)
		waitLeaderless(t, p.c, clk, tp)
		out := produceAsync(t, p, tp, "v")
		clk.Advance(9)
		clk.late(5, p) // the linger's tick reads the clock, then the delivery timeout is over
		clk.Advance(1)
		clk.Advance(1)
		o := await(t, out)
		if !errors.Is(o.err, ErrDeliveryTimeout) {
			t.Fatalf("outcome %v, want ErrDeliveryTimeout", o.err)
		}
	})
}

// waitLeaderless refreshes the client's metadata until it knows tp has no
// leader.
func waitLeaderless(t *testing.T, c *Client, clk *lateClock, tp TopicPartition) {
	t.Helper()
	for range 100 {
		seen := c.meta.next()
		if _, _, _, err := c.meta.leader(tp); errors.Is(err, wire.ErrLeaderNotAvailable) {
			return
		}
		c.meta.refresh(tp.Topic)
		clk.Advance(c.cfg.RetryBackoffMs) // refreshes are that far apart
		select {
		case <-seen:
		case <-time.After(waitGuard):
			t.Fatalf("no metadata refresh within %s", waitGuard)
		}
	}
	t.Fatalf("the metadata still names a leader of %s", tp)
}
