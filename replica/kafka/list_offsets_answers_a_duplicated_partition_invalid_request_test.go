package kafka_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestListOffsetsAnswersAPartitionNamedTwiceInvalidRequest: a ListOffsets
// request that names a partition more than once, in one topic entry or in
// two, is answered INVALID_REQUEST (offset and timestamp -1) for every
// occurrence of it, before the timestamp is checked, as Kafka's
// ReplicaManager.fetchOffset answers ListOffsetsRequest.duplicatePartitions;
// the request's other partitions are answered as usual.
func TestListOffsetsAnswersAPartitionNamedTwiceInvalidRequest(t *testing.T) {
	const topic = "twice"
	c := startCluster(t, 1)
	c.createTopic(topic, 2, 1, 1)
	rc := dialRaw(t, c.seeds()[0])
	if p := roundTrip(t, rc, produceTo(topic, 0, recordBatch(t, 1_700_000_000_000, "v")), 12).(*kmsg.ProduceResponse).Topics[0].Partitions[0]; p.ErrorCode != 0 {
		t.Fatalf("produce: error %d", p.ErrorCode)
	}
	part := func(p int32, ts int64) kmsg.ListOffsetsRequestTopicPartition {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = p, ts, -1
		return rp
	}
	for v := int16(1); v <= 10; v++ {
		req := listOffsetsOf(topic, -1)
		req.Topics[0].Partitions = append(req.Topics[0].Partitions, part(1, -1), part(0, -2))
		again := kmsg.NewListOffsetsRequestTopic()
		again.Topic = topic
		again.Partitions = append(again.Partitions, part(0, -7)) // a third time, with a timestamp no version has
		req.Topics = append(req.Topics, again)
		resp := roundTrip(t, rc, req, v).(*kmsg.ListOffsetsResponse)
		var got []int16
		for _, rt := range resp.Topics {
			for _, p := range rt.Partitions {
				got = append(got, p.ErrorCode)
				if p.Partition == 0 && (p.Offset != -1 || p.Timestamp != -1) {
					t.Errorf("v%d: duplicated partition 0 answered offset %d timestamp %d, want -1 -1", v, p.Offset, p.Timestamp)
				}
				if p.Partition == 1 && p.Offset != 0 {
					t.Errorf("v%d: partition 1's latest offset %d, want 0", v, p.Offset)
				}
			}
		}
		want := []int16{42, 0, 42, 42} // INVALID_REQUEST for each occurrence of partition 0
		if len(got) != len(want) {
			t.Fatalf("v%d: %d partitions answered (%v), want %v", v, len(got), got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("v%d: error codes %v, want %v", v, got, want)
				break
			}
		}
	}
}
