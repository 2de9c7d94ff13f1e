package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// adminClient is a kadm client over kgoClient.
func adminClient(t *testing.T, c *cluster) *kadm.Client {
	t.Helper()
	return kadm.NewClient(kgoClient(t, c))
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	t.Cleanup(cancel)
	return ctx
}

// partitionDirs lists broker id's partition directories.
func (c *cluster) partitionDirs(id int32) []string {
	c.t.Helper()
	c.mu.Lock()
	disk := c.disks[id]
	c.mu.Unlock()
	entries, err := disk.ReadDir(fmt.Sprintf("/broker-%d", id))
	if err != nil {
		c.t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.Regular {
			out = append(out, e.Name)
		}
	}
	return out
}

// kadm creates topics through any broker with Kafka's numbers for its
// refusals, NumPartitions and ReplicationFactor -1 taking the listener's
// defaults, and validate-only creating nothing; it deletes them, after
// which every broker has dropped their directories and answers
// UNKNOWN_TOPIC_OR_PARTITION, and a topic created again under the name
// starts empty.
func TestKadmCreatesAndDeletesTopicsThroughAnyBroker(t *testing.T) {
	c := startKafkaCluster(t, 3, kafka.Config{DefaultPartitions: 3, DefaultReplicationFactor: 2})
	adm := adminClient(t, c)
	ctx := ctxFor(t)

	r, err := adm.CreateTopic(ctx, 2, 3, map[string]*string{"min.insync.replicas": kadm.StringPtr("2")}, "orders")
	if err != nil || r.Err != nil {
		t.Fatalf("CreateTopic: %v, %v", err, r.Err)
	}
	if r.NumPartitions != 2 || r.ReplicationFactor != 3 || r.ID != kafka.TopicID("orders") {
		t.Fatalf("CreateTopic (v7) answered %+v, want 2 partitions, factor 3 and the topic id", r)
	}
	c.awaitBrokers()
	if tp, ok := c.image().Topic("orders"); !ok || tp.MinISR != 2 || tp.Partitions != 2 {
		t.Fatalf("the controller's topic: %+v %v, want 2 partitions with min ISR 2", tp, ok)
	}
	if p := c.partition("orders", 1); len(p.Replicas) != 3 {
		t.Fatalf("orders-1: %v, want 3 replicas", p)
	}

	if r, err := adm.CreateTopic(ctx, -1, -1, nil, "defaults"); err != nil || r.Err != nil {
		t.Fatalf("a topic with -1/-1: %v %v", err, r.Err)
	}
	if tp, _ := c.image().Topic("defaults"); tp.Partitions != 3 || len(c.partition("defaults", 0).Replicas) != 2 {
		t.Fatalf("a topic with -1/-1: %+v, want Config's 3 partitions and factor 2", tp)
	}

	for _, tc := range []struct {
		name    string
		p       int32
		rf      int16
		configs map[string]*string
		want    error
	}{
		{"orders", 1, 1, nil, kerr.TopicAlreadyExists},
		{"wide", 1, 4, nil, kerr.InvalidReplicationFactor},
		{"empty", 0, 1, nil, kerr.InvalidPartitions},
		{"bad/name", 1, 1, nil, kerr.InvalidTopicException},
		{"kept", 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("-2")}, kerr.InvalidConfig},
		{"kept", 1, 1, map[string]*string{"compression.type": kadm.StringPtr("zstd")}, kerr.InvalidConfig},
		{"kept", 1, 1, map[string]*string{"cleanup.policy": kadm.StringPtr("delete,shred")}, kerr.InvalidConfig},
		{"kept", 1, 1, map[string]*string{"min.insync.replicas": kadm.StringPtr("zero")}, kerr.InvalidConfig},
	} {
		r, err := adm.CreateTopic(ctx, tc.p, tc.rf, tc.configs, tc.name)
		if err == nil {
			err = r.Err
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("CreateTopic(%q, %d, %d, %v): %v, want %v", tc.name, tc.p, tc.rf, tc.configs, err, tc.want)
		}
	}
	if vr, err := adm.ValidateCreateTopics(ctx, 1, 1, nil, "checked"); err != nil || vr["checked"].Err != nil {
		t.Fatalf("ValidateCreateTopics: %v %v", err, vr)
	}
	if _, ok := c.image().Topic("checked"); ok {
		t.Fatal("a validate-only creation created the topic")
	}

	// Several topics in one request: each is created or refused on its
	// own, a name given twice is refused each time.
	req := kmsg.NewPtrCreateTopicsRequest()
	for _, n := range []string{"one", "bad/name", "two", "dup", "dup"} {
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = n, 1, 1
		req.Topics = append(req.Topics, rt)
	}
	resp := roundTrip(t, dialRaw(t, c.seeds()[0]), req, 7).(*kmsg.CreateTopicsResponse)
	var codes []int16
	for _, rt := range resp.Topics {
		codes = append(codes, rt.ErrorCode)
	}
	if want := []int16{0, kerr.InvalidTopicException.Code, 0, kerr.InvalidRequest.Code, kerr.InvalidRequest.Code}; !slices.Equal(codes, want) {
		t.Fatalf("a request for one, bad/name, two, dup, dup answered %v, want %v", codes, want)
	}
	for _, n := range []string{"one", "two"} {
		if _, ok := c.image().Topic(n); !ok {
			t.Fatalf("topic %s was answered created but is not in the controller's image", n)
		}
	}

	cl := kgoClient(t, c, kgo.DefaultProduceTopic("orders"), kgo.RequiredAcks(kgo.AllISRAcks()))
	for range 10 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("old")}).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}

	dr, err := adm.DeleteTopics(ctx, "orders", "never")
	if err != nil {
		t.Fatal(err)
	}
	if dr["orders"].Err != nil || !errors.Is(dr["never"].Err, kerr.UnknownTopicOrPartition) {
		t.Fatalf("DeleteTopics: orders %v, never %v; want none and UNKNOWN_TOPIC_OR_PARTITION", dr["orders"].Err, dr["never"].Err)
	}
	c.awaitBrokers()
	for id := int32(1); id <= 3; id++ {
		if dirs := c.partitionDirs(id); slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(d, "orders-") }) {
			t.Fatalf("broker %d keeps %v after the deletion", id, dirs)
		}
	}
	md, err := adm.Metadata(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(md.Topics["orders"].Err, kerr.UnknownTopicOrPartition) {
		t.Fatalf("Metadata for the deleted topic: %v", md.Topics["orders"].Err)
	}

	if r, err := adm.CreateTopic(ctx, 2, 3, nil, "orders"); err != nil || r.Err != nil {
		t.Fatalf("creating orders again: %v %v", err, r.Err)
	}
	c.awaitBrokers()
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("new")}).FirstErr(); err != nil {
		t.Fatalf("produce to the recreated topic: %v", err)
	}
	got := consumeAll(t, c, "orders", 2, 1)
	for k, v := range got {
		if k.offset != 0 || !slices.Equal(v, []string{"new"}) {
			t.Fatalf("the recreated topic holds %v, want only the new record at offset 0", got)
		}
	}
}
