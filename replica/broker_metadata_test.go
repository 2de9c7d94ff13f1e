package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// TestABrokerAnswersMetadataFromItsImage: any broker answers Metadata, as
// Kafka's brokers do, with what the controller committed: the brokers,
// each partition's leader, epochs, replicas and real ISR — which shrinks
// when a follower is cut off, unlike an ISR reported as the replicas.
func TestABrokerAnswersMetadataFromItsImage(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 1, a, b, cc)
	metadata := func(at int32, topics []string) *wire.MetadataResponse {
		t.Helper()
		resp, err := c.Call(replica.BrokerAt(at), &wire.MetadataRequest{CorrelationID: c.NextCorrelation(), Topics: topics}, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		return resp.(*wire.MetadataResponse)
	}
	want, _ := c.Controller().Image().Partition(topic.Topic, topic.Partition)
	for _, id := range []int32{a, b, cc} {
		m := metadata(id, nil)
		if len(m.Brokers) != 3 || len(m.Topics) != 1 || m.Topics[0].Name != topic.Topic {
			t.Fatalf("broker %d: %+v", id, m)
		}
		p := m.Topics[0].Partitions[0]
		if p.Leader != want.Leader || p.LeaderEpoch != want.LeaderEpoch || p.PartitionEpoch != want.PartitionEpoch ||
			!slices.Equal(p.Replicas, want.Replicas) || !slices.Equal(p.ISR, want.ISR) || p.ErrorCode != wire.CodeNone {
			t.Fatalf("broker %d answers %+v, the controller committed %v", id, p, want)
		}
	}
	if m := metadata(b, []string{"nope"}); len(m.Topics) != 1 || m.Topics[0].ErrorCode != wire.CodeUnknownTopicOrPartition {
		t.Fatalf("an unknown topic: %+v", m.Topics)
	}
	// Cut a follower off until the leader drops it from the ISR (no fetch
	// rounds run here, so the other follower goes too): the answer then
	// shows the committed ISR, not the replicas.
	leader := c.LeaderOf(topic)
	var cut int32 = a
	if cut == leader {
		cut = b
	}
	c.Disconnect(replica.BrokerAt(cut), replica.BrokerAt(leader))
	if err := c.Await(func() bool {
		p, _ := c.Controller().Image().Partition(topic.Topic, topic.Partition)
		return !slices.Contains(p.ISR, cut)
	}, 120_000); err != nil {
		t.Fatal(err)
	}
	if err := c.Await(func() bool {
		p := metadata(leader, nil).Topics[0].Partitions[0]
		committed, _ := c.Controller().Image().Partition(topic.Topic, topic.Partition)
		return slices.Equal(p.ISR, committed.ISR) && !slices.Contains(p.ISR, cut) && slices.Contains(p.Replicas, cut)
	}, 10_000); err != nil {
		p, _ := c.Controller().Image().Partition(topic.Topic, topic.Partition)
		t.Fatalf("the leader's Metadata still lists broker %d in the ISR: %v: %+v; controller %v", cut, err, metadata(leader, nil).Topics[0].Partitions[0], p)
	}
}

// TestABrokerForwardsInitProducerIDToTheController: a client's
// InitProducerID sent to any broker gets a producer id from the
// controller, unique across the cluster.
func TestABrokerForwardsInitProducerIDToTheController(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 1, a, b, cc)
	seen := map[int64]bool{}
	for i := range 6 {
		at := []int32{a, b, cc}[i%3]
		resp, err := c.Call(replica.BrokerAt(at), &wire.InitProducerIDRequest{CorrelationID: c.NextCorrelation(), TransactionTimeoutMs: -1,
			ProducerID: wire.NoProducerID, ProducerEpoch: wire.NoProducerEpoch}, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		r := resp.(*wire.InitProducerIDResponse)
		if r.ErrorCode != wire.CodeNone || r.ProducerID < 0 || r.ProducerEpoch != 0 || seen[r.ProducerID] {
			t.Fatalf("broker %d answered %+v (ids so far %v)", at, r, seen)
		}
		seen[r.ProducerID] = true
	}
}
