package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// TestMetadataAnswersATopicNamedManyTimesOnce: a Metadata request that
// names one topic many times is answered with the topic once, by a broker
// and by the controller alike, as Kafka's KafkaApis answers
// metadataRequest.topics.asScala.toSet. Answering each name would let a
// request of a few bytes per name (a 1 MiB Kafka request names a topic
// 350,000 times, a 100 MiB kaenlog frame 35 million times) build a
// response of every partition of the topic per name: gigabytes, under the
// node lock, outside any memory budget.
func TestMetadataAnswersATopicNamedManyTimesOnce(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 1, a, b, cc)
	names := slices.Repeat([]string{topic.Topic, "nope"}, 5000)
	for _, to := range []replica.Addr{replica.BrokerAt(a), replica.ControllerAt()} {
		resp, err := c.Call(to, &wire.MetadataRequest{CorrelationID: c.NextCorrelation(), Topics: names}, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		m := resp.(*wire.MetadataResponse)
		var got []string
		for _, tp := range m.Topics {
			got = append(got, tp.Name)
		}
		if want := []string{topic.Topic, "nope"}; !slices.Equal(got, want) {
			n := min(len(got), 4)
			t.Fatalf("%v answered %d topics for %d names of 2 topics (first %q), want %q", to, len(got), len(names), got[:n], want)
		}
		if m.Topics[0].ErrorCode != wire.CodeNone || len(m.Topics[0].Partitions) != 1 || m.Topics[1].ErrorCode != wire.CodeUnknownTopicOrPartition {
			t.Fatalf("%v: %+v", to, m.Topics)
		}
	}
}
