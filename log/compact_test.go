package log

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
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
			// Surviving batches keep base offset and offset range.
			ranges := map[uint64]uint64{}
			for _, h := range stHeaders(t, before) {
				ranges[h.BaseOffset] = h.LastOffset()
			}
			for _, h := range stHeaders(t, after) {
				if last, ok := ranges[h.BaseOffset]; !ok || last != h.LastOffset() {
					t.Errorf("batch %d-%d was not a batch before (ok=%v, last %d)", h.BaseOffset, h.LastOffset(), ok, last)
				}
			}
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

func TestCompactKeepsTombstonesAndNullKeysAndDropsEmptyBatches(t *testing.T) {
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
	// Reading from a compacted-away offset starts at the next batch.
	out, err := l.Read(nil, 0, 1000, IsolationLogEnd)
	if err != nil || stHeaders(t, out)[0].BaseOffset != 1 {
		t.Errorf("Read(0) = %v, %v; want batches from offset 1", stOffsets(stHeaders(t, out)), err)
	}
	out, err = l.Read(nil, 3, 1, IsolationLogEnd)
	if err != nil || stHeaders(t, out)[0].BaseOffset != 4 {
		t.Errorf("Read(3) = %v, %v; want the batch at 4", stOffsets(stHeaders(t, out)), err)
	}
	// Segments 0 and 3 are now empty files and stay as offset placeholders.
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
