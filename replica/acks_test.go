package replica_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// acks=all is Kafka's produce purgatory as plain state: the write is
// appended, parked, and answered when the high watermark passes it.
func TestAcksAllWaitsForTheHighWatermark(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.st.MinISR = 2
	g.elect(1, 1, 2)
	res, parked, err := g.produce(wire.AcksAll, "a", "b")
	if err != nil || !parked || res.BaseOffset != 0 || res.NextOffset != 2 {
		t.Fatalf("acks=all: %+v parked %v err %v; want offsets [0, 2) parked", res, parked, err)
	}
	if out := g.r[1].TakeProduceOutcomes(); len(out) != 0 {
		t.Fatalf("answered before any follower had the records: %+v", out)
	}
	g.fetch(2) // ships the records; the leader's HW still 0
	if out := g.r[1].TakeProduceOutcomes(); len(out) != 0 {
		t.Fatalf("answered when the follower had the records but the leader did not know: %+v", out)
	}
	g.fetch(2) // carries LEO 2: the HW passes the write
	out := g.r[1].TakeProduceOutcomes()
	if len(out) != 1 || out[0].Err != nil || out[0].Result != res || out[0].Ref != 2 {
		t.Fatalf("outcome %+v, want one success for ref 2", out)
	}
}

// acks=0 and acks=1 are done when the append returns; they never park.
func TestAcksZeroAndOneDoNotWait(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	for _, acks := range []int16{wire.AcksNone, wire.AcksLeader} {
		if _, parked, err := g.produce(acks, "x"); err != nil || parked {
			t.Fatalf("acks=%d: parked %v err %v", acks, parked, err)
		}
	}
	if g.r[1].HighWatermark() != 0 {
		t.Fatalf("HW %d before the follower fetched", g.r[1].HighWatermark())
	}
}

// A parked produce ends with REQUEST_TIMED_OUT at its deadline on the
// handed clock.
func TestAcksAllTimesOut(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	if _, parked, _ := g.produce(wire.AcksAll, "x"); !parked {
		t.Fatal("not parked")
	}
	l := g.r[1]
	// Timed work: the ISR check every lag/2, then the produce's deadline.
	if next := l.NextTickMs(); next != g.now+15_000 {
		t.Fatalf("NextTickMs %d, want the ISR check at %d", next, g.now+15_000)
	}
	l.Tick(g.now + 15_000)
	if next := l.NextTickMs(); next != g.now+30_000 {
		t.Fatalf("NextTickMs %d, want the deadline %d", next, g.now+30_000)
	}
	l.Tick(g.now + 29_999)
	if out := l.TakeProduceOutcomes(); len(out) != 0 {
		t.Fatalf("expired early: %+v", out)
	}
	l.Tick(g.now + 30_000)
	out := l.TakeProduceOutcomes()
	if len(out) != 1 || !errors.Is(out[0].Err, wire.ErrRequestTimedOut) {
		t.Fatalf("outcome %+v, want REQUEST_TIMED_OUT", out)
	}
}

// When the committed ISR falls under min.insync.replicas after the append,
// the high watermark freezes (KIP-966) and the parked produce ends with
// NOT_ENOUGH_REPLICAS_AFTER_APPEND (20): written, not committed.
func TestAcksAllAfterTheISRShrinks(t *testing.T) {
	g := newGroup(t, replica.Options{LagMaxMs: 1000}, 1, 2)
	g.st.MinISR = 2
	g.elect(1, 1, 2)
	if _, parked, _ := g.produce(wire.AcksAll, "x"); !parked {
		t.Fatal("not parked")
	}
	g.now += 1001
	g.r[1].CheckISR(g.now)
	if _, ok := g.alter(); !ok {
		t.Fatal("the leader proposed no shrink")
	}
	out := g.r[1].TakeProduceOutcomes()
	if len(out) != 1 || !errors.Is(out[0].Err, wire.ErrNotEnoughReplicasAfterAppend) {
		t.Fatalf("outcome %+v, want NOT_ENOUGH_REPLICAS_AFTER_APPEND", out)
	}
	if g.r[1].HighWatermark() != 0 {
		t.Fatalf("HW moved to %d under min ISR", g.r[1].HighWatermark())
	}
}

// A leader that stops leading ends its parked produces with
// NOT_LEADER_OR_FOLLOWER: it can no longer tell when they commit.
func TestParkedProducesEndWhenLeadershipDoes(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	g.produce(wire.AcksAll, "x")
	g.elect(2, 1, 2)
	out := g.r[1].TakeProduceOutcomes()
	if len(out) != 1 || !errors.Is(out[0].Err, wire.ErrNotLeaderOrFollower) {
		t.Fatalf("outcome %+v, want NOT_LEADER_OR_FOLLOWER", out)
	}
}
