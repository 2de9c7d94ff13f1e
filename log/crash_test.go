package log

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// Tests: crash consistency. A crash is simulated by copying the
// partition directory while the log is open (with SyncNever every write is
// a completed system call, so the copy is what a process crash leaves), and
// sometimes damaging the copy the way an interrupted operation would.

// rvInvariant fails unless StartOffset <= HW <= LEO.
func rvInvariant(t *testing.T, l *Log, what string) {
	t.Helper()
	if s, hw, e := l.StartOffset(), l.HighWatermark(), l.EndOffset(); s > hw || hw > e {
		t.Fatalf("%s: start %d, HW %d, LEO %d break start <= HW <= LEO", what, s, hw, e)
	}
}

// rvCrashCopy copies dir (the files as a process crash leaves them) into a
// new temporary directory and returns it.
func rvCrashCopy(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	stCopyDir(t, dir, dst)
	return dst
}

// TestTruncateEveryOffsetThenCrashAndReopen truncates a multi-segment
// log to every offset (inside batches, at batch and segment boundaries,
// exactly at a segment base), then checks the result three ways: in memory,
// after a crash right after TruncateTo, and after new appends, a crash, and
// a clean reopen. The HW lowered by truncation must never come back over the
// records appended after it.
func TestTruncateEveryOffsetThenCrashAndReopen(t *testing.T) {
	src := t.TempDir()
	opts := Options{SegmentBytes: 260, IndexIntervalBytes: 70}
	l := stOpen(t, src, opts)
	for i := range 10 {
		if _, err := l.AppendAsLeader(stBatch(t, 0, 1+i%3, 20, int64(i)), 1); err != nil {
			t.Fatal(err)
		}
	}
	all := stSplit(t, stReadAll(t, l, IsolationLogEnd))
	var bases []uint64
	for _, s := range l.segments {
		bases = append(bases, s.base)
	}
	if len(bases) < 4 {
		t.Fatalf("%d segments, want several", len(bases))
	}
	leo := l.EndOffset()
	stClose(t, l) // checkpoint HW = LEO

	for off := uint64(0); off <= leo; off++ {
		dir := rvCrashCopy(t, src)
		l := stOpen(t, dir, opts)
		l.StopEagerHighWatermark()
		if err := l.TruncateTo(off); err != nil {
			t.Fatalf("TruncateTo(%d): %v", off, err)
		}
		// The kept prefix: batches ending below off.
		var keep []stStored
		for _, b := range all {
			if b.h.LastOffset() < off {
				keep = append(keep, b)
			}
		}
		wantLEO := uint64(0)
		if len(keep) > 0 {
			wantLEO = keep[len(keep)-1].h.NextOffset()
		}
		check := func(l *Log, what string, wantHW uint64) {
			t.Helper()
			rvInvariant(t, l, what)
			if l.EndOffset() != wantLEO || l.HighWatermark() != wantHW {
				t.Fatalf("TruncateTo(%d), %s: LEO %d, HW %d; want %d, %d", off, what, l.EndOffset(), l.HighWatermark(), wantLEO, wantHW)
			}
			if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, stJoin(keep)) {
				t.Fatalf("TruncateTo(%d), %s: contents %v", off, what, stOffsets(stHeaders(t, got)))
			}
		}
		check(l, "in memory", wantLEO)
		crashed := stOpen(t, rvCrashCopy(t, dir), opts)
		check(crashed, "after a crash", wantLEO)
		stClose(t, crashed)

		// New, different records over the truncated range; then a crash
		// before any checkpoint: the HW must stay at the truncation point.
		newer := stBatch(t, 0, 4, 9, 99)
		if _, err := l.AppendAsLeader(newer, 2); err != nil {
			t.Fatal(err)
		}
		crashed = stOpen(t, rvCrashCopy(t, dir), opts)
		rvInvariant(t, crashed, "crash after appends")
		if crashed.HighWatermark() > wantLEO {
			t.Fatalf("TruncateTo(%d), append, crash: HW %d covers records appended after the truncation (LEO then %d)", off, crashed.HighWatermark(), wantLEO)
		}
		if crashed.EndOffset() != wantLEO+4 {
			t.Fatalf("TruncateTo(%d), append, crash: LEO %d, want %d", off, crashed.EndOffset(), wantLEO+4)
		}
		stClose(t, crashed)
		stClose(t, l)
		l = stOpen(t, dir, opts)
		rvInvariant(t, l, "clean reopen")
		if l.EndOffset() != wantLEO+4 || l.HighWatermark() != wantLEO {
			t.Fatalf("TruncateTo(%d), append, reopen: LEO %d, HW %d; want %d, %d", off, l.EndOffset(), l.HighWatermark(), wantLEO+4, wantLEO)
		}
		out, err := l.Read(nil, wantLEO, 1<<20, IsolationLogEnd)
		if err != nil || !bytes.Equal(out, newer) {
			t.Fatalf("TruncateTo(%d): new batch not read back at %d: %v", off, wantLEO, err)
		}
		stClose(t, l)
	}
}

