package controller

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// alterStory leaves orders-0 led by broker 2 under leader epoch 1 and
// partition epoch 2, with ISR [2 3 1]: broker 1 lost its session, came
// back, and was readmitted by the leader.
func alterStory(t *testing.T) *harness {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	for _, id := range []int32{1, 2, 3} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 3}}})
	h.advance(600)
	h.heartbeatAll(2, 3)
	h.advance(401) // broker 1's session expires
	h.startBroker(1)
	h.alter(h.alterReq("orders", 0, 2, 3, 1), wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 2 epoch 1/2 replicas [1 2 3] isr [2 3 1] elr [] lke [] RECOVERED")
	return h
}

// AlterPartition validates in Kafka's order
// (ReplicationControlManager.alterPartition, validateAlterPartitionData):
// each case below breaks one rule and every rule after it, so only the
// order makes the expected code win. No refusal writes anything.
func TestAlterPartitionValidatesInKafkasOrder(t *testing.T) {
	h := alterStory(t)
	h.startBroker(4) // registered, but not a replica of orders-0
	ok := h.alterReq("orders", 0, 2, 3)
	mod := func(f func(r *wire.AlterPartitionRequest)) wire.AlterPartitionRequest {
		r := ok
		r.NewISR = append([]wire.BrokerState(nil), ok.NewISR...)
		f(&r)
		return r
	}
	isr := func(ids ...int32) []wire.BrokerState {
		var out []wire.BrokerState
		for _, id := range ids {
			out = append(out, wire.BrokerState{BrokerID: id, BrokerEpoch: wire.NoBrokerEpoch})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		req  wire.AlterPartitionRequest
		want wire.ErrorCode
	}{
		{"requester's broker epoch is stale (checked first)", mod(func(r *wire.AlterPartitionRequest) {
			r.BrokerEpoch--
			r.Topic = "nope"
		}), wire.CodeStaleBrokerEpoch},
		{"requester is not registered", mod(func(r *wire.AlterPartitionRequest) { r.BrokerID = 9 }), wire.CodeStaleBrokerEpoch},
		{"unknown topic", mod(func(r *wire.AlterPartitionRequest) {
			r.Topic = "nope"
			r.LeaderEpoch = 99
		}), wire.CodeUnknownTopicOrPartition},
		{"unknown partition", mod(func(r *wire.AlterPartitionRequest) { r.Partition = 1 }), wire.CodeUnknownTopicOrPartition},
		{"leader epoch ahead", mod(func(r *wire.AlterPartitionRequest) {
			r.LeaderEpoch = 2
			r.BrokerID, r.BrokerEpoch = 3, h.brokers[3].epoch
		}), wire.CodeNotController},
		{"partition epoch ahead, leader epoch behind", mod(func(r *wire.AlterPartitionRequest) {
			r.PartitionEpoch = 3
			r.LeaderEpoch = 0
		}), wire.CodeNotController},
		{"leader epoch behind", mod(func(r *wire.AlterPartitionRequest) {
			r.LeaderEpoch = 0
			r.BrokerID, r.BrokerEpoch = 3, h.brokers[3].epoch
		}), wire.CodeFencedLeaderEpoch},
		{"not the leader", mod(func(r *wire.AlterPartitionRequest) {
			r.BrokerID, r.BrokerEpoch = 3, h.brokers[3].epoch
			r.PartitionEpoch = 1
		}), wire.CodeInvalidRequest},
		{"partition epoch behind", mod(func(r *wire.AlterPartitionRequest) {
			r.PartitionEpoch = 1
			r.NewISR = isr(3)
		}), wire.CodeInvalidUpdateVersion},
		{"ISR member not a replica", mod(func(r *wire.AlterPartitionRequest) { r.NewISR = isr(2, 4) }), wire.CodeInvalidRequest},
		{"ISR member twice", mod(func(r *wire.AlterPartitionRequest) { r.NewISR = isr(2, 3, 2) }), wire.CodeInvalidRequest},
		{"ISR member negative", mod(func(r *wire.AlterPartitionRequest) { r.NewISR = isr(2, -1) }), wire.CodeInvalidRequest},
		{"ISR without the leader", mod(func(r *wire.AlterPartitionRequest) { r.NewISR = isr(3, 1) }), wire.CodeInvalidRequest},
		{"empty ISR", mod(func(r *wire.AlterPartitionRequest) { r.NewISR = nil }), wire.CodeInvalidRequest},
		{"RECOVERING with more than the leader", mod(func(r *wire.AlterPartitionRequest) {
			r.LeaderRecoveryState = wire.LeaderRecovering
		}), wire.CodeInvalidRequest},
		{"RECOVERED to RECOVERING", mod(func(r *wire.AlterPartitionRequest) {
			r.LeaderRecoveryState = wire.LeaderRecovering
			r.NewISR = isr(2)
		}), wire.CodeInvalidRequest},
		{"ISR member with another broker epoch", mod(func(r *wire.AlterPartitionRequest) { r.NewISR[1].BrokerEpoch = 0 }), wire.CodeIneligibleReplica},
	} {
		t.Run(tc.name, func(t *testing.T) {
			end := h.c.MetadataEndOffset()
			r := h.c.AlterPartition(tc.req, h.now)
			if r.ErrorCode != tc.want {
				t.Fatalf("%v, want %v", r.ErrorCode, tc.want)
			}
			if r.Leader != NoLeader || r.LeaderEpoch != wire.NoEpoch || r.PartitionEpoch != wire.NoEpoch || r.ISR != nil {
				t.Fatalf("a refusal carries state: %+v", r)
			}
			if h.c.MetadataEndOffset() != end {
				t.Fatal("a refused proposal wrote records")
			}
		})
	}
	// The unmodified proposal is accepted.
	h.alter(ok, wire.CodeNone)
}

// The members of a proposed ISR must each be registered, unfenced, not
// shutting down, and known by their current broker epoch (Kafka's
// ineligibleReplicasForIsr); -1 skips the epoch check.
func TestAnIneligibleISRMemberIsRefused(t *testing.T) {
	t.Run("fenced", func(t *testing.T) {
		h := alterStory(t)
		h.advance(600)
		h.heartbeatAll(1, 2) // broker 3 goes silent and is fenced
		h.advance(401)
		h.wantBrokers("1 active, 2 active, 3 fenced")
		h.alter(h.alterReq("orders", 0, 2, 1, 3), wire.CodeIneligibleReplica)
	})
	t.Run("shutting down", func(t *testing.T) {
		h := alterStory(t)
		h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "led-by-3", Assignment: [][]int32{{3, 1}}}}})
		h.heartbeatWith(3, h.c.MetadataEndOffset(), true)
		h.wantBrokers("1 active, 2 active, 3 shutting-down")
		h.alter(h.alterReq("orders", 0, 2, 1, 3), wire.CodeIneligibleReplica)
	})
	t.Run("epoch -1 skips the check", func(t *testing.T) {
		h := alterStory(t)
		req := h.alterReq("orders", 0, 2, 1)
		req.NewISR[1].BrokerEpoch = wire.NoBrokerEpoch
		h.alter(req, wire.CodeNone)
	})
}

