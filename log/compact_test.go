package log

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// stKeyedRecord is one record as a reader sees it, with its absolute offset.
type stKeyedRecord struct {
	Offset uint64
	Key    string // "<nil>" for a null key
	Value  string // "<nil>" for a tombstone
}

func (r stKeyedRecord) String() string { return fmt.Sprintf("%d:%s=%s", r.Offset, r.Key, r.Value) }

// stRecordsOf decodes every record in buf with its offset.
func stRecordsOf(t *testing.T, buf []byte) []stKeyedRecord {
	t.Helper()
	bs, err := DecodeBatches(buf)
	if err != nil {
		t.Fatal(err)
	}
	var out []stKeyedRecord
	for _, b := range bs {
		for _, r := range b.Records {
			k, v := "<nil>", "<nil>"
			if r.Key != nil {
				k = string(r.Key)
			}
			if r.Value != nil {
				v = string(r.Value)
			}
			out = append(out, stKeyedRecord{b.BaseOffset + uint64(r.OffsetDelta), k, v})
		}
	}
	return out
}

// stCompactOracle is compaction written plainly: below limit, keep records
// with a null key and the last record of every key; keep the rest as is.
func stCompactOracle(all []stKeyedRecord, limit uint64) []stKeyedRecord {
	latest := map[string]uint64{}
	for _, r := range all {
		if r.Offset < limit && r.Key != "<nil>" {
			latest[r.Key] = r.Offset
		}
	}
	var out []stKeyedRecord
	for _, r := range all {
		if r.Offset >= limit || r.Key == "<nil>" || latest[r.Key] == r.Offset {
			out = append(out, r)
		}
	}
	return out
}