// TestCrashDuringRoll builds the directories a crash while rolling a
// segment can leave, and checks that Open recovers the log as it was and
// that the log then appends and reopens normally.
func TestCrashDuringRoll(t *testing.T) {
	src := t.TempDir()
	b := stBatch(t, 0, 2, 40, 1)
	opts := Options{SegmentBytes: int64(2 * len(b))}
	l := stOpen(t, src, opts)
	for range 4 {
		if _, err := l.AppendAsLeader(bytes.Clone(b), 1); err != nil {
			t.Fatal(err)
		}
	}
	want := stReadAll(t, l, IsolationLogEnd)
	leo := l.EndOffset() // 8; segments 0 and 4, both full
	stClose(t, l)
	next := stBatch(t, leo, 2, 40, 1)

	for _, tc := range []struct {
		name    string
		damage  func(dir string)
		wantLEO uint64
	}{
		{"new segment created, empty, no index", func(dir string) {
			stWriteFile(t, stSeg(dir, leo, segmentSuffix), nil)
		}, leo},
		{"new segment with a torn first batch", func(dir string) {
			stWriteFile(t, stSeg(dir, leo, segmentSuffix), next[:len(next)/2])
			stWriteFile(t, stSeg(dir, leo, indexSuffix), nil)
		}, leo},
		{"only the new index", func(dir string) {
			stWriteFile(t, stSeg(dir, leo, indexSuffix), nil)
		}, leo},
		{"new segment whole but the old one torn", func(dir string) {
			stWriteFile(t, stSeg(dir, leo, segmentSuffix), next)
			old := stSeg(dir, 4, segmentSuffix)
			data := stReadFile(t, old)
			stWriteFile(t, old, data[:len(data)-7])
		}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := rvCrashCopy(t, src)
			stUnflush(t, dir) // the roll happened while appending, unflushed
			tc.damage(dir)
			l := stOpen(t, dir, opts)
			rvInvariant(t, l, "after recovery")
			if l.EndOffset() != tc.wantLEO {
				t.Fatalf("LEO = %d, want %d", l.EndOffset(), tc.wantLEO)
			}
			got := stReadAll(t, l, IsolationLogEnd)
			if !bytes.HasPrefix(want, got) || len(stHeaders(t, got)) != int(tc.wantLEO/2) {
				t.Fatalf("recovered %v, want a prefix of %v", stOffsets(stHeaders(t, got)), stOffsets(stHeaders(t, want)))
			}
			if _, err := l.AppendAsLeader(stBatch(t, 0, 2, 40, 1), 1); err != nil {
				t.Fatal(err)
			}
			grown := stReadAll(t, l, IsolationLogEnd)
			stClose(t, l)
			l = stOpen(t, dir, opts)
			rvInvariant(t, l, "after reopen")
			if l.EndOffset() != tc.wantLEO+2 || !bytes.Equal(stReadAll(t, l, IsolationLogEnd), grown) {
				t.Errorf("after append and reopen: LEO %d, want %d", l.EndOffset(), tc.wantLEO+2)
			}
		})
	}
}

