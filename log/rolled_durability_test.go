package log

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// Rolled segments become durable with FlushRolled, as Kafka flushes a
// segment after it rolls (doc.go, "Durability"): after it, a power cut
// keeps every offset below the active segment, and the producer state
// there.

const rollDir = "/p/orders-0"

// rollUntil appends until the log has at least n segments.
func rollUntil(t testing.TB, l *Log, n int) {
	t.Helper()
	for i := 0; len(l.segmentBases()) < n; i++ {
		plainAppend(t, l, 3, int64(i))
	}
}

// segmentBases returns the segments' base offsets.
func (l *Log) segmentBases() []uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]uint64, len(l.segments))
	for i, s := range l.segments {
		out[i] = s.base
	}
	return out
}

func activeBase(l *Log) uint64 {
	b := l.segmentBases()
	return b[len(b)-1]
}

func TestFlushRolledSurvivesPowerCut(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		mem := vfs.NewMem()
		opts := Options{FS: mem, SegmentBytes: 1000}
		l := stOpen(t, rollDir, opts)
		rng := rand.New(rand.NewPCG(seed, 0))
		pWorkload(t, l, 3, 40, rng) // idempotent producers: the roll snapshots matter
		if len(l.segmentBases()) < 3 {
			t.Fatalf("seed %d: want rolls, have segments %v", seed, l.segmentBases())
		}
		if !l.RolledUnflushed() {
			t.Fatalf("seed %d: RolledUnflushed false after rolls", seed)
		}
		base := activeBase(l)
		want, err := l.Read(nil, l.StartOffset(), 1<<30, IsolationLogEnd)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.FlushRolled(); err != nil {
			t.Fatalf("seed %d: FlushRolled: %v", seed, err)
		}
		if l.RolledUnflushed() || l.RecoveryPoint() != base {
			t.Fatalf("seed %d: after FlushRolled: RolledUnflushed %v, recovery point %d, want %d", seed, l.RolledUnflushed(), l.RecoveryPoint(), base)
		}
		plainAppend(t, l, 2, 99) // unsynced: the cut may take it
		l.Abandon()
		mem.Crash(vfs.LoseUnsynced, seed)

		l = stOpen(t, rollDir, opts)
		if l.EndOffset() < base {
			t.Fatalf("seed %d: power cut after FlushRolled: log end %d, below the flushed %d\n%s", seed, l.EndOffset(), base, l.Recovery())
		}
		got, err := l.Read(nil, l.StartOffset(), 1<<30, IsolationLogEnd)
		if err != nil {
			t.Fatal(err)
		}
		if !prefixUpTo(t, got, want, base) {
			t.Fatalf("seed %d: the batches below %d changed across the power cut", seed, base)
		}
		if r := l.Recovery(); !r.HaveProducerSnapshot || r.ProducerSnapshot != base {
			t.Errorf("seed %d: recovery did not load the roll's snapshot at %d:\n%s", seed, base, r)
		}
		checkProducersMatchLog(t, l, "after the power cut")
		l.Abandon()
	}
}

// prefixUpTo reports whether got and want hold the same batches below off.
func prefixUpTo(t testing.TB, got, want []byte, off uint64) bool {
	t.Helper()
	cut := func(b []byte) []byte {
		n := 0
		for _, h := range stHeaders(t, b) {
			if h.BaseOffset >= off {
				break
			}
			n += h.Size()
		}
		return b[:n]
	}
	return string(cut(got)) == string(cut(want))
}

// Without FlushRolled the same cut loses the rolled segments: the test
// above is not vacuous.
func TestRolledSegmentsAreLostWithoutFlushRolled(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, SegmentBytes: 1000}
	l := stOpen(t, rollDir, opts)
	rollUntil(t, l, 3)
	l.Abandon()
	mem.Crash(vfs.LoseUnsynced, 1)
	l = stOpen(t, rollDir, opts)
	if l.EndOffset() != 0 {
		t.Fatalf("log end %d after a power cut with nothing flushed", l.EndOffset())
	}
}

// gateFS blocks the fsync of segment files while armed: the test decides
// when the disk answers.
type gateFS struct {
	vfs.FS
	mu      sync.Mutex
	armed   bool
	entered chan struct{} // a value when a Sync blocks
	release chan struct{} // closed to let them go
}

