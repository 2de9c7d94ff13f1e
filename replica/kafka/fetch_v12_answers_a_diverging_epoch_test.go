package kafka_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetchFrom is a Fetch of topic's partition 0 from offset, answered at
// once, naming lastFetched as the epoch of the last record read.
func fetchFrom(topic string, offset int64, lastFetched int32) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = -1, 0, 0, 1<<20
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.FetchOffset, rp.LastFetchedEpoch, rp.PartitionMaxBytes = 0, offset, lastFetched, 1<<20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// TestFetchV12AnswersALastFetchedEpochThatEndedBelowTheFetchOffsetWithItsDivergingEpoch:
// Fetch v12 (flexible) checks a consumer's LastFetchedEpoch against the
// leader's epochs, as Kafka's Partition.readRecords does (KIP-320): a
// fetch past where that epoch ended gets DivergingEpoch (the epoch and
// its end offset), no records and no error, where v11, which has no
// LastFetchedEpoch, gets OFFSET_OUT_OF_RANGE; a fetch within the epoch,
// or naming none, reads as before and answers no DivergingEpoch.
func TestFetchV12AnswersALastFetchedEpochThatEndedBelowTheFetchOffsetWithItsDivergingEpoch(t *testing.T) {
	const topic = "diverge"
	c := startCluster(t, 1)
	c.createTopic(topic, 1, 1, 1)
	rc := dialRaw(t, c.seeds()[0])
	if p := roundTrip(t, rc, produceTo(topic, 0, recordBatch(t, 1_700_000_000_000, "a", "b", "c")), 12).(*kmsg.ProduceResponse).Topics[0].Partitions[0]; p.ErrorCode != 0 {
		t.Fatalf("produce: error %d", p.ErrorCode)
	}
	epoch := c.partition(topic, 0).LeaderEpoch
	part := func(v int16, offset int64, last int32) kmsg.FetchResponseTopicPartition {
		t.Helper()
		resp := roundTrip(t, rc, fetchFrom(topic, offset, last), v).(*kmsg.FetchResponse)
		if resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			t.Fatalf("Fetch v%d: %+v", v, resp)
		}
		return resp.Topics[0].Partitions[0]
	}

	p := part(12, 5, epoch) // a consumer that read offsets 3-4 of epoch `epoch` elsewhere
	if p.ErrorCode != 0 || p.DivergingEpoch.Epoch != epoch || p.DivergingEpoch.EndOffset != 3 || len(p.RecordBatches) != 0 || p.HighWatermark != 3 {
		t.Errorf("Fetch v12 from 5, last epoch %d: error %d, diverging %+v, %d record bytes, HW %d; want diverging {%d 3}, no records, HW 3",
			epoch, p.ErrorCode, p.DivergingEpoch, len(p.RecordBatches), p.HighWatermark, epoch)
	}
	if p := part(11, 5, epoch); p.ErrorCode != 1 {
		t.Errorf("Fetch v11 from 5: error %d, want OFFSET_OUT_OF_RANGE (1)", p.ErrorCode)
	}
	for _, tc := range []struct {
		offset   int64
		last     int32
		nRecords int
	}{{0, -1, 3}, {1, epoch, 3}, {3, epoch, 0}} { // from 1: the batch holding it, whole
		p := part(12, tc.offset, tc.last)
		n, err := log.CountRecords(p.RecordBatches)
		if p.ErrorCode != 0 || p.DivergingEpoch.Epoch != -1 || p.DivergingEpoch.EndOffset != -1 || err != nil || n != tc.nRecords ||
			p.CurrentLeader.LeaderID != -1 || p.PreferredReadReplica != -1 {
			t.Errorf("Fetch v12 from %d, last epoch %d: error %d, diverging %+v, leader %+v, %d records (%v); want %d records and no divergence",
				tc.offset, tc.last, p.ErrorCode, p.DivergingEpoch, p.CurrentLeader, n, err, tc.nRecords)
		}
	}
}
