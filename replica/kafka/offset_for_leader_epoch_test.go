package kafka_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// epochQueries counts the OffsetForLeaderEpoch requests a kgo client
// wrote (a kgo.HookBrokerWrite).
type epochQueries struct {
	mu sync.Mutex
	n  int
}

func (q *epochQueries) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if key == 23 && err == nil {
		q.mu.Lock()
		q.n++
		q.mu.Unlock()
	}
}

func (q *epochQueries) count() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}

// A consumer's OffsetForLeaderEpoch is answered by the leader from its
// epoch cache, fenced on CurrentLeaderEpoch as Kafka fences it; kgo asks
// it after its partition's leader changes (KIP-320), and reads on from
// the new leader every record once, in order.
func TestConsumersOffsetForLeaderEpochIsAnsweredFromTheLeadersEpochCache(t *testing.T) {
	const topic = "epochs"
	c := startCluster(t, 3)
	c.createTopic(topic, 1, 3, 1)
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	prod := kgoClient(t, c, kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()))
	produce := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if err := prod.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
				t.Fatalf("produce %d: %v", i, err)
			}
		}
	}
	queries := &epochQueries{}
	cons := kgoClient(t, c, kgo.WithHooks(queries),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	var got []string
	read := func(n int) {
		t.Helper()
		for len(got) < n {
			fs := cons.PollFetches(ctx)
			if ctx.Err() != nil {
				t.Fatalf("read %d of %d records", len(got), n)
			}
			fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
		}
	}
	produce(0, 5)
	read(5)

	old := c.partition(topic, 0)
	c.kill(old.Leader, vfs.KeepUnsynced)
	c.await("a new leader", func() bool { p := c.partition(topic, 0); return p.Leader >= 0 && p.Leader != old.Leader })
	c.awaitBrokers()
	now := c.partition(topic, 0)
	produce(5, 10)
	read(10)
	want := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	if !slices.Equal(got, want) {
		t.Fatalf("read %v, want %v", got, want)
	}
	if queries.count() == 0 {
		t.Fatal("kgo never asked OffsetForLeaderEpoch after the leader changed")
	}

	// The raw answers, from the new leader.
	leaderAddr := c.kafkaAddr(now.Leader)
	ask := func(current, epoch int32) kmsg.OffsetForLeaderEpochResponseTopicPartition {
		t.Helper()
		req := kmsg.NewPtrOffsetForLeaderEpochRequest()
		req.ReplicaID = -1
		rt := kmsg.NewOffsetForLeaderEpochRequestTopic()
		rt.Topic = topic
		rp := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
		rp.Partition, rp.CurrentLeaderEpoch, rp.LeaderEpoch = 0, current, epoch
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp := roundTrip(t, dialRaw(t, leaderAddr), req, 4).(*kmsg.OffsetForLeaderEpochResponse)
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			t.Fatalf("answer %+v", resp)
		}
		return resp.Topics[0].Partitions[0]
	}
	if p := ask(now.LeaderEpoch, old.LeaderEpoch); p.ErrorCode != 0 || p.LeaderEpoch != old.LeaderEpoch || p.EndOffset != 5 {
		t.Errorf("epoch %d asked at the current epoch: %+v, want epoch %d ending at 5", old.LeaderEpoch, p, old.LeaderEpoch)
	}
	if p := ask(-1, now.LeaderEpoch); p.ErrorCode != 0 || p.LeaderEpoch != now.LeaderEpoch || p.EndOffset != 10 {
		t.Errorf("the current epoch: %+v, want epoch %d ending at the log end 10", p, now.LeaderEpoch)
	}
	if p := ask(now.LeaderEpoch+1, now.LeaderEpoch); p.ErrorCode != kerr.UnknownLeaderEpoch.Code {
		t.Errorf("a CurrentLeaderEpoch ahead of the leader's: %+v, want UNKNOWN_LEADER_EPOCH", p)
	}
	if p := ask(now.LeaderEpoch-1, now.LeaderEpoch); p.ErrorCode != kerr.FencedLeaderEpoch.Code {
		t.Errorf("a CurrentLeaderEpoch behind the leader's: %+v, want FENCED_LEADER_EPOCH", p)
	}
}
