package client

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// The backoff is Kafka's: 100, 200, 400, 800 ms then 1000, each within
// ±20% and never above the maximum, from a seeded source (the same seed
// gives the same waits).
func TestBackoffGrowsExponentiallyWithJitterToItsMaximum(t *testing.T) {
	bounds := [][2]int64{{80, 120}, {160, 240}, {320, 480}, {640, 960}, {800, 1000}, {800, 1000}, {800, 1000}}
	a, b, other := newBackoff(100, 1000, 7), newBackoff(100, 1000, 7), newBackoff(100, 1000, 8)
	differ := false
	for n := range 200 {
		attempt := n % len(bounds)
		d := a.delayMs(attempt)
		if lo, hi := bounds[attempt][0], bounds[attempt][1]; d < lo || d > hi {
			t.Errorf("retry %d waits %d ms, want [%d, %d]", attempt, d, lo, hi)
		}
		if e := b.delayMs(attempt); e != d {
			t.Fatalf("seed 7 gave %d then %d for retry %d: not replayable", d, e, attempt)
		}
		differ = differ || other.delayMs(attempt) != d
	}
	if !differ {
		t.Error("seeds 7 and 8 gave the same waits: the seed is not used")
	}
	if d := newBackoff(500, 500, 1).delayMs(3); d != 500 {
		t.Errorf("a backoff whose maximum is its start waits %d, want 500", d)
	}
}

// A batch refused with a retriable code is sent again only once its
// partition's backoff has passed on the client's clock.
func TestRetryWaitsForTheBackoff(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader})
	if err != nil {
		t.Fatal(err)
	}
	out := produceAsync(t, p, tp, "v")
	broker := fc.brokers[1]
	for attempt := range 5 {
		r := broker.next(t)
		r.answerProduce(t, wire.CodeNotEnoughReplicas, 0)
		var due int64
		waitProducer(t, p, func() bool {
			part := p.parts[tp]
			due = part.retryAt
			return len(part.batches) == 1 && part.batches[0].state == stRetry
		})
		wait := due - clk.NowMs()
		if lo, hi := int64(80)<<attempt, int64(120)<<attempt; wait < min(lo, 800) || wait > min(hi, 1000) {
			t.Errorf("retry %d after %d ms", attempt, wait)
		}
		clk.Advance(wait - 1)
		inPartition(p, tp, func(part *partition) {
			if part.batches[0].state != stRetry {
				t.Fatalf("retry %d sent %d ms early", attempt, 1)
			}
		})
		clk.Advance(1)
	}
	broker.next(t).answerProduce(t, wire.CodeNone, 5)
	if o := await(t, out); o.err != nil || o.off.Offset != 5 {
		t.Fatalf("%+v %v", o.off, o.err)
	}
}
