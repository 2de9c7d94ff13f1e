package server_test

import (
	"fmt"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// TestResponsesInRequestOrder: requests pipelined on one connection are
// answered in the order they were sent, even when the broker answers them
// in another. An acks=all produce waits for its commit, which cannot come
// while the followers' links to the leader are held; the list-offsets,
// fetch and acks=1 produce sent after it on the same connection are
// answered by the broker at once, and still reach the client after it.
func TestResponsesInRequestOrder(t *testing.T) {
	for _, inFlight := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("MaxInFlight=%d", inFlight), func(t *testing.T) { testOrder(t, inFlight) })
	}
}

func testOrder(t *testing.T, maxInFlight int) {
	var px proxies
	c := clustertest.Start(t, clustertest.Options{
		Brokers: 3, Wrap: record,
		Host: func(id int32, _ *replica.Broker, cfg *server.Config) {
			cfg.MaxInFlight = maxInFlight
			cfg.Resolve = px.resolver(id)
		},
	})
	px.setCluster(c)
	defer px.close()
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 3, 2)
	leader, _ := c.Leader(tp)
	if p := produce(c, tp, wire.AcksAll, "warm-up"); p.ErrorCode != wire.CodeNone {
		t.Fatalf("warm-up produce: %+v", p)
	}

	// Hold the acks=all produce: the followers' links to the leader are
	// paused, and the leader keeps them in its ISR for replica.lag.time.max.ms.
	for id := int32(1); id <= 3; id++ {
		if id != leader {
			px.get(id, leader).pause()
		}
	}
	cl := dial(t, c.Broker(leader).Host.Addr().String())
	defer cl.close()
	cl.corr = 1 << 30 // apart from the brokers' own correlation ids
	listOffsets := func() wire.Message {
		return &wire.ListOffsetsRequest{ReplicaID: wire.ConsumerReplicaID, Partitions: []wire.ListOffsetsPartition{
			{Topic: tp.Topic, Partition: tp.Partition, CurrentLeaderEpoch: wire.NoEpoch, Timestamp: wire.LatestTimestamp},
		}}
	}
	reqs := []wire.Message{
		produceRequest(t, tp, wire.AcksAll, "held"),
		listOffsets(),
		&wire.FetchRequest{ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1, MaxBytes: 1 << 20, Partitions: []wire.FetchPartition{
			{Topic: tp.Topic, Partition: tp.Partition, CurrentLeaderEpoch: wire.NoEpoch, FetchOffset: 0, LastFetchedEpoch: wire.NoEpoch, MaxBytes: 1 << 20},
		}},
		produceRequest(t, tp, wire.AcksLeader, "quick"),
		listOffsets(),
	}
	var corrs []int32
	for _, r := range reqs {
		corrs = append(corrs, cl.send(r))
	}
	rec := c.Broker(leader).Node.(*recorder)
	if maxInFlight != 1 {
		// The broker answers everything after the held produce first. It
		// sees the requests under ids the host gave them.
		ahead := maxInFlight
		if ahead == 0 {
			ahead = server.DefaultMaxInFlight
		}
		var (
			from replica.Addr
			seen []int32
		)
		c.Await("the broker to answer the requests after the held produce", func() bool {
			from, seen = rec.requestsFromLastAcksAll()
			if len(seen) < min(len(corrs), ahead) {
				return false
			}
			for _, corr := range seen[1:min(len(corrs), ahead)] {
				if !rec.hasAnswered(from, corr) {
					return false
				}
			}
			return true
		})
		if rec.hasAnswered(from, seen[0]) {
			t.Fatal("the held produce was answered while its followers were cut off")
		}
	}
	for id := int32(1); id <= 3; id++ {
		if id != leader {
			px.get(id, leader).unpause()
		}
	}
	for i, corr := range corrs {
		m := cl.receive()
		if m.Correlation() != corr || m.APIKey() != reqs[i].APIKey() {
			t.Fatalf("response %d: %v %d, want %v %d", i, m.APIKey(), m.Correlation(), reqs[i].APIKey(), corr)
		}
	}
}
