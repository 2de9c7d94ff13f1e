package controller

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// threeBrokers starts brokers 1, 2, 3 and creates orders with one
// partition on all three.
func threeBrokers(t *testing.T, cfg Config, topic wire.CreateTopicsRequest) *harness {
	h := newHarness(t, cfg)
	for _, id := range []int32{1, 2, 3} {
		h.startBroker(id)
	}
	h.createTopic(topic)
	return h
}

// silence lets every broker but the live ones lose its session: the live
// ones heartbeat every half timeout, the others stay silent for longer than
// a timeout.
func (h *harness) silence(timeoutMs int64, live ...int32) {
	h.t.Helper()
	h.heartbeatAll(live...)
	for range 2 {
		h.advance(timeoutMs/2 + 1)
		h.heartbeatAll(live...)
	}
}

// A clean election keeps a leader that is still valid, and otherwise takes
// the first replica in assignment order that is in the ISR and acceptable
// (registered, unfenced, not shutting down). The leader epoch goes up by one
// at every leader change.
func TestACleanElectionTakesTheFirstLiveISRMemberInAssignmentOrder(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{3, 1, 2}}}}})
	h.want("orders", 0, "orders-0 leader 3 epoch 0/0 replicas [3 1 2] isr [3 1 2] elr [] lke [] RECOVERED")

	h.silence(1000, 1, 2) // broker 3 dies
	h.want("orders", 0, "orders-0 leader 1 epoch 1/1 replicas [3 1 2] isr [1 2] elr [] lke [] RECOVERED")

	// Broker 3 comes back: the valid leader 1 keeps its place.
	h.startBroker(3)
	h.want("orders", 0, "orders-0 leader 1 epoch 1/1 replicas [3 1 2] isr [1 2] elr [] lke [] RECOVERED")

	// The ISR shrinks to [1 2] → [1] → only then broker 1 dies: nobody
	// else is in the ISR, so the partition is left without a leader: a
	// leader change too, so the leader epoch moves.
	h.alter(h.alterReq("orders", 0, 1), wire.CodeNone)
	h.silence(1000, 2, 3)
	h.want("orders", 0, "orders-0 leader -1 epoch 2/3 replicas [3 1 2] isr [] elr [1] lke [1] RECOVERED")
}

// KIP-966 (ELR on, the default): when the ISR is empty, the first ELR member
// in assignment order that is acceptable is elected; it becomes the ISR
// alone and leaves the ELR.
func TestAnELRMemberIsElectedOnlyWhenTheISRIsEmpty(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 3, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "3"}}}}})
	h.silence(1000, 1, 2) // broker 3 dies: ISR [1 2] is under min ISR 3
	h.want("orders", 0, "orders-0 leader 1 epoch 0/1 replicas [1 2 3] isr [1 2] elr [3] lke [] RECOVERED")
	h.silence(1000, 1) // broker 2 dies
	h.want("orders", 0, "orders-0 leader 1 epoch 0/2 replicas [1 2 3] isr [1] elr [2 3] lke [] RECOVERED")
	h.silence(1000) // broker 1, the last ISR member, dies
	h.want("orders", 0, "orders-0 leader -1 epoch 1/3 replicas [1 2 3] isr [] elr [1 2 3] lke [1] RECOVERED")

	// Broker 3 shut down cleanly and comes back: it is in the ELR and the
	// ISR is empty, so unfencing it elects it.
	h.startBroker(3)
	h.want("orders", 0, "orders-0 leader 3 epoch 2/4 replicas [1 2 3] isr [3] elr [1 2] lke [] RECOVERED")
}

