package log

import "testing"

// TestSizeBytesCountsEverySegmentsBatches: the log's size is its batches'
// bytes across its segments, rolled or active, before and after a reopen
// (which learns rolled segments' sizes lazily), and falls when retention
// deletes a segment.
func TestSizeBytesCountsEverySegmentsBatches(t *testing.T) {
	l, dir, segBytes := stRetentionLog(t, true) // 5 segments of 2 batches
	want := 5 * segBytes
	if got, err := l.SizeBytes(); err != nil || got != want {
		t.Fatalf("SizeBytes = %d, %v; want %d", got, err, want)
	}
	stClose(t, l)
	l = stOpen(t, dir, Options{SegmentBytes: segBytes})
	defer stClose(t, l)
	if got, err := l.SizeBytes(); err != nil || got != want {
		t.Fatalf("after a reopen SizeBytes = %d, %v; want %d", got, err, want)
	}
	if n, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 3 * segBytes}, 0); err != nil || n != 2 {
		t.Fatalf("retention deleted %d segments, %v; want 2", n, err)
	}
	if got, err := l.SizeBytes(); err != nil || got != 3*segBytes {
		t.Fatalf("after retention SizeBytes = %d, %v; want %d", got, err, 3*segBytes)
	}
}
