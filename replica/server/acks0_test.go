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

// TestUndecodableAcksZeroProduceClosesTheConnection: a produce whose body
// does not decode is never answered when it said acks=0, nor when its
// acks cannot be read (a body cut before them, a version we do not
// speak): the host closes the connection instead, as Kafka closes it on
// an acks=0 produce it refuses. An answer would be one the client never
// asked for, which it cannot match to a request; the closed connection is
// the one signal both kinds of client understand (one that did want an
// answer sees a retriable network error and resends).
func TestUndecodableAcksZeroProduceClosesTheConnection(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 1})
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.createTopic(tp.Topic, 1, 1, 1)
	addr := c.broker(1).h.Addr().String()
	acks0 := produceRequest(t, tp, wire.AcksNone, "lost")
	acks0.CorrelationID = 8
	whole := encode(t, acks0)
	for _, tc := range []struct {
		name    string
		payload []byte
	}{
		{"acks=0, partitions cut short", whole[:len(whole)-3]},
		{"cut before its acks", append(header(wire.APIProduce, 0, 8), 0)},
		{"a version we do not speak", append(header(wire.APIProduce, 3, 8), 0, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := dial(t, addr)
			defer cl.close()
			cl.keys[8] = wire.APIProduce
			cl.rawFrame(tc.payload)
			cl.expectClosed()
		})
	}
	if _, leo := c.hw(1, tp); leo != 0 {
		t.Fatalf("log end %d after undecodable produces, want 0", leo)
	}
}
