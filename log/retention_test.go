package log

import (
	"bytes"
	"errors"
	"testing"
)

// stRetentionLog builds a log of 5 segments of 2 batches each (the last
// active). Batch i has 2 records with timestamps 100*i and 100*i+1, so
// segment s holds offsets [4s, 4s+4) and its largest timestamp is
// 100*(2s+1)+1.
func stRetentionLog(t *testing.T, eager bool) (*Log, string, int64) {
	t.Helper()
	dir := t.TempDir()
	size := int64(len(stBatch(t, 0, 2, 50, 0)))
	l := stOpen(t, dir, Options{SegmentBytes: 2 * size})
	if !eager {
		l.StopEagerHighWatermark()
	}
	for i := range 10 {
		stAppendLeader(t, l, 1, 2, 50, int64(100*i))
	}
	if len(l.segments) != 5 {
		t.Fatalf("%d segments, want 5", len(l.segments))
	}
	return l, dir, 2 * size
}

func TestDeleteRetainedSegments(t *testing.T) {
	for _, tc := range []struct {
		name      string
		eager     bool
		hw        uint64 // set when not eager
		policy    RetentionPolicy
		nowMs     int64
		wantStart uint64
	}{
		{"disabled", true, 0, RetentionPolicy{}, 1 << 40, 0},
		{"time: two expired", true, 0, RetentionPolicy{RetentionMs: 650}, 1000, 8},
		{"time: boundary is exclusive", true, 0, RetentionPolicy{RetentionMs: 699}, 1000, 4},
		{"time: never the active segment", true, 0, RetentionPolicy{RetentionMs: 1}, 1 << 40, 16},
		{"time: nowMs near MinInt64 does not overflow", true, 0, RetentionPolicy{RetentionMs: 10}, -1 << 63, 0},
		{"bytes: keep at least RetentionBytes", true, 0, RetentionPolicy{RetentionBytes: 5}, 0, 16},
		{"bytes: 2.5 segments", true, 0, RetentionPolicy{RetentionBytes: -1}, 0, 8}, // RetentionBytes filled in below
		{"never at or above the HW", false, 5, RetentionPolicy{RetentionMs: 1}, 1 << 40, 4},
		{"HW on a segment boundary", false, 8, RetentionPolicy{RetentionMs: 1}, 1 << 40, 8},
		{"HW 0 keeps everything", false, 0, RetentionPolicy{RetentionBytes: 1}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, dir, segSize := stRetentionLog(t, tc.eager)
			if !tc.eager {
				if err := l.SetHighWatermark(tc.hw); err != nil {
					t.Fatal(err)
				}
			}
			p := tc.policy
			if p.RetentionBytes < 0 {
				p.RetentionBytes = segSize*5/2 + 1
			}
			before := stSplit(t, stReadAll(t, l, IsolationLogEnd))
			leo := l.EndOffset()
			deleted, err := l.DeleteRetainedSegments(p, tc.nowMs)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.StartOffset(); got != tc.wantStart {
				t.Errorf("StartOffset = %d, want %d", got, tc.wantStart)
			}
			if want := int(tc.wantStart / 4); deleted != want {
				t.Errorf("deleted %d segments, want %d", deleted, want)
			}
			if l.EndOffset() != leo {
				t.Errorf("LEO moved: %d -> %d", leo, l.EndOffset())
			}
			if files := stSegmentFiles(t, dir); len(files) != 5-deleted || files[0] != segmentName(tc.wantStart, segmentSuffix) {
				t.Errorf("segment files = %v", files)
			}
			if tc.wantStart > 0 {
				if _, err := l.Read(nil, tc.wantStart-1, 100, IsolationLogEnd); !errors.Is(err, ErrOffsetOutOfRange) {
					t.Errorf("Read below start = %v, want ErrOffsetOutOfRange", err)
				}
			}
			var want []stStored
			for _, b := range before {
				if b.h.BaseOffset >= tc.wantStart {
					want = append(want, b)
				}
			}
			if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, stJoin(want)) {
				t.Error("remaining bytes differ")
			}
			stClose(t, l)
			stCheckRecovered(t, dir, Options{SegmentBytes: 2 * segSize}, tc.wantStart, want)
		})
	}
}
