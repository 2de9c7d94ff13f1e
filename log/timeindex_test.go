package log

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// stTimeRecord is one record of a log as the lookups by time see it.
type stTimeRecord struct {
	off uint64
	ts  int64
}

// stTimeRecords decodes every record of buf (whole batches) from start on.
func stTimeRecords(t testing.TB, buf []byte, start uint64) []stTimeRecord {
	t.Helper()
	bs, err := DecodeBatches(buf)
	if err != nil {
		t.Fatal(err)
	}
	var out []stTimeRecord
	for _, b := range bs {
		for _, r := range b.Records {
			if off := b.BaseOffset + uint64(r.OffsetDelta); off >= start {
				out = append(out, stTimeRecord{off, b.BaseTimestamp + r.TimestampDelta})
			}
		}
	}
	return out
}

// stLookupOracle is ListOffsets by timestamp, by brute force: the first
// record in offset order whose timestamp is at least ts.
func stLookupOracle(recs []stTimeRecord, ts int64) (stTimeRecord, bool) {
	for _, r := range recs {
		if r.ts >= ts {
			return r, true
		}
	}
	return stTimeRecord{}, false
}

// stMaxOracle is ListOffsets -3 by brute force: the first record with the
// largest timestamp.
func stMaxOracle(recs []stTimeRecord) (stTimeRecord, bool) {
	var best stTimeRecord
	found := false
	for _, r := range recs {
		if !found || r.ts > best.ts {
			best, found = r, true
		}
	}
	return best, found
}

// stCheckLookups compares both lookups with the oracles for timestamps
// around every record's.
func stCheckLookups(t *testing.T, l *Log, what string) {
	t.Helper()
	recs := stTimeRecords(t, stReadAll(t, l, IsolationLogEnd), l.StartOffset())
	probes := []int64{-5, -1, 0, 1 << 62}
	for _, r := range recs {
		probes = append(probes, r.ts-1, r.ts, r.ts+1)
	}
	for _, ts := range probes {
		got, found, err := l.OffsetForTimestamp(ts)
		want, wantFound := stLookupOracle(recs, ts)
		if err != nil || found != wantFound || (found && (got.Offset != want.off || got.Timestamp != want.ts)) {
			t.Fatalf("%s: OffsetForTimestamp(%d) = %+v, %v, %v; want offset %d timestamp %d, %v",
				what, ts, got, found, err, want.off, want.ts, wantFound)
		}
	}
	got, found, err := l.OffsetOfMaxTimestamp()
	want, wantFound := stMaxOracle(recs)
	if err != nil || found != wantFound || (found && (got.Offset != want.off || got.Timestamp != want.ts)) {
		t.Fatalf("%s: OffsetOfMaxTimestamp() = %+v, %v, %v; want offset %d timestamp %d, %v",
			what, got, found, err, want.off, want.ts, wantFound)
	}
}

