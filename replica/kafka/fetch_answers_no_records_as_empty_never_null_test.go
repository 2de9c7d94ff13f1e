package kafka_test

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFetchAnswersNoRecordsAsEmptyNeverNull: a fetch at the end of a
// partition answers its records as an empty set, not a null one, at every
// version from v4 (librdkafka 2.0.2 takes a null set for a protocol error,
// "invalid MessageSetSize -1"); a fetch of a partition the broker does not
// know does too, beside its error.
func TestFetchAnswersNoRecordsAsEmptyNeverNull(t *testing.T) {
	c := startCluster(t, 1)
	c.createTopic("quiet", 1, 1, 1)
	cl := kgoClient(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	for v := int16(4); v <= 12; v++ {
		req := kmsg.NewPtrFetchRequest()
		req.Version, req.ReplicaID, req.MaxWaitMillis, req.MaxBytes = v, -1, 0, 1<<20
		for _, topic := range []string{"quiet", "missing"} {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic = topic
			rp := kmsg.NewFetchRequestTopicPartition()
			rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes, rp.CurrentLeaderEpoch = 0, 0, 1<<20, -1
			rt.Partitions = []kmsg.FetchRequestTopicPartition{rp}
			req.Topics = append(req.Topics, rt)
		}
		kresp, err := cl.Broker(1).Request(ctx, req)
		if err != nil {
			t.Fatalf("fetch v%d: %v", v, err)
		}
		resp := kresp.(*kmsg.FetchResponse)
		if len(resp.Topics) != 2 {
			t.Fatalf("fetch v%d: %d topics", v, len(resp.Topics))
		}
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				if rp.RecordBatches == nil {
					t.Fatalf("fetch v%d: %s-%d (error %d) answered null records", v, rt.Topic, rp.Partition, rp.ErrorCode)
				}
				if len(rp.RecordBatches) != 0 {
					t.Fatalf("fetch v%d: %s-%d answered %d bytes of records", v, rt.Topic, rp.Partition, len(rp.RecordBatches))
				}
			}
		}
	}
}