func newGateFS(inner vfs.FS) *gateFS {
	return &gateFS{FS: inner, entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (g *gateFS) arm() {
	g.mu.Lock()
	g.armed = true
	g.mu.Unlock()
}

func (g *gateFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := g.FS.OpenFile(name, flag, perm)
	if err != nil || !strings.HasSuffix(name, segmentSuffix) {
		return f, err
	}
	return &gateFile{File: f, g: g}, nil
}

type gateFile struct {
	vfs.File
	g *gateFS
}

func (f *gateFile) Sync() error {
	f.g.mu.Lock()
	armed := f.g.armed
	f.g.mu.Unlock()
	if armed {
		select {
		case f.g.entered <- struct{}{}:
		default: // the test waits for the first only
		}
		<-f.g.release
	}
	return f.File.Sync()
}

// The point of FlushRolled: its fsyncs do not hold the append lock, so
// appends (and reads) go on while a rolled segment is being fsynced.
func TestAppendsProceedDuringFlushRolled(t *testing.T) {
	gate := newGateFS(vfs.NewMem())
	l := stOpen(t, rollDir, Options{FS: gate, SegmentBytes: 1000})
	rollUntil(t, l, 3)
	base := activeBase(l)
	gate.arm()
	done := make(chan error, 1)
	go func() { done <- l.FlushRolled() }()
	<-gate.entered // FlushRolled is inside a segment's fsync
	leo := l.EndOffset()
	rollUntil(t, l, len(l.segmentBases())+1) // appends, and a roll, while it waits
	if l.EndOffset() <= leo {
		t.Fatal("no append went through")
	}
	if _, err := l.Read(nil, 0, 1<<20, IsolationLogEnd); err != nil {
		t.Fatalf("Read during FlushRolled: %v", err)
	}
	if !l.RolledUnflushed() {
		t.Fatal("RolledUnflushed false with a segment rolled during FlushRolled")
	}
	close(gate.release)
	if err := <-done; err != nil {
		t.Fatalf("FlushRolled: %v", err)
	}
	// It moves the recovery point to the base it saw, not past the
	// segment rolled meanwhile.
	if rp := l.RecoveryPoint(); rp != base {
		t.Fatalf("recovery point %d, want %d", rp, base)
	}
	if !l.RolledUnflushed() {
		t.Fatal("RolledUnflushed false with the segment rolled during FlushRolled still unsynced")
	}
	if err := l.FlushRolled(); err != nil {
		t.Fatal(err)
	}
	if rp := l.RecoveryPoint(); rp != activeBase(l) || l.RolledUnflushed() {
		t.Fatalf("recovery point %d, want %d (RolledUnflushed %v)", rp, activeBase(l), l.RolledUnflushed())
	}
}

// Truncation, retention, compaction and Close that start while FlushRolled
// is inside an fsync are safe, in whichever order they end up running
// (run with -race): the log stays usable, and a power cut afterwards keeps
// what the recovery point promises.
func TestFlushRolledRacesShrinkingOperations(t *testing.T) {
	ops := []struct {
		name string
		run  func(l *Log) error
	}{
		{"TruncateTo", func(l *Log) error { return l.TruncateTo(l.segmentBases()[1] + 1) }},
		{"TruncateFullyAndStartAt", func(l *Log) error { return l.TruncateFullyAndStartAt(l.EndOffset() + 10) }},
		{"IncrementStartOffset", func(l *Log) error {
			if err := l.SetHighWatermark(l.EndOffset()); err != nil {
				return err
			}
			return l.IncrementStartOffset(l.segmentBases()[2])
		}},
		{"DeleteRetainedSegments", func(l *Log) error {
			if err := l.SetHighWatermark(l.EndOffset()); err != nil {
				return err
			}
			_, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1500}, 0)
			return err
		}},
		{"Compact", func(l *Log) error {
			if err := l.SetHighWatermark(l.EndOffset()); err != nil {
				return err
			}
			_, err := l.Compact()
			return err
		}},
		{"Close", func(l *Log) error { return l.Close() }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			mem := vfs.NewMem()
			gate := newGateFS(mem)
			opts := Options{FS: gate, SegmentBytes: 1000}
			l := stOpen(t, rollDir, opts)
			rollUntil(t, l, 5)
			gate.arm()
			flushed := make(chan error, 1)
			go func() { flushed <- l.FlushRolled() }()
			<-gate.entered
			opDone := make(chan error, 1)
			go func() { opDone <- op.run(l) }()
			close(gate.release)
			if err := <-flushed; err != nil && !errors.Is(err, ErrClosed) {
				t.Fatalf("FlushRolled: %v", err)
			}
			if err := <-opDone; err != nil {
				t.Fatalf("%s: %v", op.name, err)
			}
			if op.name != "Close" {
				if rp, base := l.RecoveryPoint(), activeBase(l); rp > l.EndOffset() || l.RolledUnflushed() != (rp < base) {
					t.Fatalf("recovery point %d, log end %d, active base %d, RolledUnflushed %v", rp, l.EndOffset(), base, l.RolledUnflushed())
				}
				if err := l.FlushRolled(); err != nil {
					t.Fatalf("FlushRolled after %s: %v", op.name, err)
				}
			}
			start, rp := l.StartOffset(), l.RecoveryPoint()
			want, err := l.Read(nil, start, 1<<30, IsolationLogEnd)
			if err != nil && !errors.Is(err, ErrClosed) {
				t.Fatal(err)
			}
			l.Abandon()
			mem.Crash(vfs.LoseUnsynced, 1)
			l = stOpen(t, rollDir, Options{FS: mem, SegmentBytes: 1000})
			if l.EndOffset() < rp {
				t.Fatalf("after the power cut: log end %d, below the recovery point %d\n%s", l.EndOffset(), rp, l.Recovery())
			}
			if op.name != "Close" {
				got, err := l.Read(nil, l.StartOffset(), 1<<30, IsolationLogEnd)
				if err != nil {
					t.Fatal(err)
				}
				if l.StartOffset() == start && !prefixUpTo(t, got, want, rp) {
					t.Fatalf("the batches below the recovery point %d changed across the power cut", rp)
				}
			}
		})
	}
}