// Without ELR (Kafka before 4.0) the ISR never becomes empty: the last
// member stays in it, leaderless, and is elected again when it comes back.
func TestWithoutELRTheLastISRMemberStaysAndLeadsAgain(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000, DisableELR: true}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 3, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "3"}}}}})
	h.silence(1000, 1, 2)
	h.silence(1000, 1)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/2 replicas [1 2 3] isr [1] elr [] lke [] RECOVERED")
	h.silence(1000)
	h.want("orders", 0, "orders-0 leader -1 epoch 1/3 replicas [1 2 3] isr [1] elr [] lke [] RECOVERED")
	h.startBroker(2) // not in the ISR: no election
	h.want("orders", 0, "orders-0 leader -1 epoch 1/3 replicas [1 2 3] isr [1] elr [] lke [] RECOVERED")
	h.startBroker(1)
	h.want("orders", 0, "orders-0 leader 1 epoch 2/4 replicas [1 2 3] isr [1] elr [] lke [] RECOVERED")
}

// Unclean elections happen only when enabled. With the topic's
// UncleanLeaderElection off, a partition whose ISR and ELR hold no live
// broker stays leaderless, and a clean ElectLeaders cannot change that; an
// explicit ElectLeaders{Unclean: true} elects the first acceptable replica,
// makes it the ISR alone, RECOVERING, clears ELR and last known ELR, and
// says data may be lost.
func TestUncleanElectionOnlyWhenAskedAndItSaysDataMayBeLost(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 3, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "2"}}}}})
	h.alter(h.alterReq("orders", 0, 1, 2), wire.CodeNone)
	h.alter(h.alterReq("orders", 0, 1), wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/2 replicas [1 2 3] isr [1] elr [2] lke [] RECOVERED")
	// Brokers 1 and 2 die together; broker 3 (out of sync) lives. The
	// controller fences one stale broker at a time: first 1, which hands
	// the leadership to 2 from the ELR, then 2.
	h.silence(1000, 3)
	h.want("orders", 0, "orders-0 leader -1 epoch 2/4 replicas [1 2 3] isr [] elr [1 2] lke [2] RECOVERED")

	clean := h.c.ElectLeaders(wire.ElectLeadersRequest{CorrelationID: 1, Topic: "orders", Partition: 0}, h.now)
	if clean.ErrorCode != wire.CodeEligibleLeadersNotAvailable || clean.Leader != NoLeader || clean.DataMayBeLost || clean.CorrelationID != 1 {
		t.Fatalf("clean election: %+v, want ELIGIBLE_LEADERS_NOT_AVAILABLE", clean)
	}
	h.check()

	unclean := h.c.ElectLeaders(wire.ElectLeadersRequest{Topic: "orders", Partition: 0, Unclean: true}, h.now)
	if unclean.ErrorCode != wire.CodeNone || unclean.Leader != 3 || unclean.LeaderEpoch != 3 || !unclean.DataMayBeLost {
		t.Fatalf("unclean election: %+v, want leader 3, epoch 3, data may be lost", unclean)
	}
	h.check()
	h.want("orders", 0, "orders-0 leader 3 epoch 3/5 replicas [1 2 3] isr [3] elr [] lke [] RECOVERING")

	// The new leader reports it has recovered and grows its ISR.
	h.startBroker(1)
	h.alter(h.alterReq("orders", 0, 3), wire.CodeNone) // still RECOVERING, alone: allowed, a no-op
	req := h.alterReq("orders", 0, 3, 1)
	req.LeaderRecoveryState = wire.LeaderRecovered
	h.alter(req, wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 3 epoch 3/6 replicas [1 2 3] isr [3 1] elr [] lke [] RECOVERED")
}

// A topic with UncleanLeaderElection enabled lets the controller's own
// elections (here, on fencing) reach outside the ISR and ELR.
func TestATopicWithUncleanElectionEnabledElectsUncleanlyOnItsOwn(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 3, Configs: []wire.TopicConfig{{Name: "unclean.leader.election.enable", Value: "true"}}}}})
	h.alter(h.alterReq("orders", 0, 1), wire.CodeNone)
	h.silence(1000, 2, 3)
	h.want("orders", 0, "orders-0 leader 2 epoch 1/2 replicas [1 2 3] isr [2] elr [] lke [] RECOVERING")
}

