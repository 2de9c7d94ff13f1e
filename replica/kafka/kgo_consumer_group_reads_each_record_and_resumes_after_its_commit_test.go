package kafka_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// produceN writes n records "prefix-i" to topic with acks=all, spread
// round-robin over its partitions, and returns them by where they landed.
func produceN(t *testing.T, c *cluster, topic, prefix string, n int) map[key]string {
	t.Helper()
	prod := kgoClient(t, c, kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	var batch []*kgo.Record
	for i := range n {
		batch = append(batch, &kgo.Record{Value: fmt.Appendf(nil, "%s-%d", prefix, i)})
	}
	acked := map[key]string{}
	for _, res := range prod.ProduceSync(ctx, batch...) {
		if res.Err != nil {
			t.Fatalf("produce: %v", res.Err)
		}
		acked[key{res.Record.Partition, res.Record.Offset}] = string(res.Record.Value)
	}
	prod.Close()
	return acked
}

// groupRun consumes topic as a member of group until want records are
// read, commits what it read (acknowledged by the coordinator), and
// leaves the group. It returns the records read, by place.
func groupRun(t *testing.T, c *cluster, groupID, topic string, want int) map[key]string {
	t.Helper()
	cl := kgoClient(t, c, kgo.ConsumerGroup(groupID), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	got := map[key]string{}
	for len(got) < want {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("group %s read %d of %d records before the wait ended", groupID, len(got), want)
		}
		fs.EachError(func(topic string, p int32, err error) { t.Logf("fetch %s-%d: %v", topic, p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			k := key{r.Partition, r.Offset}
			if _, dup := got[k]; dup {
				t.Fatalf("group %s read %v twice in one run", groupID, k)
			}
			got[k] = string(r.Value)
		})
	}
	if err := cl.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}
	return got
}

// TestKgoConsumerGroupReadsEveryRecordAndASecondRunResumesAfterItsCommit:
// kgo's consumer group (FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
// OffsetFetch, OffsetCommit) reads every record of a 3-partition topic on
// a 3-broker cluster and commits; a second run of the same group reads
// nothing of it again: its first records are the ones produced after the
// commit, and only those.
func TestKgoConsumerGroupReadsEveryRecordAndASecondRunResumesAfterItsCommit(t *testing.T) {
	const topic, n = "events", 300
	c := startCluster(t, 3)
	c.createTopic(topic, 3, 3, 2)
	acked := produceN(t, c, topic, "first", n)
	got := groupRun(t, c, "readers", topic, n)
	for k, v := range acked {
		if got[k] != v {
			t.Fatalf("at %v: acknowledged %q, the group read %q", k, v, got[k])
		}
	}
	more := produceN(t, c, topic, "second", 30)
	again := groupRun(t, c, "readers", topic, len(more))
	for k, v := range again {
		if more[k] != v {
			t.Fatalf("the second run read %v = %q, which is not among the records produced after the commit", k, v)
		}
	}
}
