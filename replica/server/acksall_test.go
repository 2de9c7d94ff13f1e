package server_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// TestAcksAllCommittedOnAllThree: a controller and three brokers over
// loopback TCP; a topic with replication factor 3 and min ISR 2; an
// acks=all produce through a raw client connection is answered NONE only
// once committed, and every broker then holds it below its high watermark.
func TestAcksAllCommittedOnAllThree(t *testing.T) {
	c := clustertest.Start(t, clustertest.Options{Brokers: 3})
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 3, 2)
	leader, _ := c.Leader(tp)
	if leader < 1 {
		t.Fatalf("no leader for %v", tp)
	}

	p := produce(c, tp, wire.AcksAll, "a", "b", "c")
	if p.ErrorCode != wire.CodeNone || !p.HasBaseOffset || p.BaseOffset != 0 {
		t.Fatalf("acks=all produce: %+v", p)
	}
	// Answered means committed: the leader's high watermark is past it.
	if hw, _ := c.HW(leader, tp); hw < 3 {
		t.Fatalf("answered NONE with the leader's high watermark at %d", hw)
	}
	c.Await("the records committed on all three brokers", func() bool {
		for id := int32(1); id <= 3; id++ {
			if hw, leo := c.HW(id, tp); hw < 3 || leo < 3 {
				return false
			}
		}
		return true
	})

	p = produce(c, tp, wire.AcksAll, "d")
	if p.ErrorCode != wire.CodeNone || p.BaseOffset != 3 {
		t.Fatalf("second acks=all produce: %+v", p)
	}
}
