package kafka_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kadm adds partitions to a topic through a broker's Kafka listener; the
// brokers create the new replicas as for a new topic and a producer writes
// to a new partition with acks=all. A count that is not an increase is
// INVALID_PARTITIONS; an unknown topic UNKNOWN_TOPIC_OR_PARTITION.
func TestKadmCreatePartitionsAddsPartitionsAClientCanWrite(t *testing.T) {
	c := startKafkaCluster(t, 3, kafka.Config{})
	adm := adminClient(t, c)
	ctx := ctxFor(t)
	c.createTopic("orders", 1, 2, 2)

	if vr, err := adm.ValidateCreatePartitions(ctx, 2, "orders"); err != nil || vr["orders"].Err != nil {
		t.Fatalf("ValidateCreatePartitions: %v %v", err, vr)
	}
	if tp, _ := c.image().Topic("orders"); tp.Partitions != 1 {
		t.Fatalf("a validate-only request added partitions: %+v", tp)
	}
	r, err := adm.CreatePartitions(ctx, 2, "orders")
	if err != nil || r["orders"].Err != nil {
		t.Fatalf("CreatePartitions: %v %v", err, r)
	}
	c.awaitBrokers()
	if p := c.partition("orders", 2); len(p.Replicas) != 2 || p.Leader != p.Replicas[0] {
		t.Fatalf("orders-2: %v, want 2 replicas led by the first", p)
	}

	cl := kgoClient(t, c, kgo.DefaultProduceTopic("orders"), kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	res := cl.ProduceSync(ctx, &kgo.Record{Partition: 2, Value: []byte("to a new partition")})
	if rec, err := res.First(); err != nil || rec.Partition != 2 || rec.Offset != 0 {
		t.Fatalf("produce to orders-2: %+v, %v", rec, err)
	}

	for _, tc := range []struct {
		topic string
		set   int
		want  error
	}{
		{"orders", 3, kerr.InvalidPartitions},
		{"orders", 2, kerr.InvalidPartitions},
		{"never", 4, kerr.UnknownTopicOrPartition},
	} {
		r, err := adm.UpdatePartitions(ctx, tc.set, tc.topic)
		if err == nil {
			err = r[tc.topic].Err
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("UpdatePartitions(%d, %q): %v, want %v", tc.set, tc.topic, err, tc.want)
		}
	}
}
