package log

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kaenlog/kaenlog/epoch"
)

// Tests: appends at the edges (follower gaps, overlaps and lying
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

// TestLeaderRejectsWholeAppendOnOneBadBatch appends three batches of
// which one is corrupt or not producer-legal, in each position: the error
// names it, and neither the log (offsets, segments, files) nor the caller's
// slice changes.
func TestLeaderRejectsWholeAppendOnOneBadBatch(t *testing.T) {
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
		{"record count differs from offset range", badCount, ErrInvalidRecord},
		{"control batch", control, ErrInvalidRecord},
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
	if base, err := l.AppendAsLeader(bytes.Clone(good), 9); err != nil || base.FirstOffset != 6 {
		t.Errorf("append after rejections = %d, %v; want 6", base.FirstOffset, err)
	}
}

// TestFollowerAppendEdges: a gap, an overlap, a replay, empty input,
// and batches whose header lies about its offsets (recordCount and
// lastOffsetDelta disagree). Rejected appends change nothing.
func TestFollowerAppendEdges(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 500})
	l.StopEagerHighWatermark()
	if _, err := l.AppendAsFollower(stBatch(t, 0, 3, 10, 1)); err != nil {
		t.Fatal(err)
	}
	before := rvSnapshot(t, l)
	for name, in := range map[string][]byte{
		"overlap":              stBatch(t, 2, 2, 10, 1),
		"replay":               stBatch(t, 0, 3, 10, 1),
		"gap inside the input": append(stBatch(t, 3, 1, 10, 1), stBatch(t, 5, 1, 10, 1)...),
		"overlap inside input": append(stBatch(t, 3, 2, 10, 1), stBatch(t, 4, 1, 10, 1)...),
	} {
		if _, err := l.AppendAsFollower(in); !errors.Is(err, ErrNotAtLogEnd) {
			t.Errorf("%s: err = %v, want ErrNotAtLogEnd", name, err)
		}
		if !before.equal(rvSnapshot(t, l)) {
			t.Errorf("%s: the log changed", name)
		}
	}
	if _, err := l.AppendAsFollower([]byte{}); err != nil || !before.equal(rvSnapshot(t, l)) {
		t.Errorf("empty append = %v, or changed the log", err)
	}

	// A compacted-style batch (fewer records than offsets) is legal for a
	// follower: the LEO follows lastOffsetDelta, not recordCount.
	wide := stBatchOf(t, 3, 1, []Record{{OffsetDelta: 0, Value: []byte("a")}, {OffsetDelta: 4, Value: []byte("b")}})
	if _, err := l.AppendAsFollower(wide); err != nil {
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
	if _, err := l.AppendAsFollower(liar); err != nil {
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

// TestBatchExactlyFillsSegment: an append that brings the active
// segment to exactly SegmentBytes stays in it; the next one rolls.
func TestBatchExactlyFillsSegment(t *testing.T) {
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

// TestSegmentSmallerThanBatch: with SegmentBytes below one batch every
// append gets its own segment, and reads, truncation to a segment base and
// reopen all work.
func TestSegmentSmallerThanBatch(t *testing.T) {
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

// TestRejectedAppendDoesNotRoll: an append refused because its offsets
// span more than one segment can index must leave the log unchanged, not
// with a new empty segment rolled for it.
func TestRejectedAppendDoesNotRoll(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{})
	if _, err := l.AppendAsFollower(stBatch(t, 0, 1, 1, 1)); err != nil {
		t.Fatal(err)
	}
	before := rvSnapshot(t, l)
	const span = 1 << 31
	three := append(append(stWideBatch(t, 1), stWideBatch(t, 1+span)...), stWideBatch(t, 1+2*span)...)
	if _, err := l.AppendAsFollower(three); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("append spanning 3*2^31 offsets = %v, want ErrInvalidArgument", err)
	}
	if after := rvSnapshot(t, l); !before.equal(after) {
		t.Errorf("rejected append changed the log: segments %v -> %v, files %d -> %d",
			before.bases, after.bases, len(before.files), len(after.files))
	}
}

func TestAppendAsLeaderStampsInPlace(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{})
	// A producer sends base offset 0 (Kafka's LogValidator refuses others).
	if _, err := l.AppendAsLeader(stBatch(t, 999, 3, 10, 1000), 5); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("producer batch with base offset 999: %v, want ErrInvalidRecord", err)
	}
	first := stBatch(t, 0, 3, 10, 1000)
	second := stBatch(t, 0, 2, 10, 2000)
	in := append(append([]byte{}, first...), second...)
	crc1, crc2 := first[17:21], second[17:21]

	base, err := l.AppendAsLeader(in, 5)
	if err != nil {
		t.Fatal(err)
	}
	if base.FirstOffset != 0 {
		t.Errorf("base = %d, want 0", base.FirstOffset)
	}
	hs := stHeaders(t, in) // the caller's slice was stamped, CRCs still valid
	if diff := cmp.Diff([]string{"0-2", "3-4"}, stOffsets(hs)); diff != "" {
		t.Errorf("stamped offsets (-want +got):\n%s", diff)
	}
	for i, h := range hs {
		if h.PartitionLeaderEpoch != 5 {
			t.Errorf("batch %d epoch = %d, want 5", i, h.PartitionLeaderEpoch)
		}
	}
	if !bytes.Equal(in[17:21], crc1) || !bytes.Equal(in[len(first)+17:len(first)+21], crc2) {
		t.Error("CRC bytes changed")
	}
	if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, in) {
		t.Error("stored bytes differ from the stamped input")
	}
	if e, h := l.EndOffset(), l.HighWatermark(); e != 5 || h != 5 {
		t.Errorf("LEO, HW = %d, %d; want 5, 5 (eager)", e, h)
	}

	next, err := l.AppendAsLeader(stBatch(t, 0, 1, 1, 3000), 6)
	if err != nil || next.FirstOffset != 5 {
		t.Errorf("second append base = %d, %v; want 5, nil", next.FirstOffset, err)
	}
}