// stKeyedLog appends batches of records with keys from a small set, some
// null keys and some tombstones.
func stKeyedLog(t *testing.T, dir string, opts Options, seed uint64, batches int) *Log {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	l := stOpen(t, dir, opts)
	for i := range batches {
		n := 1 + rng.IntN(5)
		recs := make([]Record, n)
		for j := range recs {
			recs[j] = Record{OffsetDelta: int32(j), TimestampDelta: int64(j), Value: fmt.Appendf(nil, "v%d.%d", i, j)}
			switch k := rng.IntN(10); {
			case k == 0: // null key
			case k == 1:
				recs[j].Key = fmt.Appendf(nil, "k%d", rng.IntN(6))
				recs[j].Value = nil // tombstone
			default:
				recs[j].Key = fmt.Appendf(nil, "k%d", rng.IntN(6))
			}
		}
		if _, err := l.AppendAsLeader(stBatchOf(t, 0, int64(1000*i), recs), 1); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func TestCompact(t *testing.T) {
	for _, tc := range []struct {
		name  string
		seed  uint64
		eager bool
		hw    func(leo uint64) uint64
	}{
		{"eager HW: every closed segment", 1, true, nil},
		{"eager HW, other seed", 2, true, nil},
		{"HW mid-log limits the range", 3, false, func(leo uint64) uint64 { return leo / 2 }},
		{"HW 0: nothing to do", 4, false, func(uint64) uint64 { return 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{SegmentBytes: 900, IndexIntervalBytes: 128}
			l := stKeyedLog(t, dir, opts, tc.seed, 40)
			if !tc.eager {
				// The HW only moves up, and eager mode put it at the LEO:
				// reopen with a lower checkpoint instead.
				hw := tc.hw(l.EndOffset())
				stClose(t, l)
				stWriteFile(t, filepath.Join(dir, checkpointFileName), formatCheckpoint(hw))
				l = stOpen(t, dir, opts)
				l.StopEagerHighWatermark()
			}
			before := stReadAll(t, l, IsolationLogEnd)
			leo, hw := l.EndOffset(), l.HighWatermark()
			limit := l.active().base
			for i, s := range l.segments {
				if s.next > hw {
					limit = min(limit, l.segments[i].base)
					break
				}
			}
			all := stRecordsOf(t, before)
			want := stCompactOracle(all, limit)

			removed, err := l.Compact()
			if err != nil {
				t.Fatalf("seed %d: Compact: %v", tc.seed, err)
			}
			if removed != len(all)-len(want) {
				t.Errorf("seed %d: removed %d, want %d", tc.seed, removed, len(all)-len(want))
			}
			after := stReadAll(t, l, IsolationLogEnd)
			got := stRecordsOf(t, after)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("seed %d: records after compaction\n got %v\nwant %v", tc.seed, got, want)
			}
			if l.EndOffset() != leo {
				t.Errorf("LEO moved %d -> %d", leo, l.EndOffset())
			}
			// Surviving batches keep base offset and offset range; a batch
			// with no records covers exactly a run of batches that lost all
			// theirs; and the batches cover every offset once.
			stCheckCompactedShape(t, stHeaders(t, before), stHeaders(t, after), leo)
			// Nothing at or above the limit changed.
			if !bytes.HasSuffix(before, after[len(after)-stSuffixFrom(t, after, limit):]) {
				t.Error("bytes at or above the compaction limit changed")
			}
			if again, err := l.Compact(); err != nil || again != 0 {
				t.Errorf("second Compact = %d, %v; want 0, nil", again, err)
			}
			stClose(t, l)
			if _, err := os.Stat(stSeg(dir, 0, segmentSuffix) + cleanedSuffix); !os.IsNotExist(err) {
				t.Errorf(".cleaned file left: %v", err)
			}
			stCheckRecovered(t, dir, opts, 0, stSplit(t, after))
		})
	}
}

// stCheckCompactedShape checks the batches after compaction against those
// before: each is a batch from before with the same offset range, or an
// empty batch (no records) whose range is exactly the union of a run of
// consecutive batches from before; and together they cover [first base,
// leo) with no gap or overlap.
func stCheckCompactedShape(t *testing.T, before, after []BatchHeader, leo uint64) {
	t.Helper()
	ranges := map[uint64]uint64{}
	ends := map[uint64]bool{}
	for _, h := range before {
		ranges[h.BaseOffset] = h.LastOffset()
		ends[h.LastOffset()] = true
	}
	next := before[0].BaseOffset
	for _, h := range after {
		if h.BaseOffset != next {
			t.Errorf("batch %d-%d does not start where the one before ended (%d)", h.BaseOffset, h.LastOffset(), next)
		}
		last, ok := ranges[h.BaseOffset]
		switch {
		case ok && last == h.LastOffset():
		case h.RecordCount == 0 && ok && ends[h.LastOffset()]:
			// An empty batch over a run of emptied batches.
		default:
			t.Errorf("batch %d-%d (%d records) was not a batch, nor a run of batches, before", h.BaseOffset, h.LastOffset(), h.RecordCount)
		}
		next = h.NextOffset()
	}
	if next != leo {
		t.Errorf("batches end at %d, LEO is %d", next, leo)
	}
}

// stSuffixFrom returns how many bytes of buf belong to batches at or above
// offset limit.
func stSuffixFrom(t *testing.T, buf []byte, limit uint64) int {
	n := 0
	for _, b := range stSplit(t, buf) {
		if b.h.BaseOffset >= limit {
			n += len(b.bytes)
		}
	}
	return n
}

func TestCompactKeepsTombstonesAndNullKeysAndEmptiesBatches(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{SegmentBytes: 1})
	put := func(key, value string) {
		var k, v []byte
		if key != "" {
			k = []byte(key)
		}
		if value != "" {
			v = []byte(value)
		}
		recs := []Record{{Key: k, Value: v}}
		if _, err := l.AppendAsLeader(stBatchOf(t, 0, 0, recs), 1); err != nil {
			t.Fatal(err)
		}
	}
	put("a", "1")  // 0: superseded
	put("", "x")   // 1: null key, kept
	put("a", "")   // 2: tombstone, latest for a: kept
	put("b", "1")  // 3: superseded
	put("b", "2")  // 4: latest
	put("c", "ac") // 5: active segment, untouched
	removed, err := l.Compact()
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(stRecordsOf(t, stReadAll(t, l, IsolationLogEnd)))
	want := "[1:<nil>=x 2:a=<nil> 4:b=2 5:c=ac]"
	if removed != 2 || got != want {
		t.Errorf("Compact removed %d: %s; want 2: %s", removed, got, want)
	}
	// Reading from a compacted-away offset returns the empty batch that
	// now covers it: offsets never vanish.
	out, err := l.Read(nil, 0, 1000, IsolationLogEnd)
	if hs := stHeaders(t, out); err != nil || hs[0].BaseOffset != 0 || hs[0].RecordCount != 0 || hs[1].BaseOffset != 1 {
		t.Errorf("Read(0) = %v, %v; want an empty batch at 0, then offset 1", stOffsets(hs), err)
	}
	out, err = l.Read(nil, 3, 1, IsolationLogEnd)
	if hs := stHeaders(t, out); err != nil || len(hs) != 1 || hs[0].BaseOffset != 3 || hs[0].RecordCount != 0 {
		t.Errorf("Read(3) = %v, %v; want the empty batch at 3", stOffsets(hs), err)
	}
	// Segments 0 and 3 now hold one empty batch each: 61 bytes.
	for _, base := range []uint64{0, 3} {
		if data := stReadFile(t, stSeg(dir, base, segmentSuffix)); len(data) != BatchHeaderSize {
			t.Errorf("segment %d is %d bytes, want one empty batch", base, len(data))
		}
	}
	if n := len(stSegmentFiles(t, dir)); n != 6 {
		t.Errorf("%d segment files, want 6", n)
	}
}

