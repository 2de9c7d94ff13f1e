package kafka_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kadm moves a partition's replica to a fourth broker through a broker's
// Kafka listener (Kafka's kafka-reassign-partitions): the new broker
// creates its replica, catches up, joins the ISR, the old one is dropped;
// a record acknowledged with acks=all before is read back after.
// ListPartitionReassignments answers; a cancellation with none in flight
// is NO_REASSIGNMENT_IN_PROGRESS.
func TestKadmReassignmentMovesAReplicaToAnotherBroker(t *testing.T) {
	c := startKafkaCluster(t, 4, kafka.Config{})
	adm := adminClient(t, c)
	ctx := ctxFor(t)
	c.createTopic("orders", 1, 3, 2)
	before := c.partition("orders", 0)
	cl := kgoClient(t, c, kgo.DefaultProduceTopic("orders"), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("kept")}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	var outsider int32
	for id := int32(1); id <= 4; id++ {
		if !slices.Contains(before.Replicas, id) {
			outsider = id
		}
	}
	target := append(slices.Clone(before.Replicas[:2]), outsider)
	var req kadm.AlterPartitionAssignmentsReq
	req.Assign("orders", 0, target)
	rs, err := adm.AlterPartitionAssignments(ctx, req)
	if err != nil || rs["orders"][0].Err != nil {
		t.Fatalf("AlterPartitionAssignments(%v): %v %v", target, err, rs)
	}
	c.await("the reassignment to complete", func() bool {
		p := c.partition("orders", 0)
		return !p.Reassigning() && slices.Equal(p.Replicas, target) && len(p.ISR) == 3
	})
	if ls, err := adm.ListPartitionReassignments(ctx, kadm.TopicsSet{"orders": {0: {}}}); err != nil || len(ls) != 0 {
		t.Fatalf("ListPartitionReassignments after completion: %v %v", ls, err)
	}
	var cancel kadm.AlterPartitionAssignmentsReq
	cancel.CancelAssign("orders", 0)
	if rs, err := adm.AlterPartitionAssignments(ctx, cancel); err != nil || !errors.Is(rs["orders"][0].Err, kerr.NoReassignmentInProgress) {
		t.Fatalf("a cancellation with none in flight: %v %v, want NO_REASSIGNMENT_IN_PROGRESS", rs, err)
	}

	co := kgoClient(t, c, kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	fs := co.PollFetches(ctx)
	if err := fs.Err(); err != nil {
		t.Fatalf("consume: %v", err)
	}
	if recs := fs.Records(); len(recs) != 1 || string(recs[0].Value) != "kept" {
		t.Fatalf("read back %v, want the record acknowledged before the move", recs)
	}
}
