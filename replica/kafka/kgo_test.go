package kafka_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// kgoClient returns a franz-go client seeded with the cluster's Kafka
// listeners, with kgo's default compression (snappy, which
// replica/compression registers with the log), closed at the end of the
// test.
func kgoClient(t *testing.T, c *cluster, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	opts = append([]kgo.Opt{
		kgo.SeedBrokers(c.seeds()...),
		kgo.RetryTimeout(30 * time.Second),
		kgo.WithLogger(kgo.BasicLogger(testWriter{t}, kgo.LogLevelWarn, nil)),
	}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Logf("kgo: %s", p); return len(p), nil }

// key names a record by where it landed.
type key struct {
	partition int32
	offset    int64
}

// consumeAll reads the topic's partitions from the start with a direct
// (group-less) consumer until want records are read or the wait ends, and
// returns what it read, each record by its place.
func consumeAll(t *testing.T, c *cluster, topic string, partitions int32, want int) map[key][]string {
	t.Helper()
	offsets := map[int32]kgo.Offset{}
	for p := range partitions {
		offsets[p] = kgo.NewOffset().AtStart()
	}
	cl := kgoClient(t, c, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: offsets}))
	got := map[key][]string{}
	n := 0
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	for n < want {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records before the wait ended", n, want)
		}
		fs.EachError(func(topic string, p int32, err error) { t.Logf("fetch %s-%d: %v", topic, p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			k := key{r.Partition, r.Offset}
			got[k] = append(got[k], string(r.Value))
			n++
		})
	}
	return got
}

// TestKgoProducesAndConsumesEachRecordExactlyOnce: franz-go's idempotent
// acks=all producer writes through the Kafka listeners of a 3-broker
// cluster (RF 3, min ISR 2), and a direct consumer reads every
// acknowledged record exactly once, at the offset its acknowledgement
// gave, with its value.
func TestKgoProducesAndConsumesEachRecordExactlyOnce(t *testing.T) {
	const topic, partitions, n = "orders", 3, 600
	c := startCluster(t, 3)
	c.createTopic(topic, partitions, 3, 2)
	prod := kgoClient(t, c, kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()))
	acked := map[key]string{}
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	for i := 0; i < n; i += 50 {
		var batch []*kgo.Record
		for j := i; j < i+50; j++ {
			batch = append(batch, &kgo.Record{Value: fmt.Appendf(nil, "record-%d", j)})
		}
		for _, res := range prod.ProduceSync(ctx, batch...) {
			if res.Err != nil {
				t.Fatalf("produce: %v", res.Err)
			}
			k := key{res.Record.Partition, res.Record.Offset}
			if _, dup := acked[k]; dup {
				t.Fatalf("two records acknowledged at %v", k)
			}
			acked[k] = string(res.Record.Value)
		}
	}
	if pid, _, err := prod.ProducerID(ctx); err != nil || pid < 0 {
		t.Fatalf("the producer is not idempotent: producer id %d, %v", pid, err)
	}
	got := consumeAll(t, c, topic, partitions, n)
	for k, v := range acked {
		if len(got[k]) != 1 || got[k][0] != v {
			t.Fatalf("at %v: acknowledged %q, read %q", k, v, got[k])
		}
	}
	if len(got) != len(acked) {
		t.Fatalf("read %d records, %d acknowledged", len(got), len(acked))
	}
}