// TestCheckpointCrashes covers the checkpoint as a crash can leave
// it: a torn temporary file beside a good checkpoint, only a temporary file,
// a checkpoint above the recovered LEO, and one below StartOffset.
func TestCheckpointCrashes(t *testing.T) {
	src := t.TempDir()
	opts := Options{SegmentBytes: 300}
	l := stOpen(t, src, opts)
	stAppendLeader(t, l, 8, 2, 40, 1)
	leo := l.EndOffset()
	stClose(t, l)
	ck := func(dir string) string { return filepath.Join(dir, checkpointFileName) }

	for _, tc := range []struct {
		name   string
		damage func(dir string)
		wantHW uint64
	}{
		{"torn temporary beside a good checkpoint", func(dir string) {
			stWriteFile(t, ck(dir), formatCheckpoint(6))
			stWriteFile(t, ck(dir)+checkpointTempSuffix, []byte("0\n1"))
		}, 6},
		{"only a temporary file", func(dir string) {
			os.Remove(ck(dir))
			stWriteFile(t, ck(dir)+checkpointTempSuffix, formatCheckpoint(10))
		}, 0},
		{"checkpoint above the LEO", func(dir string) {
			stWriteFile(t, ck(dir), formatCheckpoint(leo+100))
		}, leo},
		{"checkpoint at MaxInt64", func(dir string) {
			stWriteFile(t, ck(dir), formatCheckpoint(1<<63-1))
		}, leo},
		{"checkpoint above the LEO of a torn log", func(dir string) {
			stUnflush(t, dir) // a crash tears only what was not flushed
			seg := stSegmentFiles(t, dir)
			last := filepath.Join(dir, seg[len(seg)-1])
			data := stReadFile(t, last)
			stWriteFile(t, last, data[:len(data)-1])
		}, leo - 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := rvCrashCopy(t, src)
			tc.damage(dir)
			l := stOpen(t, dir, opts)
			l.StopEagerHighWatermark()
			rvInvariant(t, l, "after Open")
			if l.HighWatermark() != tc.wantHW {
				t.Errorf("HW = %d, want %d", l.HighWatermark(), tc.wantHW)
			}
			if _, err := os.Stat(ck(dir) + checkpointTempSuffix); !os.IsNotExist(err) {
				t.Errorf("temporary checkpoint not deleted: %v", err)
			}
			// The log keeps working from there, and the clamped value is
			// what the next checkpoint holds.
			if err := l.SetHighWatermark(l.EndOffset()); err != nil {
				t.Errorf("SetHighWatermark(LEO): %v", err)
			}
			hw := l.HighWatermark()
			stClose(t, l)
			if got, _, err := readCheckpoint(dir); err != nil || got != hw {
				t.Errorf("checkpoint after Close = %d, %v; want %d", got, err, hw)
			}
		})
	}

	t.Run("checkpoint below StartOffset", func(t *testing.T) {
		dir := rvCrashCopy(t, src)
		l := stOpen(t, dir, opts)
		if n, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1}, 0); err != nil || n == 0 {
			t.Fatalf("retention: %d, %v", n, err)
		}
		start := l.StartOffset()
		stClose(t, l)
		stWriteFile(t, ck(dir), formatCheckpoint(1))
		l = stOpen(t, dir, opts)
		rvInvariant(t, l, "after Open")
		if l.HighWatermark() != start {
			t.Errorf("HW = %d, want StartOffset %d", l.HighWatermark(), start)
		}
	})
	t.Run("garbled checkpoint", func(t *testing.T) {
		dir := rvCrashCopy(t, src)
		stWriteFile(t, ck(dir), []byte("0\n12x\n"))
		if _, err := Open(dir, opts); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("Open with a garbled checkpoint = %v, want ErrBadCheckpoint", err)
		}
	})
}