func TestCompactRewritesBatchInPlaceOfOffsets(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 1})
	recs := []Record{
		{OffsetDelta: 0, Key: []byte("k"), Value: []byte("old")},
		{OffsetDelta: 1, Key: []byte("j"), Value: []byte("keep")},
		{OffsetDelta: 2, Key: []byte("k"), Value: []byte("old2")},
	}
	if _, err := l.AppendAsLeader(stBatchOf(t, 0, 5, recs), 3); err != nil {
		t.Fatal(err)
	}
	newer := []Record{{Key: []byte("k"), Value: []byte("new")}}
	if _, err := l.AppendAsLeader(stBatchOf(t, 0, 9, newer), 3); err != nil {
		t.Fatal(err)
	}
	stAppendLeader(t, l, 1, 1, 1, 1) // so the second batch's segment is closed
	if removed, err := l.Compact(); err != nil || removed != 2 {
		t.Fatalf("Compact = %d, %v; want 2", removed, err)
	}
	out, err := l.Read(nil, 0, 1, IsolationLogEnd)
	if err != nil {
		t.Fatal(err)
	}
	h := stHeaders(t, out)[0]
	if h.BaseOffset != 0 || h.LastOffset() != 2 || h.RecordCount != 1 || h.PartitionLeaderEpoch != 3 || h.BaseTimestamp != 5 {
		t.Errorf("rewritten header = %+v; want base 0, last 2, 1 record, epoch 3, ts 5", h)
	}
	if got := fmt.Sprint(stRecordsOf(t, out)); got != "[1:j=keep]" {
		t.Errorf("records = %s", got)
	}
}

// Tests: compaction against the rest of the storage (retention,
// truncation, a second compaction, reopen, crashes around its renames).

// rvPut appends one single-record batch with the given key and value ("" is
// null for either) as the leader.
func rvPut(t *testing.T, l *Log, key, value string) uint64 {
	t.Helper()
	var k, v []byte
	if key != "" {
		k = []byte(key)
	}
	if value != "" {
		v = []byte(value)
	}
	base, err := l.AppendAsLeader(stBatchOf(t, 0, 1, []Record{{Key: k, Value: v}}), 1)
	if err != nil {
		t.Fatalf("AppendAsLeader(%q=%q): %v", key, value, err)
	}
	return base.FirstOffset
}

// rvRecords reads the whole log (LogEnd isolation) as "offset:key=value".
func rvRecords(t *testing.T, l *Log) string {
	t.Helper()
	return fmt.Sprint(stRecordsOf(t, stReadAll(t, l, IsolationLogEnd)))
}

