package log

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stIndexFor computes, independently of the log, the index file a segment
// holding these batches must have: an entry at every batch that starts at
// least interval bytes after the previous entry (or the segment start).
func stIndexFor(base uint64, batches []stStored, interval int) []byte {
	var out []byte
	pos, last := 0, 0
	for _, b := range batches {
		if pos-last >= interval {
			out = appendIndexEntries(out, []indexEntry{{rel: uint32(b.h.BaseOffset - base), pos: uint32(pos)}})
			last = pos
		}
		pos += len(b.bytes)
	}
	return out
}

// stJoin concatenates the bytes of batches.
func stJoin(batches []stStored) []byte {
	var out []byte
	for _, b := range batches {
		out = append(out, b.bytes...)
	}
	return out
}

// stPrefixAt returns the position of batch i in the segment.
func stPrefixAt(batches []stStored, i int) int { return len(stJoin(batches[:i])) }

// TestRecoverActiveSegment damages the active segment (and its index) in
// each way a crash or a bad disk can, reopens, and checks that exactly the
// valid prefix survives: the LEO, the bytes read back, the file size, and
// an index that matches the surviving batches.
func TestRecoverActiveSegment(t *testing.T) {
	const interval = 200
	opts := Options{IndexIntervalBytes: interval}
	// A reference log of 6 batches of varied sizes in one segment.
	src := t.TempDir()
	l := stOpen(t, src, opts)
	for i := range 6 {
		stAppendLeader(t, l, 1, 1+i, 20+10*i, int64(i))
	}
	stClose(t, l)
	seg := stReadFile(t, stSeg(src, 0, segmentSuffix))
	batches := stSplit(t, seg)
	n := len(batches)
	last := stPrefixAt(batches, n-1)

	type damage struct {
		name    string
		mutate  func(t *testing.T, dir string)
		survive int // batches that must survive
	}
	segPath := func(dir string) string { return stSeg(dir, 0, segmentSuffix) }
	edit := func(f func(b []byte) []byte) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			stWriteFile(t, segPath(dir), f(bytes.Clone(seg)))
		}
	}
	cases := []damage{
		{"intact", func(*testing.T, string) {}, n},
		{"flipped byte mid last batch", edit(func(b []byte) []byte { b[last+len(batches[n-1].bytes)/2] ^= 0x10; return b }), n - 1},
		{"flipped byte mid batch 2", edit(func(b []byte) []byte { b[stPrefixAt(batches, 2)+70] ^= 0x01; return b }), 2},
		{"flipped CRC byte of batch 1", edit(func(b []byte) []byte { b[stPrefixAt(batches, 1)+18] ^= 0xff; return b }), 1},
		{"zeroed header of batch 3", edit(func(b []byte) []byte {
			clear(b[stPrefixAt(batches, 3) : stPrefixAt(batches, 3)+BatchHeaderSize])
			return b
		}), 3},
		{"zeroed first header", edit(func(b []byte) []byte { clear(b[:BatchHeaderSize]); return b }), 0},
		{"zeros after the last batch", edit(func(b []byte) []byte { return append(b, make([]byte, 4096)...) }), n},
		{"garbage after the last batch", edit(func(b []byte) []byte { return append(b, "kaen-log says hi"...) }), n},
		{"batchLength beyond the file", edit(func(b []byte) []byte { b[last+8] = 0x7f; return b }), n - 1},
		{"negative batchLength", edit(func(b []byte) []byte { b[last+8] = 0xff; return b }), n - 1},
		{"bad magic in batch 4", edit(func(b []byte) []byte { b[stPrefixAt(batches, 4)+16] = 1; return b }), 4},
		{"batch replayed with old offsets", edit(func(b []byte) []byte { return append(b, batches[1].bytes...) }), n},
		{"empty segment file", edit(func([]byte) []byte { return nil }), 0},
		{"garbage index", func(t *testing.T, dir string) {
			stWriteFile(t, stSeg(dir, 0, indexSuffix), bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 9))
		}, n},
		{"index entry pointing mid-batch", func(t *testing.T, dir string) {
			idx := stReadFile(t, stSeg(dir, 0, indexSuffix))
			idx[7]++
			stWriteFile(t, stSeg(dir, 0, indexSuffix), idx)
		}, n},
		{"torn index", func(t *testing.T, dir string) {
			idx := stReadFile(t, stSeg(dir, 0, indexSuffix))
			stWriteFile(t, stSeg(dir, 0, indexSuffix), idx[:len(idx)-3])
		}, n},
		{"missing index", func(t *testing.T, dir string) {
			if err := os.Remove(stSeg(dir, 0, indexSuffix)); err != nil {
				t.Fatal(err)
			}
		}, n},
		{"garbage time index", func(t *testing.T, dir string) {
			stWriteFile(t, stSeg(dir, 0, timeIndexSuffix), bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 9))
		}, n},
		{"torn time index", func(t *testing.T, dir string) {
			idx := stReadFile(t, stSeg(dir, 0, timeIndexSuffix))
			stWriteFile(t, stSeg(dir, 0, timeIndexSuffix), idx[:len(idx)-3])
		}, n},
		{"missing time index", func(t *testing.T, dir string) {
			if err := os.Remove(stSeg(dir, 0, timeIndexSuffix)); err != nil {
				t.Fatal(err)
			}
		}, n},
		{"torn last batch and garbage index", func(t *testing.T, dir string) {
			stWriteFile(t, segPath(dir), seg[:len(seg)-5])
			stWriteFile(t, stSeg(dir, 0, indexSuffix), []byte("nonsense"))
		}, n - 1},
	}
	// A crash can cut the last write at any byte.
	for k := range len(batches[n-1].bytes) {
		cases = append(cases, damage{
			name:    "cut last batch at byte " + strconv.Itoa(k),
			mutate:  edit(func(b []byte) []byte { return b[:last+k] }),
			survive: n - 1,
		})
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case has its own directory; they wait on fsyncs
			dir := t.TempDir()
			stCopyDir(t, src, dir)
			stUnflush(t, dir) // these are torn writes: nothing was flushed
			tc.mutate(t, dir)
			stCheckRecovered(t, dir, opts, 0, batches[:tc.survive])
		})
	}
}

