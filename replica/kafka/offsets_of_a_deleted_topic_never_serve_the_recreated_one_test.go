package kafka_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// A group's committed offsets are keyed by topic name: once the topic is
// deleted they are forgotten (Kafka's onPartitionsDeleted), so a topic
// created again under the name answers OffsetFetch -1 and its consumers
// start where their reset policy says — not at the deleted topic's offset,
// which would skip the new topic's records up to it.
func TestOffsetsOfADeletedTopicNeverServeTheRecreatedOne(t *testing.T) {
	const topic, groupID = "ledger", "auditors"
	c := startCluster(t, 1)
	c.createTopic(topic, 1, 1, 1)
	cl := kgoClient(t, c)
	ctx := ctxFor(t)
	broker := cl.Broker(int(coordinatorOf(t, c, cl, groupID)))
	c.await("the commit of offset 500", func() bool {
		req := kmsg.NewPtrOffsetCommitRequest()
		req.Group, req.Generation = groupID, -1
		rt := kmsg.NewOffsetCommitRequestTopic()
		rt.Topic = topic
		rp := kmsg.NewOffsetCommitRequestTopicPartition()
		rp.Offset = 500
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, broker)
		return err == nil && resp.Topics[0].Partitions[0].ErrorCode == 0
	})
	fetched := func() int64 {
		t.Helper()
		var off int64
		c.await("OffsetFetch", func() bool {
			req := kmsg.NewPtrOffsetFetchRequest() // v8: a batch of groups
			rg := kmsg.NewOffsetFetchRequestGroup()
			rg.Group = groupID
			rt := kmsg.NewOffsetFetchRequestGroupTopic()
			rt.Topic, rt.Partitions = topic, []int32{0}
			rg.Topics = append(rg.Topics, rt)
			req.Groups = append(req.Groups, rg)
			resp, err := req.RequestWith(ctx, broker)
			if err != nil || len(resp.Groups) != 1 || resp.Groups[0].ErrorCode != 0 || len(resp.Groups[0].Topics) != 1 ||
				resp.Groups[0].Topics[0].Partitions[0].ErrorCode != 0 {
				return false
			}
			p := resp.Groups[0].Topics[0].Partitions[0]
			off = p.Offset
			return true
		})
		return off
	}
	if off := fetched(); off != 500 {
		t.Fatalf("OffsetFetch answered %d, want the commit's 500", off)
	}
	dr, err := adminClient(t, c).DeleteTopics(ctx, topic)
	if err != nil || dr[topic].Err != nil {
		t.Fatalf("DeleteTopics: %v %v", err, dr[topic].Err)
	}
	c.awaitBrokers()
	c.createTopic(topic, 1, 1, 1)
	if off := fetched(); off != -1 {
		t.Fatalf("the recreated topic's committed offset is %d, the deleted topic's; want -1", off)
	}
}