// stTimeLog appends batches whose timestamps wander up and down (as
// producers' clocks do), some records of a batch older than its first,
// with keys for compaction.
func stTimeLog(t *testing.T, l *Log, rng *rand.Rand, batches int) {
	t.Helper()
	base := int64(1_700_000_000_000)
	for range batches {
		base += int64(rng.IntN(2000)) - 700
		recs := make([]Record, 1+rng.IntN(6))
		for j := range recs {
			recs[j] = Record{OffsetDelta: int32(j), TimestampDelta: int64(rng.IntN(900)) - 300,
				Key: fmt.Appendf(nil, "k%d", rng.IntN(8)), Value: bytes.Repeat([]byte{'v'}, rng.IntN(80))}
		}
		if _, err := l.AppendAsLeader(stBatchOf(t, 0, base, recs), 3); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLookupsByTimeAreKafkasThroughEveryChange: OffsetForTimestamp finds
// the first record whose timestamp is at least the one asked for, and
// OffsetOfMaxTimestamp the first record with the largest timestamp, in a
// log of many segments with wandering timestamps, after a clean restart,
// after a crash (the time index rebuilt), and after truncation,
// compaction and retention.
func TestLookupsByTimeAreKafkasThroughEveryChange(t *testing.T) {
	const seed = 17
	rng := rand.New(rand.NewPCG(seed, 3))
	dir := t.TempDir()
	opts := Options{SegmentBytes: 2000, IndexIntervalBytes: 150}
	l := stOpen(t, dir, opts)
	t.Logf("seed %d", seed)
	stTimeLog(t, l, rng, 120)
	if len(l.segments) < 5 {
		t.Fatalf("only %d segments", len(l.segments))
	}
	stCheckLookups(t, l, "as appended")

	stClose(t, l)
	l = stOpen(t, dir, opts)
	if !l.Recovery().Clean {
		t.Fatalf("not clean: %s", l.Recovery().MarkerIgnored)
	}
	stTimeLog(t, l, rng, 10) // appends continue the active segment's time index
	stCheckLookups(t, l, "after a clean restart")

	stClose(t, l)
	stUnflush(t, dir)
	lost, _ := filepath.Glob(filepath.Join(dir, "*"+timeIndexSuffix))
	for _, p := range lost { // every time index lost
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	l = stOpen(t, dir, opts)
	if r := l.Recovery(); r.Clean || len(r.IndexesRebuilt) == 0 {
		t.Fatalf("recovery: clean %v, rebuilt %v", r.Clean, r.IndexesRebuilt)
	}
	stCheckLookups(t, l, "after a crash")

	leo := l.EndOffset()
	for _, cut := range []uint64{leo - 3, leo * 3 / 4, l.segments[len(l.segments)-2].base + 1} {
		if err := l.TruncateTo(cut); err != nil {
			t.Fatal(err)
		}
		stCheckLookups(t, l, fmt.Sprintf("after TruncateTo(%d)", cut))
	}
	stTimeLog(t, l, rng, 30)
	stCheckLookups(t, l, "after appends over the truncation")

	if n, err := l.Compact(); err != nil || n == 0 {
		t.Fatalf("Compact = %d, %v", n, err)
	}
	stCheckLookups(t, l, "after compaction")

	if err := l.SetHighWatermark(l.EndOffset()); err != nil {
		t.Fatal(err)
	}
	if n, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1500}, 0); err != nil || n == 0 {
		t.Fatalf("retention = %d, %v", n, err)
	}
	if err := l.IncrementStartOffset(l.StartOffset() + 2); err != nil {
		t.Fatal(err)
	}
	stCheckLookups(t, l, "after retention and a log start inside a segment")

	// Every file is what a rebuild from the batches gives.
	stClose(t, l)
	stUnflush(t, dir)
	l = stOpen(t, dir, opts)
	if r := l.Recovery(); len(r.IndexesRebuilt) > 0 {
		t.Fatalf("time indexes were not what the batches give: rebuilt %v", r.IndexesRebuilt)
	}
	stCheckLookups(t, l, "after the last restart")
}

// stTimeIndexFor is the time index of the batches of a segment starting
// at base, computed from Kafka's rule independently of the log's code.
func stTimeIndexFor(base uint64, batches []stStored, interval int) []byte {
	var out []byte
	pos, last := 0, 0
	maxTs, maxOff, entryTs := int64(-1), uint64(0), int64(-1)
	for _, b := range batches {
		if b.h.RecordCount > 0 && b.h.MaxTimestamp > maxTs {
			maxTs, maxOff = b.h.MaxTimestamp, uint64(b.h.LastOffset())
		}
		if pos-last >= interval {
			last = pos
			if maxTs > entryTs {
				out = binary.BigEndian.AppendUint64(out, uint64(maxTs))
				out = binary.BigEndian.AppendUint32(out, uint32(maxOff-base))
				entryTs = maxTs
			}
		}
		pos += len(b.bytes)
	}
	return out
}

// TestTheTimeIndexFileIsKafkas: 12-byte entries, a timestamp and an offset
// relative to the segment base, added where the offset index gets one and
// only when the segment's largest timestamp grew; a Flush writes them.
func TestTheTimeIndexFileIsKafkas(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{IndexIntervalBytes: 1})
	for _, ts := range []int64{100, 50, 300, 300, 200, 400} {
		stAppendLeader(t, l, 1, 2, 10, ts)
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	got := stReadFile(t, stSeg(dir, 0, timeIndexSuffix))
	// Batches 1-5 get offset index entries (interval 1); the maximum after
	// each is 101, 301, 301, 301, 401 (two records, ts and ts+1), held by
	// the last offsets 1, 5, 5, 5, 11.
	var want []byte
	for _, e := range []struct {
		ts  int64
		rel uint32
	}{{101, 1}, {301, 5}, {401, 11}} {
		want = binary.BigEndian.AppendUint64(want, uint64(e.ts))
		want = binary.BigEndian.AppendUint32(want, e.rel)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("time index %x, want %x", got, want)
	}
	if ours := stTimeIndexFor(0, stSplit(t, stReadAll(t, l, IsolationLogEnd)), 1); !bytes.Equal(ours, want) {
		t.Fatalf("the test's own rule gives %x, want %x", ours, want)
	}
}

// TestADamagedTimeIndexIsRebuiltNeverTrusted damages the time index of a
// log in the ways a crash or a bad disk can, before a crash recovery and
// before a clean Open: the rebuilt file is what the batches give and the
// lookups are right.
func TestADamagedTimeIndexIsRebuiltNeverTrusted(t *testing.T) {
	opts := Options{IndexIntervalBytes: 100}
	src := t.TempDir()
	l := stOpen(t, src, opts)
	stTimeLog(t, l, rand.New(rand.NewPCG(5, 5)), 40)
	stClose(t, l)
	good := stReadFile(t, stSeg(src, 0, timeIndexSuffix))
	if len(good) < 3*timeEntrySize {
		t.Fatalf("time index of %d bytes", len(good))
	}
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"torn mid-entry", func(b []byte) []byte { return b[:len(b)-5] }},
		{"last entry lost", func(b []byte) []byte { return b[:len(b)-timeEntrySize] }},
		{"empty", func([]byte) []byte { return nil }},
		{"garbage", func([]byte) []byte { return bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 9) }},
		{"timestamps going back", func(b []byte) []byte { copy(b[timeEntrySize:], b[:8]); return b }},
		{"an offset past the segment", func(b []byte) []byte { b[len(b)-1] = 0xff; b[len(b)-2] = 0xff; return b }},
		{"a timestamp too large", func(b []byte) []byte { b[len(b)-timeEntrySize] = 0x7f; return b }},
		{"an entry too many", func(b []byte) []byte {
			return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(b, 1<<62), 0)
		}},
		{"zeros appended", func(b []byte) []byte { return append(b, make([]byte, 4096)...) }},
		{"missing", nil},
	} {
		for _, clean := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, clean %v", tc.name, clean), func(t *testing.T) {
				dir := t.TempDir()
				stCopyDir(t, src, dir)
				if !clean {
					stUnflush(t, dir)
				}
				path := stSeg(dir, 0, timeIndexSuffix)
				if tc.damage == nil {
					if err := os.Remove(path); err != nil {
						t.Fatal(err)
					}
				} else {
					stWriteFile(t, path, tc.damage(bytes.Clone(good)))
				}
				l := stOpen(t, dir, opts)
				if r := l.Recovery(); clean && r.Clean {
					// Only a plausible file is continued, and a lookup
					// verifies the segment first.
					if tc.damage == nil {
						t.Fatal("a missing time index was taken as empty")
					}
				}
				stCheckLookups(t, l, tc.name)
				if err := l.Flush(); err != nil {
					t.Fatal(err)
				}
				if got := stReadFile(t, path); !bytes.Equal(got, good) {
					t.Fatalf("time index %x after the lookups, want %x", got, good)
				}
			})
		}
	}
}