// stCheckRecovered opens dir and checks that the log is exactly the given
// batches in segments starting at base, that files were cut to match, that
// every index is right, and that a second Open changes nothing.
func stCheckRecovered(t *testing.T, dir string, opts Options, start uint64, want []stStored) {
	t.Helper()
	l := stOpen(t, dir, opts)
	wantLEO := start
	if len(want) > 0 {
		wantLEO = want[len(want)-1].h.NextOffset()
	}
	if got := l.EndOffset(); got != wantLEO {
		t.Errorf("LEO = %d, want %d", got, wantLEO)
	}
	if got := l.StartOffset(); got != start {
		t.Errorf("start = %d, want %d", got, start)
	}
	if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, stJoin(want)) {
		t.Errorf("read back %v, want %v", stOffsets(stHeaders(t, got)), stOffsets(stHeaders(t, stJoin(want))))
	}
	// Files on disk: each segment holds its share of want, its index the
	// entries for that share.
	var onDisk []byte
	for _, s := range l.segments {
		data := stReadFile(t, s.path(segmentSuffix))
		if int64(len(data)) != s.size {
			t.Errorf("%s is %d bytes, want %d (not cut)", filepath.Base(s.path(segmentSuffix)), len(data), s.size)
		}
		wantIdx := stIndexFor(s.base, stSplit(t, data), l.opts.IndexIntervalBytes)
		if got := stReadFile(t, s.path(indexSuffix)); !bytes.Equal(got, wantIdx) {
			t.Errorf("%s = %x, want %x", filepath.Base(s.path(indexSuffix)), got, wantIdx)
		}
		wantTimes := stTimeIndexFor(s.base, stSplit(t, data), l.opts.IndexIntervalBytes)
		if got := stReadFile(t, s.path(timeIndexSuffix)); !bytes.Equal(got, wantTimes) {
			t.Errorf("%s = %x, want %x", filepath.Base(s.path(timeIndexSuffix)), got, wantTimes)
		}
		onDisk = append(onDisk, data...)
	}
	if !bytes.Equal(onDisk, stJoin(want)) {
		t.Error("segment files do not hold exactly the surviving batches")
	}
	before := stDirSnapshot(t, dir)
	stClose(t, l)
	l2 := stOpen(t, dir, opts)
	stClose(t, l2)
	after := stDirSnapshot(t, dir)
	// Close writes the checkpoints and the clean-shutdown marker; the
	// segments and indexes must not change.
	for _, m := range []map[string]string{before, after} {
		for name := range m {
			if !strings.HasSuffix(name, segmentSuffix) && !strings.HasSuffix(name, indexSuffix) && !strings.HasSuffix(name, timeIndexSuffix) {
				delete(m, name)
			}
		}
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("second Open changed files (-before +after):\n%s", diff)
	}
}

