package controller

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/wire"
)

// The controller's session rule is isr.WithoutLostSession, the one the
// chapter's TwoJudges section and isr.State.RemoveLostSession show: when a
// broker's session expires, every ISR it was in becomes exactly that
// function of the ISR before, whether the broker led or followed.
func TestTheControllerRemovesALostSessionByIsrWithoutLostSession(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	for _, id := range []int32{1, 2, 3} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Name: "orders", Partitions: 3, ReplicationFactor: 3})
	var before [3][]int32
	for p := range int32(3) {
		before[p] = h.part("orders", p).ISR
	}
	h.advance(600)
	h.heartbeatAll(2, 3)
	h.advance(401) // broker 1's session expires
	h.wantBrokers("1 fenced, 2 active, 3 active")
	for p := range int32(3) {
		want, in := isr.WithoutLostSession(before[p], 1)
		if !in {
			t.Fatalf("orders-%d: broker 1 was not in the ISR %v: the test removes nothing", p, before[p])
		}
		if got := h.part("orders", p).ISR; !slices.Equal(got, want) {
			t.Fatalf("orders-%d: ISR %v after broker 1 lost its session, isr.WithoutLostSession(%v, 1) = %v", p, got, before[p], want)
		}
	}
}

// The controller's effective min ISR, which decides the ELR, is
// isr.EffectiveMinISR, the leader's: min.insync.replicas capped at the
// replication factor (Kafka's getTopicEffectiveMinIsr and
// Partition.effectiveMinIsr).
func TestTheControllersEffectiveMinISRIsTheLeaders(t *testing.T) {
	for _, c := range []struct {
		minISR   int32
		replicas []int32
		want     int
	}{
		{1, []int32{1, 2, 3}, 1},
		{2, []int32{1, 2, 3}, 2},
		{3, []int32{1, 2}, 2},
		{5, []int32{1}, 1},
	} {
		got := effectiveMinISR(&topicState{Topic: Topic{MinISR: c.minISR}}, &PartitionState{Replicas: c.replicas})
		leader := isr.EffectiveMinISR(int(c.minISR), len(c.replicas))
		if got != c.want || leader != c.want {
			t.Errorf("min ISR %d over %v: controller %d, isr.EffectiveMinISR %d, want %d", c.minISR, c.replicas, got, leader, c.want)
		}
	}
}
