package log

import (
	"fmt"
	"testing"
)

// The validation benchmarks. The validator against the CRC alone, in
// memory, in one run:
//
//	go test -run '^$' -bench 'BenchmarkVerifyBatch$|BenchmarkValidateLeaderBatch' -benchtime 1s ./log
//
// What validation costs a produce is BenchmarkAppendAsLeader, which
// validates, against the same benchmark on a tree from before validation
// (BENCHMARKS.md). Before AppendAsLeader validated, that cost was measured
// with validateLeaderBatch called before each append
// (BenchmarkAppendAsLeaderValidated, in the commit that added this file).

// BenchmarkValidateLeaderBatch is BenchmarkVerifyBatch's twin for the
// leader's validation (CRC plus a walk over every record), on the same
// batches of 1, 100 and 1000 records with 100-byte values, and a 1 MB one
// of 10,000 (a producer's largest batch by default, whose offset deltas
// from record 8192 on take three bytes).
func BenchmarkValidateLeaderBatch(b *testing.B) {
	for _, n := range append(benchRecordCounts[:len(benchRecordCounts):len(benchRecordCounts)], 10000) {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			buf := benchEncoded(b, n)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := validateLeaderBatch(buf, len(buf)); err != nil {
					b.Fatal(err)
				}
			}
			reportRecords(b, n)
		})
	}
}

// BenchmarkValidateLeaderBatchShapes measures other producer batches than
// the 100-byte values above, each against VerifyBatch on the same bytes:
// keys, headers and values of varying sizes (the fast path), and timestamp
// deltas of 8192 ms and more, whose three-byte varlongs leave every record
// to the slower general decoder.
func BenchmarkValidateLeaderBatchShapes(b *testing.B) {
	shapes := []struct {
		name   string
		record func(i int) Record
	}{
		{"keys-headers-mixed-sizes", func(i int) Record {
			return Record{TimestampDelta: int64(i % 300), Key: []byte(fmt.Sprint("key-", i)), Value: make([]byte, 20+i*37%400),
				Headers: []Header{{Key: "trace-id", Value: []byte("0af7651916cd43dd8448eb211c80319c")}}}
		}},
		{"timestamp-deltas-over-8s", func(i int) Record { return Record{TimestampDelta: 10_000 + int64(i), Value: make([]byte, 100)} }},
	}
	for _, s := range shapes {
		batch := &Batch{BaseTimestamp: 1_700_000_000_000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: make([]Record, 1000)}
		for i := range batch.Records {
			batch.Records[i] = s.record(i)
		}
		batch.SetSequentialOffsetDeltas()
		buf, err := AppendBatch(nil, batch)
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range []struct {
			name string
			fn   func([]byte) error
		}{
			{"verify", func(buf []byte) error { _, err := VerifyBatch(buf); return err }},
			{"validate", func(buf []byte) error { _, err := validateLeaderBatch(buf, len(buf)); return err }},
		} {
			b.Run(s.name+"/"+f.name, func(b *testing.B) {
				b.SetBytes(int64(len(buf)))
				b.ReportAllocs()
				for b.Loop() {
					if err := f.fn(buf); err != nil {
						b.Fatal(err)
					}
				}
				reportRecords(b, len(batch.Records))
			})
		}
	}
}
