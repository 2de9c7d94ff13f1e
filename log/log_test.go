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

func TestAppendAsLeaderStampsInPlace(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{})
	first := stBatch(t, 999, 3, 10, 1000) // producer's base offset is ignored
	second := stBatch(t, 0, 2, 10, 2000)
	in := append(append([]byte{}, first...), second...)
	crc1, crc2 := first[17:21], second[17:21]

	base, err := l.AppendAsLeader(in, 5)
	if err != nil {
		t.Fatal(err)
	}
	if base != 0 {
		t.Errorf("base = %d, want 0", base)
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
	if err != nil || next != 5 {
		t.Errorf("second append base = %d, %v; want 5, nil", next, err)
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
		{"no records", noRecords, ErrInvalidBatch},
		{"count differs from offset range", gapped, ErrInvalidBatch},
		{"control batch", control, ErrInvalidBatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := stOpen(t, t.TempDir(), Options{})
			before := stAppendLeader(t, l, 1, 3, 4, 1)
			in := bytes.Clone(tc.in)
			_, err := l.AppendAsLeader(in, 1)
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
	if base, err := l.AppendAsLeader(nil, 1); err != nil || base != 2 {
		t.Errorf("AppendAsLeader(nil) = %d, %v; want 2, nil", base, err)
	}
	if err := l.AppendAsFollower(nil); err != nil {
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
	if err := f.AppendAsFollower(shipped[:cut]); err != nil {
		t.Fatal(err)
	}
	// Not at the log end: replaying from 0, skipping a batch, or a second
	// batch that does not continue the first.
	third := shipped[cut : cut+hs[2].Size()]
	for name, in := range map[string][]byte{
		"replay":         shipped[:cut],
		"skip":           shipped[cut+hs[2].Size():],
		"not contiguous": append(bytes.Clone(third), shipped[:hs[0].Size()]...),
	} {
		if err := f.AppendAsFollower(in); !errors.Is(err, ErrNotAtLogEnd) {
			t.Errorf("%s: err = %v, want ErrNotAtLogEnd", name, err)
		}
	}
	corrupt := bytes.Clone(shipped[cut:])
	corrupt[len(corrupt)-3] ^= 0x40
	if err := f.AppendAsFollower(corrupt); !errors.Is(err, ErrBadCRC) {
		t.Errorf("corrupt: err = %v, want ErrBadCRC", err)
	}
	if f.EndOffset() != 6 {
		t.Fatalf("LEO after rejected appends = %d, want 6", f.EndOffset())
	}
	if err := f.AppendAsFollower(shipped[cut:]); err != nil {
		t.Fatal(err)
	}
	if got := stReadAll(t, f, IsolationLogEnd); !bytes.Equal(got, shipped) {
		t.Error("follower bytes differ from the leader's")
	}
	if e, h := f.EndOffset(), f.HighWatermark(); e != 12 || h != 0 {
		t.Errorf("follower LEO, HW = %d, %d; want 12, 0 (not eager)", e, h)
	}
}

func TestHighWatermark(t *testing.T) {
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
		"Follower":   l.AppendAsFollower(stBatch(t, 1, 1, 1, 1)),
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
	if err := l.AppendAsFollower(three); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("append spanning 3*2^31 offsets = %v, want ErrInvalidArgument", err)
	}
	if l.EndOffset() != 0 {
		t.Fatalf("LEO = %d after a rejected append", l.EndOffset())
	}
	for i := range uint64(3) {
		if err := l.AppendAsFollower(stWideBatch(t, i*span)); err != nil {
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
	if err := l.AppendAsFollower(stBatch(t, 1<<63-1, 1, 1, 1)); !errors.Is(err, ErrBadOffset) {
		t.Errorf("follower append to MaxInt64 = %v, want ErrBadOffset", err)
	}
}