// KRaft since 3.6: every change bumps the partition epoch by one; an ISR
// shrink alone does not bump the leader epoch, and neither does an
// expansion.
func TestAnISRChangeBumpsOnlyThePartitionEpoch(t *testing.T) {
	h := alterStory(t)
	r := h.alter(h.alterReq("orders", 0, 2, 3), wire.CodeNone)
	if r.Leader != 2 || r.LeaderEpoch != 1 || r.PartitionEpoch != 3 || len(r.ISR) != 2 || r.LeaderRecoveryState != wire.LeaderRecovered {
		t.Fatalf("answer %+v, want leader 2, epochs 1/3, ISR [2 3]", r)
	}
	h.want("orders", 0, "orders-0 leader 2 epoch 1/3 replicas [1 2 3] isr [2 3] elr [] lke [] RECOVERED")
	h.alter(h.alterReq("orders", 0, 2, 3, 1), wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 2 epoch 1/4 replicas [1 2 3] isr [2 3 1] elr [] lke [] RECOVERED")
}

// One proposal in flight per partition is the leader's rule, but the
// controller is safe against retries and duplicates: a proposal already
// applied carries the old partition epoch and is refused.
func TestADuplicateProposalGetsInvalidUpdateVersion(t *testing.T) {
	h := alterStory(t)
	shrink := h.alterReq("orders", 0, 2, 3)
	h.alter(shrink, wire.CodeNone)
	h.alter(shrink, wire.CodeInvalidUpdateVersion)
	h.want("orders", 0, "orders-0 leader 2 epoch 1/3 replicas [1 2 3] isr [2 3] elr [] lke [] RECOVERED")
}

// A proposal of the ISR the partition already has changes nothing and
// writes nothing; it is answered with the current state.
func TestAProposalThatChangesNothingWritesNothing(t *testing.T) {
	h := alterStory(t)
	end := h.c.MetadataEndOffset()
	r := h.alter(h.alterReq("orders", 0, 2, 3, 1), wire.CodeNone)
	if h.c.MetadataEndOffset() != end || r.PartitionEpoch != 2 {
		t.Fatalf("a no-op proposal wrote records or moved the epoch: %+v", r)
	}
}

// KIP-966: an ISR shrink under min ISR puts the removed members in the ELR
// (the high watermark is frozen, so they hold every committed record);
// growing back to min ISR clears it.
func TestShrinkingUnderMinISRFillsTheELRAndGrowingBackClearsIt(t *testing.T) {
	h := newHarness(t, Config{})
	for _, id := range []int32{1, 2, 3} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 3, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "2"}}}}})
	h.alter(h.alterReq("orders", 0, 1, 2), wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/1 replicas [1 2 3] isr [1 2] elr [] lke [] RECOVERED")
	h.alter(h.alterReq("orders", 0, 1), wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/2 replicas [1 2 3] isr [1] elr [2] lke [] RECOVERED")
	h.alter(h.alterReq("orders", 0, 1, 3), wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/3 replicas [1 2 3] isr [1 3] elr [] lke [] RECOVERED")
}