// TestInvariantsUnderRandomOpsAndCrashes drives a log with random
// appends, truncations, HW moves, checkpoints, retention, clean restarts
// and crashes (some leaving a torn tail, an empty rolled segment, or a
// torn temporary checkpoint), against a model of batches and offsets. After
// every operation and every reopen StartOffset <= HW <= LEO must hold, and
// the log must hold exactly the model's batches.
func TestInvariantsUnderRandomOpsAndCrashes(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 2026))
		opts := Options{SegmentBytes: int64(200 + rng.IntN(600)), IndexIntervalBytes: 1 + rng.IntN(300)}
		dir := t.TempDir()
		l := stOpen(t, dir, opts)
		l.StopEagerHighWatermark()

		var model []stStored
		var start, hw, ckpt uint64
		leo := func() uint64 {
			if len(model) == 0 {
				return start
			}
			return model[len(model)-1].h.NextOffset()
		}
		reopen := func(what string) {
			l = stOpen(t, dir, opts)
			l.StopEagerHighWatermark()
			hw = min(max(ckpt, start), leo())
			ckpt = hw // Close will write it; Open does not, but it is what it reads again
			rvInvariant(t, l, what)
		}
		for op := range 200 {
			what := ""
			switch r := rng.IntN(24); {
			case r < 10:
				what = "append"
				b := stBatch(t, 0, 1+rng.IntN(5), rng.IntN(90), int64(op))
				if _, err := l.AppendAsLeader(b, 1); err != nil {
					t.Fatalf("seed %d op %d: append: %v", seed, op, err)
				}
				model = append(model, stSplit(t, b)...)
			case r < 12:
				what = "truncate"
				off := start + rng.Uint64N(leo()-start+2)
				if err := l.TruncateTo(off); err != nil {
					t.Fatalf("seed %d op %d: TruncateTo(%d): %v", seed, op, off, err)
				}
				for len(model) > 0 && model[len(model)-1].h.LastOffset() >= off {
					model = model[:len(model)-1]
				}
				if hw > leo() {
					hw = leo()
					ckpt = hw
				}
			case r < 16:
				what = "raise HW"
				hw += rng.Uint64N(leo() - hw + 1)
				if err := l.SetHighWatermark(hw); err != nil {
					t.Fatalf("seed %d op %d: SetHighWatermark(%d): %v", seed, op, hw, err)
				}
			case r < 17:
				what = "checkpoint"
				if err := l.CheckpointHighWatermark(); err != nil {
					t.Fatal(err)
				}
				ckpt = hw
			case r < 19:
				what = "retention"
				if _, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: int64(1 + rng.IntN(1500))}, 0); err != nil {
					t.Fatalf("seed %d op %d: retention: %v", seed, op, err)
				}
				start = l.StartOffset()
				if start > hw {
					t.Fatalf("seed %d op %d: retention raised start to %d above HW %d", seed, op, start, hw)
				}
				for len(model) > 0 && model[0].h.BaseOffset < start {
					if model[0].h.LastOffset() >= start {
						t.Fatalf("seed %d op %d: start %d inside batch %d-%d", seed, op, start, model[0].h.BaseOffset, model[0].h.LastOffset())
					}
					model = model[1:]
				}
			case r < 20:
				what = "restart"
				stClose(t, l)
				ckpt = hw
				reopen(what)
			default:
				what = "crash"
				crashDir := rvCrashCopy(t, dir)
				switch rng.IntN(4) {
				case 1: // an append torn mid-write
					b := stBatch(t, leo(), 1+rng.IntN(3), 40, 1)
					l.mu.RLock()
					active := l.active()
					name, size := filepath.Base(active.path(segmentSuffix)), active.size
					l.mu.RUnlock()
					torn := b[:1+rng.IntN(len(b)-1)]
					f, err := os.OpenFile(filepath.Join(crashDir, name), os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := f.WriteAt(torn, size); err != nil {
						t.Fatal(err)
					}
					f.Close()
				case 2: // a roll that created the next segment and died
					stWriteFile(t, stSeg(crashDir, leo(), segmentSuffix), nil)
				case 3: // a checkpoint write that died before its rename
					stWriteFile(t, filepath.Join(crashDir, checkpointFileName+checkpointTempSuffix), []byte("0\n9"))
				}
				// The crashed process is gone; its files are its own.
				l.closeFiles()
				l.closed = true
				dir = crashDir
				reopen(what)
			}
			rvInvariant(t, l, what)
			if l.EndOffset() != leo() || l.StartOffset() != start || l.HighWatermark() != hw {
				t.Fatalf("seed %d op %d (%s): start %d, HW %d, LEO %d; model %d, %d, %d",
					seed, op, what, l.StartOffset(), l.HighWatermark(), l.EndOffset(), start, hw, leo())
			}
			if op%10 == 0 || what == "crash" || what == "restart" {
				if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, stJoin(model)) {
					t.Fatalf("seed %d op %d (%s): contents %v, model %v", seed, op, what,
						stOffsets(stHeaders(t, got)), stOffsets(stHeaders(t, stJoin(model))))
				}
			}
		}
	}
}
