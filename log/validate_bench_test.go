package log

import (
	"fmt"
	"testing"
)

// The validation benchmarks, to compare in one run:
//
//	go test -run '^$' -bench 'BenchmarkVerifyBatch$|BenchmarkValidateLeaderBatch$|BenchmarkAppendAsLeader$|BenchmarkAppendAsLeaderValidated$' -benchtime 1s ./log
//
// VerifyBatch against validateLeaderBatch is the CRC alone against the CRC
// plus the walk over every record, in memory. AppendAsLeader against
// AppendAsLeaderValidated is the leader's append without and with the
// validator called first, on the same batches and log options; as long as
// AppendAsLeader verifies the CRC itself, the second counts the CRC twice.

// BenchmarkValidateLeaderBatch is BenchmarkVerifyBatch's twin for the
// leader's validation (CRC plus a walk over every record), on the same
// batches of 1, 100 and 1000 records with 100-byte values.
func BenchmarkValidateLeaderBatch(b *testing.B) {
	for _, n := range benchRecordCounts {
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

// BenchmarkAppendAsLeaderValidated is BenchmarkAppendAsLeader with
// validateLeaderBatch called before every append, as a leader does with a
// producer's batch. The ratio of the two is what validation costs the
// produce path.
func BenchmarkAppendAsLeaderValidated(b *testing.B) {
	for _, n := range stBenchRecordCounts {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			batch := stBenchBatch(b, n)
			l := stOpen(b, b.TempDir(), Options{SegmentBytes: stBenchSegmentBytes})
			b.SetBytes(int64(len(batch)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				// AppendAsLeader stamped the previous base offset in place;
				// a producer's batch has base offset 0.
				if err := SetBaseOffset(batch, 0); err != nil {
					b.Fatal(err)
				}
				if _, err := validateLeaderBatch(batch, len(batch)); err != nil {
					b.Fatal(err)
				}
				if _, err := l.AppendAsLeader(batch, 1); err != nil {
					b.Fatal(err)
				}
				stBenchTrim(b, l)
			}
			stBenchReport(b, n)
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
