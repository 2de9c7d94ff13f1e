package controller

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// reassign sends a reassignment of orders-0 and checks the answer's code.
func (h *harness) reassign(req wire.AlterPartitionReassignmentsRequest, want wire.ErrorCode) {
	h.t.Helper()
	req.CorrelationID = 3
	r := h.c.AlterPartitionReassignments(req, h.now)
	if r.ErrorCode != want || r.CorrelationID != 3 || (want != wire.CodeNone) != (r.ErrorMessage != "") {
		h.t.Fatalf("AlterPartitionReassignments(%+v): %+v, want %v", req, r, want)
	}
	h.check()
}

// KIP-455: the target's new replicas are added first; once every one is in
// the ISR (its leader proposed it), the change that took the last in
// completes the reassignment, dropping the old ones and moving the
// leadership off a removed leader. The replication factor may change; the
// reassignment in flight is listed, survives a controller restart, and
// refusals write nothing.
func TestAReassignmentAddsTheNewReplicasThenDropsTheOldOnes(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	for _, id := range []int32{1, 2, 3, 4, 5} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2, 3}}}}})
	end := h.c.MetadataEndOffset()
	h.reassign(wire.AlterPartitionReassignmentsRequest{Topic: "orders", Partition: 0, Cancel: true}, wire.CodeNoReassignmentInProgress)
	h.reassign(wire.AlterPartitionReassignmentsRequest{Topic: "orders", Partition: 1, Replicas: []int32{1}}, wire.CodeUnknownTopicOrPartition)
	h.reassign(wire.AlterPartitionReassignmentsRequest{Topic: "orders", Partition: 0}, wire.CodeInvalidRequest)
	h.reassign(wire.AlterPartitionReassignmentsRequest{Topic: "orders", Replicas: []int32{4, 4}}, wire.CodeInvalidRequest)
	h.reassign(wire.AlterPartitionReassignmentsRequest{Topic: "orders", Replicas: []int32{4, 9}}, wire.CodeInvalidRequest)
	if got := h.c.MetadataEndOffset(); got != end {
		t.Fatalf("refusals wrote: the log went from %d to %d", end, got)
	}

	// [1 2 3] → [4 5 2 3]: the factor goes from 3 to 4 and leader 1 leaves.
	h.reassign(wire.AlterPartitionReassignmentsRequest{Topic: "orders", Replicas: []int32{4, 5, 2, 3}}, wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/1 replicas [4 5 2 3 1] isr [1 2 3] elr [] lke [] RECOVERED adding [4 5] removing [1]")
	l := h.c.ListPartitionReassignments(wire.ListPartitionReassignmentsRequest{CorrelationID: 4})
	if len(l.Reassignments) != 1 || l.CorrelationID != 4 || l.Reassignments[0].Topic != "orders" {
		t.Fatalf("ListPartitionReassignments: %+v", l)
	}
	if l := h.c.ListPartitionReassignments(wire.ListPartitionReassignmentsRequest{Topics: []string{"other"}}); len(l.Reassignments) != 0 {
		t.Fatalf("another topic lists %+v", l)
	}
	h.restartController()
	h.want("orders", 0, "orders-0 leader 1 epoch 0/1 replicas [4 5 2 3 1] isr [1 2 3] elr [] lke [] RECOVERED adding [4 5] removing [1]")

	// 4 catches up: not done while 5 is out of the ISR.
	h.alter(h.alterReq("orders", 0, 1, 2, 3, 4), wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/2 replicas [4 5 2 3 1] isr [1 2 3 4] elr [] lke [] RECOVERED adding [4 5] removing [1]")
	// 5 joins: done in the same change; leader 1 is removed, so the first
	// of the target in the ISR leads.
	h.alter(h.alterReq("orders", 0, 1, 2, 3, 4, 5), wire.CodeNewLeaderElected)
	h.want("orders", 0, "orders-0 leader 4 epoch 1/3 replicas [4 5 2 3] isr [2 3 4 5] elr [] lke [] RECOVERED")
	if l := h.c.ListPartitionReassignments(wire.ListPartitionReassignmentsRequest{}); len(l.Reassignments) != 0 {
		t.Fatalf("a completed reassignment is still listed: %+v", l)
	}

	// A target inside the ISR completes at once, shrinking the factor.
	h.reassign(wire.AlterPartitionReassignmentsRequest{Topic: "orders", Replicas: []int32{4, 5}}, wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 4 epoch 1/4 replicas [4 5] isr [4 5] elr [] lke [] RECOVERED")
}

// A cancellation reverts the reassignment in flight: the replicas being
// added leave the assignment and the ISR, and the old assignment stays.
func TestACancelledReassignmentRevertsToTheOldReplicas(t *testing.T) {
	h := newHarness(t, Config{SessionTimeoutMs: 1000})
	for _, id := range []int32{1, 2, 3, 4} {
		h.startBroker(id)
	}
	h.createTopic(wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2}}}}})
	h.reassign(wire.AlterPartitionReassignmentsRequest{Topic: "orders", Replicas: []int32{3, 4}}, wire.CodeNone)
	h.alter(h.alterReq("orders", 0, 1, 2, 3), wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/2 replicas [3 4 1 2] isr [1 2 3] elr [] lke [] RECOVERED adding [3 4] removing [1 2]")
	h.reassign(wire.AlterPartitionReassignmentsRequest{Topic: "orders", Cancel: true}, wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/3 replicas [1 2] isr [1 2] elr [] lke [] RECOVERED")
}

// Replacing a dead broker: its replicas are reassigned to a new broker,
// which catches up and joins the ISR; the replication factor and the ISR
// are whole again, and the dead broker is no replica any more.
func TestReassigningADeadBrokersReplicasToANewBrokerRestoresTheReplicationFactor(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Assignment: [][]int32{{1, 2, 3}}}}})
	h.silence(1000, 1, 2) // broker 3 is gone for good
	h.want("orders", 0, "orders-0 leader 1 epoch 0/1 replicas [1 2 3] isr [1 2] elr [] lke [] RECOVERED")
	h.startBroker(4)
	h.reassign(wire.AlterPartitionReassignmentsRequest{Topic: "orders", Replicas: []int32{1, 2, 4}}, wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/2 replicas [1 2 4 3] isr [1 2] elr [] lke [] RECOVERED adding [4] removing [3]")
	h.alter(h.alterReq("orders", 0, 1, 2, 4), wire.CodeNone)
	h.want("orders", 0, "orders-0 leader 1 epoch 0/3 replicas [1 2 4] isr [1 2 4] elr [] lke [] RECOVERED")
}