// rvReadEveryOffset reads each offset in [StartOffset, EndOffset) on its
// own and records which record (if any) a reader finds at exactly that
// offset: the check that offsets never move.
func rvReadEveryOffset(t *testing.T, l *Log) map[uint64]string {
	t.Helper()
	m := map[uint64]string{}
	for off := l.StartOffset(); off < l.EndOffset(); off++ {
		out, err := l.Read(nil, off, 1, IsolationLogEnd)
		if err != nil {
			t.Fatalf("Read(%d): %v", off, err)
		}
		for _, r := range stRecordsOf(t, out) {
			if r.Offset == off {
				m[off] = r.Key + "=" + r.Value
			}
		}
	}
	return m
}

// TestCompactedSegmentCanBeDeletedByRetention compacts a segment and
// then lets retention delete it. The compacted file was renamed into place
// from "<name>.log.cleaned"; the segment must still be deleted by its real
// name, or retention fails and the file comes back at the next Open.
func TestCompactedSegmentCanBeDeletedByRetention(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentBytes: 1} // one batch per segment
	l := stOpen(t, dir, opts)
	rvPut(t, l, "a", "1")
	rvPut(t, l, "b", "1")
	rvPut(t, l, "a", "2") // supersedes offset 0
	rvPut(t, l, "c", "1") // active
	if n, err := l.Compact(); err != nil || n != 1 {
		t.Fatalf("Compact = %d, %v; want 1, nil", n, err)
	}
	n, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionMs: 1}, 1<<40)
	if err != nil || n != 3 {
		t.Fatalf("DeleteRetainedSegments = %d, %v; want 3, nil", n, err)
	}
	if l.StartOffset() != 3 {
		t.Fatalf("StartOffset = %d, want 3", l.StartOffset())
	}
	stClose(t, l)
	if files := stSegmentFiles(t, dir); !slices.Equal(files, []string{segmentName(3, segmentSuffix)}) {
		t.Errorf("segment files after retention: %v; want only the active one", files)
	}
	if idx, _ := filepath.Glob(filepath.Join(dir, "*"+indexSuffix)); len(idx) != 1 {
		t.Errorf("index files after retention: %v; want only the active one's", idx)
	}
	l = stOpen(t, dir, opts)
	if l.StartOffset() != 3 || rvRecords(t, l) != "[3:c=1]" {
		t.Errorf("after reopen: start %d, records %s; want 3, [3:c=1]", l.StartOffset(), rvRecords(t, l))
	}
}

// TestTruncateAcrossCompactedSegment truncates below a compacted
// segment, which deletes it: by its real file name, so that neither the
// truncation fails nor the divergent records come back at the next Open.
func TestTruncateAcrossCompactedSegment(t *testing.T) {
	dir := t.TempDir()
	one := len(stBatchOf(t, 0, 1, []Record{{Key: []byte("x"), Value: []byte("1")}}))
	opts := Options{SegmentBytes: int64(2 * one)} // two batches per segment
	l := stOpen(t, dir, opts)
	for _, kv := range [][2]string{{"x", "1"}, {"y", "1"}, {"b", "1"}, {"z", "1"}, {"b", "2"}, {"w", "1"}, {"c", "1"}} {
		rvPut(t, l, kv[0], kv[1])
	}
	if len(l.segments) != 4 {
		t.Fatalf("%d segments, want 4", len(l.segments))
	}
	if n, err := l.Compact(); err != nil || n != 1 { // rewrites segment 2
		t.Fatalf("Compact = %d, %v; want 1, nil", n, err)
	}
	if err := l.TruncateTo(1); err != nil {
		t.Fatalf("TruncateTo(1): %v", err)
	}
	if l.EndOffset() != 1 || rvRecords(t, l) != "[0:x=1]" {
		t.Fatalf("after TruncateTo(1): LEO %d, %s", l.EndOffset(), rvRecords(t, l))
	}
	stClose(t, l)
	l = stOpen(t, dir, opts)
	if l.EndOffset() != 1 || rvRecords(t, l) != "[0:x=1]" {
		t.Errorf("after reopen: LEO %d, %s; want 1, [0:x=1]", l.EndOffset(), rvRecords(t, l))
	}
}

