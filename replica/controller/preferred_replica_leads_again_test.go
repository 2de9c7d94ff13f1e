package controller

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// live lets ms pass in steps shorter than a session while the brokers ids
// heartbeat, the controller ticking at every step.
func (h *harness) live(ms int64, ids ...int32) {
	h.t.Helper()
	for ms > 0 {
		step := min(ms, 400)
		h.advance(step)
		h.heartbeatAll(ids...)
		ms -= step
	}
}

// wantLeader checks a partition's leader and leader epoch.
func (h *harness) wantLeader(topic string, p int32, leader, epoch int32) {
	h.t.Helper()
	if got := h.part(topic, p); got.Leader != leader || got.LeaderEpoch != epoch {
		h.t.Fatalf("%s-%d: leader %d at epoch %d, want %d at epoch %d (%v)", topic, p, got.Leader, got.LeaderEpoch, leader, epoch, got)
	}
}

// The periodic check (auto.leader.rebalance.enable) gives the leadership
// back to the first replica of the assignment, but only once it is active
// and in the ISR again, and only when the check is due: an interval after
// the leadership moved away.
func TestThePreferredReplicaLeadsAgainAtTheNextImbalanceCheck(t *testing.T) {
	const interval = 5000
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000, LeaderImbalanceCheckIntervalMs: interval},
		wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2, 3}}}}})
	if got := h.c.NextTickMs(); got > h.now+1001 {
		t.Fatalf("NextTickMs = %d: a balanced cluster only waits for sessions", got)
	}
	h.silence(1000, 2, 3) // broker 1 dies
	h.wantLeader("orders", 0, 2, 1)
	movedAt := h.now
	if got := h.c.NextTickMs(); got > movedAt+interval {
		t.Fatalf("NextTickMs = %d, want the check due by %d", got, movedAt+interval)
	}

	// Back, but out of the ISR: the check keeps leader 2.
	h.startBroker(1)
	h.live(interval, 1, 2, 3)
	h.wantLeader("orders", 0, 2, 1)

	// Leader 2 takes it back into the ISR; the next check elects it.
	h.alter(h.alterReq("orders", 0, 2, 3, 1), wire.CodeNone)
	h.live(interval/2, 1, 2, 3)
	h.restartController() // the check is scheduled again from the image
	h.live(interval+400, 1, 2, 3)
	h.wantLeader("orders", 0, 1, 2)
	if p := h.part("orders", 0); len(p.ISR) != 3 {
		t.Fatalf("a preferred election keeps the ISR: %v", p)
	}
	if got := h.c.NextTickMs(); got > h.now+1001 {
		t.Fatalf("NextTickMs = %d: balanced again, only sessions are due", got)
	}
}

// With DisableAutoLeaderRebalance nothing moves the leadership back; an
// ElectLeaders with Preferred does, answered as Kafka's: ELECTION_NOT_NEEDED
// when the preferred replica leads, PREFERRED_LEADER_NOT_AVAILABLE while it
// is fenced or out of the ISR.
func TestAPreferredElectionMovesTheLeaderToTheFirstReplicaOnlyWhenItCanLead(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000, DisableAutoLeaderRebalance: true},
		wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2, 3}}}}})
	elect := func(want wire.ErrorCode, leader, epoch int32) {
		t.Helper()
		r := h.c.ElectLeaders(wire.ElectLeadersRequest{CorrelationID: 9, Topic: "orders", Partition: 0, Preferred: true}, h.now)
		if r.ErrorCode != want || r.Leader != leader || r.LeaderEpoch != epoch || r.DataMayBeLost || r.CorrelationID != 9 {
			t.Fatalf("preferred election: %+v, want %v with leader %d at epoch %d", r, want, leader, epoch)
		}
		h.check()
	}
	elect(wire.CodeElectionNotNeeded, 1, 0)

	h.silence(1000, 2, 3)
	h.wantLeader("orders", 0, 2, 1)
	elect(wire.CodePreferredLeaderNotAvailable, 2, 1) // fenced

	h.startBroker(1)
	elect(wire.CodePreferredLeaderNotAvailable, 2, 1) // not in the ISR
	h.live(DefaultLeaderImbalanceCheckIntervalMs, 1, 2, 3)
	h.alter(h.alterReq("orders", 0, 2, 3, 1), wire.CodeNone)
	h.live(DefaultLeaderImbalanceCheckIntervalMs, 1, 2, 3)
	h.wantLeader("orders", 0, 2, 1) // no periodic check

	elect(wire.CodeNone, 1, 2)
	elect(wire.CodeElectionNotNeeded, 1, 2)

	if r := h.c.ElectLeaders(wire.ElectLeadersRequest{Topic: "nope", Preferred: true}, h.now); r.ErrorCode != wire.CodeUnknownTopicOrPartition {
		t.Fatalf("unknown partition: %+v", r)
	}
}

// A broker in controlled shutdown is no preferred leader: the check leaves
// the leadership where the shutdown moved it.
func TestTheCheckNeverElectsABrokerShuttingDown(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000, LeaderImbalanceCheckIntervalMs: 2000},
		wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2, 3}}}}})
	if r := h.heartbeatWith(1, h.c.MetadataEndOffset(), true); r.ShouldShutDown {
		t.Fatalf("a leader is told to shut down at once: %+v", r)
	}
	h.wantLeader("orders", 0, 2, 1)
	h.live(2400, 2, 3)
	h.wantLeader("orders", 0, 2, 1)
}
