package kafka_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// listOffsetsOf is a consumer's ListOffsets of topic's partition 0 at ts,
// naming no leader epoch.
func listOffsetsOf(topic string, ts int64) *kmsg.ListOffsetsRequest {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = 0, ts, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// TestListOffsetsAnswersEachNegativeTimestampFromTheVersionThatHasIt:
// ListOffsets v1-v10 answers -3 (max timestamp) from v7, -4 (earliest
// local: the log start, no tiered storage) from v8 and -5 (latest
// tiered: -1, nothing is tiered) from v9, and UNSUPPORTED_VERSION for
// them below those versions and for a negative timestamp no version
// has, as Kafka's ReplicaManager answers; v10's TimeoutMillis changes
// nothing (no remote storage to wait for).
func TestListOffsetsAnswersEachNegativeTimestampFromTheVersionThatHasIt(t *testing.T) {
	const topic, base = "negative", 1_700_000_000_000
	c := startCluster(t, 1)
	c.createTopic(topic, 1, 1, 1)
	rc := dialRaw(t, c.seeds()[0])
	for i, ts := range []int64{base, base + 30, base + 10} { // the max first at offset 1
		if p := roundTrip(t, rc, produceTo(topic, 0, recordBatch(t, ts, "v")), 12).(*kmsg.ProduceResponse).Topics[0].Partitions[0]; p.ErrorCode != 0 || p.BaseOffset != int64(i) {
			t.Fatalf("produce %d: error %d at %d", i, p.ErrorCode, p.BaseOffset)
		}
	}
	epoch := c.partition(topic, 0).LeaderEpoch
	type answer struct {
		code              int16
		offset, timestamp int64
		epoch             int32
	}
	unsupported := answer{35, -1, -1, -1}
	for _, tc := range []struct {
		ts    int64
		since int16 // 0: no version
		want  answer
	}{
		{-1, 1, answer{0, 3, -1, epoch}},
		{-2, 1, answer{0, 0, -1, epoch}},
		{-3, 7, answer{0, 1, base + 30, epoch}},
		{-4, 8, answer{0, 0, -1, epoch}},
		{-5, 9, answer{0, -1, -1, -1}},
		{-6, 0, unsupported},
		{-7, 0, unsupported},
	} {
		for v := int16(1); v <= 10; v++ {
			req := listOffsetsOf(topic, tc.ts)
			req.TimeoutMillis = 1
			resp := roundTrip(t, rc, req, v).(*kmsg.ListOffsetsResponse)
			p := resp.Topics[0].Partitions[0]
			got := answer{p.ErrorCode, p.Offset, p.Timestamp, p.LeaderEpoch}
			want := tc.want
			if tc.since == 0 || v < tc.since {
				want = unsupported
			}
			if v < 4 && want.code == 0 {
				want.epoch = -1 // LeaderEpoch comes with v4
			}
			if got != want {
				t.Errorf("ListOffsets v%d of %d: %+v, want %+v", v, tc.ts, got, want)
			}
		}
	}
}
