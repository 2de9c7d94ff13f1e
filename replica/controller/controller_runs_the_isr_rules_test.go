package controller

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/wire"
)

// The controller's effective min ISR, which decides the ELR, is
// isr.EffectiveMinISR, the leader's: min.insync.replicas capped at the
// replication factor (Kafka's getTopicEffectiveMinIsr and
// Partition.effectiveMinIsr).
func TestTheControllersEffectiveMinISRIsTheLeaders(t *testing.T) {
	// want[minISR-1][rf-1]: min(minISR, rf).
	want := [4][3]int{{1, 1, 1}, {1, 2, 2}, {1, 2, 3}, {1, 2, 3}}
	replicas := []int32{1, 2, 3}
	for m := range int32(4) {
		for rf := 1; rf <= 3; rf++ {
			got := effectiveMinISR(&topicState{Topic: Topic{MinISR: m + 1}}, &PartitionState{Replicas: replicas[:rf]})
			leader := isr.EffectiveMinISR(int(m+1), rf)
			if w := want[m][rf-1]; got != w || leader != w {
				t.Errorf("min ISR %d over %d replicas: controller %d, isr.EffectiveMinISR %d, want %d", m+1, rf, got, leader, w)
			}
		}
	}
}

// The controller's session rule is isr.WithoutLostSession, the one the
// chapter's TwoJudges section and isr.State.RemoveLostSession show: when a
// broker's session expires, every ISR it was in becomes exactly that
// function of the ISR before, whether the broker led or followed.
func TestTheControllerRemovesALostSessionByIsrWithoutLostSession(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	for _, id := range []int32{1, 2, 3} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 3, ReplicationFactor: 3}}})
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
