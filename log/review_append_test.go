package log

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// Review tests: appends at the edges (follower gaps, overlaps and lying
// headers, exact segment fills, segments smaller than a batch, rejected
// multi-batch leader appends).

// rvState is everything a rejected append must leave alone: the offsets,
// the segment list and every file's bytes.
type rvState struct {
	start, hw, leo uint64
	bases          []uint64
	files          map[string]string
}

func rvSnapshot(t *testing.T, l *Log) rvState {
	t.Helper()
	l.mu.RLock()
	var bases []uint64
	for _, s := range l.segments {
		bases = append(bases, s.base)
	}
	l.mu.RUnlock()
	return rvState{l.StartOffset(), l.HighWatermark(), l.EndOffset(), bases, stDirSnapshot(t, l.Dir())}
}

func (a rvState) equal(b rvState) bool {
	if a.start != b.start || a.hw != b.hw || a.leo != b.leo || !slices.Equal(a.bases, b.bases) || len(a.files) != len(b.files) {
		return false
	}
	for k, v := range a.files {
		if b.files[k] != v {
			return false
		}
	}
	return true
}

// TestReviewLeaderRejectsWholeAppendOnOneBadBatch appends three batches of
// which one is corrupt or not producer-legal, in each position: the error
// names it, and neither the log (offsets, segments, files) nor the caller's
// slice changes.
func TestReviewLeaderRejectsWholeAppendOnOneBadBatch(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 300})
	stAppendLeader(t, l, 3, 2, 40, 1)
	good := stBatch(t, 0, 2, 30, 5)

	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-1] ^= 1
	badCount := bytes.Clone(good)
	binary.BigEndian.PutUint32(badCount[57:61], 3) // recordCount 3, lastOffsetDelta 1
	badCount = stRecrc(badCount)
	control := bytes.Clone(good)
	binary.BigEndian.PutUint16(control[21:23], uint16(AttrControl))
	control = stRecrc(control)
	torn := good[:len(good)-5]

	for _, tc := range []struct {
		name string
		bad  []byte
		want error
	}{
		{"bad CRC", badCRC, ErrBadCRC},
		{"record count differs from offset range", badCount, ErrInvalidBatch},
		{"control batch", control, ErrInvalidBatch},
		{"torn", torn, ErrTruncated},
	} {
		for at := range 3 {
			var in []byte
			for i := range 3 {
				if i == at {
					in = append(in, tc.bad...)
				} else {
					in = append(in, good...)
				}
			}
			if tc.name == "torn" && at != 2 {
				continue // a torn batch can only be last
			}
			orig := bytes.Clone(in)
			before := rvSnapshot(t, l)
			if _, err := l.AppendAsLeader(in, 9); !errors.Is(err, tc.want) {
				t.Errorf("%s at %d: err = %v, want %v", tc.name, at, err, tc.want)
			}
			if !bytes.Equal(in, orig) {
				t.Errorf("%s at %d: the caller's slice was stamped", tc.name, at)
			}
			if !before.equal(rvSnapshot(t, l)) {
				t.Errorf("%s at %d: the log changed", tc.name, at)
			}
		}
	}
	// And the log still takes good appends at the same offset.
	if base, err := l.AppendAsLeader(bytes.Clone(good), 9); err != nil || base != 6 {
		t.Errorf("append after rejections = %d, %v; want 6", base, err)
	}
}

// TestReviewFollowerAppendEdges: a gap, an overlap, a replay, empty input,
// and batches whose header lies about its offsets (recordCount and
// lastOffsetDelta disagree). Rejected appends change nothing.
func TestReviewFollowerAppendEdges(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 500})
	l.StopEagerHighWatermark()
	if err := l.AppendAsFollower(stBatch(t, 0, 3, 10, 1)); err != nil {
		t.Fatal(err)
	}
	before := rvSnapshot(t, l)
	for name, in := range map[string][]byte{
		"gap":                  stBatch(t, 4, 1, 10, 1),
		"overlap":              stBatch(t, 2, 2, 10, 1),
		"replay":               stBatch(t, 0, 3, 10, 1),
		"gap inside the input": append(stBatch(t, 3, 1, 10, 1), stBatch(t, 5, 1, 10, 1)...),
		"overlap inside input": append(stBatch(t, 3, 2, 10, 1), stBatch(t, 4, 1, 10, 1)...),
	} {
		if err := l.AppendAsFollower(in); !errors.Is(err, ErrNotAtLogEnd) {
			t.Errorf("%s: err = %v, want ErrNotAtLogEnd", name, err)
		}
		if !before.equal(rvSnapshot(t, l)) {
			t.Errorf("%s: the log changed", name)
		}
	}
	if err := l.AppendAsFollower([]byte{}); err != nil || !before.equal(rvSnapshot(t, l)) {
		t.Errorf("empty append = %v, or changed the log", err)
	}

	// A compacted-style batch (fewer records than offsets) is legal for a
	// follower: the LEO follows lastOffsetDelta, not recordCount.
	wide := stBatchOf(t, 3, 1, []Record{{OffsetDelta: 0, Value: []byte("a")}, {OffsetDelta: 4, Value: []byte("b")}})
	if err := l.AppendAsFollower(wide); err != nil {
		t.Fatalf("compacted-style batch: %v", err)
	}
	if l.EndOffset() != 8 {
		t.Fatalf("LEO = %d after batch 3-7, want 8", l.EndOffset())
	}
	// lastOffsetDelta lies upward (more offsets than records claim): the
	// log takes the header's word for the offsets, consistently.
	liar := stBatch(t, 8, 2, 10, 1)
	binary.BigEndian.PutUint32(liar[23:27], 9) // 10 offsets, 2 records
	liar = stRecrc(liar)
	if err := l.AppendAsFollower(liar); err != nil {
		t.Fatalf("lying batch: %v", err)
	}
	if l.EndOffset() != 18 {
		t.Fatalf("LEO = %d, want 18", l.EndOffset())
	}
	for off := uint64(0); off < 18; off++ {
		out, err := l.Read(nil, off, 1, IsolationLogEnd)
		if err != nil || len(out) == 0 {
			t.Fatalf("Read(%d) = %d bytes, %v", off, len(out), err)
		}
		if h := stHeaders(t, out)[0]; h.BaseOffset > off || h.LastOffset() < off {
			t.Fatalf("Read(%d) starts with batch %d-%d", off, h.BaseOffset, h.LastOffset())
		}
	}
	stClose(t, l)
	l = stOpen(t, l.Dir(), Options{SegmentBytes: 500})
	if l.EndOffset() != 18 {
		t.Errorf("LEO after reopen = %d, want 18", l.EndOffset())
	}
}

