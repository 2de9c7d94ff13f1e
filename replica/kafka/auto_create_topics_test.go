package kafka_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// With AutoCreateTopics, kgo's producer to a topic that does not exist
// succeeds without an admin call: its Metadata request creates the topic
// with the listener's defaults. Without it, or with
// AllowAutoTopicCreation false, the topic stays unknown.
func TestKgoProducesToAnUnknownTopicWhichMetadataCreates(t *testing.T) {
	c := startKafkaCluster(t, 3, kafka.Config{AutoCreateTopics: true, DefaultPartitions: 2, DefaultReplicationFactor: 3})
	ctx := ctxFor(t)
	cl := kgoClient(t, c, kgo.AllowAutoTopicCreation(), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "fresh", Value: []byte("first")}).FirstErr(); err != nil {
		t.Fatalf("producing to an unknown topic: %v", err)
	}
	tp, ok := c.image().Topic("fresh")
	if !ok || tp.Partitions != 2 || len(c.partition("fresh", 0).Replicas) != 3 {
		t.Fatalf("the auto-created topic: %+v %v, want 2 partitions of 3 replicas", tp, ok)
	}
	if got := consumeAll(t, c, "fresh", 2, 1); len(got) != 1 {
		t.Fatalf("read %v, want the one record", got)
	}

	// Metadata v4+ without AllowAutoTopicCreation creates nothing.
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr("untouched")
	req.Topics = append(req.Topics, rt)
	resp := roundTrip(t, dialRaw(t, c.seeds()[0]), req, 8).(*kmsg.MetadataResponse)
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("Metadata v8 without AllowAutoTopicCreation: %+v", resp.Topics)
	}
	c.awaitBrokers()
	if _, ok := c.image().Topic("untouched"); ok {
		t.Fatal("a Metadata request that did not allow it created the topic")
	}
	// v0-v3 always allow it (as in Kafka): LEADER_NOT_AVAILABLE, then the topic.
	resp = roundTrip(t, dialRaw(t, c.seeds()[0]), req, 3).(*kmsg.MetadataResponse)
	if code := resp.Topics[0].ErrorCode; code != kerr.LeaderNotAvailable.Code {
		t.Fatalf("Metadata v3 for an unknown topic: %v, want LEADER_NOT_AVAILABLE", kerr.ErrorForCode(code))
	}
	c.await("the topic Metadata v3 created", func() bool { _, ok := c.image().Topic("untouched"); return ok })

	// A creation the controller refuses is answered with its refusal.
	wide := startKafkaCluster(t, 1, kafka.Config{AutoCreateTopics: true, DefaultReplicationFactor: 3})
	req.AllowAutoTopicCreation = true
	for i := 0; ; i++ {
		resp = roundTrip(t, dialRaw(t, wide.seeds()[0]), req, 8).(*kmsg.MetadataResponse)
		err := kerr.ErrorForCode(resp.Topics[0].ErrorCode)
		if errors.Is(err, kerr.InvalidReplicationFactor) {
			break
		}
		if !errors.Is(err, kerr.LeaderNotAvailable) || i > 1000 {
			t.Fatalf("auto-creating with factor 3 on one broker: %v, want LEADER_NOT_AVAILABLE then INVALID_REPLICATION_FACTOR", err)
		}
		wide.awaitBrokers()
	}

	// Without AutoCreateTopics the topic stays unknown.
	off := startCluster(t, 1)
	resp = roundTrip(t, dialRaw(t, off.seeds()[0]), req, 8).(*kmsg.MetadataResponse)
	if resp.Topics[0].ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("without AutoCreateTopics: %v", kerr.ErrorForCode(resp.Topics[0].ErrorCode))
	}
}
