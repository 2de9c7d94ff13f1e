package log

import (
	"encoding/binary"
	"testing"
)

// TestIndexBoundsTheScan checks, for every offset of a large segment, that
// the index entry a lookup starts from is at most one interval (plus one
// batch) before the batch holding the offset, and that locate finds it.
func TestIndexBoundsTheScan(t *testing.T) {
	const interval = 1000
	l := stOpen(t, t.TempDir(), Options{IndexIntervalBytes: interval})
	for i := range 300 {
		stAppendLeader(t, l, 1, 1+i%7, 10+i%90, 1)
	}
	seg := l.active()
	batches := stSplit(t, stReadAll(t, l, IsolationLogEnd))
	if len(seg.entries) < 20 {
		t.Fatalf("only %d index entries", len(seg.entries))
	}
	maxBatch, pos := 0, int64(0)
	for _, b := range batches {
		maxBatch = max(maxBatch, len(b.bytes))
	}
	scratch := make([]byte, BatchHeaderSize)
	for _, b := range batches {
		for off := b.h.BaseOffset; off <= b.h.LastOffset(); off++ {
			start := int64(0)
			if i := seg.floorEntry(off); i >= 0 {
				start = int64(seg.entries[i].pos)
			}
			if start > pos || pos-start >= int64(interval+maxBatch) {
				t.Fatalf("offset %d at byte %d: scan starts at %d", off, pos, start)
			}
			got, sb, _, found, err := seg.locate(off, scratch, false)
			if err != nil || !found || got != pos || sb.base != b.h.BaseOffset {
				t.Fatalf("locate(%d) = %d, %+v, %v, %v; want byte %d", off, got, sb, found, err, pos)
			}
		}
		pos += int64(len(b.bytes))
	}
	if _, _, _, found, _ := seg.locate(l.EndOffset(), scratch, false); found {
		t.Error("locate(LEO) found a batch")
	}
}

func TestIndexFileLayout(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{IndexIntervalBytes: 1})
	stAppendLeader(t, l, 3, 2, 10, 1) // an entry at every batch but the first
	size := len(stBatch(t, 0, 2, 10, 1))
	if err := l.Flush(); err != nil { // appends keep their entries in memory until then
		t.Fatal(err)
	}
	idx := stReadFile(t, stSeg(dir, 0, indexSuffix))
	if len(idx) != 2*indexEntrySize {
		t.Fatalf("index is %d bytes, want %d", len(idx), 2*indexEntrySize)
	}
	for i, want := range []struct{ rel, pos uint32 }{{2, uint32(size)}, {4, uint32(2 * size)}} {
		e := idx[i*indexEntrySize:]
		if rel, pos := binary.BigEndian.Uint32(e), binary.BigEndian.Uint32(e[4:]); rel != want.rel || pos != want.pos {
			t.Errorf("entry %d = (%d, %d), want (%d, %d)", i, rel, pos, want.rel, want.pos)
		}
	}
}

func TestIndexCeilPos(t *testing.T) {
	s := &segment{base: 100, entries: []indexEntry{{rel: 5, pos: 50}, {rel: 10, pos: 90}}}
	for _, tc := range []struct {
		off  uint64
		pos  int64
		ok   bool
		desc string
	}{
		{100, 50, true, "below every entry"},
		{105, 50, true, "exactly an entry"},
		{106, 90, true, "between entries"},
		{110, 90, true, "exactly the last entry"},
		{111, 0, false, "past every entry"},
		{3, 50, true, "below the segment base"},
	} {
		pos, ok := s.ceilPos(tc.off)
		if pos != tc.pos || ok != tc.ok {
			t.Errorf("%s: ceilPos(%d) = %d, %v; want %d, %v", tc.desc, tc.off, pos, ok, tc.pos, tc.ok)
		}
	}
}

func TestParseSegmentName(t *testing.T) {
	for name, want := range map[string]int64{
		"00000000000000000000.log":         0,
		"00000000000000001234.log":         1234,
		"09223372036854775807.log":         1<<63 - 1,
		"09223372036854775808.log":         -1, // beyond int64
		"0000000000000000000.log":          -1, // 19 digits
		"00000000000000000000.index":       -1,
		"0000000000000000000a.log":         -1,
		"00000000000000000000.log.cleaned": -1,
	} {
		got, ok := parseSegmentName(name)
		if (want < 0) == ok || (ok && got != uint64(want)) {
			t.Errorf("parseSegmentName(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
}

// TestIndexFileCatchesUp: an append keeps its index entries in memory; the
// active segment's index file holds exactly its entries after a Flush and
// after Close (so a clean Open rebuilds nothing), also when a truncation cut
// entries that were never written, and a roll writes the rolled segment's.
func TestIndexFileCatchesUp(t *testing.T) {
	dir := t.TempDir()
	opts := Options{IndexIntervalBytes: 1, SegmentBytes: 8 * int64(len(stBatch(t, 0, 2, 10, 1)))}
	l := stOpen(t, dir, opts)
	fileHolds := func(what string, want []indexEntry) {
		t.Helper()
		got := stReadFile(t, stSeg(dir, 0, indexSuffix))
		if w := appendIndexEntries(nil, want); string(got) != string(w) {
			t.Fatalf("%s: index file %x, want %x", what, got, w)
		}
	}
	stAppendLeader(t, l, 4, 2, 10, 1) // offsets 0-7, entries at batches 2-4
	fileHolds("before Flush", nil)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	fileHolds("after Flush", l.active().entries)
	if len(l.active().entries) != 3 {
		t.Fatalf("%d entries, want 3", len(l.active().entries))
	}
	stAppendLeader(t, l, 4, 2, 10, 1)        // offsets 8-15: 4 entries pending
	if err := l.TruncateTo(12); err != nil { // keeps 2 of them
		t.Fatal(err)
	}
	fileHolds("after the truncation", l.active().entries[:3])
	stClose(t, l)

	l = stOpen(t, dir, opts)
	if r := l.Recovery(); !r.Clean || len(r.IndexesRebuilt) > 0 {
		t.Fatalf("reopen: clean %v, rebuilt %v", r.Clean, r.IndexesRebuilt)
	}
	if n := len(l.active().entries); n != 5 {
		t.Fatalf("reopened with %d entries, want 5", n)
	}
	fileHolds("after Close", l.active().entries)

	stAppendLeader(t, l, 2, 2, 10, 1) // the segment is full: 2 entries pending
	entries := l.active().entries
	stAppendLeader(t, l, 1, 2, 10, 1) // rolls
	if n := len(l.segments); n != 2 || len(entries) != 7 {
		t.Fatalf("%d segments, %d entries; want 2 and 7", n, len(entries))
	}
	fileHolds("after a roll", entries)
}
