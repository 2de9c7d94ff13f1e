package log

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// Recovery costs what it must. Reproduce the figures in BENCHMARKS.md with
//
//	go test -run '^$' -bench 'BenchmarkOpen' -benchtime 20x ./log/

// The Open benchmarks also report cpu-ns/op, the process's CPU time per
// Open: on a machine shared with other work an Open's wall time includes
// waiting for a core and for the disk (the directory fsync after deleting
// the clean-shutdown marker), its CPU time mostly does not.

// stCPUClock accumulates the process's CPU time while it runs; its start
// and stop go with the benchmark timer's.
type stCPUClock struct {
	from, total time.Duration
	ok          bool
}

func (c *stCPUClock) start() { c.from, c.ok = processCPU() }

func (c *stCPUClock) stop() {
	now, ok := processCPU()
	c.total += now - c.from
	c.ok = c.ok && ok
}

// report reports cpu-ns/op; the clock must be stopped.
func (c *stCPUClock) report(b *testing.B) {
	if c.ok && b.N > 0 {
		b.ReportMetric(float64(c.total.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// stBenchFill appends size bytes in batches of about batchBytes to l, as a
// follower (the batches are built once and restamped).
func stBenchFill(b *testing.B, l *Log, size int64, batchBytes int) {
	batch := stBatch(b, 0, 1, batchBytes-BatchHeaderSize-16, 1)
	for written := int64(0); written < size; written += int64(len(batch)) {
		if err := SetBaseOffset(batch, l.EndOffset()); err != nil {
			b.Fatal(err)
		}
		if _, err := l.AppendAsFollower(batch); err != nil {
			b.Fatal(err)
		}
	}
}

// stBenchCrash lets go of l's files and lock without checkpointing, as a
// killed process does.
func stBenchCrash(l *Log) {
	l.closeFiles()
	l.lock.Close()
}

// BenchmarkOpenAfterCleanShutdown opens a 1 GiB log of 5,000 segments
// that Close left with its clean-shutdown marker: no segment is read.
func BenchmarkOpenAfterCleanShutdown(b *testing.B) {
	const size, segments = 1 << 30, 5000
	dir := filepath.Join(b.TempDir(), "p")
	opts := Options{SegmentBytes: size / segments}
	l := stOpen(b, dir, opts)
	stBenchFill(b, l, size, 52<<10)
	if n := len(l.segments); n < segments {
		b.Fatalf("%d segments, want %d", n, segments)
	}
	stClose(b, l)
	b.ReportAllocs()
	var cpu stCPUClock
	b.ResetTimer()
	for range b.N {
		cpu.start()
		l, err := Open(dir, opts)
		cpu.stop()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if !l.Recovery().Clean {
			b.Fatalf("not clean:\n%s", l.Recovery())
		}
		stClose(b, l)
		b.StartTimer()
	}
	cpu.report(b)
}

// BenchmarkOpenAfterCleanShutdownWithProducers is the same 1 GiB log of
// 5,000 segments written by 10,000 idempotent producers: Open reads their
// state from the snapshot Close wrote, and still no segment.
func BenchmarkOpenAfterCleanShutdownWithProducers(b *testing.B) {
	const size, segments, producers = 1 << 30, 5000, 10_000
	dir := filepath.Join(b.TempDir(), "p")
	opts := Options{SegmentBytes: size / segments}
	l := stOpen(b, dir, opts)
	batch := stBatch(b, 0, 1, 52<<10-BatchHeaderSize-16, 1)
	seqs := make([]int32, producers)
	for i, written := 0, int64(0); written < size; i, written = i+1, written+int64(len(batch)) {
		pid := i % producers
		binaryPutProducer(batch, int64(pid), seqs[pid])
		seqs[pid]++
		if err := SetBaseOffset(batch, l.EndOffset()); err != nil {
			b.Fatal(err)
		}
		if _, err := l.AppendAsFollower(batch); err != nil {
			b.Fatal(err)
		}
	}
	if n := len(l.Producers()); n != producers {
		b.Fatalf("%d producers, want %d", n, producers)
	}
	stClose(b, l)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		l, err := Open(dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if r := l.Recovery(); !r.Clean || r.Producers != producers || r.ProducerStateRebuilt || r.SegmentsVerified != 0 {
			b.Fatalf("not clean:\n%s", r)
		}
		stClose(b, l)
		b.StartTimer()
	}
}

// BenchmarkOpenAfterCrash opens a 256 MiB log after a kill -9, with 16 or
// 64 MiB appended past the recovery point: Open verifies only those.
// MB/s is the rate over the bytes past the recovery point.
func BenchmarkOpenAfterCrash(b *testing.B) {
	for _, past := range []int64{16 << 20, 64 << 20} {
		b.Run(fmt.Sprintf("past=%dMiB", past>>20), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "p")
			opts := Options{SegmentBytes: 8 << 20}
			l, err := Open(dir, opts)
			if err != nil {
				b.Fatal(err)
			}
			stBenchFill(b, l, 256<<20-past, 64<<10)
			if err := l.Flush(); err != nil {
				b.Fatal(err)
			}
			rp := l.EndOffset()
			// The producer-state snapshot Flush wrote with the recovery
			// point: part of the crashed state each iteration restores.
			snap := stReadFile(b, filepath.Join(dir, producerSnapshotName(rp)))
			stBenchFill(b, l, past, 64<<10)
			stBenchCrash(l)
			b.SetBytes(past)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				l, err := Open(dir, opts)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if r := l.Recovery(); r.Clean || r.RecoveryPoint != rp || r.BytesVerified < past ||
					r.ProducerStateRebuilt || !r.HaveProducerSnapshot || r.ProducerSnapshot != rp {
					b.Fatalf("recovery point %d verified %d bytes:\n%s", r.RecoveryPoint, r.BytesVerified, r)
				}
				stBenchCrash(l)
				// Back to the crashed state: Open wrote the recovery point
				// it reached, with its snapshot, and deleted the old one.
				if err := writeFilesAtomic(vfs.OS(), dir, checkpointFile{recoveryPointFileName, formatCheckpoint(rp)},
					checkpointFile{producerSnapshotName(rp), snap}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
