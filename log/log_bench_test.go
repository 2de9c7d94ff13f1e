package log

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// The storage benchmarks append and read batches of 1, 100 and 1000 records
// with 100-byte values, built once with AppendBatch outside the timer.
// Appends go to 64 MiB segments; every few segments the timer is stopped
// and retention keeps the directory small, so a long run does not fill the
// disk. Reproduce the figures in BENCHMARKS.md with
//
//	go test -run '^$' -bench . -benchtime 1s ./log/
var stBenchRecordCounts = []int{1, 100, 1000}

const (
	stBenchValueBytes   = 100
	stBenchSegmentBytes = 64 << 20
)

// stBenchBatch returns one encoded batch of n records with 100-byte values.
func stBenchBatch(b *testing.B, n int) []byte {
	return stBatch(b, 0, n, stBenchValueBytes, 1_700_000_000_000)
}

// stBenchTrim drops old segments (outside the timer) once there are many.
func stBenchTrim(b *testing.B, l *Log) {
	if len(l.segments) < 5 {
		return
	}
	b.StopTimer()
	if _, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 2 * stBenchSegmentBytes}, 0); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
}

// stBenchReport adds records/s to the benchmark's output.
func stBenchReport(b *testing.B, recordsPerOp int) {
	b.ReportMetric(float64(recordsPerOp)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkAppendAsLeader(b *testing.B) {
	for _, n := range stBenchRecordCounts {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			stBenchAppendAsLeader(b, n, SyncNever)
		})
	}
}

// BenchmarkAppendAsLeaderSyncEveryAppend shows what an fsync per append
// costs on this machine.
func BenchmarkAppendAsLeaderSyncEveryAppend(b *testing.B) {
	b.Run("records=1000", func(b *testing.B) { stBenchAppendAsLeader(b, 1000, SyncEveryAppend) })
}

func stBenchAppendAsLeader(b *testing.B, n int, sync SyncPolicy) {
	batch := stBenchBatch(b, n)
	l := stOpen(b, b.TempDir(), Options{SegmentBytes: stBenchSegmentBytes, Sync: sync})
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		// The same bytes every time: AppendAsLeader stamped the previous
		// base offset in place, and a producer's batch has base offset 0.
		if err := SetBaseOffset(batch, 0); err != nil {
			b.Fatal(err)
		}
		if _, err := l.AppendAsLeader(batch, 1); err != nil {
			b.Fatal(err)
		}
		stBenchTrim(b, l)
	}
	stBenchReport(b, n)
}

// BenchmarkAppendAsLeaderIdempotent is BenchmarkAppendAsLeader with an
// idempotent producer's batch: a known producer at its next sequence
// every time, so the append checks and updates its state. The producer's
// side (the next base sequence and the CRC over it) is patched outside
// the log's work, in a few XORs (seqPatcher), so the two benchmarks
// measure the same append path; it should allocate nothing.
func BenchmarkAppendAsLeaderIdempotent(b *testing.B) {
	for _, n := range stBenchRecordCounts {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			batch := stBenchBatch(b, n)
			binaryPutProducer(batch, 42, 0)
			patch := newSeqPatcher(batch)
			l := stOpen(b, b.TempDir(), Options{SegmentBytes: stBenchSegmentBytes})
			b.SetBytes(int64(len(batch)))
			b.ReportAllocs()
			b.ResetTimer()
			seq := int32(0)
			for range b.N {
				if err := SetBaseOffset(batch, 0); err != nil {
					b.Fatal(err)
				}
				patch.set(batch, seq)
				if info, err := l.AppendAsLeader(batch, 1); err != nil || info.Duplicate {
					b.Fatal(info, err)
				}
				seq = incrementSequence(seq, int32(n))
				stBenchTrim(b, l)
			}
			stBenchReport(b, n)
		})
	}
}

// binaryPutProducer makes a batch an idempotent producer's: producer id
// pid, epoch 0, base sequence 0, CRC recomputed.
func binaryPutProducer(batch []byte, pid int64, seq int32) {
	binary.BigEndian.PutUint64(batch[posProducerID:], uint64(pid))
	binary.BigEndian.PutUint16(batch[posProducerEpoch:], 0)
	binary.BigEndian.PutUint32(batch[posBaseSequence:], uint32(seq))
	binary.BigEndian.PutUint32(batch[posCRC:], ChecksumCRC32C(batch[posAttributes:]))
}

// seqPatcher rewrites a batch's base sequence and fixes its CRC without
// reading the batch: CRC-32C is affine, so the CRC of a message that
// differs only in those 32 bits is the old CRC XOR the contribution of
// each flipped bit, computed once per bit for this length.
type seqPatcher struct {
	basis [32]uint32
	cur   uint32 // the sequence the batch holds
}