// TestReviewBatchExactlyFillsSegment: an append that brings the active
// segment to exactly SegmentBytes stays in it; the next one rolls.
func TestReviewBatchExactlyFillsSegment(t *testing.T) {
	dir := t.TempDir()
	b := stBatch(t, 0, 2, 50, 1)
	opts := Options{SegmentBytes: int64(3 * len(b))}
	l := stOpen(t, dir, opts)
	for i := range 3 {
		if _, err := l.AppendAsLeader(bytes.Clone(b), 1); err != nil {
			t.Fatal(err)
		}
		if len(l.segments) != 1 {
			t.Fatalf("append %d rolled at %d bytes of %d", i, l.active().size, opts.SegmentBytes)
		}
	}
	if l.active().size != opts.SegmentBytes {
		t.Fatalf("segment holds %d bytes, want exactly %d", l.active().size, opts.SegmentBytes)
	}
	if _, err := l.AppendAsLeader(bytes.Clone(b), 1); err != nil {
		t.Fatal(err)
	}
	if len(l.segments) != 2 || l.active().base != 6 {
		t.Fatalf("fourth append: %d segments, active base %d; want a roll at 6", len(l.segments), l.active().base)
	}
	want := stReadAll(t, l, IsolationLogEnd)
	stClose(t, l)
	l = stOpen(t, dir, opts)
	if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, want) || len(l.segments) != 2 {
		t.Errorf("after reopen: %d segments, same bytes %v", len(l.segments), bytes.Equal(got, want))
	}
}

// TestReviewSegmentSmallerThanBatch: with SegmentBytes below one batch every
// append gets its own segment, and reads, truncation to a segment base and
// reopen all work.
func TestReviewSegmentSmallerThanBatch(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentBytes: 10, IndexIntervalBytes: 1}
	l := stOpen(t, dir, opts)
	stored := stAppendLeader(t, l, 5, 2, 30, 1)
	if len(l.segments) != 5 {
		t.Fatalf("%d segments, want 5", len(l.segments))
	}
	if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, stored) {
		t.Fatal("read back differs")
	}
	if err := l.TruncateTo(6); err != nil { // exactly segment 3's base
		t.Fatal(err)
	}
	if l.EndOffset() != 6 || len(l.segments) != 4 || l.active().size != 0 {
		t.Fatalf("after TruncateTo(6): LEO %d, %d segments, active %d bytes", l.EndOffset(), len(l.segments), l.active().size)
	}
	stClose(t, l)
	l = stOpen(t, dir, opts)
	if l.EndOffset() != 6 || l.HighWatermark() != 6 {
		t.Fatalf("after reopen: LEO %d, HW %d; want 6, 6", l.EndOffset(), l.HighWatermark())
	}
	stAppendLeader(t, l, 2, 2, 30, 1)
	if l.EndOffset() != 10 || len(l.segments) != 5 {
		t.Errorf("after two more appends: LEO %d, %d segments; want 10, 5", l.EndOffset(), len(l.segments))
	}
}

// TestReviewRejectedAppendDoesNotRoll: an append refused because its offsets
// span more than one segment can index must leave the log unchanged, not
// with a new empty segment rolled for it.
func TestReviewRejectedAppendDoesNotRoll(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{})
	if err := l.AppendAsFollower(stBatch(t, 0, 1, 1, 1)); err != nil {
		t.Fatal(err)
	}
	before := rvSnapshot(t, l)
	const span = 1 << 31
	three := append(append(stWideBatch(t, 1), stWideBatch(t, 1+span)...), stWideBatch(t, 1+2*span)...)
	if err := l.AppendAsFollower(three); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("append spanning 3*2^31 offsets = %v, want ErrInvalidArgument", err)
	}
	if after := rvSnapshot(t, l); !before.equal(after) {
		t.Errorf("rejected append changed the log: segments %v -> %v, files %d -> %d",
			before.bases, after.bases, len(before.files), len(after.files))
	}
}