// An unclean request on a partition that has a leader changes nothing
// (Kafka: ELECTION_NOT_NEEDED); a clean request on a led partition keeps
// the leader. Neither writes.
func TestElectLeadersOnALedPartitionChangesNothing(t *testing.T) {
	h := threeBrokers(t, Config{}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 3}}})
	end := h.c.MetadataEndOffset()
	for _, unclean := range []bool{false, true} {
		r := h.c.ElectLeaders(wire.ElectLeadersRequest{Topic: "orders", Partition: 0, Unclean: unclean}, h.now)
		if r.ErrorCode != wire.CodeNone || r.Leader != 1 || r.LeaderEpoch != 0 || r.DataMayBeLost {
			t.Fatalf("unclean=%t: %+v, want leader 1 unchanged", unclean, r)
		}
	}
	if h.c.MetadataEndOffset() != end {
		t.Fatal("an election that was not needed wrote records")
	}
	if r := h.c.ElectLeaders(wire.ElectLeadersRequest{Topic: "orders", Partition: 5}, h.now); r.ErrorCode != wire.CodeUnknownTopicOrPartition {
		t.Fatalf("unknown partition: %v", r.ErrorCode)
	}
}

// Kafka's ReplicationControlManagerTest.testEligibleLeaderReplicas_BrokerFence,
// retold: four brokers, min ISR 3.
func TestKafkaOracleELRAfterFencing(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	for _, id := range []int32{0, 1, 2, 3} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "foo", Assignment: [][]int32{{0, 1, 2, 3}}, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "3"}}}}})
	h.silence(1000, 0, 1) // fence 2 and 3
	if p := h.part("foo", 0); len(p.ELR) != 1 || p.ELR[0] != 3 || len(p.LastKnownELR) != 0 {
		t.Fatalf("after fencing 2 and 3: %s, want elr [3]", p)
	}
	h.silence(1000, 0) // fence 1
	h.want("foo", 0, "foo-0 leader 0 epoch 0/3 replicas [0 1 2 3] isr [0] elr [1 3] lke [] RECOVERED")
	for _, id := range []int32{1, 2, 3} {
		h.startBroker(id)
	}
	h.want("foo", 0, "foo-0 leader 0 epoch 0/3 replicas [0 1 2 3] isr [0] elr [1 3] lke [] RECOVERED")
}

// Kafka's testEligibleLeaderReplicas_CleanElection, retold.
func TestKafkaOracleCleanElectionFromTheELR(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	for _, id := range []int32{0, 1, 2, 3} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "foo", Assignment: [][]int32{{0, 1, 2, 3}}, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "3"}}}}})
	h.silence(1000, 0) // fence 1, 2, 3
	if p := h.part("foo", 0); len(p.ELR) != 2 || p.ELR[0] != 2 || p.ELR[1] != 3 {
		t.Fatalf("after fencing 1, 2, 3: %s, want elr [2 3]", p)
	}
	h.startBroker(2)
	h.silence(1000, 2) // fence 0 (1 and 3 stay fenced)
	h.want("foo", 0, "foo-0 leader 2 epoch 1/4 replicas [0 1 2 3] isr [2] elr [0 3] lke [] RECOVERED")
}

// Kafka's testEligibleLeaderReplicas_UncleanShutdown, retold: an unclean
// ELR member leaves the ELR; the unclean last ISR member is remembered as
// the last known leader.
func TestKafkaOracleUncleanShutdownLeavesTheELR(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	for _, id := range []int32{0, 1, 2, 3} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "foo", Assignment: [][]int32{{0, 1, 2, 3}}, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "3"}}}}})
	h.silence(1000, 0)
	h.register(3, false, false) // broker 3 restarts after an unclean shutdown
	h.want("foo", 0, "foo-0 leader 0 epoch 0/4 replicas [0 1 2 3] isr [0] elr [2] lke [] RECOVERED")
	h.silence(1000)             // broker 0, the leader, dies too
	h.register(0, false, false) // and restarts after an unclean shutdown
	h.want("foo", 0, "foo-0 leader -1 epoch 1/6 replicas [0 1 2 3] isr [] elr [2] lke [0] RECOVERED")
}
