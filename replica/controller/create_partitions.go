package controller

import (
	"fmt"

	"github.com/kaenlog/kaenlog/wire"
)

// CreatePartitions adds partitions to one topic, up to Count in all
// (KRaft's ReplicationControlManager.createPartitions). The new partitions
// have the replication factor of the topic's partition 0; their replicas
// are placed as CreateTopics places them, round-robin over the active
// brokers starting after the partitions that exist, or taken from
// Assignment, one list per partition added. Each starts as a created
// topic's partition does: its active replicas as the ISR, the first of them
// leading, both epochs 0; brokers create their replicas as for a new
// topic.
//
// Refusals (with ErrorMessage): CodeUnknownTopicOrPartition,
// CodeInvalidPartitions for a Count not above the topic's partitions or
// above MaxPartitionsPerTopic, CodeInvalidReplicationFactor for more
// replicas than active brokers (or an assigned list with no active broker),
// CodeInvalidRequest for an Assignment that does not give one valid list
// per partition added (Kafka's INVALID_REPLICA_ASSIGNMENT). With
// ValidateOnly the answer is the same and nothing is written.
func (c *Controller) CreatePartitions(req wire.CreatePartitionsRequest, nowMs int64) wire.CreatePartitionsResponse {
	resp := wire.CreatePartitionsResponse{CorrelationID: req.CorrelationID}
	refuse := func(code wire.ErrorCode, format string, args ...any) wire.CreatePartitionsResponse {
		resp.ErrorCode, resp.ErrorMessage = code, fmt.Sprintf(format, args...)
		return resp
	}
	if c.err != nil {
		return refuse(wire.CodeNotController, "%v", c.err)
	}
	t, ok := c.image.topics[req.Topic]
	if !ok {
		return refuse(wire.CodeUnknownTopicOrPartition, "no topic %q", req.Topic)
	}
	have := int32(len(t.parts))
	switch {
	case req.Count == have:
		return refuse(wire.CodeInvalidPartitions, "topic %q already has %d partition(s)", req.Topic, have)
	case req.Count < have:
		return refuse(wire.CodeInvalidPartitions, "topic %q has %d partition(s); %d would not be an increase", req.Topic, have, req.Count)
	case req.Count > MaxPartitionsPerTopic:
		return refuse(wire.CodeInvalidPartitions, "%d partitions, max %d", req.Count, MaxPartitionsPerTopic)
	case have == 0:
		return refuse(wire.CodeUnknownServerError, "topic %q has no partition", req.Topic)
	}
	added := int(req.Count - have)
	rf := len(t.parts[0].Replicas)
	var assignment [][]int32
	if req.Assignment != nil {
		if len(req.Assignment) != added {
			return refuse(wire.CodeInvalidRequest, "adding %d partition(s) with %d assignment(s)", added, len(req.Assignment))
		}
		a, code, msg := c.checkAssignment(wire.CreatableTopic{ReplicationFactor: int16(rf), Assignment: req.Assignment})
		if code != wire.CodeNone {
			return refuse(code, "%s", msg)
		}
		assignment = a
	} else {
		var active []int32
		for _, b := range c.image.Brokers() {
			if b.active() {
				active = append(active, b.ID)
			}
		}
		if rf > len(active) {
			return refuse(wire.CodeInvalidReplicationFactor, "replication factor %d with %d active brokers %v", rf, len(active), active)
		}
		k := 0 // partitions that exist: the rotating start, as CreateTopics
		for _, t := range c.image.topics {
			k += len(t.parts)
		}
		for p := range added {
			replicas := make([]int32, rf)
			for i := range replicas {
				replicas[i] = active[(k+p+i)%len(active)]
			}
			assignment = append(assignment, replicas)
		}
	}
	o := c.begin()
	for i, replicas := range assignment {
		var isr []int32
		for _, r := range replicas {
			if b, ok := c.image.brokers[r]; ok && b.active() {
				isr = append(isr, r)
			}
		}
		o.add(PartitionRecord{
			Topic: req.Topic, Partition: have + int32(i), Replicas: replicas, ISR: isr, Leader: isr[0],
			LeaderRecoveryState: wire.LeaderRecovered,
		})
	}
	if req.ValidateOnly {
		if o.err != nil {
			return refuse(codeOf(o.err), "%v", o.err)
		}
		return resp
	}
	if err := c.commit(o, nowMs); err != nil {
		return refuse(codeOf(err), "%v", err)
	}
	return resp
}
