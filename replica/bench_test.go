package replica_test

import (
	"fmt"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// BenchmarkReplicate measures the replicated path end to end: the leader
// appends a batch of 100-byte records, then one FetchOnce carries it over
// the link as wire frames into the follower's log and brings the high
// watermark back. Records/s counts records that reach the follower.
func BenchmarkReplicate(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			c, err := replica.OpenCluster(b.TempDir(), 2, now)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			recs := make([]log.Record, n)
			value := make([]byte, 100)
			for i := range recs {
				recs[i] = log.Record{OffsetDelta: int32(i), Value: value}
			}
			batch, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(batch)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				// Produce stamped the previous offset in place; a producer's
				// batch has base offset 0.
				if err := log.SetBaseOffset(batch, 0); err != nil {
					b.Fatal(err)
				}
				if _, code, err := c.Leader().Produce(batch, wire.AcksLeader, now); err != nil || code != wire.CodeNone {
					b.Fatal(code, err)
				}
				r, err := c.FetchOnce(now)
				if err != nil {
					b.Fatal(err)
				}
				if r.RecordsShipped != n {
					b.Fatalf("shipped %d, want %d", r.RecordsShipped, n)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