// TestCompactTwiceIsDurable compacts the same segment twice (newer
// values arrive in between) and checks that what the log serves is what is
// on disk: after a reopen the records are the same, offsets included.
func TestCompactTwiceIsDurable(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentBytes: 150, IndexIntervalBytes: 1}
	l := stOpen(t, dir, opts)
	// Segment 0: a, b, a (one batch of three records).
	recs := []Record{
		{OffsetDelta: 0, Key: []byte("a"), Value: []byte("1")},
		{OffsetDelta: 1, Key: []byte("b"), Value: []byte("1")},
		{OffsetDelta: 2, Key: []byte("a"), Value: []byte("2")},
	}
	if _, err := l.AppendAsLeader(stBatchOf(t, 0, 1, recs), 1); err != nil {
		t.Fatal(err)
	}
	rvPut(t, l, "x", "1") // rolls: segment 0 is closed
	if n, err := l.Compact(); err != nil || n != 1 {
		t.Fatalf("first Compact = %d, %v; want 1, nil", n, err)
	}
	rvPut(t, l, "b", "2") // supersedes offset 1 in the compacted segment
	rvPut(t, l, "y", "1")
	if n, err := l.Compact(); err != nil || n != 1 {
		t.Fatalf("second Compact = %d, %v; want 1, nil", n, err)
	}
	want := rvRecords(t, l)
	wantOffsets := rvReadEveryOffset(t, l)
	if want != "[2:a=2 3:x=1 4:b=2 5:y=1]" {
		t.Fatalf("records after two compactions: %s", want)
	}
	stClose(t, l)
	if m, _ := filepath.Glob(filepath.Join(dir, "*"+cleanedSuffix+"*")); len(m) != 0 {
		t.Errorf("leftover files after Close: %v", m)
	}
	l = stOpen(t, dir, opts)
	if got := rvRecords(t, l); got != want {
		t.Errorf("after reopen: %s; want %s", got, want)
	}
	if got := rvReadEveryOffset(t, l); fmt.Sprint(got) != fmt.Sprint(wantOffsets) {
		t.Errorf("offsets after reopen: %v; want %v", got, wantOffsets)
	}
}

// TestCompactionOffsetsNeverMove compacts a random keyed log and reads
// every offset back, before, after, after a second (idempotent) compaction,
// after more appends and after a reopen: a record is either where it was or
// gone, and everything not superseded is still there.
func TestCompactionOffsetsNeverMove(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		dir := t.TempDir()
		opts := Options{SegmentBytes: 700, IndexIntervalBytes: 100}
		l := stKeyedLog(t, dir, opts, seed, 30)
		before := rvReadEveryOffset(t, l)
		all := stRecordsOf(t, stReadAll(t, l, IsolationLogEnd))
		want := stCompactOracle(all, l.active().base)
		if _, err := l.Compact(); err != nil {
			t.Fatalf("seed %d: Compact: %v", seed, err)
		}
		after := rvReadEveryOffset(t, l)
		for off, rec := range after {
			if before[off] != rec {
				t.Errorf("seed %d: offset %d holds %q, held %q", seed, off, rec, before[off])
			}
		}
		if got := stRecordsOf(t, stReadAll(t, l, IsolationLogEnd)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("seed %d: after compaction\n got %v\nwant %v", seed, got, want)
		}
		// Tombstones that are the latest for their key survive.
		for _, r := range want {
			if r.Value == "<nil>" && after[r.Offset] != r.Key+"=<nil>" {
				t.Errorf("seed %d: tombstone %v lost", seed, r)
			}
		}
		if n, err := l.Compact(); err != nil || n != 0 {
			t.Errorf("seed %d: second Compact = %d, %v; want 0, nil", seed, n, err)
		}
		// Compaction, then appends, then compaction again, then reopen.
		for i := range 12 {
			rvPut(t, l, fmt.Sprintf("k%d", i%6), fmt.Sprintf("late%d", i))
		}
		if _, err := l.Compact(); err != nil {
			t.Fatalf("seed %d: third Compact: %v", seed, err)
		}
		served := rvReadEveryOffset(t, l)
		leo, start := l.EndOffset(), l.StartOffset()
		stClose(t, l)
		l = stOpen(t, dir, opts)
		if l.EndOffset() != leo || l.StartOffset() != start {
			t.Errorf("seed %d: reopen moved start/LEO %d/%d -> %d/%d", seed, start, leo, l.StartOffset(), l.EndOffset())
		}
		if got := rvReadEveryOffset(t, l); fmt.Sprint(got) != fmt.Sprint(served) {
			t.Errorf("seed %d: reopen changed the records:\n got %v\nwant %v", seed, got, served)
		}
		stClose(t, l)
	}
}

