package replica_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/testkit"
	"github.com/kaenlog/kaenlog/wire"
)

// The replicated path, in one process and on real files (page cache): a
// produce to the leader, then one fetch round — the follower's fetch, the
// leader serving it, the follower appending — through the state machines
// (no network). Compare BenchmarkPageCacheWrite, run in the same go test
// invocation: a replicated byte is written twice, so the ceiling is half
// the page-cache write rate. Both keep their files to a few 64 MiB
// segments (retention runs outside the timer), so neither measures the
// disk's writeback instead of the page cache.

// Both also report cpu-ns/op, the process's CPU time per operation over
// the timed part: on a machine shared with other work the wall time of a
// run includes waiting for a core, the CPU time mostly does not, so the
// two ratios together tell the log's cost from the neighbours' load.

// cpuClock accumulates the process's CPU time while it runs; its start
// and stop go with the benchmark timer's.
type cpuClock struct {
	from, total time.Duration
	ok          bool
}

func (c *cpuClock) start() { c.from, c.ok = testkit.ProcessCPU() }

func (c *cpuClock) stop() {
	now, ok := testkit.ProcessCPU()
	c.total += now - c.from
	c.ok = c.ok && ok
}

// report stops the clock and reports cpu-ns/op.
func (c *cpuClock) report(b *testing.B) {
	b.StopTimer()
	c.stop()
	if c.ok && b.N > 0 {
		b.ReportMetric(float64(c.total.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// benchSegmentBytes is the segment size of the benchmark's logs.
const benchSegmentBytes = 64 << 20

var benchOptions = replica.Options{Log: log.Options{SegmentBytes: benchSegmentBytes}}

// benchTrim drops old segments of both logs every 256 rounds, outside the
// timer.
func benchTrim(b *testing.B, cpu *cpuClock, round int, rs ...*replica.Replica) {
	if round%256 != 255 {
		return
	}
	b.StopTimer()
	cpu.stop()
	for _, r := range rs {
		if _, err := r.Log().DeleteRetainedSegments(log.RetentionPolicy{RetentionBytes: 2 * benchSegmentBytes}, 0); err != nil {
			b.Fatal(err)
		}
	}
	cpu.start()
	b.StartTimer()
}

// benchPair is a leader and a follower of one partition.
func benchPair(b *testing.B) (l, f *replica.Replica) {
	b.Helper()
	dir := b.TempDir()
	var err error
	if l, err = replica.Open(1, filepath.Join(dir, "1"), benchOptions); err != nil {
		b.Fatal(err)
	}
	if f, err = replica.Open(2, filepath.Join(dir, "2"), benchOptions); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close(); f.Close() })
	st := replica.PartitionState{Leader: 1, LeaderEpoch: 0, PartitionEpoch: 0, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, MinISR: 2}
	if err := l.BecomeLeader(st, t0); err != nil {
		b.Fatal(err)
	}
	if err := f.BecomeFollower(st, t0); err != nil {
		b.Fatal(err)
	}
	return l, f
}

// benchBatch is one producer batch of n records of size bytes each.
func benchBatch(b *testing.B, n, size int) []byte {
	b.Helper()
	recs := make([]log.Record, n)
	value := bytes.Repeat([]byte("v"), size)
	for i := range recs {
		recs[i] = log.Record{OffsetDelta: int32(i), Value: value}
	}
	batch, err := log.AppendBatch(nil, &log.Batch{BaseTimestamp: t0, MaxTimestamp: t0, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs})
	if err != nil {
		b.Fatal(err)
	}
	return batch
}

func benchReplicate(b *testing.B, records, size int) {
	l, f := benchPair(b)
	batch := benchBatch(b, records, size)
	var buf []byte
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	var cpu cpuClock
	b.ResetTimer()
	cpu.start()
	for i := 0; i < b.N; i++ {
		log.SetBaseOffset(batch, 0) // a producer's batch starts at 0; the leader stamps it in place
		if _, _, err := l.Produce(0, batch, wire.AcksLeader, 0, t0); err != nil {
			b.Fatal(err)
		}
		p, _ := f.NextFetch(t0)
		var resp wire.FetchPartitionResponse
		resp, buf, _ = l.HandleFetch(replica.FetchFrom{ReplicaID: 2, ReplicaEpoch: -1}, &p, 8<<20, buf[:0], t0)
		if n, err := f.ApplyFetch(&p, &resp, t0); err != nil || n != records {
			b.Fatalf("shipped %d records, err %v", n, err)
		}
		benchTrim(b, &cpu, i, l, f)
	}
	cpu.report(b)
}

// BenchmarkReplicate100KiB: 100 KiB batches (1000 records of about 100
// bytes), the throughput case.
func BenchmarkReplicate100KiB(b *testing.B) { benchReplicate(b, 1000, 90) }

// BenchmarkReplicate1Record: one record per round, the latency case.
func BenchmarkReplicate1Record(b *testing.B) { benchReplicate(b, 1, 100) }

// BenchmarkPageCacheWrite is the ceiling: appending the same 100 KiB
// batches to one file with pwrite, as fast as the page cache takes them.
func BenchmarkPageCacheWrite(b *testing.B) {
	batch := benchBatch(b, 1000, 90)
	file, err := os.Create(filepath.Join(b.TempDir(), "pagecache"))
	if err != nil {
		b.Fatal(err)
	}
	defer file.Close()
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	var cpu cpuClock
	b.ResetTimer()
	cpu.start()
	var off int64
	for i := 0; i < b.N; i++ {
		if off >= benchSegmentBytes { // stay in one segment, as the logs above do
			b.StopTimer()
			cpu.stop()
			file.Truncate(0)
			off = 0
			cpu.start()
			b.StartTimer()
		}
		if _, err := file.WriteAt(batch, off); err != nil {
			b.Fatal(err)
		}
		off += int64(len(batch))
	}
	cpu.report(b)
}

// BenchmarkLeaderServesFollowers is the leader's side of an acks=all
// commit with two followers, as a broker runs it: the produce (validation,
// CRC, pwrite) parks, then each follower's fetch from where it begins —
// which also records the follower's position, moving the high watermark
// and completing the previous round's produce. fetch=read serves the
// followers with Replica.HandleFetch (a pread into a buffer each),
// fetch=appended as a broker does (the parked produce's bytes, when a read
// would return exactly them): run both in one invocation to compare. The
// followers' own appends are not in it. cpu-ns/op is per round; divide by
// the records per batch.
func BenchmarkLeaderServesFollowers(b *testing.B) {
	for _, records := range []int{1000, 10000} {
		for _, serve := range []string{"read", "appended"} {
			b.Run(fmt.Sprintf("records=%d/fetch=%s", records, serve), func(b *testing.B) {
				benchLeaderServes(b, records, serve == "appended")
			})
		}
	}
}

func benchLeaderServes(b *testing.B, records int, appended bool) {
	dir := b.TempDir()
	l, err := replica.Open(1, filepath.Join(dir, "1"), benchOptions)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	st := replica.PartitionState{Leader: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, MinISR: 2}
	if err := l.BecomeLeader(st, t0); err != nil {
		b.Fatal(err)
	}
	batch := benchBatch(b, records, 90)
	fetch := replica.HandleFetch
	if appended {
		fetch = replica.HandleFetchAppended
	}
	var buf []byte
	p := new(wire.FetchPartition) // outside the loop: fetch is a func value, so p escapes
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	var cpu cpuClock
	b.ResetTimer()
	cpu.start()
	for i := 0; i < b.N; i++ {
		log.SetBaseOffset(batch, 0)
		res, parked, err := l.ProduceKeeping(uint64(i), batch, wire.AcksAll, 30_000, t0)
		if err != nil || !parked {
			b.Fatalf("produce: parked %v, %v", parked, err)
		}
		for f := int32(2); f <= 3; f++ {
			*p = wire.FetchPartition{CurrentLeaderEpoch: -1, FetchOffset: res.BaseOffset, LastFetchedEpoch: -1, MaxBytes: 1 << 20}
			resp, out, _ := fetch(l, replica.FetchFrom{ReplicaID: f, ReplicaEpoch: -1}, p, 8<<20, buf[:0], t0)
			if buf = out; len(resp.Records) != len(batch) {
				b.Fatalf("follower %d got %d bytes, %v", f, len(resp.Records), resp.ErrorCode)
			}
		}
		benchTrim(b, &cpu, i, l)
	}
	cpu.report(b)
}
