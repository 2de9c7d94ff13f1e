package compression

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The benchmarks compare the leader's validation of one compressed batch
// (Log.AppendAsLeader: CRC, decompression into the log's reused buffer,
// the walk of every record, the append to an in-memory file system) with
// decompressing the same bytes alone with the library, into a reused
// buffer. The batch is 1 MiB of 100-byte JSON-like records (10,000),
// compressed by franz-go's producer compressor. BENCHMARKS.md has the
// command and the ratios.

// cpuMeter sums the process's CPU time over the timed parts of a
// benchmark and reports it per operation as cpu-ns/op: on a shared
// machine, wall time per op varies with the load several times over, CPU
// time much less.
type cpuMeter struct {
	at, total time.Duration
	ok        bool
}

func (m *cpuMeter) start() { m.at, m.ok = processCPU() }

func (m *cpuMeter) stop() {
	if now, ok := processCPU(); ok && m.ok {
		m.total += now - m.at
	}
}

func (m *cpuMeter) report(b *testing.B, ops int) {
	if m.ok && ops > 0 {
		b.ReportMetric(float64(m.total.Nanoseconds())/float64(ops), "cpu-ns/op")
	}
}

// benchBatch is the compressed batch of codec, and its records' size.
func benchBatch(b *testing.B, codec kgo.CompressionCodec, c log.Compression) (sent []byte, inflated int) {
	plain := plainBatch(b, 10000, 100)
	return withBody(b, plain, kgoEncoder(codec)(b, plain[log.BatchHeaderSize:]), c), len(plain) - log.BatchHeaderSize
}

// benchValidate appends sent as a leader, b.N times, to a log whose
// segment files keep their sizes but not their bytes (discardFS): what is
// measured is the leader's validation and the log's bookkeeping, not a
// file system's copy of the batch. The log is replaced every 64 appends
// (outside the timer).
func benchValidate(b *testing.B, codec kgo.CompressionCodec, c log.Compression) {
	sent, inflated := benchBatch(b, codec, c)
	batch := bytes.Clone(sent)
	var l *log.Log
	open := func() {
		if l != nil {
			l.Close()
		}
		var err error
		if l, err = log.Open("/bench", log.Options{FS: discardFS{vfs.NewMem()}}); err != nil {
			b.Fatal(err)
		}
	}
	open()
	b.SetBytes(int64(inflated))
	b.ReportAllocs()
	var cpu cpuMeter
	cpu.start()
	i := 0
	for b.Loop() {
		if i++; i%64 == 0 {
			b.StopTimer()
			cpu.stop()
			open()
			cpu.start()
			b.StartTimer()
		}
		clear(batch[:8]) // the base offset the append stamped (outside the CRC)
		if _, err := l.AppendAsLeader(batch, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu.stop()
	cpu.report(b, i)
	l.Close()
	b.ReportMetric(float64(inflated)/float64(len(sent)), "ratio")
}

// discardFS is a vfs.FS whose segment files (*.log) count the bytes
// written to them and keep none; its other files are the wrapped FS's.
type discardFS struct{ vfs.FS }

func (d discardFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := d.FS.OpenFile(name, flag, perm)
	if err != nil || !strings.HasSuffix(name, ".log") {
		return f, err
	}
	size, err := f.Size()
	return &discardFile{File: f, size: size}, err
}

// discardFile is a segment file of discardFS.
type discardFile struct {
	vfs.File
	size int64
}

func (f *discardFile) WriteAt(p []byte, off int64) (int, error) {
	f.size = max(f.size, off+int64(len(p)))
	return len(p), nil
}

func (f *discardFile) Truncate(size int64) error { f.size = size; return nil }

func (f *discardFile) Size() (int64, error) { return f.size, nil }

func BenchmarkValidateSnappy(b *testing.B) {
	benchValidate(b, kgo.SnappyCompression(), log.CompressionSnappy)
}

func BenchmarkRawDecompressSnappy(b *testing.B) {
	sent, inflated := benchBatch(b, kgo.SnappyCompression(), log.CompressionSnappy)
	body, out := sent[log.BatchHeaderSize:], make([]byte, inflated)
	b.SetBytes(int64(inflated))
	b.ReportAllocs()
	var cpu cpuMeter
	cpu.start()
	ops := 0
	for b.Loop() {
		if _, err := s2.Decode(out, body); err != nil {
			b.Fatal(err)
		}
		ops++
	}
	cpu.stop()
	cpu.report(b, ops)
}

func BenchmarkValidateLZ4(b *testing.B) {
	benchValidate(b, kgo.Lz4Compression(), log.CompressionLZ4)
}

func BenchmarkRawDecompressLZ4(b *testing.B) {
	sent, inflated := benchBatch(b, kgo.Lz4Compression(), log.CompressionLZ4)
	body, out := sent[log.BatchHeaderSize:], make([]byte, inflated+1)
	var src bytes.Reader
	r := lz4.NewReader(&src)
	b.SetBytes(int64(inflated))
	b.ReportAllocs()
	var cpu cpuMeter
	cpu.start()
	ops := 0
	for b.Loop() {
		ops++
		src.Reset(body)
		r.Reset(&src)
		n, err := r.Read(out)
		for err == nil && n < inflated {
			var k int
			k, err = r.Read(out[n:])
			n += k
		}
		if n != inflated {
			b.Fatal(n, err)
		}
	}
	cpu.stop()
	cpu.report(b, ops)
}

func BenchmarkValidateZstd(b *testing.B) {
	benchValidate(b, kgo.ZstdCompression(), log.CompressionZstd)
}

func BenchmarkRawDecompressZstd(b *testing.B) {
	sent, inflated := benchBatch(b, kgo.ZstdCompression(), log.CompressionZstd)
	body, out := sent[log.BatchHeaderSize:], make([]byte, 0, inflated)
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.SetBytes(int64(inflated))
	b.ReportAllocs()
	var cpu cpuMeter
	cpu.start()
	ops := 0
	for b.Loop() {
		if out, err = d.DecodeAll(body, out[:0]); err != nil || len(out) != inflated {
			b.Fatal(len(out), err)
		}
		ops++
	}
	cpu.stop()
	cpu.report(b, ops)
}

func BenchmarkValidateGzip(b *testing.B) {
	benchValidate(b, kgo.GzipCompression(), log.CompressionGzip)
}
