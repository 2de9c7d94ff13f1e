package log

import (
	"fmt"
	"testing"
)

var benchRecordCounts = []int{1, 100, 1000}

// benchBatch returns a batch of n records with 100-byte values, the shape
// the performance targets are stated for.
func benchBatch(n int) *Batch {
	value := make([]byte, 100)
	for i := range value {
		value[i] = byte(i)
	}
	b := &Batch{BaseTimestamp: 1700000000000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: make([]Record, n)}
	for i := range b.Records {
		b.Records[i] = Record{TimestampDelta: int64(i), Value: value}
	}
	b.SetSequentialOffsetDeltas()
	b.MaxTimestamp = b.BaseTimestamp + int64(n-1)
	return b
}

func benchEncoded(b *testing.B, n int) []byte {
	enc, err := AppendBatch(nil, benchBatch(n))
	if err != nil {
		b.Fatal(err)
	}
	return enc
}

// reportRecords adds a records/s figure for recordsPerOp records per op.
func reportRecords(b *testing.B, recordsPerOp int) {
	b.ReportMetric(float64(recordsPerOp)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkAppendBatch(b *testing.B) {
	for _, n := range benchRecordCounts {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			batch := benchBatch(n)
			dst := make([]byte, 0, len(benchEncoded(b, n)))
			b.SetBytes(int64(cap(dst)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if dst, err = AppendBatch(dst[:0], batch); err != nil {
					b.Fatal(err)
				}
			}
			reportRecords(b, n)
		})
	}
}

func BenchmarkVerifyBatch(b *testing.B) {
	for _, n := range benchRecordCounts {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			buf := benchEncoded(b, n)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := VerifyBatch(buf); err != nil {
					b.Fatal(err)
				}
			}
			reportRecords(b, n)
		})
	}
}

// BenchmarkBatchScanner verifies a buffer of about 1 MiB of batches, the
// recovery and fetch path.
func BenchmarkBatchScanner(b *testing.B) {
	for _, n := range benchRecordCounts {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			one := benchEncoded(b, n)
			var buf []byte
			batches := 0
			for len(buf) < 1<<20 {
				buf = append(buf, one...)
				batches++
			}
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			var s BatchScanner
			for b.Loop() {
				s.Reset(buf)
				for s.Next() {
				}
				if s.Err() != nil {
					b.Fatal(s.Err())
				}
			}
			reportRecords(b, n*batches)
		})
	}
}

func BenchmarkDecodeBatch(b *testing.B) {
	for _, n := range benchRecordCounts {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			buf := benchEncoded(b, n)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := DecodeBatch(buf); err != nil {
					b.Fatal(err)
				}
			}
			reportRecords(b, n)
		})
	}
}

// BenchmarkBatchDecode decodes into one reused Batch: the allocation-free
// way to read every record of a stream of batches.
func BenchmarkBatchDecode(b *testing.B) {
	for _, n := range benchRecordCounts {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			buf := benchEncoded(b, n)
			var batch Batch
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := batch.Decode(buf); err != nil {
					b.Fatal(err)
				}
			}
			reportRecords(b, n)
		})
	}
}
