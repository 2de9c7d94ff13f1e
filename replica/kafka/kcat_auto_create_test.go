package kafka_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica/kafka"
)

// kcat's producer (librdkafka 2.0.2, whose producer allows auto-creation
// by default) writes to a topic that does not exist on a cluster with
// AutoCreateTopics, and its consumer reads the lines back; the topic has
// the listener's default partitions.
func TestKcatProducesToAnUnknownTopicWhichMetadataCreates(t *testing.T) {
	needKcat(t)
	c := startKafkaCluster(t, 2, kafka.Config{AutoCreateTopics: true, DefaultPartitions: 1, DefaultReplicationFactor: 2})
	kcat(t, c, "one\ntwo\n", "-P", "-t", "kcat-auto", "-p", "0", "-z", "none", "-X", "acks=all")
	if out := kcat(t, c, "", "-C", "-t", "kcat-auto", "-p", "0", "-o", "beginning", "-e", "-f", "%s@%o\n"); out != "one@0\ntwo@1\n" {
		t.Fatalf("kcat -C read %q, want the two lines at offsets 0 and 1", out)
	}
	if tp, ok := c.image().Topic("kcat-auto"); !ok || tp.Partitions != 1 || len(c.partition("kcat-auto", 0).Replicas) != 2 {
		t.Fatalf("the auto-created topic: %+v %v", tp, ok)
	}
}
