package kafka_test

import (
	"context"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestProduceToConsumerOffsetsIsRefusedInvalidTopic: a client's produce
// to __consumer_offsets is refused INVALID_TOPIC_EXCEPTION, as Kafka
// refuses appends to an internal topic: only the group coordinators
// write it.
func TestProduceToConsumerOffsetsIsRefusedInvalidTopic(t *testing.T) {
	c := startCluster(t, 1)
	cl := kgoClient(t, c, kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DisableIdempotentWrite(), kgo.RecordRetries(0))
	coordinatorOf(t, c, cl, "any") // creates __consumer_offsets
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	err := cl.ProduceSync(ctx, &kgo.Record{Topic: "__consumer_offsets", Partition: 0, Value: []byte("not a group record")}).FirstErr()
	if !errors.Is(err, kerr.InvalidTopicException) {
		t.Fatalf("a produce to __consumer_offsets: %v, want INVALID_TOPIC_EXCEPTION", err)
	}
}
