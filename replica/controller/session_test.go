package controller

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// A session is valid while now <= last contact + timeout (Kafka's
// hasValidSession); the broker is fenced at the first millisecond after.
func TestASilentBrokerIsFencedTheMillisecondItsSessionExpires(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 9000})
	h.startBroker(1)
	lastContact := h.now
	if got, want := h.c.NextTickMs(), lastContact+9001; got != want {
		t.Fatalf("NextTickMs = %d, want %d", got, want)
	}
	h.advance(9000)
	h.wantBrokers("1 active")
	h.advance(1)
	h.wantBrokers("1 fenced")
	if got := h.c.NextTickMs(); got != Never {
		t.Fatalf("NextTickMs = %d with only fenced brokers, want Never: a fenced broker has no session", got)
	}
}

func TestHeartbeatsKeepTheSessionAlive(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 100})
	h.startBroker(1)
	for range 50 {
		h.advance(90)
		h.heartbeat(1)
	}
	h.wantBrokers("1 active")
	if got, want := h.c.NextTickMs(), h.now+101; got != want {
		t.Fatalf("NextTickMs = %d, want %d", got, want)
	}
}

// "The controller removes the replica that lost its session": session
// expiry fences the broker, takes it out of every ISR, and elects a new
// leader wherever it led. The leader epoch moves only where the leader did.
func TestSessionExpiryRemovesTheReplicaFromTheISRAndElectsANewLeader(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	for _, id := range []int32{1, 2, 3} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 2, ReplicationFactor: 3}}})
	h.want("orders", 0, "orders-0 leader 1 epoch 0/0 replicas [1 2 3] isr [1 2 3] elr [] lke [] RECOVERED")
	h.want("orders", 1, "orders-1 leader 2 epoch 0/0 replicas [2 3 1] isr [2 3 1] elr [] lke [] RECOVERED")

	// Brokers 2 and 3 keep heartbeating; broker 1 goes silent.
	h.advance(600)
	h.heartbeatAll(2, 3)
	h.advance(401)
	h.wantBrokers("1 fenced, 2 active, 3 active")

	// It led orders-0: broker 2, next in assignment order, leads now.
	h.want("orders", 0, "orders-0 leader 2 epoch 1/1 replicas [1 2 3] isr [2 3] elr [] lke [] RECOVERED")
	// It only followed orders-1: an ISR shrink, the leader epoch stays.
	h.want("orders", 1, "orders-1 leader 2 epoch 0/1 replicas [2 3 1] isr [2 3] elr [] lke [] RECOVERED")

	h.restartController()
	h.want("orders", 0, "orders-0 leader 2 epoch 1/1 replicas [1 2 3] isr [2 3] elr [] lke [] RECOVERED")
}

// Tick fences the stale brokers oldest contact first, each in its own
// batch (Kafka fences one stale broker at a time so each fencing is visible
// before the next).
func TestTickFencesStaleBrokersOldestFirstOneBatchEach(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	h.startBroker(3)
	h.now += 10
	h.startBroker(1)
	h.now += 10
	h.startBroker(2)
	appends := h.store.appends
	h.advance(5000)
	if got := h.store.appends - appends; got != 3 {
		t.Fatalf("%d batches, want 3", got)
	}
	var order []int32
	for _, rec := range storeRecords(t, h.store)[6:] {
		if ch, ok := rec.(BrokerRegistrationChangeRecord); ok && ch.Fenced == SetTrue {
			order = append(order, ch.BrokerID)
		}
	}
	if len(order) != 3 || order[0] != 3 || order[1] != 1 || order[2] != 2 {
		t.Fatalf("fenced in order %v, want [3 1 2]: oldest contact first", order)
	}
}

// After a controller restart every registered broker gets a fresh session:
// the new controller has heard from nobody yet, so it gives everyone a full
// timeout from the moment it opens (as a new KRaft controller does).
func TestAfterAControllerRestartEverySessionStartsAfresh(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 9000})
	h.startBroker(1)
	h.advance(8000)
	h.restartController()
	if got, want := h.c.NextTickMs(), h.now+9001; got != want {
		t.Fatalf("NextTickMs after restart = %d, want %d", got, want)
	}
	h.advance(9000)
	h.wantBrokers("1 active")
	h.advance(1)
	h.wantBrokers("1 fenced")
}