func TestAppendAsLeaderRejectsAndLeavesLogUnchanged(t *testing.T) {
	good := func() []byte { return stBatch(t, 0, 2, 5, 100) }
	flipped := good()
	flipped[len(flipped)-1] ^= 1
	noRecords := stBatchOf(t, 0, 100, stRecords(2, 5, nil))
	noRecords = append(noRecords[:57:57], 0, 0, 0, 0) // recordCount 0, then re-CRC
	noRecords = stRecrc(noRecords)
	gapped := stBatchOf(t, 0, 100, []Record{{OffsetDelta: 0}, {OffsetDelta: 5}})
	control := good()
	control[22] |= byte(AttrControl)
	control = stRecrc(control)

	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"bad CRC in second batch", append(good(), flipped...), ErrBadCRC},
		{"torn second batch", append(good(), good()[:70]...), ErrTruncated},
		{"garbage after batch", append(good(), 1, 2, 3), ErrTruncated},
		{"no records", noRecords, ErrInvalidRecord},
		{"count differs from offset range", gapped, ErrInvalidRecord},
		{"control batch", control, ErrInvalidRecord},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := stOpen(t, t.TempDir(), Options{})
			before := stAppendLeader(t, l, 1, 3, 4, 1)
			in := bytes.Clone(tc.in)
			_, err := l.AppendAsLeader(in, 7)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !bytes.Equal(in, tc.in) {
				t.Error("rejected input was modified")
			}
			if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, before) || l.EndOffset() != 3 {
				t.Errorf("log changed: LEO %d, %d bytes", l.EndOffset(), len(got))
			}
		})
	}
	t.Run("corrupt error position is relative to the whole append", func(t *testing.T) {
		l := stOpen(t, t.TempDir(), Options{})
		g := good()
		_, err := l.AppendAsLeader(append(g, flipped...), 1)
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.Pos != len(g)+17 {
			t.Errorf("err = %#v, want CorruptError at %d", err, len(g)+17)
		}
	})
}

// stRecrc recomputes a batch's CRC after a test edited CRC'd bytes.
func stRecrc(b []byte) []byte {
	b[8], b[9], b[10], b[11] = byte((len(b)-12)>>24), byte((len(b)-12)>>16), byte((len(b)-12)>>8), byte(len(b)-12)
	c := ChecksumCRC32C(b[21:])
	b[17], b[18], b[19], b[20] = byte(c>>24), byte(c>>16), byte(c>>8), byte(c)
	return b
}

