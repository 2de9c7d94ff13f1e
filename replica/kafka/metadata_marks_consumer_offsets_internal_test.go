package kafka_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka's Metadata marks __consumer_offsets internal (IsInternal, v1+,
// Topic.isInternal): every client's wildcard subscription leaves internal
// topics out by it (Java's exclude.internal.topics, kgo's regex
// consumer), so without it a consumer of ".*" reads, and a mirror copies,
// the coordinators' records. Other topics are not internal.
func TestMetadataMarksConsumerOffsetsInternal(t *testing.T) {
	c := startCluster(t, 1)
	c.createTopic("orders", 1, 1, 1)
	cl := kgoClient(t, c)
	coordinatorOf(t, c, cl, "g") // creates __consumer_offsets
	c.awaitBrokers()
	ctx := ctxFor(t)
	req := kmsg.NewPtrMetadataRequest() // all topics
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tp := range resp.Topics {
		name := *tp.Topic
		seen[name] = true
		if want := name == "__consumer_offsets"; tp.IsInternal != want {
			t.Errorf("Metadata v%d: %s IsInternal %v, want %v", req.Version, name, tp.IsInternal, want)
		}
	}
	if !seen["__consumer_offsets"] || !seen["orders"] {
		t.Fatalf("Metadata listed %v", seen)
	}
}
