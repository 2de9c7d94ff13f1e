package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A follower whose metadata lags a topic's deletion and re-creation still
// fetches as the old topic's replica; the new topic's leader must not take
// that fetch as the new replica's (Kafka refuses it by topic id:
// UNKNOWN_TOPIC_ID, Fetch v13+), or the high watermark (what consumers read
// as committed, what acks=all acknowledges) covers records an ISR member
// holds otherwise: the old topic's.
func TestAFollowerOfADeletedTopicNeverCountsForTheRecreatedOne(t *testing.T) {
	t.Skip("bug: a fetch names a partition by topic name only, so the leader of a recreated topic (epochs 0 again) takes a lagging follower's fetch for the deleted topic as its own replica's and counts it for the HW; the fix needs the topic's identity (CreatedOffset) in wire.FetchPartition")
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2}}, 1, 1, 2)
	produce(t, c, wire.AcksAll, "old-a", "old-b")
	converge(t, c)
	// Broker 2 stops hearing the metadata log; its fetches of the data
	// go on.
	c.Network().Cut(replica.BrokerAt(2), replica.ControllerAt())
	c.Network().Cut(replica.ControllerAt(), replica.BrokerAt(2))
	if r := deleteTopic(t, c, 1, topic.Topic); r.Topics[0].ErrorCode != wire.CodeNone {
		t.Fatalf("deleting: %+v", r.Topics)
	}
	resp, err := c.Call(replica.ControllerAt(), &wire.CreateTopicsRequest{CorrelationID: c.NextCorrelation(), Topics: []wire.CreatableTopic{{Name: topic.Topic, Partitions: 1, ReplicationFactor: 2, Assignment: [][]int32{{1, 2}}, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "1"}}}}}, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if code := wire.CodeOf(resp.(*wire.CreateTopicsResponse).Err()); code != wire.CodeNone {
		t.Fatalf("re-creating: %v", code)
	}
	if _, err := c.SendProduceTo(1, topic, wire.AcksAll, 1000, []byte("new-0"), []byte("new-1"), []byte("new-2")); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		c.FetchRound()
	}
	leader, _ := c.Replica(1, topic)
	follower, ok := c.Replica(2, topic)
	if !ok {
		return
	}
	want, got := values(t, leader), values(t, follower)
	if n := min(len(got), int(leader.HighWatermark())); !slices.Equal(got[:n], want[:n]) {
		t.Fatalf("the recreated topic's HW is %d while ISR member broker 2 holds %q, the leader %q", leader.HighWatermark(), got, want)
	}
}