// TestCompactCrashBeforeAndAfterRename builds the two directories a
// crash inside compactSegment can leave and checks Open: before the log
// rename the original stands (and the .cleaned copies go); after it, but
// before the index rename, the compacted segment stands with a rebuilt
// index.
func TestCompactCrashBeforeAndAfterRename(t *testing.T) {
	src := t.TempDir()
	opts := Options{SegmentBytes: 400, IndexIntervalBytes: 64}
	l := stKeyedLog(t, src, opts, 7, 20)
	l.StopEagerHighWatermark()
	stClose(t, l)
	original := stDirSnapshot(t, src)

	l = stOpen(t, src, opts)
	beforeRecs := stRecordsOf(t, stReadAll(t, l, IsolationLogEnd))
	if n, err := l.Compact(); err != nil || n == 0 {
		t.Fatalf("Compact = %d, %v", n, err)
	}
	afterRecs := stRecordsOf(t, stReadAll(t, l, IsolationLogEnd))
	stClose(t, l)
	compacted := stDirSnapshot(t, src)

	var changed []string
	for name, data := range compacted {
		if strings.HasSuffix(name, segmentSuffix) && original[name] != data {
			changed = append(changed, name)
		}
	}
	if len(changed) == 0 {
		t.Fatal("compaction changed no segment")
	}
	slices.Sort(changed)
	seg := changed[0]
	idx := strings.TrimSuffix(seg, segmentSuffix) + indexSuffix

	restore := func(dir string, files map[string]string) {
		for name, data := range files {
			if name == cleanShutdownFileName {
				continue // a crash mid-compaction leaves no clean-shutdown marker
			}
			stWriteFile(t, filepath.Join(dir, name), []byte(data))
		}
	}

	t.Run("before the log rename", func(t *testing.T) {
		dir := t.TempDir()
		restore(dir, original)
		stWriteFile(t, filepath.Join(dir, seg+cleanedSuffix), []byte(compacted[seg]))
		stWriteFile(t, filepath.Join(dir, idx+cleanedSuffix), []byte(compacted[idx]))
		l := stOpen(t, dir, opts)
		if got := stRecordsOf(t, stReadAll(t, l, IsolationLogEnd)); fmt.Sprint(got) != fmt.Sprint(beforeRecs) {
			t.Errorf("records = %s\nwant the original %s", got, beforeRecs)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "*"+cleanedSuffix)); len(m) != 0 {
			t.Errorf("leftovers not deleted: %v", m)
		}
	})
	t.Run("after the log rename, before the index rename", func(t *testing.T) {
		dir := t.TempDir()
		restore(dir, original)
		stWriteFile(t, filepath.Join(dir, seg), []byte(compacted[seg]))
		stWriteFile(t, filepath.Join(dir, idx+cleanedSuffix), []byte(compacted[idx]))
		l := stOpen(t, dir, opts)
		// Only one segment is compacted: the records are between the
		// compacted and the original log.
		got := stRecordsOf(t, stReadAll(t, l, IsolationLogEnd))
		if !rvSubset(got, beforeRecs) || !rvSubset(afterRecs, got) {
			t.Errorf("records = %v\nnot between %v\nand %v", got, afterRecs, beforeRecs)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "*"+cleanedSuffix)); len(m) != 0 {
			t.Errorf("leftovers not deleted: %v", m)
		}
		if got := stReadFile(t, filepath.Join(dir, idx)); !bytes.Equal(got, []byte(compacted[idx])) {
			t.Errorf("stale index of %s not rebuilt", seg)
		}
		for off := l.StartOffset(); off < l.EndOffset(); off++ {
			if _, err := l.Read(nil, off, 1, IsolationLogEnd); err != nil {
				t.Fatalf("Read(%d): %v", off, err)
			}
		}
	})
}

// rvSubset reports whether every record of sub is in super.
func rvSubset(sub, super []stKeyedRecord) bool {
	in := map[stKeyedRecord]bool{}
	for _, r := range super {
		in[r] = true
	}
	for _, r := range sub {
		if !in[r] {
			return false
		}
	}
	return true
}

