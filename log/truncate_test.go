package log

import (
	"bytes"
	"errors"
	"testing"
)

// TestTruncateToEveryOffset truncates a multi-segment log at every offset
// and checks the result against the plain rule (the batch holding the
// offset goes, with everything after it), on the live log and after a
// restart, with files and indexes cut to match.
func TestTruncateToEveryOffset(t *testing.T) {
	opts := Options{SegmentBytes: 600, IndexIntervalBytes: 150}
	src := t.TempDir()
	l := stOpen(t, src, opts)
	for i := range 10 {
		stAppendLeader(t, l, 1, 1+i%4, 40, int64(i))
	}
	batches := stSplit(t, stReadAll(t, l, IsolationLogEnd))
	leo := l.EndOffset()
	stClose(t, l)

	for off := uint64(0); off < leo; off++ {
		var keep []stStored
		for _, b := range batches {
			if b.h.LastOffset() < off {
				keep = append(keep, b)
			}
		}
		wantLEO := uint64(0)
		if len(keep) > 0 {
			wantLEO = keep[len(keep)-1].h.NextOffset()
		}
		dir := t.TempDir()
		stCopyDir(t, src, dir)
		l := stOpen(t, dir, opts)
		l.StopEagerHighWatermark()
		if err := l.TruncateTo(off); err != nil {
			t.Fatalf("TruncateTo(%d): %v", off, err)
		}
		if l.EndOffset() != wantLEO || l.HighWatermark() != wantLEO {
			t.Errorf("TruncateTo(%d): LEO, HW = %d, %d; want %d, %d", off, l.EndOffset(), l.HighWatermark(), wantLEO, wantLEO)
		}
		if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, stJoin(keep)) {
			t.Errorf("TruncateTo(%d): read back %v", off, stOffsets(stHeaders(t, got)))
		}
		// The HW was lowered and checkpointed at once.
		if cp, _, err := readCheckpoint(dir); err != nil || cp != wantLEO {
			t.Errorf("TruncateTo(%d): checkpoint = %d, %v; want %d", off, cp, err, wantLEO)
		}
		// Appending continues from the new LEO.
		next := stBatch(t, 0, 2, 5, 99)
		if base, err := l.AppendAsLeader(next, 9); err != nil || base.FirstOffset != wantLEO {
			t.Errorf("TruncateTo(%d): append base = %d, %v; want %d", off, base.FirstOffset, err, wantLEO)
		}
		want := append(stJoin(keep), next...)
		stClose(t, l)
		stCheckRecovered(t, dir, opts, 0, stSplit(t, want))
	}
}

func TestTruncateToBounds(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{SegmentBytes: 300})
	stAppendLeader(t, l, 6, 2, 60, 1)
	if n, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1}, 0); err != nil || n == 0 {
		t.Fatalf("retention: %d, %v", n, err)
	}
	start, leo := l.StartOffset(), l.EndOffset()
	if err := l.TruncateTo(start - 1); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("TruncateTo(start-1) = %v, want ErrOffsetOutOfRange", err)
	}
	for _, off := range []uint64{leo, leo + 100} {
		if err := l.TruncateTo(off); err != nil || l.EndOffset() != leo {
			t.Errorf("TruncateTo(%d) = %v, LEO %d; want no-op", off, err, l.EndOffset())
		}
	}
	// Truncating to the start empties the log but keeps its start.
	if err := l.TruncateTo(start); err != nil {
		t.Fatal(err)
	}
	if l.StartOffset() != start || l.EndOffset() != start || l.HighWatermark() != start {
		t.Errorf("after TruncateTo(start): start, LEO, HW = %d, %d, %d; want all %d",
			l.StartOffset(), l.EndOffset(), l.HighWatermark(), start)
	}
	if files := stSegmentFiles(t, dir); len(files) != 1 || files[0] != segmentName(start, segmentSuffix) {
		t.Errorf("segments = %v", files)
	}
}

func TestTruncateKeepsHighWatermarkBelowCut(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{})
	l.StopEagerHighWatermark()
	stAppendLeader(t, l, 5, 2, 3, 1)
	if err := l.SetHighWatermark(4); err != nil {
		t.Fatal(err)
	}
	if err := l.TruncateTo(7); err != nil {
		t.Fatal(err)
	}
	if l.EndOffset() != 6 || l.HighWatermark() != 4 {
		t.Errorf("LEO, HW = %d, %d; want 6, 4", l.EndOffset(), l.HighWatermark())
	}
	// The HW did not move, so no checkpoint was written.
	if _, found, err := readCheckpoint(dir); found || err != nil {
		t.Errorf("checkpoint found=%v, err=%v; want none", found, err)
	}
}