func TestAppendEmptyIsNoOp(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{})
	stAppendLeader(t, l, 1, 2, 1, 1)
	if base, err := l.AppendAsLeader(nil, 1); err != nil || base.FirstOffset != 2 || base.NextOffset != 2 {
		t.Errorf("AppendAsLeader(nil) = %+v, %v; want 2, nil", base, err)
	}
	if _, err := l.AppendAsFollower(nil); err != nil {
		t.Errorf("AppendAsFollower(nil) = %v", err)
	}
	if l.EndOffset() != 2 {
		t.Errorf("LEO = %d, want 2", l.EndOffset())
	}
}

func TestAppendAsFollower(t *testing.T) {
	leader := stOpen(t, t.TempDir(), Options{})
	stAppendLeader(t, leader, 4, 3, 8, 10)
	shipped := stReadAll(t, leader, IsolationLogEnd)
	hs := stHeaders(t, shipped)

	f := stOpen(t, t.TempDir(), Options{})
	f.StopEagerHighWatermark()
	cut := hs[0].Size() + hs[1].Size()
	if _, err := f.AppendAsFollower(shipped[:cut]); err != nil {
		t.Fatal(err)
	}
	// Not at the log end: replaying from 0, or a second batch that does
	// not continue the first. (Skipping ahead is not refused: see
	// TestFollowerCoversTheLeadersGap.)
	third := shipped[cut : cut+hs[2].Size()]
	for name, in := range map[string][]byte{
		"replay":         shipped[:cut],
		"not contiguous": append(bytes.Clone(third), shipped[:hs[0].Size()]...),
	} {
		if _, err := f.AppendAsFollower(in); !errors.Is(err, ErrNotAtLogEnd) {
			t.Errorf("%s: err = %v, want ErrNotAtLogEnd", name, err)
		}
	}
	corrupt := bytes.Clone(shipped[cut:])
	corrupt[len(corrupt)-3] ^= 0x40
	if _, err := f.AppendAsFollower(corrupt); !errors.Is(err, ErrBadCRC) {
		t.Errorf("corrupt: err = %v, want ErrBadCRC", err)
	}
	if f.EndOffset() != 6 {
		t.Fatalf("LEO after rejected appends = %d, want 6", f.EndOffset())
	}
	if _, err := f.AppendAsFollower(shipped[cut:]); err != nil {
		t.Fatal(err)
	}
	if got := stReadAll(t, f, IsolationLogEnd); !bytes.Equal(got, shipped) {
		t.Error("follower bytes differ from the leader's")
	}
	if e, h := f.EndOffset(), f.HighWatermark(); e != 12 || h != 0 {
		t.Errorf("follower LEO, HW = %d, %d; want 12, 0 (not eager)", e, h)
	}
}

// stWideBatch is a follower-style batch of one record whose offset range is
// stretched to 2^31 offsets, as compaction can leave it.
func stWideBatch(t *testing.T, base uint64) []byte {
	b := stBatch(t, base, 1, 1, 1)
	b[23], b[24], b[25], b[26] = 0x7f, 0xff, 0xff, 0xff // lastOffsetDelta = MaxInt32
	return stRecrc(b)
}

func TestAppendRollsWhenOffsetsOutgrowTheIndex(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{})
	const span = 1 << 31
	three := append(append(stWideBatch(t, 0), stWideBatch(t, span)...), stWideBatch(t, 2*span)...)
	if _, err := l.AppendAsFollower(three); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("append spanning 3*2^31 offsets = %v, want ErrInvalidArgument", err)
	}
	if l.EndOffset() != 0 {
		t.Fatalf("LEO = %d after a rejected append", l.EndOffset())
	}
	for i := range uint64(3) {
		if _, err := l.AppendAsFollower(stWideBatch(t, i*span)); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	want := []string{segmentName(0, segmentSuffix), segmentName(2*span, segmentSuffix)}
	if diff := cmp.Diff(want, stSegmentFiles(t, dir)); diff != "" {
		t.Errorf("segments (-want +got):\n%s", diff)
	}
	stClose(t, l)
	l = stOpen(t, dir, Options{})
	if l.EndOffset() != 3*span {
		t.Errorf("LEO after reopen = %d, want %d", l.EndOffset(), uint64(3*span))
	}
	got, err := l.Read(nil, span+5, 1, IsolationLogEnd)
	if err != nil || stHeaders(t, got)[0].BaseOffset != span {
		t.Errorf("Read(span+5) = %v, %v", stOffsets(stHeaders(t, got)), err)
	}
}