// FuzzTimeIndex decodes arbitrary bytes as a time index: never a panic,
// nothing allocated beyond the bound, and whatever decodes is canonical
// (re-encodes to the same bytes) and keeps the invariants lookups rely
// on. Then it stores them as the active segment's time index before a
// clean Open: appends and lookups must still be right.
func FuzzTimeIndex(f *testing.F) {
	src := f.TempDir()
	opts := Options{IndexIntervalBytes: 100}
	l, err := Open(src, opts)
	if err != nil {
		f.Fatal(err)
	}
	base := int64(1_000)
	for i := range 30 {
		b := stBatch(f, 0, 1+i%4, 40, base+int64(i*37%11)*10)
		if _, err := l.AppendAsLeader(b, 1); err != nil {
			f.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(stSeg(src, 0, timeIndexSuffix))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte{})
	f.Add(good[:len(good)-1])
	f.Add(bytes.Repeat([]byte{0xff}, 24))
	f.Fuzz(func(t *testing.T, data []byte) {
		const next = 100
		if entries, err := decodeTimeIndex(data, 0, next, 8); err == nil {
			if len(entries) > 8 {
				t.Fatalf("%d entries beyond the bound", len(entries))
			}
			if !bytes.Equal(appendTimeEntries(nil, entries), data) {
				t.Fatalf("not canonical: %x", data)
			}
			for i, e := range entries {
				if e.ts <= noTimestamp || uint64(e.rel) >= next || (i > 0 && (e.ts <= entries[i-1].ts || e.rel < entries[i-1].rel)) {
					t.Fatalf("entry %d = %+v breaks the invariants", i, e)
				}
			}
		}
		dir := t.TempDir()
		stCopyDir(t, src, dir)
		stWriteFile(t, stSeg(dir, 0, timeIndexSuffix), data)
		l := stOpen(t, dir, opts)
		stAppendLeader(t, l, 3, 2, 30, 1_050)
		stCheckLookups(t, l, "fuzzed time index")
	})
}