// A failed fsync in FlushRolled fails the log, as every failed fsync does.
func TestFlushRolledFailedFsyncFailsTheLog(t *testing.T) {
	ffs := vfs.Faulty(vfs.NewMem())
	l := stOpen(t, rollDir, Options{FS: ffs, SegmentBytes: 1000})
	rollUntil(t, l, 3)
	eio := errors.New("EIO")
	ffs.FailNth(vfs.OpSync, ffs.Calls(vfs.OpSync)+1, eio)
	err := l.FlushRolled()
	if !errors.Is(err, eio) || !errors.Is(err, ErrLogFailed) {
		t.Fatalf("FlushRolled with a failing fsync: %v", err)
	}
	if _, err := l.AppendAsLeader(stBatch(t, 0, 1, 5, 0), 1); !errors.Is(err, ErrLogFailed) {
		t.Fatalf("append after the failed fsync: %v", err)
	}
	if err := l.FlushRolled(); !errors.Is(err, ErrLogFailed) {
		t.Fatalf("FlushRolled after the failed fsync: %v", err)
	}
	if rp := l.RecoveryPoint(); rp != 0 {
		t.Fatalf("recovery point moved to %d past a failed fsync", rp)
	}
	l.Abandon()
}

// Under SyncEveryAppend a roll leaves nothing unsynced: RolledUnflushed
// stays false and FlushRolled has nothing to do.
func TestSyncEveryAppendRollsLeaveNothingToFlush(t *testing.T) {
	l := stOpen(t, rollDir, Options{FS: vfs.NewMem(), SegmentBytes: 1000, Sync: SyncEveryAppend})
	rollUntil(t, l, 3)
	if l.RolledUnflushed() {
		t.Fatal("RolledUnflushed under SyncEveryAppend")
	}
	if err := l.FlushRolled(); err != nil {
		t.Fatal(err)
	}
	if rp := l.RecoveryPoint(); rp != l.EndOffset() {
		t.Fatalf("recovery point %d, log end %d", rp, l.EndOffset())
	}
}
