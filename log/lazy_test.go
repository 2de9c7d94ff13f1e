package log

import (
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// Recovery costs what it must: after a clean shutdown Open reads no
// segment; after a crash it reads only past the recovery point; older
// segments are verified on first use, with a bounded number of open files;
// a read at the log end finds its batch with one header read.

// countingFS counts, per file name, the reads and the files open now.
type countingFS struct {
	vfs.FS
	mu      sync.Mutex
	reads   map[string]int
	open    map[string]int
	maxOpen int // most segment log files open at once
}

func newCountingFS(inner vfs.FS) *countingFS {
	return &countingFS{FS: inner, reads: map[string]int{}, open: map[string]int{}}
}

func (c *countingFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := c.FS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open[name]++
	n := 0
	for name, k := range c.open {
		if strings.HasSuffix(name, segmentSuffix) {
			n += k
		}
	}
	c.maxOpen = max(c.maxOpen, n)
	return &countingFile{File: f, c: c, name: name}, nil
}

// segmentReads returns the reads of segment log files since the last call.
func (c *countingFS) segmentReads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for name, k := range c.reads {
		if strings.HasSuffix(name, segmentSuffix) {
			n += k
		}
	}
	clear(c.reads)
	return n
}

type countingFile struct {
	vfs.File
	c    *countingFS
	name string
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	f.c.mu.Lock()
	f.c.reads[f.name]++
	f.c.mu.Unlock()
	return f.File.ReadAt(p, off)
}

func (f *countingFile) Close() error {
	f.c.mu.Lock()
	f.c.open[f.name]--
	f.c.mu.Unlock()
	return f.File.Close()
}

// stManySegments writes 40 batches over 10 segments on m and closes the
// log cleanly.
func stManySegments(t *testing.T, m vfs.FS) []byte {
	t.Helper()
	l, err := Open(stDir, Options{FS: m, SegmentBytes: 480, IndexIntervalBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	all := stAppendLeader(t, l, 40, 2, 20, 1)
	if len(l.segments) != 10 {
		t.Fatalf("%d segments, want 10", len(l.segments))
	}
	stClose(t, l)
	return all
}

func TestCleanOpenReadsNoSegment(t *testing.T) {
	m := vfs.NewMem()
	all := stManySegments(t, m)
	c := newCountingFS(m)
	l, err := Open(stDir, Options{FS: c, SegmentBytes: 480, IndexIntervalBytes: 100, MaxOpenSegments: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.Recovery().Clean {
		t.Fatalf("not a clean open:\n%s", l.Recovery())
	}
	if n := c.segmentReads(); n != 0 {
		t.Errorf("a clean Open read segment files %d times", n)
	}
	if c.maxOpen != 1 {
		t.Errorf("a clean Open opened %d segment files at once, want the active one only", c.maxOpen)
	}
	// The first read verifies each segment it touches, once.
	got, err := l.Read(nil, 0, 1<<20, IsolationLogEnd)
	if err != nil || string(got) != string(all) {
		t.Fatalf("Read after a clean open: %d bytes, %v", len(got), err)
	}
	first := c.segmentReads()
	if _, err := l.Read(nil, 0, 1<<20, IsolationLogEnd); err != nil {
		t.Fatal(err)
	}
	if again := c.segmentReads(); again >= first {
		t.Errorf("a second read cost %d segment reads, the first (verifying) %d", again, first)
	}
	if c.maxOpen > 3 {
		t.Errorf("%d segment files open at once; MaxOpenSegments 2 and the active one allow 3", c.maxOpen)
	}
}

func TestUncleanOpenVerifiesFromTheRecoveryPoint(t *testing.T) {
	m := vfs.NewMem()
	l, err := Open(stDir, Options{FS: m, SegmentBytes: 480, IndexIntervalBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	stAppendLeader(t, l, 30, 2, 20, 1)
	if err := l.Flush(); err != nil { // recovery point 60, in segment 7 (base 56)
		t.Fatal(err)
	}
	stAppendLeader(t, l, 10, 2, 20, 1)
	m.Crash(vfs.KeepUnsynced, 0) // kill -9
	c := newCountingFS(m)
	l, err = Open(stDir, Options{FS: c, SegmentBytes: 480, IndexIntervalBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := l.Recovery()
	if r.RecoveryPoint != 60 || r.SegmentsVerified != 3 || r.BatchesVerified != 12 {
		t.Errorf("verified %d segments, %d batches from recovery point %d; want 3, 12 from 60\n%s", r.SegmentsVerified, r.BatchesVerified, r.RecoveryPoint, r)
	}
	for name, n := range c.reads {
		if b, ok := parseSegmentName(name[strings.LastIndex(name, "/")+1:]); ok && b < 56 && n > 0 {
			t.Errorf("Open read %s, below the recovery point", name)
		}
	}
}

// TestReadAtTheLogEndCostsOnePread: a follower's fetch from where its
// previous fetch ended reads the data and nothing else (no header to find
// it), however far the last index entry is.
func TestReadAtTheLogEndCostsOnePread(t *testing.T) {
	c := newCountingFS(vfs.NewMem())
	l, err := Open(stDir, Options{FS: c, IndexIntervalBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	stAppendLeader(t, l, 100, 1, 10, 1) // no index entry at all
	from := l.EndOffset()
	stAppendLeader(t, l, 1, 1, 10, 1)
	c.segmentReads()
	out, err := l.Read(nil, from, 1<<20, IsolationLogEnd)
	if err != nil || len(stHeaders(t, out)) != 1 {
		t.Fatalf("Read at the previous log end: %v", err)
	}
	if n := c.segmentReads(); n != 1 {
		t.Errorf("a read at the log end cost %d preads, want 1 (the data)", n)
	}
	if _, err := l.Read(nil, 50, 1, IsolationLogEnd); err != nil {
		t.Fatal(err)
	}
	if n := c.segmentReads(); n < 10 {
		t.Errorf("a read mid-segment with no index entry cost only %d preads: the test does not measure what it claims", n)
	}
}

func TestReadClampsMaxBytes(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{MaxReadBytes: 1000})
	stAppendLeader(t, l, 40, 2, 40, 1)
	out, err := l.Read(nil, 0, 1<<30, IsolationLogEnd)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 1000 || len(out) < 1000-200 {
		t.Errorf("Read with maxBytes 1 GiB returned %d bytes; MaxReadBytes is 1000", len(out))
	}
}

// TestRollsKeepOpenFilesBounded: a SyncNever log that rolls many segments
// between flushes keeps each unsynced one open until it is fsynced (its
// writeback error must not be lost with a closed file), but never more
// than MaxOpenSegments of them: the oldest are fsynced early.
func TestRollsKeepOpenFilesBounded(t *testing.T) {
	c := newCountingFS(vfs.NewMem())
	l, err := Open(stDir, Options{FS: c, SegmentBytes: 100, MaxOpenSegments: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	stAppendLeader(t, l, 40, 1, 60, 1) // a segment per batch
	if c.maxOpen > 4 {
		t.Errorf("%d segment files open at once; MaxOpenSegments 3 and the active one allow 4", c.maxOpen)
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := stReadAll(t, l, IsolationLogEnd); len(stHeaders(t, got)) != 40 {
		t.Errorf("read back %d batches", len(stHeaders(t, got)))
	}
	if c.maxOpen > 4 {
		t.Errorf("%d segment files open at once after reading", c.maxOpen)
	}
}
