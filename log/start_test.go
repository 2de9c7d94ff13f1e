package log

import (
	"errors"
	"syscall"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// The log start offset: checkpointed, only forward, never above the HW;
// and the follower's reset, TruncateFullyAndStartAt.

func TestIncrementStartOffset(t *testing.T) {
	m := vfs.NewMem()
	l, err := Open(stDir, stMemOpts(m))
	if err != nil {
		t.Fatal(err)
	}
	l.StopEagerHighWatermark()
	stAppendLeader(t, l, 10, 2, 20, 1) // offsets 0-19 over 4 segments
	if err := l.SetHighWatermark(12); err != nil {
		t.Fatal(err)
	}
	if err := l.IncrementStartOffset(13); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatalf("start above the HW = %v, want ErrOffsetOutOfRange", err)
	}
	if err := l.IncrementStartOffset(7); err != nil {
		t.Fatal(err)
	}
	if l.StartOffset() != 7 || len(l.segments) != 3 || l.segments[0].base != 6 {
		t.Fatalf("start %d, %d segments from %d; want 7, 3 from 6 (segment 0 wholly below)", l.StartOffset(), len(l.segments), l.segments[0].base)
	}
	if _, err := l.Read(nil, 6, 100, IsolationLogEnd); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("Read below the start = %v", err)
	}
	if out, err := l.Read(nil, 7, 1, IsolationLogEnd); err != nil || stHeaders(t, out)[0].BaseOffset != 6 {
		t.Errorf("Read(7) = %v, %v; want the batch 6-7 holding it", stOffsets(stHeaders(t, out)), err)
	}
	if err := l.IncrementStartOffset(5); err != nil || l.StartOffset() != 7 {
		t.Errorf("moving the start back = %v, start %d; want a no-op", err, l.StartOffset())
	}
	if err := l.TruncateTo(6); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("TruncateTo below the start = %v", err)
	}
	// A power cut keeps it (the checkpoint is durable) and what was
	// flushed.
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	m.Crash(vfs.LoseUnsynced, 0)
	l, err = Open(stDir, stMemOpts(m))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.StartOffset() != 7 || l.EndOffset() != 20 {
		t.Errorf("after a power cut: start %d, LEO %d; want 7 and 20", l.StartOffset(), l.EndOffset())
	}
}

// TestTruncateIntoTheBatchHoldingTheStart: truncating to an offset whose
// batch begins below the log start empties the log at its start.
func TestTruncateIntoTheBatchHoldingTheStart(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{})
	stAppendLeader(t, l, 3, 4, 1, 1) // 0-3, 4-7, 8-11
	if err := l.IncrementStartOffset(6); err != nil {
		t.Fatal(err)
	}
	if err := l.TruncateTo(7); err != nil {
		t.Fatal(err)
	}
	if l.StartOffset() != 6 || l.EndOffset() != 6 || l.HighWatermark() != 6 {
		t.Errorf("start, LEO, HW = %d, %d, %d; want 6, 6, 6", l.StartOffset(), l.EndOffset(), l.HighWatermark())
	}
}

func TestTruncateFullyAndStartAt(t *testing.T) {
	m := vfs.NewMem()
	l, err := Open(stDir, stMemOpts(m))
	if err != nil {
		t.Fatal(err)
	}
	stAppendLeader(t, l, 6, 2, 20, 1)
	if err := l.TruncateFullyAndStartAt(100); err != nil {
		t.Fatal(err)
	}
	if s, e, h := l.StartOffset(), l.EndOffset(), l.HighWatermark(); s != 100 || e != 100 || h != 100 || len(l.EpochEntries()) != 0 {
		t.Fatalf("start, LEO, HW = %d, %d, %d, epochs %v; want 100s and none", s, e, h, l.EpochEntries())
	}
	if names := stSegNames(stMemFiles(t, m, stDir)); len(names) != 1 || names[0] != segmentName(100, segmentSuffix) {
		t.Fatalf("segments %v", names)
	}
	if info, err := l.AppendAsLeader(stBatch(t, 0, 1, 1, 1), 2); err != nil || info.FirstOffset != 100 {
		t.Fatalf("append after the reset = %+v, %v", info, err)
	}
	stClose(t, l)
	l, err = Open(stDir, stMemOpts(m))
	if err != nil {
		t.Fatal(err)
	}
	if l.StartOffset() != 100 || l.EndOffset() != 101 {
		t.Errorf("after reopen: start %d, LEO %d", l.StartOffset(), l.EndOffset())
	}
	stClose(t, l)
}

// TestTruncateFullyAndStartAtCrashes crashes the process (kill -9) or cuts
// the power at every file call of TruncateFullyAndStartAt: Open never
// refuses, and the log is the old one or the new empty one at the new
// start, never a log with a hole. (A kill after the new start was
// checkpointed but before the old segments were all gone once made Open
// count the deleted offsets as flushed data lost.)
func TestTruncateFullyAndStartAtCrashes(t *testing.T) {
	for _, mode := range []vfs.CrashMode{vfs.KeepUnsynced, vfs.LoseUnsynced, vfs.TornUnsynced} {
		t.Run(mode.String(), func(t *testing.T) { truncateFullyCrashes(t, mode) })
	}
}

func truncateFullyCrashes(t *testing.T, mode vfs.CrashMode) {
	for cut := 1; ; cut++ {
		mem := vfs.NewMem()
		fsys := vfs.Faulty(mem)
		l, err := Open(stDir, stMemOpts(fsys))
		if err != nil {
			t.Fatal(err)
		}
		all := stAppendLeader(t, l, 6, 2, 20, 1)
		if err := l.Flush(); err != nil {
			t.Fatal(err)
		}
		fsys.CutAt(fsys.TotalCalls()+cut, syscall.EIO)
		err = l.TruncateFullyAndStartAt(100)
		mem.Crash(mode, uint64(cut))
		l2, oerr := Open(stDir, stMemOpts(mem))
		if oerr != nil {
			t.Fatalf("cut %d: Open: %v", cut, oerr)
		}
		switch got := stReadAll(t, l2, IsolationLogEnd); {
		case l2.StartOffset() == 100 && l2.EndOffset() == 100:
		case l2.StartOffset() == 0 && string(got) == string(all):
		default:
			t.Fatalf("cut %d: start %d, LEO %d: neither the old log nor the new one\n%s", cut, l2.StartOffset(), l2.EndOffset(), l2.Recovery())
		}
		l2.Close()
		if err == nil {
			return
		}
	}
}