func TestAppendAsLeaderNearMaxOffset(t *testing.T) {
	dir := t.TempDir()
	const base = 1<<63 - 10
	stWriteFile(t, stSeg(dir, base, segmentSuffix), stBatch(t, base, 2, 1, 1))
	l := stOpen(t, dir, Options{})
	if l.StartOffset() != base || l.EndOffset() != base+2 {
		t.Fatalf("start, LEO = %d, %d", l.StartOffset(), l.EndOffset())
	}
	in := stBatch(t, 0, 8, 1, 1) // last offset MaxInt64: the LEO would not fit
	orig := bytes.Clone(in)
	if _, err := l.AppendAsLeader(in, 1); !errors.Is(err, ErrBadOffset) {
		t.Errorf("append to MaxInt64 = %v, want ErrBadOffset", err)
	}
	if !bytes.Equal(in, orig) || l.EndOffset() != base+2 {
		t.Error("rejected append changed the input or the log")
	}
	if _, err := l.AppendAsLeader(stBatch(t, 0, 7, 1, 1), 1); err != nil || l.EndOffset() != 1<<63-1 {
		t.Errorf("append up to LEO MaxInt64 = %v, LEO %d", err, l.EndOffset())
	}
	last := stBatch(t, 1<<63-1, 1, 1, 1)
	SetPartitionLeaderEpoch(last, 1) // the epoch of the log's last batch
	if _, err := l.AppendAsFollower(last); !errors.Is(err, ErrBadOffset) {
		t.Errorf("follower append to MaxInt64 = %v, want ErrBadOffset", err)
	}
}

// TestFollowerCoversTheLeadersGap: Kafka's follower rule refuses only a
// first batch below the LEO. A first batch above it (a leader whose log has
// a gap, as an old compacted one's may) is preceded by an empty batch the
// follower writes itself, with the epoch of the batch after it, so the
// follower's log stays contiguous, also after a restart.
func TestFollowerCoversTheLeadersGap(t *testing.T) {
	dir := t.TempDir()
	f := stOpen(t, dir, Options{})
	f.StopEagerHighWatermark()
	first := stBatch(t, 0, 2, 1, 1)
	SetPartitionLeaderEpoch(first, 1)
	if _, err := f.AppendAsFollower(first); err != nil {
		t.Fatal(err)
	}
	after := stBatch(t, 5, 2, 1, 1)
	SetPartitionLeaderEpoch(after, 3)
	info, err := f.AppendAsFollower(after)
	if err != nil {
		t.Fatalf("a first batch above the LEO: %v", err)
	}
	if info.FirstOffset != 5 || info.NextOffset != 7 || info.Records != 2 || info.Batches != 1 || info.Bytes != BatchHeaderSize+len(after) || info.LastEpoch != 3 {
		t.Errorf("AppendInfo = %+v", info)
	}
	out := stReadAll(t, f, IsolationLogEnd)
	hs := stHeaders(t, out)
	if got := fmt.Sprint(stOffsets(hs)); got != "[0-1 2-4 5-6]" {
		t.Fatalf("follower log %s, want [0-1 2-4 5-6]", got)
	}
	if hs[1].RecordCount != 0 || hs[1].PartitionLeaderEpoch != 3 || hs[1].Size() != BatchHeaderSize {
		t.Errorf("gap batch %+v: want an empty batch of epoch 3", hs[1])
	}
	if !bytes.Equal(out[len(out)-len(after):], after) {
		t.Error("the leader's batch is not stored byte for byte")
	}
	if got, want := f.EpochEntries(), []epoch.Entry{{Epoch: 1, StartOffset: 0}, {Epoch: 3, StartOffset: 2}}; !slices.Equal(got, want) {
		t.Errorf("epochs %v, want %v", got, want)
	}
	stClose(t, f)
	stUnflush(t, dir)
	f = stOpen(t, dir, Options{})
	if r := f.Recovery(); len(r.Cuts) > 0 || f.EndOffset() != 7 {
		t.Errorf("after reopen: LEO %d\n%s", f.EndOffset(), r)
	}
	// Still refused: below the LEO, and a later batch that skips.
	if _, err := f.AppendAsFollower(stBatch(t, 6, 1, 1, 1)); !errors.Is(err, ErrNotAtLogEnd) {
		t.Errorf("first batch below the LEO = %v", err)
	}
}

