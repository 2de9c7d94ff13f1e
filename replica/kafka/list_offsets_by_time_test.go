package kafka_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestListOffsetsAnswersByTimeAndMaxTimestampWithTheRecordsTimestamp:
// ListOffsets v10 finds the first record whose timestamp is at least the
// one asked for, and for -3 the first record with the largest timestamp,
// each answered with the record's timestamp and the leader epoch; where
// no record qualifies the answer is offset -1, timestamp -1, no error.
// -1 and -2 answer timestamp -1.
func TestListOffsetsAnswersByTimeAndMaxTimestampWithTheRecordsTimestamp(t *testing.T) {
	const topic = "timed"
	c := startCluster(t, 3)
	c.createTopic(topic, 1, 3, 2)
	cl := kgoClient(t, c, kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()))
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	base := time.UnixMilli(1_700_000_000_000)
	for _, ms := range []int64{0, 30, 10, 30, 20} { // offsets 0-4; the max (30) first at 1
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v"), Timestamp: base.Add(time.Duration(ms) * time.Millisecond)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	epoch := c.partition(topic, 0).LeaderEpoch
	at := func(ms int64) int64 { return base.UnixMilli() + ms }
	for _, tc := range []struct {
		name              string
		ask, offset, time int64
	}{
		{"the first timestamp", at(0), 0, at(0)},
		{"between timestamps", at(5), 1, at(30)},
		{"a timestamp two records have", at(30), 1, at(30)},
		{"past every timestamp", at(31), -1, -1},
		{"-3, the max timestamp", -3, 1, at(30)},
		{"-1, the latest", -1, 5, -1},
		{"-2, the earliest", -2, 0, -1},
	} {
		req := listOffsetsOf(topic, tc.ask)
		req.Version = 10
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		p := resp.Topics[0].Partitions[0]
		wantEpoch := epoch
		if tc.offset < 0 {
			wantEpoch = -1
		}
		if p.ErrorCode != 0 || p.Offset != tc.offset || p.Timestamp != tc.time || p.LeaderEpoch != wantEpoch {
			t.Errorf("%s (%d): error %d, offset %d, timestamp %d, epoch %d; want 0, %d, %d, %d",
				tc.name, tc.ask, p.ErrorCode, p.Offset, p.Timestamp, p.LeaderEpoch, tc.offset, tc.time, wantEpoch)
		}
	}
}
