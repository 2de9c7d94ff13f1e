package sim_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/sim"
)

// The idempotent producer's rules have teeth: with one switched to its
// unsafe form the simulator finds a record written twice or out of order,
// and with the rule as replica/client has it the same steps pass. Each
// test replays its scenario, then has sim.Search find one by itself from
// seed 1 within searchBudget steps (huntFor, search_test.go). Seed 23 is a
// cluster of 3 brokers fetching in rounds, min.insync.replicas 2, broker 3
// leading with replicas [3 2 1].
var producerCluster = sim.Config{Seed: 23, Brokers: 3}

// NOT_ENOUGH_REPLICAS proves only that its own attempt was not written.
// Batches i3a and i6a are appended while the followers are cut off, so
// they are never answered NONE; their resends meet NOT_ENOUGH_REPLICAS.
// i3a's delivery timeout leaves a gap. A producer that took
// NOT_ENOUGH_REPLICAS as proof i6a was never written renumbers it under
// a new epoch, and once the followers are back writes it a second time
// (the client's bug fixed in 3b5a2a5); the rule resends its bytes, and the
// leader answers from its dedupe window.
func TestFindsTheDuplicateOfTrustingNotEnoughReplicas(t *testing.T) {
	steps := []sim.Step{
		{Kind: sim.Cut, Node: replica.BrokerAt(3), Other: replica.BrokerAt(2)},
		{Kind: sim.Cut, Node: replica.BrokerAt(3), Other: replica.BrokerAt(1)},
		{Kind: sim.Produce, Broker: -1, Acks: -1, Value: "i3", Idempotent: true, Batches: 1},
		{Kind: sim.Advance, Ms: 2000},
		{Kind: sim.Produce, Broker: -1, Acks: -1, Value: "i6", Idempotent: true, Batches: 1},
		{Kind: sim.Advance, Ms: 12000},
		{Kind: sim.Advance, Ms: 12000},
		{Kind: sim.Advance, Ms: 2000},
		{Kind: sim.Advance, Ms: 2000}, // i3a's delivery timeout: a gap
		{Kind: sim.Heal},
		{Kind: sim.FetchRound},
		{Kind: sim.FetchRound},
		{Kind: sim.Advance, Ms: 500},
		{Kind: sim.FetchRound},
		{Kind: sim.Advance, Ms: 500},
	}
	unsafe := producerCluster
	unsafe.ProducerTrustsNotEnoughReplicas = true
	expectCaught(t, unsafe, steps, sim.Idempotence)
	huntFor(t, sim.Config{ProducerTrustsNotEnoughReplicas: true}, sim.Config{}, sim.Idempotence)
	r := sim.Replay(producerCluster, steps)
	if r.Failure != nil {
		t.Fatalf("with the rule: %v", r.Failure)
	}
	if r.Coverage.IdempotentDuplicatesAnswered == 0 {
		t.Fatalf("with the rule, i6a's resend was not answered from the dedupe window:\n%v", r.Coverage)
	}
}

// After a change of leader nothing goes to the new one until every batch
// in flight to the old one has come back. Broker 3 is cut off from
// everyone but the producer with i3a parked on it; the controller makes
// broker 2, which never saw the producer, the leader. A producer that
// sends i6a to broker 2 at once has it written first (a producer broker 2
// has no state for may start at any sequence); i3a's resend then meets
// OUT_OF_ORDER_SEQUENCE_NUMBER, is renumbered under a new epoch and
// written after i6a (the client's bug fixed in 3b5a2a5).
func TestFindsTheReorderOfSkippingTheLeaderBarrier(t *testing.T) {
	steps := []sim.Step{
		{Kind: sim.Cut, Node: replica.BrokerAt(3), Other: replica.BrokerAt(2)},
		{Kind: sim.Cut, Node: replica.BrokerAt(3), Other: replica.BrokerAt(1)},
		{Kind: sim.Cut, Node: replica.BrokerAt(3), Other: replica.ControllerAt()},
		{Kind: sim.Produce, Broker: -1, Acks: -1, Value: "i3", Idempotent: true, Batches: 1},
		{Kind: sim.Advance, Ms: 6500}, // broker 3's session ends: broker 2 leads
		{Kind: sim.Produce, Broker: -1, Acks: -1, Value: "i6", Idempotent: true, Batches: 1},
		{Kind: sim.Advance, Ms: 6500}, // i3a times out at broker 3
		{Kind: sim.FetchRound},
		{Kind: sim.FetchRound},
		{Kind: sim.Advance, Ms: 500},
		{Kind: sim.Advance, Ms: 500},
		{Kind: sim.FetchRound},
		{Kind: sim.FetchRound},
		{Kind: sim.Advance, Ms: 500},
	}
	unsafe := producerCluster
	unsafe.ProducerSkipsLeaderBarrier = true
	expectCaught(t, unsafe, steps, sim.ProducerOrder)
	huntFor(t, sim.Config{ProducerSkipsLeaderBarrier: true}, sim.Config{}, sim.ProducerOrder)
	r := sim.Replay(producerCluster, steps)
	if r.Failure != nil {
		t.Fatalf("with the rule: %v", r.Failure)
	}
	if r.Coverage.IdempotentAcked != 2 || r.Coverage.IdempotentLeaderBarrierHolds == 0 {
		t.Fatalf("with the rule, the batches were not held back and then acknowledged:\n%v", r.Coverage)
	}
}

// expectCaught replays steps on cfg, wants inv violated, and shrinks the
// failure to steps that still violate it.
func expectCaught(t *testing.T, cfg sim.Config, steps []sim.Step, inv sim.Invariant) {
	t.Helper()
	v, ok := sim.Replay(cfg, steps).Failure.(*sim.Violation)
	if !ok || v.Invariant != inv {
		t.Fatalf("with the unsafe rule, want %v violated; got %v", inv, v)
	}
	short := sim.Shrink(cfg, steps)
	again, ok := sim.Replay(cfg, short).Failure.(*sim.Violation)
	if !ok || again.Invariant != inv {
		t.Fatalf("the shrunk scenario does not violate %v: %v", inv, again)
	}
	t.Logf("%v\nshrunk to %d steps:\n%s", v, len(short), sim.Story(short))
}
