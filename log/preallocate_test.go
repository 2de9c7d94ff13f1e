//go:build linux

package log

import (
	"os"
	"syscall"
	"testing"
)

// allocated returns the bytes of disk blocks a file holds.
func allocated(t *testing.T, path string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// TestPreallocationIsInvisible: the active segment's blocks are reserved
// ahead of the appends, but its size is the bytes written, and a roll and
// Close give the reserved blocks back. (Where the file system cannot
// preallocate, only the sizes are checked.)
func TestPreallocationIsInvisible(t *testing.T) {
	dir := t.TempDir()
	batch := len(stBatch(t, 0, 10, 1000, 1))
	opts := Options{SegmentBytes: 64 << 20}
	l := stOpen(t, dir, opts)
	all := stAppendLeader(t, l, 20, 10, 1000, 1)
	path := stSeg(dir, 0, segmentSuffix)
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != int64(len(all)) {
		t.Fatalf("segment is %v bytes (%v), want %d", fi.Size(), err, len(all))
	}
	reserved := !l.active().noPrealloc
	if a := allocated(t, path); reserved && a < int64(len(all))+preallocBytes/2 {
		t.Errorf("%d bytes appended, %d allocated: nothing reserved ahead", len(all), a)
	}
	if got := stReadAll(t, l, IsolationLogEnd); string(got) != string(all) {
		t.Fatal("read back differs")
	}
	stClose(t, l)
	if a := allocated(t, path); a > int64(len(all))+4096 {
		t.Errorf("after Close the segment of %d bytes holds %d", len(all), a)
	}

	// A roll gives the rolled segment's reservation back.
	opts.SegmentBytes = int64(len(all) + 5*batch)
	l = stOpen(t, dir, opts)
	more := stAppendLeader(t, l, 6, 10, 1000, 1) // the sixth rolls
	if n := len(l.segments); n != 2 {
		t.Fatalf("%d segments, want 2", n)
	}
	if a, size := allocated(t, path), int64(len(all)+5*batch); a > size+4096 {
		t.Errorf("after the roll the segment of %d bytes holds %d", size, a)
	}
	if got := stReadAll(t, l, IsolationLogEnd); string(got) != string(all)+string(more) {
		t.Fatal("read back differs after the roll")
	}
}