func newSeqPatcher(batch []byte) *seqPatcher {
	p := &seqPatcher{cur: binary.BigEndian.Uint32(batch[posBaseSequence:])}
	msg := bytes.Clone(batch[posAttributes:])
	base := ChecksumCRC32C(msg)
	at := posBaseSequence - posAttributes
	for bit := range 32 {
		msg[at+3-bit/8] ^= 1 << (bit % 8)
		p.basis[bit] = ChecksumCRC32C(msg) ^ base
		msg[at+3-bit/8] ^= 1 << (bit % 8)
	}
	return p
}

func (p *seqPatcher) set(batch []byte, seq int32) {
	crc := binary.BigEndian.Uint32(batch[posCRC:])
	for d, bit := p.cur^uint32(seq), 0; d != 0; d, bit = d>>1, bit+1 {
		if d&1 != 0 {
			crc ^= p.basis[bit]
		}
	}
	binary.BigEndian.PutUint32(batch[posBaseSequence:], uint32(seq))
	binary.BigEndian.PutUint32(batch[posCRC:], crc)
	p.cur = uint32(seq)
}

func BenchmarkAppendAsFollower(b *testing.B) {
	for _, n := range stBenchRecordCounts {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			batch := stBenchBatch(b, n)
			l := stOpen(b, b.TempDir(), Options{SegmentBytes: stBenchSegmentBytes})
			l.StopEagerHighWatermark()
			b.SetBytes(int64(len(batch)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				// What a leader shipped: the batch at the follower's LEO.
				if err := SetBaseOffset(batch, uint64(i*n)); err != nil {
					b.Fatal(err)
				}
				if _, err := l.AppendAsFollower(batch); err != nil {
					b.Fatal(err)
				}
				if len(l.segments) >= 5 {
					b.StopTimer()
					if err := l.SetHighWatermark(l.EndOffset()); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				stBenchTrim(b, l)
			}
			stBenchReport(b, n)
		})
	}
}

// BenchmarkRead reads 1 MiB at a time (whole batches) from a 32 MiB log
// that is in the page cache, cycling through it like a consumer that keeps
// catching up.
func BenchmarkRead(b *testing.B) {
	const readBytes = 1 << 20
	for _, n := range stBenchRecordCounts {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			batch := stBenchBatch(b, n)
			perRead := readBytes / len(batch)
			reads := (32 << 20) / (perRead * len(batch))
			l := stOpen(b, b.TempDir(), Options{SegmentBytes: stBenchSegmentBytes})
			for range perRead * reads {
				if err := SetBaseOffset(batch, 0); err != nil {
					b.Fatal(err)
				}
				if _, err := l.AppendAsLeader(batch, 1); err != nil {
					b.Fatal(err)
				}
			}
			want := perRead * len(batch)
			dst := make([]byte, 0, want+BatchHeaderSize)
			b.SetBytes(int64(want))
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				from := uint64(i%reads) * uint64(perRead*n)
				out, err := l.Read(dst[:0], from, want, IsolationHighWatermark)
				if err != nil || len(out) != want {
					b.Fatalf("Read(%d) = %d bytes, %v; want %d", from, len(out), err, want)
				}
			}
			stBenchReport(b, perRead*n)
		})
	}
}

// BenchmarkReadAtLogEnd is a follower's fetch at the log end: the leader
// appends one 1-record batch, and the read starts where the previous one
// ended. The active segment remembers where its recent appends began, so
// the read costs one header pread and one data pread, however many batch
// headers lie between the last index entry and the log end.
func BenchmarkReadAtLogEnd(b *testing.B) {
	batch := stBenchBatch(b, 1)
	l := stOpen(b, b.TempDir(), Options{SegmentBytes: stBenchSegmentBytes})
	dst := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		from := l.EndOffset()
		if err := SetBaseOffset(batch, 0); err != nil {
			b.Fatal(err)
		}
		if _, err := l.AppendAsLeader(batch, 1); err != nil {
			b.Fatal(err)
		}
		out, err := l.Read(dst[:0], from, 1<<20, IsolationLogEnd)
		if err != nil || len(out) != len(batch) {
			b.Fatalf("Read(%d) = %d bytes, %v", from, len(out), err)
		}
		stBenchTrim(b, l)
	}
}

// BenchmarkPageCacheWrite is the reference for the append benchmarks: the
// rate at which this machine's page cache takes 100 KiB pwrites to one
// file, with nothing else done.
func BenchmarkPageCacheWrite(b *testing.B) {
	f, err := vfs.OS().OpenFile(filepath.Join(b.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 100<<10)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	var pos int64
	for b.Loop() {
		if _, err := f.WriteAt(buf, pos); err != nil {
			b.Fatal(err)
		}
		if pos += int64(len(buf)); pos >= stBenchSegmentBytes {
			b.StopTimer()
			if err := f.Truncate(0); err != nil {
				b.Fatal(err)
			}
			pos = 0
			b.StartTimer()
		}
	}
}
