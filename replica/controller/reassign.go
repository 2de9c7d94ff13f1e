package controller

import (
	"fmt"
	"slices"

	"github.com/kaenlog/kaenlog/wire"
)

// AlterPartitionReassignments starts, replaces or cancels the reassignment
// of one partition (KIP-455, KRaft's alterPartitionReassignment). A target
// makes the partition's replicas the target's followed by those leaving:
// AddingReplicas are the target's replicas that were not replicas,
// RemovingReplicas the replicas not in the target (a target given while
// another is in flight starts from the replicas as they are, as KRaft
// does). The brokers added create their replicas and fetch; once every
// added replica is in the ISR (its leader proposed it), the change that
// took the last one in also completes the reassignment: the replicas become
// the target, the removed ones leave the ISR and ELR, and a removed leader
// hands over to the first of the target in the new ISR. A target whose
// replicas are all in the ISR already completes at once. Cancel reverts:
// the replicas being added leave the assignment and the ISR.
//
// Refusals (with ErrorMessage): CodeUnknownTopicOrPartition,
// CodeNoReassignmentInProgress for a cancellation with none in flight,
// CodeInvalidRequest for an empty target, a broker listed twice or not
// registered (Kafka: INVALID_REPLICA_ASSIGNMENT), or a cancellation that
// would leave the ISR empty (Kafka reverts it uncleanly where the topic
// allows unclean elections).
func (c *Controller) AlterPartitionReassignments(req wire.AlterPartitionReassignmentsRequest, nowMs int64) wire.AlterPartitionReassignmentsResponse {
	resp := wire.AlterPartitionReassignmentsResponse{CorrelationID: req.CorrelationID}
	refuse := func(code wire.ErrorCode, format string, args ...any) wire.AlterPartitionReassignmentsResponse {
		resp.ErrorCode, resp.ErrorMessage = code, fmt.Sprintf(format, args...)
		return resp
	}
	if c.err != nil {
		return refuse(wire.CodeNotController, "%v", c.err)
	}
	p := c.image.partition(req.Topic, req.Partition)
	if p == nil {
		return refuse(wire.CodeUnknownTopicOrPartition, "no partition %s-%d", req.Topic, req.Partition)
	}
	var spec changeSpec
	if req.Cancel {
		if !p.Reassigning() {
			return refuse(wire.CodeNoReassignmentInProgress, "no reassignment of %s-%d is in flight", req.Topic, req.Partition)
		}
		isr := notIn(p.ISR, p.AddingReplicas)
		if len(isr) == 0 {
			return refuse(wire.CodeInvalidRequest, "reverting %s-%d would leave its ISR empty", req.Topic, req.Partition)
		}
		spec = changeSpec{targetISR: isr, remove: NoLeader, uncleanShutdown: NoLeader, election: electClean,
			setReplicas: true, replicas: notIn(p.Replicas, p.AddingReplicas)}
	} else {
		if msg := c.checkTarget(req.Replicas); msg != "" {
			return refuse(wire.CodeInvalidRequest, "%s-%d: %s", req.Topic, req.Partition, msg)
		}
		removing := notIn(p.Replicas, req.Replicas)
		spec = changeSpec{targetISR: p.ISR, remove: NoLeader, uncleanShutdown: NoLeader, election: electClean,
			setReplicas: true, replicas: append(slices.Clone(req.Replicas), removing...),
			adding: notIn(req.Replicas, p.Replicas), removing: removing}
		completeReassignment(&spec)
	}
	o := c.begin()
	t := o.img.topics[req.Topic]
	c.change(o, t, o.img.partition(req.Topic, req.Partition), spec)
	if err := c.commit(o, nowMs); err != nil {
		return refuse(codeOf(err), "%v", err)
	}
	return resp
}

// checkTarget validates a reassignment's target as KRaft's
// validateManualPartitionAssignment does, or says why not.
func (c *Controller) checkTarget(replicas []int32) string {
	if len(replicas) == 0 {
		return "an empty target"
	}
	for i, r := range replicas {
		if slices.Contains(replicas[:i], r) {
			return fmt.Sprintf("broker %d is listed twice", r)
		}
		if _, ok := c.image.brokers[r]; !ok {
			return fmt.Sprintf("broker %d is not registered", r)
		}
	}
	return ""
}

// completeReassignment completes the reassignment spec sets up, or the one
// in flight in p when spec leaves the replicas alone, if every added replica
// is in spec's target ISR and that ISR keeps a member once the removed
// ones leave (KRaft's PartitionReassignmentReplicas.maybeCompleteReassignment).
func completeReassignment(spec *changeSpec) {
	if !spec.setReplicas || (len(spec.adding) == 0 && len(spec.removing) == 0) {
		return
	}
	for _, r := range spec.adding {
		if !slices.Contains(spec.targetISR, r) {
			return
		}
	}
	isr := notIn(spec.targetISR, spec.removing)
	if len(isr) == 0 {
		return
	}
	spec.targetISR = isr
	spec.replicas = notIn(spec.replicas, spec.removing)
	spec.adding, spec.removing = nil, nil
}

// reassigning sets spec up to carry p's reassignment in flight, and
// completes it if spec's ISR allows: every change to a reassigning
// partition goes through it (AlterPartition's ISR growth completes).
func reassigning(p *PartitionState, spec *changeSpec) {
	if !p.Reassigning() || spec.setReplicas {
		return
	}
	spec.setReplicas = true
	spec.replicas, spec.adding, spec.removing = p.Replicas, p.AddingReplicas, p.RemovingReplicas
	completeReassignment(spec)
}

// ListPartitionReassignments answers with every partition of the asked-for
// topics (all for none) whose reassignment is in flight, in topic then
// index order. It writes nothing and takes no time.
func (c *Controller) ListPartitionReassignments(req wire.ListPartitionReassignmentsRequest) wire.ListPartitionReassignmentsResponse {
	resp := wire.ListPartitionReassignmentsResponse{CorrelationID: req.CorrelationID}
	if c.err != nil {
		resp.ErrorCode = wire.CodeNotController
		return resp
	}
	for _, p := range c.image.Partitions() {
		if !p.Reassigning() || (len(req.Topics) > 0 && !slices.Contains(req.Topics, p.Topic)) {
			continue
		}
		resp.Reassignments = append(resp.Reassignments, wire.OngoingReassignment{
			Topic: p.Topic, Partition: p.Partition, Replicas: cloneIDs(p.Replicas),
			AddingReplicas: cloneIDs(p.AddingReplicas), RemovingReplicas: cloneIDs(p.RemovingReplicas),
		})
	}
	return resp
}

// notIn returns ids without the members of drop, in order.
func notIn(ids, drop []int32) []int32 {
	return slices.DeleteFunc(slices.Clone(ids), func(r int32) bool { return slices.Contains(drop, r) })
}