// TestReadsRaceCompaction runs readers against a writer that appends
// keyed records, raises the HW, compacts and deletes old segments. A read
// may now skip compacted-away offsets, but must still be whole verified
// batches in strictly increasing, non-overlapping offset order, the first
// one ending at or after from. Run with -race.
func TestReadsRaceCompaction(t *testing.T) {
	const seed = 11
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 600, IndexIntervalBytes: 80})
	l.StopEagerHighWatermark()
	rng := rand.New(rand.NewPCG(seed, 0))
	inputs := make([][]byte, 90)
	for i := range inputs {
		recs := make([]Record, 1+rng.IntN(4))
		for j := range recs {
			recs[j] = Record{OffsetDelta: int32(j), Key: fmt.Appendf(nil, "k%d", rng.IntN(5)), Value: fmt.Appendf(nil, "v%d", i)}
		}
		inputs[i] = stBatchOf(t, 0, int64(i), recs)
	}
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer done.Store(true)
		for i, in := range inputs {
			if _, err := l.AppendAsLeader(in, 1); err != nil {
				t.Errorf("seed %d: append %d: %v", seed, i, err)
				return
			}
			if err := l.SetHighWatermark(l.EndOffset()); err != nil {
				t.Errorf("seed %d: SetHighWatermark: %v", seed, err)
				return
			}
			if i%30 == 29 {
				if _, err := l.Compact(); err != nil {
					t.Errorf("seed %d: Compact: %v", seed, err)
					return
				}
			}
			if i%40 == 39 {
				if _, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 3000}, 0); err != nil {
					t.Errorf("seed %d: retention: %v", seed, err)
					return
				}
			}
		}
	}()
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rrng := rand.New(rand.NewPCG(seed, uint64(10+r)))
			dst := make([]byte, 0, 8<<10)
			for !done.Load() || rrng.IntN(4) != 0 {
				from := l.StartOffset() + rrng.Uint64N(l.EndOffset()-l.StartOffset()+1)
				out, err := l.Read(dst[:0], from, rrng.IntN(4<<10), Isolation(rrng.IntN(2)))
				if errors.Is(err, ErrOffsetOutOfRange) {
					continue
				}
				if err != nil {
					t.Errorf("seed %d reader %d: Read(%d): %v", seed, r, from, err)
					return
				}
				var next uint64
				for i := 0; len(out) > 0; i++ {
					h, err := VerifyBatch(out)
					if err != nil {
						t.Errorf("seed %d reader %d: Read(%d) batch %d: %v", seed, r, from, i, err)
						return
					}
					if (i == 0 && h.LastOffset() < from) || (i > 0 && h.BaseOffset < next) {
						t.Errorf("seed %d reader %d: Read(%d) batch %d is %d-%d after offset %d", seed, r, from, i, h.BaseOffset, h.LastOffset(), next)
						return
					}
					if _, _, err := DecodeBatch(out); err != nil {
						t.Errorf("seed %d reader %d: Read(%d) batch %d does not decode: %v", seed, r, from, i, err)
						return
					}
					next = h.NextOffset()
					out = out[h.Size():]
				}
			}
		}()
	}
	wg.Wait()
}

// TestFollowerReplicatesCompactedLeader: a follower catches up on a
// compacted leader. Compaction leaves an empty batch where a batch's
// records all vanished, so the leader's log has no gap, and the follower
// copies it byte for byte (issue 7, point 8; this test was skipped as a
// known issue before).
func TestFollowerReplicatesCompactedLeader(t *testing.T) {
	leader := stOpen(t, t.TempDir(), Options{SegmentBytes: 1})
	rvPut(t, leader, "a", "1")
	rvPut(t, leader, "a", "2") // offset 0's batch vanishes
	rvPut(t, leader, "b", "1")
	if n, err := leader.Compact(); err != nil || n != 1 {
		t.Fatalf("Compact = %d, %v", n, err)
	}
	follower := stOpen(t, t.TempDir(), Options{})
	follower.StopEagerHighWatermark()
	for range 3 {
		fetched, err := leader.Read(nil, follower.EndOffset(), 1<<20, IsolationLogEnd)
		if err != nil {
			t.Fatal(err)
		}
		if len(fetched) == 0 {
			break
		}
		if _, err := follower.AppendAsFollower(fetched); err != nil {
			t.Fatalf("follower at %d cannot append the leader's fetch %v: %v",
				follower.EndOffset(), stOffsets(stHeaders(t, fetched)), err)
		}
	}
	if follower.EndOffset() != leader.EndOffset() {
		t.Errorf("follower LEO %d, leader %d", follower.EndOffset(), leader.EndOffset())
	}
	if !bytes.Equal(stReadAll(t, follower, IsolationLogEnd), stReadAll(t, leader, IsolationLogEnd)) {
		t.Error("the follower's log differs from the compacted leader's")
	}
}

