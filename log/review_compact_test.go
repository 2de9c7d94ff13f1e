package log

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Review tests: compaction against the rest of the storage (retention,
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
	return base
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

// TestReviewCompactedSegmentCanBeDeletedByRetention compacts a segment and
// then lets retention delete it. The compacted file was renamed into place
// from "<name>.log.cleaned"; the segment must still be deleted by its real
// name, or retention fails and the file comes back at the next Open.
func TestReviewCompactedSegmentCanBeDeletedByRetention(t *testing.T) {
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

// TestReviewTruncateAcrossCompactedSegment truncates below a compacted
// segment, which deletes it: by its real file name, so that neither the
// truncation fails nor the divergent records come back at the next Open.
func TestReviewTruncateAcrossCompactedSegment(t *testing.T) {
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

// TestReviewCompactTwiceIsDurable compacts the same segment twice (newer
// values arrive in between) and checks that what the log serves is what is
// on disk: after a reopen the records are the same, offsets included.
func TestReviewCompactTwiceIsDurable(t *testing.T) {
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

// TestReviewCompactionOffsetsNeverMove compacts a random keyed log and reads
// every offset back, before, after, after a second (idempotent) compaction,
// after more appends and after a reopen: a record is either where it was or
// gone, and everything not superseded is still there.
func TestReviewCompactionOffsetsNeverMove(t *testing.T) {
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

// TestReviewCompactCrashBeforeAndAfterRename builds the two directories a
// crash inside compactSegment can leave and checks Open: before the log
// rename the original stands (and the .cleaned copies go); after it, but
// before the index rename, the compacted segment stands with a rebuilt
// index.
func TestReviewCompactCrashBeforeAndAfterRename(t *testing.T) {
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

// TestReviewReadsRaceCompaction runs readers against a writer that appends
// keyed records, raises the HW, compacts and deletes old segments. A read
// may now skip compacted-away offsets, but must still be whole verified
// batches in strictly increasing, non-overlapping offset order, the first
// one ending at or after from. Run with -race.
func TestReviewReadsRaceCompaction(t *testing.T) {
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

// TestReviewFollowerReplicatesCompactedLeader is a KNOWN ISSUE left for the
// lead to decide (it needs a change of documented behavior and of an
// existing assertion, TestAppendAsFollower's "skip" case). When compaction
// removes a whole batch, Read returns the next batch after the gap, and
// AppendAsFollower rejects it with ErrNotAtLogEnd; truncating (what that
// error tells a follower to do) does not help, so a follower catching up
// on a compacted leader is stuck forever. Kafka's follower append only
// rejects a first offset below its LEO (UnifiedLog's
// UnexpectedAppendOffsetException) and accepts gaps, for this reason.
func TestReviewFollowerReplicatesCompactedLeader(t *testing.T) {
	t.Skip("known issue: AppendAsFollower rejects the gaps compaction leaves; see the comment")
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
		if err := follower.AppendAsFollower(fetched); err != nil {
			t.Fatalf("follower at %d cannot append the leader's fetch %v: %v",
				follower.EndOffset(), stOffsets(stHeaders(t, fetched)), err)
		}
	}
	if follower.EndOffset() != leader.EndOffset() {
		t.Errorf("follower LEO %d, leader %d", follower.EndOffset(), leader.EndOffset())
	}
}
