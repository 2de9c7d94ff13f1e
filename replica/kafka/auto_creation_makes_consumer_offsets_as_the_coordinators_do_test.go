package kafka_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A Metadata request that auto-creates __consumer_offsets (kcat -L -t
// __consumer_offsets, a tool reading it) creates it as the group
// coordinators do, with offsets.topic.num.partitions and its replication
// (Kafka's AutoTopicCreationManager gives the internal topic its own
// settings), not the listener's defaults for user topics: a single
// replica of every group's committed offsets would be lost with one disk.
func TestAutoCreationMakesConsumerOffsetsAsTheCoordinatorsDo(t *testing.T) {
	c := startKafkaCluster(t, 3, kafka.Config{AutoCreateTopics: true}) // defaults: 1 partition, 1 replica
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(replica.OffsetsTopic)
	req.Topics, req.AllowAutoTopicCreation = append(req.Topics, rt), true
	roundTrip(t, dialRaw(t, c.seeds()[0]), req, 8)
	c.await("__consumer_offsets", func() bool { _, ok := c.image().Topic(replica.OffsetsTopic); return ok })
	tp, _ := c.image().Topic(replica.OffsetsTopic)
	if p := c.partition(replica.OffsetsTopic, 0); tp.Partitions != replica.DefaultOffsetsTopicPartitions || len(p.Replicas) != 3 || tp.MinISR != 2 {
		t.Fatalf("auto-created %s: %d partitions, replicas %v, min ISR %d; want %d, 3 replicas, 2",
			replica.OffsetsTopic, tp.Partitions, p.Replicas, tp.MinISR, replica.DefaultOffsetsTopicPartitions)
	}
}
