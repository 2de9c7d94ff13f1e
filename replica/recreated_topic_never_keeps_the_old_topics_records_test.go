package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A topic deleted and created again, with the same brokers, while one of
// them was down is a new topic on that broker too: its start deletes the
// old topic's log instead of keeping it as the new one's (Kafka tells the
// two apart by the topic id in partition.metadata and deletes the stray
// log). Truncation cannot tell them apart: both incarnations start at
// leader epoch 0, so the old records below the new leader's end of epoch 0
// look like the new topic's.
func TestARecreatedTopicNeverKeepsTheOldTopicsRecords(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2, 3}}, 1, 1, 2, 3)
	produce(t, c, wire.AcksAll, "old-a", "old-b", "old-c")
	converge(t, c)
	if err := c.StopBroker(3); err != nil {
		t.Fatal(err)
	}
	if r := deleteTopic(t, c, 1, topic.Topic); r.Topics[0].ErrorCode != wire.CodeNone {
		t.Fatalf("deleting %s: %+v", topic.Topic, r.Topics)
	}
	if err := c.CreateTopic(topic.Topic, 1, 3, 1, [][]int32{{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	produce(t, c, 1, "new-0", "new-1", "new-2", "new-3", "new-4") // acks=1: broker 3 is down but in the new ISR
	if err := c.StartBroker(3); err != nil {
		t.Fatal(err)
	}
	if err := c.AwaitBrokers(60_000); err != nil {
		t.Fatal(err)
	}
	for range 50 {
		c.FetchRound()
		c.Advance(100)
	}
	want := logOf(t, c, 1)
	if !slices.Equal(want, []string{"new-0", "new-1", "new-2", "new-3", "new-4"}) {
		t.Fatalf("the leader holds %q, want new-0 to new-4", want)
	}
	if got := logOf(t, c, 3); !slices.Equal(got, want) {
		t.Fatalf("broker 3, down for the deletion and the re-creation, holds %q of the recreated topic, want the leader's %q", got, want)
	}
}