func TestRecoverNonActiveSegment(t *testing.T) {
	opts := Options{SegmentBytes: 700, IndexIntervalBytes: 150}
	src := t.TempDir()
	l := stOpen(t, src, opts)
	stAppendLeader(t, l, 12, 2, 60, 1)
	all := stSplit(t, stReadAll(t, l, IsolationLogEnd))
	bases := make([]uint64, len(l.segments))
	for i, s := range l.segments {
		bases[i] = s.base
	}
	stClose(t, l)
	if len(bases) < 4 {
		t.Fatalf("only %d segments", len(bases))
	}
	// Index in all of the first batch of segment 1 and of segment 2.
	firstOf := func(base uint64) int {
		for i, b := range all {
			if b.h.BaseOffset == base {
				return i
			}
		}
		t.Fatalf("no batch at %d", base)
		return 0
	}

	t.Run("corrupt batch in segment 1 drops later segments", func(t *testing.T) {
		dir := t.TempDir()
		stCopyDir(t, src, dir)
		stUnflush(t, dir)
		path := stSeg(dir, bases[1], segmentSuffix)
		data := stReadFile(t, path)
		second := all[firstOf(bases[1])]
		data[len(second.bytes)+40] ^= 0x80 // inside the second batch of segment 1
		stWriteFile(t, path, data)
		stCheckRecovered(t, dir, opts, 0, all[:firstOf(bases[1])+1])
		if diff := cmp.Diff([]string{segmentName(bases[0], segmentSuffix), segmentName(bases[1], segmentSuffix)}, stSegmentFiles(t, dir)); diff != "" {
			t.Errorf("segments (-want +got):\n%s", diff)
		}
		if _, err := os.Stat(stSeg(dir, bases[2], indexSuffix)); !os.IsNotExist(err) {
			t.Errorf("index of a dropped segment still exists: %v", err)
		}
	})
	t.Run("torn first segment keeps an empty log", func(t *testing.T) {
		dir := t.TempDir()
		stCopyDir(t, src, dir)
		stUnflush(t, dir)
		stWriteFile(t, stSeg(dir, 0, segmentSuffix), []byte{0, 0, 0})
		stCheckRecovered(t, dir, opts, 0, nil)
	})
	t.Run("missing middle segment", func(t *testing.T) {
		dir := t.TempDir()
		stCopyDir(t, src, dir)
		stUnflush(t, dir)
		// Segment 2 would continue offsets that no longer exist below it:
		// a hole. Nothing after a hole is trusted (compaction leaves empty
		// batches, never holes), so only segment 0 remains.
		os.Remove(stSeg(dir, bases[1], segmentSuffix))
		os.Remove(stSeg(dir, bases[1], indexSuffix))
		stCheckRecovered(t, dir, opts, 0, all[:firstOf(bases[1])])
	})
	t.Run("overlapping segment is dropped with the rest", func(t *testing.T) {
		dir := t.TempDir()
		stCopyDir(t, src, dir)
		stUnflush(t, dir)
		// A segment named inside segment 1's range.
		stWriteFile(t, stSeg(dir, bases[1]+1, segmentSuffix), nil)
		stCheckRecovered(t, dir, opts, 0, all[:firstOf(bases[2])])
	})
	t.Run("batch below the segment base", func(t *testing.T) {
		dir := t.TempDir()
		stCopyDir(t, src, dir)
		stUnflush(t, dir)
		// The last segment claims base 1000 but holds offsets from bases[3].
		last := stSeg(dir, bases[len(bases)-1], segmentSuffix)
		data := stReadFile(t, last)
		os.Remove(last)
		os.Remove(stSeg(dir, bases[len(bases)-1], indexSuffix))
		stWriteFile(t, stSeg(dir, 1000, segmentSuffix), data)
		// Segment 1000 leaves a hole after the one before it, which ends at
		// bases[3]: it goes, and the log ends there.
		stCheckRecoveredLEO(t, dir, opts, bases[len(bases)-1])
	})
}

// stCheckRecoveredLEO opens dir and checks only the LEO.
func stCheckRecoveredLEO(t *testing.T, dir string, opts Options, leo uint64) {
	t.Helper()
	l := stOpen(t, dir, opts)
	if got := l.EndOffset(); got != leo {
		t.Errorf("LEO = %d, want %d", got, leo)
	}
}

func TestRecoverDeletesLeftovers(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{})
	stAppendLeader(t, l, 2, 2, 2, 2)
	stClose(t, l)
	leftovers := []string{
		segmentName(0, segmentSuffix) + cleanedSuffix,
		segmentName(0, indexSuffix) + cleanedSuffix,
		checkpointFileName + checkpointTempSuffix,
		segmentName(77, indexSuffix), // index without a segment
	}
	for _, name := range leftovers {
		stWriteFile(t, filepath.Join(dir, name), []byte("junk"))
	}
	stWriteFile(t, filepath.Join(dir, "README"), []byte("not ours"))
	l = stOpen(t, dir, Options{})
	if l.EndOffset() != 4 {
		t.Errorf("LEO = %d, want 4", l.EndOffset())
	}
	for _, name := range leftovers {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s not deleted (%v)", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "README")); err != nil {
		t.Errorf("unrelated file touched: %v", err)
	}
}

// stCopyDir copies the regular files of src into dst.
func stCopyDir(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		stWriteFile(t, filepath.Join(dst, e.Name()), stReadFile(t, filepath.Join(src, e.Name())))
	}
}

// stDirSnapshot maps file names in dir to their contents.
func stDirSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		m[e.Name()] = string(stReadFile(t, filepath.Join(dir, e.Name())))
	}
	return m
}
