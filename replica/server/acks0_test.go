package server_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// TestAcksZeroAnsweredByNothing: an acks=0 produce gets no response at
// all, and takes no place in the connection's order: the request sent
// after it on the same connection is answered first, and nothing else
// ever comes. Its records are written all the same.
func TestAcksZeroAnsweredByNothing(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 3})
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.createTopic(tp.Topic, 1, 3, 2)
	leader, _ := c.leader(tp)

	cl := dial(t, c.broker(leader).h.Addr().String())
	defer cl.close()
	cl.send(produceRequest(t, tp, wire.AcksNone, "fire", "and", "forget"))
	listOffsets := func() *wire.ListOffsetsRequest {
		return &wire.ListOffsetsRequest{ReplicaID: wire.ConsumerReplicaID, Partitions: []wire.ListOffsetsPartition{
			{Topic: tp.Topic, Partition: tp.Partition, CurrentLeaderEpoch: wire.NoEpoch, Timestamp: wire.EarliestTimestamp},
		}}
	}
	for range 2 {
		corr := cl.send(listOffsets())
		if m := cl.receive(); m.APIKey() != wire.APIListOffsets || m.Correlation() != corr {
			t.Fatalf("got %v %d, want the list-offsets answer %d", m.APIKey(), m.Correlation(), corr)
		}
	}
	c.ev.await(t, "the acks=0 records on the leader", func() bool {
		_, leo := c.hw(leader, tp)
		return leo == 3
	})
	// The connection is still in step: an acks=1 produce is answered, at
	// the offset after the acks=0 records.
	resp := cl.call(produceRequest(t, tp, wire.AcksLeader, "next")).(*wire.ProduceResponse)
	if p := resp.Partitions[0]; p.ErrorCode != wire.CodeNone || p.BaseOffset != 3 {
		t.Fatalf("acks=1 after acks=0: %+v", p)
	}
}