// TestLeaderValidatesEveryRecord: what a leader refuses from a producer
// (issue 7, points 6 and 7), with the log and the input unchanged.
func TestLeaderValidatesEveryRecord(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{MaxBatchBytes: 2000})
	stAppendLeader(t, l, 1, 2, 10, 1)
	garbage := stBatch(t, 0, 1, 10, 1)
	for i := BatchHeaderSize; i < len(garbage); i++ {
		garbage[i] = 0xff
	}
	garbage = stRecrc(garbage)
	noBytes := stRecrc(bytes.Clone(stBatch(t, 0, 1, 1, 1)[:BatchHeaderSize]))
	huge := bytes.Clone(noBytes)
	binary.BigEndian.PutUint32(huge[57:61], 1<<31-1)
	binary.BigEndian.PutUint32(huge[23:27], 1<<31-2)
	huge = stRecrc(huge)
	gzip := stBatch(t, 0, 2, 10, 1)
	gzip[22] |= 1 // flagged, but the records are not gzip
	gzip = stRecrc(gzip)
	lz4 := stBatch(t, 0, 2, 10, 1)
	lz4[22] |= 3 // no lz4 decompressor is registered in this package's tests
	lz4 = stRecrc(lz4)
	big := stBatch(t, 0, 30, 100, 1)
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"a correct-CRC batch of garbage records", garbage, ErrCorrupt},
		{"one record claimed, no record bytes", noBytes, ErrCorrupt},
		{"2^31-1 records claimed in 61 bytes", huge, ErrCorrupt},
		{"gzip-flagged records that are not gzip", gzip, ErrBadCompressedData},
		{"lz4, which has no decompressor", lz4, ErrUnsupportedCompression},
		{"larger than MaxBatchBytes", big, ErrBatchTooLarge},
	} {
		in := bytes.Clone(tc.in)
		before := rvSnapshot(t, l)
		if _, err := l.AppendAsLeader(in, 7); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if !before.equal(rvSnapshot(t, l)) || !bytes.Equal(in, tc.in) {
			t.Errorf("%s: the log or the input changed", tc.name)
		}
	}
	// A follower keeps what its leader accepted, whatever its size.
	f := stOpen(t, t.TempDir(), Options{MaxBatchBytes: 2000})
	if _, err := f.AppendAsFollower(big); err != nil {
		t.Errorf("follower append of a large batch: %v", err)
	}
}

// TestLeaderRewritesAWrongMaxTimestamp: like Kafka's LogValidator, the
// leader stamps the largest record timestamp over a wrong MaxTimestamp and
// recomputes the CRC; a right one costs nothing.
func TestLeaderRewritesAWrongMaxTimestamp(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{})
	b := stBatch(t, 0, 3, 5, 1000) // record timestamps 1000, 1001, 1002
	binary.BigEndian.PutUint64(b[35:43], 5)
	b = stRecrc(b)
	info, err := l.AppendAsLeader(b, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := stHeaders(t, stReadAll(t, l, IsolationLogEnd))[0]
	if h.MaxTimestamp != 1002 || info.MaxTimestamp != 1002 {
		t.Errorf("MaxTimestamp stored %d, reported %d; want 1002", h.MaxTimestamp, info.MaxTimestamp)
	}
}

// TestAppendInfo: what an append reports, counted in the verifying pass.
func TestAppendInfo(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{})
	in := append(stBatch(t, 0, 3, 5, 10), stBatch(t, 0, 2, 5, 20)...)
	info, err := l.AppendAsLeader(in, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := AppendInfo{FirstOffset: 0, NextOffset: 5, Records: 5, Batches: 2, Bytes: len(in), LastEpoch: 4, MaxTimestamp: 21}
	if info != want {
		t.Errorf("leader AppendInfo %+v, want %+v", info, want)
	}
	f := stOpen(t, t.TempDir(), Options{})
	if info, err := f.AppendAsFollower(in); err != nil || info != want {
		t.Errorf("follower AppendInfo %+v, %v; want %+v", info, err, want)
	}
	if info, err := f.AppendAsFollower(nil); err != nil || info != (AppendInfo{FirstOffset: 5, NextOffset: 5, LastEpoch: -1, MaxTimestamp: -1}) {
		t.Errorf("empty append = %+v, %v", info, err)
	}
}