// TestCompactionWritesOneEmptyBatchPerRun: a run of consecutive batches
// whose records all vanish becomes one empty batch: 61 bytes, no records,
// the run's offsets, the epoch of its last batch, the run's timestamps,
// producer fields -1, attributes 0, a valid CRC.
func TestCompactionWritesOneEmptyBatchPerRun(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 400})
	put := func(epoch int32, ts int64, kv ...string) {
		var recs []Record
		for i := 0; i < len(kv); i += 2 {
			recs = append(recs, Record{OffsetDelta: int32(i / 2), Key: []byte(kv[i]), Value: []byte(kv[i+1])})
		}
		if err := l.AssignEpoch(epoch); err != nil {
			t.Fatal(err)
		}
		if _, err := l.AppendAsLeader(stBatchOf(t, 0, ts, recs), epoch); err != nil {
			t.Fatal(err)
		}
	}
	put(1, 100, "a", "1", "b", "1") // 0-1: both superseded
	put(2, 200, "a", "2")           // 2: superseded
	put(2, 50, "c", "1", "b", "2")  // 3-4: c superseded, b kept
	put(3, 300, "a", "3", "c", "2") // 5-6: kept
	if len(l.segments) != 1 {
		t.Fatalf("%d segments, want the four batches in one", len(l.segments))
	}
	stAppendLeader(t, l, 1, 10, 40, 1) // rolls: the first segment is closed
	if n, err := l.Compact(); err != nil || n != 4 {
		t.Fatalf("Compact = %d, %v; want 4 records removed", n, err)
	}
	out, err := l.Read(nil, 0, 1<<20, IsolationLogEnd)
	if err != nil {
		t.Fatal(err)
	}
	hs := stHeaders(t, out)
	if got := fmt.Sprint(stOffsets(hs)); got != "[0-2 3-4 5-6 7-16]" {
		t.Fatalf("batches after compaction %s, want [0-2 3-4 5-6 7-16]", got)
	}
	e := hs[0]
	want := BatchHeader{BaseOffset: 0, BatchLength: BatchHeaderSize - BatchLogOverhead, PartitionLeaderEpoch: 2, Magic: Magic,
		CRC: e.CRC, LastOffsetDelta: 2, BaseTimestamp: 100, MaxTimestamp: 200, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}
	if e != want {
		t.Errorf("empty batch header\n got %+v\nwant %+v", e, want)
	}
	if _, err := VerifyBatch(out[:e.Size()]); err != nil {
		t.Errorf("empty batch: %v", err)
	}
}

// Compaction swaps a rolled segment's file for a synced one: nothing is
// left for an fsync through the old descriptor, so the segment no longer
// counts among the rolled segments that keep their files open for one
// (Options.MaxOpenSegments).
func TestCompactionUnpinsRolledSegments(t *testing.T) {
	l := stKeyedLog(t, t.TempDir(), Options{SegmentBytes: 900, IndexIntervalBytes: 128}, 1, 40)
	if l.writerPinned == 0 {
		t.Fatal("no rolled segment waits for an fsync: the test shows nothing")
	}
	if _, err := l.Compact(); err != nil {
		t.Fatal(err)
	}
	for _, s := range l.segments[:len(l.segments)-1] {
		if s.writerPin && !s.unsynced {
			t.Errorf("segment %d: synced by compaction, still pinned for an fsync", s.base)
		}
	}
	stClose(t, l)
}
