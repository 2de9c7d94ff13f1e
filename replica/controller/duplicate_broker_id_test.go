package controller

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// Kafka's ClusterControlManager.registerBroker: a new incarnation of a
// broker id whose session is live is another process with the same id. It
// is refused with DUPLICATE_BROKER_REGISTRATION, and the live broker keeps
// its registration, its session and its ISR places.
func TestADuplicateBrokerIDIsRefusedAndTheLiveBrokerKeepsEverything(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2, 3}}, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "2"}}}}})
	h.want("orders", 0, "orders-0 leader 1 epoch 0/0 replicas [1 2 3] isr [1 2 3] elr [] lke [] RECOVERED")
	end, live := h.c.MetadataEndOffset(), h.brokers[3].epoch

	// A second process started with id 3, again and again, as a broker
	// retrying with backoff does.
	for range 5 {
		r := h.tryRegister(3, false, false)
		if r.ErrorCode != wire.CodeDuplicateBrokerRegistration || r.BrokerEpoch != wire.NoBrokerEpoch {
			t.Fatalf("duplicate registration answered %+v, want DUPLICATE_BROKER_REGISTRATION", r)
		}
		if err := r.ErrorCode.Err(); !errors.Is(err, wire.ErrDuplicateBrokerRegistration) {
			t.Fatalf("the code's error %v does not match ErrDuplicateBrokerRegistration", err)
		}
		h.advance(400)
		h.heartbeatAll(1, 2, 3)
	}
	if got := h.c.MetadataEndOffset(); got != end {
		t.Fatalf("refused registrations wrote %d records", got-end)
	}
	if b, _ := h.c.Image().Broker(3); b.Epoch != live || b.Fenced || b.IncarnationID != incarnation(3, 1) {
		t.Fatalf("broker 3 became %+v, want epoch %d, unfenced, its first incarnation", b, live)
	}
	h.wantBrokers("1 active, 2 active, 3 active")
	h.want("orders", 0, "orders-0 leader 1 epoch 0/0 replicas [1 2 3] isr [1 2 3] elr [] lke [] RECOVERED")
}

// A fenced broker that still heartbeats (catching up) has a live session
// too: a duplicate may not take its id while it is fenced, or the two would
// take turns.
func TestAFencedBrokerThatHeartbeatsKeepsItsID(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	h.register(1, false, false)
	h.heartbeatWith(1, 0, false) // not caught up: stays fenced
	h.wantBrokers("1 fenced")
	h.advance(900)
	h.heartbeatWith(1, 0, false)
	h.advance(900)
	if r := h.tryRegister(1, false, false); r.ErrorCode != wire.CodeDuplicateBrokerRegistration {
		t.Fatalf("a duplicate of a fenced, heartbeating broker: %v, want DUPLICATE_BROKER_REGISTRATION", r.ErrorCode)
	}
	if r := h.heartbeatWith(1, h.c.MetadataEndOffset(), false); r.ErrorCode != wire.CodeNone || r.IsFenced {
		t.Fatalf("the live broker's heartbeat after the refusal: %+v, want unfenced", r)
	}
}

// As in Kafka, a new incarnation is accepted once the old session expired:
// a broker restarted after a crash waits out its old session, then takes
// its id back. If Tick has not fenced the old one yet, the registration
// fences it first, in the same batch.
func TestANewIncarnationIsAcceptedOnceTheOldSessionExpired(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2, 3}}}}})
	h.heartbeatAll(1, 2, 3)
	h.now += 1000 // exactly the timeout: still valid (Kafka's hasValidSession)
	if r := h.tryRegister(1, false, false); r.ErrorCode != wire.CodeDuplicateBrokerRegistration {
		t.Fatalf("at the last valid millisecond: %v, want DUPLICATE_BROKER_REGISTRATION", r.ErrorCode)
	}
	h.now++ // expired, and no Tick ran
	h.heartbeatAll(2, 3)
	appends := h.store.appends
	r := h.tryRegister(1, false, false)
	if r.ErrorCode != wire.CodeNone {
		t.Fatalf("after the old session expired: %v, want NONE", r.ErrorCode)
	}
	if h.store.appends != appends+1 {
		t.Fatalf("%d batches for one registration, want 1", h.store.appends-appends)
	}
	h.want("orders", 0, "orders-0 leader 2 epoch 1/1 replicas [1 2 3] isr [2 3] elr [] lke [] RECOVERED")
	h.wantBrokers("1 fenced, 2 active, 3 active")
}

// A session the controller ended is over at once: a broker fenced for
// expiry, or told to shut down, may come back as a new process without
// waiting.
func TestASessionTheControllerEndedIsNotLive(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2, 3}}}}})
	h.shutDown(1, 2, 3)
	h.register(1, true, false) // a clean restart, right after
	h.heartbeat(1)
	h.silence(1000, 1, 2) // broker 3 dies; Tick fences it
	h.register(3, false, false)
	h.heartbeatAll(1, 2, 3)
	h.wantBrokers("1 active, 2 active, 3 active")
}

// A controller that restarts starts a session for every unfenced broker,
// but none for a fenced one: a fenced broker's process may be long gone,
// and one that lives heartbeats again.
func TestAfterAControllerRestartAFencedBrokerHasNoSession(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	h.startBroker(1)
	h.startBroker(2)
	h.silence(1000, 1) // 2 fenced
	h.restartController()
	if r := h.tryRegister(1, false, false); r.ErrorCode != wire.CodeDuplicateBrokerRegistration {
		t.Fatalf("a duplicate of unfenced broker 1 after a controller restart: %v, want DUPLICATE_BROKER_REGISTRATION", r.ErrorCode)
	}
	h.register(2, false, false)
}

// Kafka's InconsistentClusterIdException: a broker naming another cluster
// is refused; one that names none yet is told the controller's.
func TestARegistrationNamingAnotherClusterIsRefused(t *testing.T) {
	h := newHarness(t, Config{ClusterID: "east"})
	req := wire.BrokerRegistrationRequest{BrokerID: 1, IncarnationID: incarnation(1, 1), ClusterID: "west"}
	if r := h.c.RegisterBroker(req, h.now); r.ErrorCode != wire.CodeInconsistentClusterID || r.ClusterID != "east" {
		t.Fatalf("registration from cluster west: %+v, want INCONSISTENT_CLUSTER_ID naming east", r)
	}
	if h.c.MetadataEndOffset() != 0 {
		t.Fatal("a refused registration wrote a record")
	}
	for _, id := range []string{"", "east"} {
		req.ClusterID = id
		if r := h.c.RegisterBroker(req, h.now); r.ErrorCode != wire.CodeNone || r.ClusterID != "east" {
			t.Fatalf("registration naming %q: %+v, want NONE and the cluster id east", id, r)
		}
	}
}
