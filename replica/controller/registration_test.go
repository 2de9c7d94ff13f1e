package controller

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// A registration starts fenced; the broker is unfenced by the first
// heartbeat showing it has applied its own registration record (KRaft's
// rule: currentMetadataOffset >= the record's offset, here an end offset,
// so > it).
func TestARegistrationStartsFencedUntilTheBrokerHasAppliedItsOwnRecord(t *testing.T) {
	h := newHarness(t, Config{})
	r := h.register(1, false, false)
	if r.BrokerEpoch != 0 {
		t.Fatalf("first registration got epoch %d, want 0: the offset of its record", r.BrokerEpoch)
	}
	h.wantBrokers("1 fenced")

	// It heartbeats before it has fetched its own registration record.
	if hb := h.heartbeatWith(1, 0, false); !hb.IsFenced || hb.MetadataEndOffset != 1 {
		t.Fatalf("heartbeat at metadata offset 0: %+v, want fenced, end offset 1", hb)
	}
	h.wantBrokers("1 fenced")

	// Now it has applied record 0, its registration: it is unfenced.
	if hb := h.heartbeatWith(1, 1, false); hb.IsFenced {
		t.Fatalf("heartbeat at metadata offset 1: %+v, want unfenced", hb)
	}
	h.wantBrokers("1 active")
}

// The broker epoch is the offset of the RegisterBrokerRecord: unique across
// brokers and increasing across restarts, with no counter to keep.
func TestTheBrokerEpochIsTheOffsetOfItsRegistrationRecord(t *testing.T) {
	h := newHarness(t, Config{})
	h.startBroker(1) // record 0: register; record 1: unfence
	h.startBroker(2) // records 2 and 3
	if e1, e2 := h.brokers[1].epoch, h.brokers[2].epoch; e1 != 0 || e2 != 2 {
		t.Fatalf("epochs %d and %d, want 0 and 2", e1, e2)
	}
	h.shutDown(1)
	end := h.c.MetadataEndOffset()
	h.register(1, true, false)
	if h.brokers[1].epoch <= 2 || h.brokers[1].epoch < int64(end) {
		t.Fatalf("restarted broker 1 got epoch %d, want the offset of its new record (>= %d)", h.brokers[1].epoch, end)
	}
	b, _ := h.c.Image().Broker(1)
	if b.Epoch != h.brokers[1].epoch || b.IncarnationID != incarnation(1, 2) {
		t.Fatalf("image holds %+v", b)
	}
}

// A retried registration (same incarnation) is idempotent: same epoch,
// nothing written.
func TestARetriedRegistrationGetsItsEpochBackAndWritesNothing(t *testing.T) {
	h := newHarness(t, Config{})
	h.startBroker(1)
	end := h.c.MetadataEndOffset()
	r := h.c.RegisterBroker(wire.BrokerRegistrationRequest{CorrelationID: 9, BrokerID: 1, IncarnationID: incarnation(1, 1), PreviousBrokerEpoch: 55}, h.now)
	if r.ErrorCode != wire.CodeNone || r.BrokerEpoch != h.brokers[1].epoch || r.CorrelationID != 9 {
		t.Fatalf("retry answered %+v, want epoch %d", r, h.brokers[1].epoch)
	}
	if got := h.c.MetadataEndOffset(); got != end {
		t.Fatalf("a retry wrote records: end offset %d → %d", end, got)
	}
	h.wantBrokers("1 active")
}

// A restart gets a new epoch; everything carrying the old one is refused.
func TestARestartedBrokersOldEpochIsStale(t *testing.T) {
	h := newHarness(t, Config{})
	h.startBroker(1)
	h.startBroker(2)
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 2}}})
	old := h.brokers[1].epoch
	oldAlter := h.alterReq("orders", 0, 1) // broker 1 leads orders-0

	h.silence(DefaultSessionTimeoutMs, 2) // broker 1's process dies
	h.register(1, false, false)

	hb := h.c.Heartbeat(wire.BrokerHeartbeatRequest{BrokerID: 1, BrokerEpoch: old, MetadataOffset: h.c.MetadataEndOffset()}, h.now)
	if hb.ErrorCode != wire.CodeStaleBrokerEpoch {
		t.Fatalf("heartbeat with the old epoch: %v, want STALE_BROKER_EPOCH", hb.ErrorCode)
	}
	if ap := h.c.AlterPartition(oldAlter, h.now); ap.ErrorCode != wire.CodeStaleBrokerEpoch {
		t.Fatalf("AlterPartition with the old epoch: %v, want STALE_BROKER_EPOCH", ap.ErrorCode)
	}
	// An ISR member named with its old epoch is ineligible.
	h.heartbeat(1)
	req := h.alterReq("orders", 0, 2, 1)
	req.NewISR[1].BrokerEpoch = old
	h.alter(req, wire.CodeIneligibleReplica)
}

func TestAHeartbeatFromAnUnregisteredBrokerIsStale(t *testing.T) {
	h := newHarness(t, Config{})
	if r := h.c.Heartbeat(wire.BrokerHeartbeatRequest{BrokerID: 7, BrokerEpoch: 0}, h.now); r.ErrorCode != wire.CodeStaleBrokerEpoch || !r.IsFenced {
		t.Fatalf("%+v, want STALE_BROKER_EPOCH and fenced", r)
	}
}

func TestRegistrationRefusesANegativeIDAndTheZeroIncarnation(t *testing.T) {
	h := newHarness(t, Config{})
	for _, req := range []wire.BrokerRegistrationRequest{
		{BrokerID: -1, IncarnationID: incarnation(1, 1)},
		{BrokerID: 1},
	} {
		if r := h.c.RegisterBroker(req, h.now); r.ErrorCode != wire.CodeInvalidRequest || r.BrokerEpoch != wire.NoBrokerEpoch {
			t.Errorf("RegisterBroker(%+v) = %+v, want INVALID_REQUEST", req, r)
		}
	}
	if h.c.MetadataEndOffset() != 0 {
		t.Fatal("a refused registration wrote a record")
	}
}
