package log

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOpenEmptyDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders-0")
	l := stOpen(t, dir, Options{})
	if got := l.Dir(); got != dir {
		t.Errorf("Dir() = %q, want %q", got, dir)
	}
	if s, e, h := l.StartOffset(), l.EndOffset(), l.HighWatermark(); s != 0 || e != 0 || h != 0 {
		t.Errorf("start, LEO, HW = %d, %d, %d; want 0, 0, 0", s, e, h)
	}
	if !l.EagerHighWatermark() {
		t.Error("a new log is not in eager-HW mode")
	}
	if diff := cmp.Diff([]string{"00000000000000000000.log"}, stSegmentFiles(t, dir)); diff != "" {
		t.Errorf("segment files (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(stSeg(dir, 0, indexSuffix)); err != nil {
		t.Errorf("index file: %v", err)
	}
	got, err := l.Read(nil, 0, 1000, IsolationLogEnd)
	if err != nil || len(got) != 0 {
		t.Errorf("Read(empty) = %d bytes, %v; want nothing, nil", len(got), err)
	}
}

// TestHighWatermarkIsEagerUntilStoppedThenMovesOnlyForwardWithinTheLog: a
// log that leads alone moves its high watermark with every append; once
// StopEagerHighWatermark is called only SetHighWatermark moves it, never
// backwards (ErrHighWatermarkBackwards) nor past the log end
// (ErrHighWatermarkBeyondEnd).
func TestHighWatermarkIsEagerUntilStoppedThenMovesOnlyForwardWithinTheLog(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{})
	stAppendLeader(t, l, 1, 4, 1, 1)
	if l.HighWatermark() != 4 {
		t.Fatalf("eager HW = %d, want 4", l.HighWatermark())
	}
	l.StopEagerHighWatermark()
	if l.EagerHighWatermark() {
		t.Error("still eager after StopEagerHighWatermark")
	}
	stAppendLeader(t, l, 1, 4, 1, 1)
	if e, h := l.EndOffset(), l.HighWatermark(); e != 8 || h != 4 {
		t.Fatalf("LEO, HW = %d, %d; want 8, 4", e, h)
	}
	if err := l.SetHighWatermark(9); !errors.Is(err, ErrHighWatermarkBeyondEnd) {
		t.Errorf("SetHighWatermark(9) = %v, want ErrHighWatermarkBeyondEnd", err)
	}
	if err := l.SetHighWatermark(3); !errors.Is(err, ErrHighWatermarkBackwards) {
		t.Errorf("SetHighWatermark(3) = %v, want ErrHighWatermarkBackwards", err)
	}
	if err := l.SetHighWatermark(4); err != nil {
		t.Errorf("SetHighWatermark(4) (equal) = %v, want nil", err)
	}
	if err := l.SetHighWatermark(8); err != nil {
		t.Errorf("SetHighWatermark(8) = %v", err)
	}
	if l.HighWatermark() != 8 {
		t.Errorf("HW = %d, want 8", l.HighWatermark())
	}
}

func TestHighWatermarkSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{})
	l.StopEagerHighWatermark()
	stAppendLeader(t, l, 3, 2, 1, 1)
	if err := l.SetHighWatermark(4); err != nil {
		t.Fatal(err)
	}
	stClose(t, l)
	if got := string(stReadFile(t, filepath.Join(dir, checkpointFileName))); got != "0\n4\n" {
		t.Errorf("checkpoint file = %q, want %q", got, "0\n4\n")
	}
	l = stOpen(t, dir, Options{})
	if e, h := l.EndOffset(), l.HighWatermark(); e != 6 || h != 4 {
		t.Errorf("after restart LEO, HW = %d, %d; want 6, 4", e, h)
	}
}

func TestClosedLog(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{})
	stAppendLeader(t, l, 1, 1, 1, 1)
	stClose(t, l)
	checks := map[string]error{
		"Close":      l.Close(),
		"Flush":      l.Flush(),
		"TruncateTo": l.TruncateTo(0),
		"SetHW":      l.SetHighWatermark(1),
		"Checkpoint": l.CheckpointHighWatermark(),
		"Follower":   second(l.AppendAsFollower(stBatch(t, 1, 1, 1, 1))),
	}
	_, checks["Leader"] = l.AppendAsLeader(stBatch(t, 0, 1, 1, 1), 1)
	_, checks["Read"] = l.Read(nil, 0, 100, IsolationLogEnd)
	_, checks["Retention"] = l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1}, 0)
	_, checks["Compact"] = l.Compact()
	for name, err := range checks {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
	if l.EndOffset() != 1 {
		t.Errorf("EndOffset after Close = %d, want 1", l.EndOffset())
	}
}

func TestOptionsValidation(t *testing.T) {
	for name, o := range map[string]Options{
		"negative segment bytes":  {SegmentBytes: -1},
		"segment bytes over max":  {SegmentBytes: MaxSegmentBytes + 1},
		"negative index interval": {IndexIntervalBytes: -4},
		"unknown sync policy":     {Sync: SyncPolicy(9)},
	} {
		if _, err := Open(t.TempDir(), o); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: Open = %v, want ErrInvalidArgument", name, err)
		}
	}
	if s := SyncPolicy(9).String(); s != "SyncPolicy(9)" {
		t.Errorf("String() = %q", s)
	}
	if s := SyncEveryAppend.String(); s != "SyncEveryAppend" {
		t.Errorf("String() = %q", s)
	}
}

func TestSegmentsRoll(t *testing.T) {
	dir := t.TempDir()
	one := stBatch(t, 0, 2, 50, 1)
	// Three batches fit in a segment, the fourth rolls.
	l := stOpen(t, dir, Options{SegmentBytes: int64(3*len(one) + 10)})
	for range 7 {
		if _, err := l.AppendAsLeader(bytes.Clone(one), 1); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"00000000000000000000.log", "00000000000000000006.log", "00000000000000000012.log"}
	if diff := cmp.Diff(want, stSegmentFiles(t, dir)); diff != "" {
		t.Errorf("segments (-want +got):\n%s", diff)
	}
	if l.EndOffset() != 14 {
		t.Errorf("LEO = %d, want 14", l.EndOffset())
	}
	// A single append larger than SegmentBytes still goes in, alone.
	big := stBatch(t, 0, 10, 200, 1)
	if _, err := l.AppendAsLeader(big, 1); err != nil {
		t.Fatal(err)
	}
	if n := len(stSegmentFiles(t, dir)); n != 4 {
		t.Errorf("%d segments after big append, want 4", n)
	}
	got := stHeaders(t, stReadAll(t, l, IsolationLogEnd))
	if len(got) != 8 || got[7].BaseOffset != 14 {
		t.Errorf("read back %v", stOffsets(got))
	}
}

func TestSyncEveryAppendAndFlush(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{Sync: SyncEveryAppend, SegmentBytes: 200})
	stAppendLeader(t, l, 3, 2, 50, 1)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	stClose(t, l)

	l = stOpen(t, dir, Options{SegmentBytes: 200})
	stAppendLeader(t, l, 3, 2, 50, 1)
	for _, s := range l.segments {
		if s.base >= 6 && !s.unsynced {
			t.Errorf("segment %d written with SyncNever is not marked unsynced", s.base)
		}
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, s := range l.segments {
		if s.unsynced {
			t.Errorf("segment %d still unsynced after Flush", s.base)
		}
	}
	if l.EndOffset() != 12 {
		t.Errorf("LEO = %d, want 12", l.EndOffset())
	}
}
