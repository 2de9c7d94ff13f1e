package log

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// The failed state: a failed write, fsync, truncation, rename, removal,
// open or read in the log's directory is never forgotten. Every later
// operation returns ErrLogFailed (with the first cause), a retried Flush
// included, until a fresh Open verifies the files again.

// stFailedWorkload is a fixed sequence of operations that makes every kind
// of file call: Open's listing, lock and recovery reads, appends that roll
// segments, fsyncs, checkpoint renames, truncation, a clean shutdown, lazy
// verification after it, compaction, retention and the log start.
func stFailedWorkload(t *testing.T, fsys vfs.FS, dir string) []struct {
	name string
	do   func(l **Log) error
} {
	opts := Options{FS: fsys, SegmentBytes: 300, IndexIntervalBytes: 64}
	open := func(l **Log) error {
		var err error
		*l, err = Open(dir, opts)
		return err
	}
	put := func(key string, n int) func(l **Log) error {
		return func(l **Log) error {
			for i := range n {
				b := stBatchOf(t, 0, 1, []Record{{Key: []byte(key), Value: fmt.Appendf(nil, "%s%d", key, i)}})
				if _, err := (*l).AppendAsLeader(b, 3); err != nil {
					return err
				}
			}
			return nil
		}
	}
	read := func(l **Log) error {
		_, err := (*l).Read(nil, (*l).StartOffset(), 1<<20, IsolationLogEnd)
		return err
	}
	return []struct {
		name string
		do   func(l **Log) error
	}{
		{"open", open},
		{"appends", put("a", 8)},
		{"flush", func(l **Log) error { return (*l).Flush() }},
		{"checkpoint HW", func(l **Log) error { return (*l).CheckpointHighWatermark() }},
		{"read", read},
		{"truncate", func(l **Log) error { return (*l).TruncateTo((*l).EndOffset() - 1) }},
		{"close", func(l **Log) error { return (*l).Close() }},
		{"clean open", open},
		{"lazy read", read},
		{"more appends", put("b", 4)},
		{"compact", func(l **Log) error { _, err := (*l).Compact(); return err }},
		{"retention", func(l **Log) error {
			_, err := (*l).DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 400}, 0)
			return err
		}},
		{"start offset", func(l **Log) error { return (*l).IncrementStartOffset((*l).HighWatermark() - 1) }},
		{"checkpoint recovery point", func(l **Log) error { return (*l).CheckpointRecoveryPoint() }},
		{"close again", func(l **Log) error { return (*l).Close() }},
	}
}

// stProbeFailed runs every operation on a failed log and requires each to
// fail with ErrLogFailed wrapping cause.
func stProbeFailed(t *testing.T, l *Log, cause error, what string) {
	t.Helper()
	probes := map[string]func() error{
		"Flush":                   l.Flush,
		"Flush again":             l.Flush,
		"CheckpointHighWatermark": l.CheckpointHighWatermark,
		"CheckpointRecoveryPoint": l.CheckpointRecoveryPoint,
		"SetHighWatermark":        func() error { return l.SetHighWatermark(l.HighWatermark()) },
		"TruncateTo":              func() error { return l.TruncateTo(l.StartOffset()) },
		"AppendAsLeader":          func() error { return second(l.AppendAsLeader(stBatch(t, 0, 1, 1, 1), 3)) },
		"AppendAsFollower":        func() error { return second(l.AppendAsFollower(stBatch(t, l.EndOffset(), 1, 1, 1))) },
		"AssignEpoch":             func() error { return l.AssignEpoch(9) },
		"Read":                    func() error { return second(l.Read(nil, l.StartOffset(), 100, IsolationLogEnd)) },
		"Compact":                 func() error { return second(l.Compact()) },
		"DeleteRetainedSegments":  func() error { return second(l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1}, 0)) },
		"IncrementStartOffset":    func() error { return l.IncrementStartOffset(l.StartOffset() + 1) },
		"TruncateFullyAndStartAt": func() error { return l.TruncateFullyAndStartAt(l.EndOffset() + 10) },
	}
	for name, probe := range probes {
		err := probe()
		if !errors.Is(err, ErrLogFailed) || !errors.Is(err, cause) {
			t.Errorf("%s: %s on a failed log = %v, want ErrLogFailed and %v", what, name, err, cause)
		}
	}
	if err := l.Close(); !errors.Is(err, ErrLogFailed) {
		t.Errorf("%s: Close of a failed log = %v, want the failure", what, err)
	}
}

// TestFailedStateTable fails, for each kind of file call, each call the
// workload makes, one at a time, and checks that the failure surfaces,
// that the log then refuses everything (a retried Flush included), that
// Close releases the directory, and that a fresh Open recovers a log that
// reads back whole.
func TestFailedStateTable(t *testing.T) {
	const dir = "/p/orders-0"
	// Count the calls of each kind in a clean run.
	counter := vfs.Faulty(vfs.NewMem())
	var l *Log
	for _, step := range stFailedWorkload(t, counter, dir) {
		if err := step.do(&l); err != nil {
			t.Fatalf("clean run: %s: %v", step.name, err)
		}
	}
	runs := 0
	var counts []string
	for _, op := range vfs.Ops {
		counts = append(counts, fmt.Sprintf("%s %d", op, counter.Calls(op)))
	}
	t.Logf("calls in the workload: %v", counts)
	for _, op := range vfs.Ops {
		for n := 1; n <= counter.Calls(op); n++ {
			what := fmt.Sprintf("%s call %d of %d", op, n, counter.Calls(op))
			mem := vfs.NewMem()
			fsys := vfs.Faulty(mem)
			fsys.FailNth(op, n, syscall.EIO)
			var l *Log
			failedAt := ""
			var failErr error
			for _, step := range stFailedWorkload(t, fsys, dir) {
				if err := step.do(&l); err != nil {
					failedAt, failErr = step.name, err
					break
				}
			}
			runs++
			if failErr == nil {
				t.Errorf("%s: no operation failed", what)
				continue
			}
			if !errors.Is(failErr, syscall.EIO) {
				t.Errorf("%s: %s failed with %v, not the injected EIO", what, failedAt, failErr)
			}
			switch failedAt {
			case "open", "clean open":
				// Open failed and released everything; nothing to probe.
			case "close", "close again":
				// Close failed: the files are released all the same.
			default:
				if !errors.Is(failErr, ErrLogFailed) {
					t.Errorf("%s: %s failed with %v, not ErrLogFailed", what, failedAt, failErr)
				}
				stProbeFailed(t, l, syscall.EIO, what+" ("+failedAt+")")
			}
			// A fresh Open (the disk works again) recovers, and what it
			// serves reads back whole and contiguous.
			l2, err := Open(dir, Options{FS: mem, SegmentBytes: 300, IndexIntervalBytes: 64})
			if err != nil {
				t.Errorf("%s: reopen after the failure: %v", what, err)
				continue
			}
			if out, err := l2.Read(nil, l2.StartOffset(), 1<<20, IsolationLogEnd); err != nil || !stCheckRead(t, out, l2.StartOffset(), l2.EndOffset()+1) {
				t.Errorf("%s: reopened log reads %v", what, err)
			}
			if err := l2.Close(); err != nil {
				t.Errorf("%s: close after reopen: %v", what, err)
			}
		}
	}
	if runs < 150 {
		t.Errorf("only %d fault runs", runs)
	}
	t.Logf("%d fault runs", runs)
}

// TestFailedFsyncIsNeverForgottenOnRealFiles: over the real file system, a
// Flush whose fsync fails leaves the log failed; retrying Flush does not
// turn it into a success, reads refuse to serve page-cache bytes that may
// never reach the disk, and only a new Open serves again.
func TestFailedFsyncIsNeverForgottenOnRealFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	fsys := vfs.Faulty(vfs.OS())
	l, err := Open(dir, Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	stAppendLeader(t, l, 3, 2, 10, 1)
	fsys.FailNth(vfs.OpSync, fsys.Calls(vfs.OpSync)+1, syscall.EIO)
	if err := l.Flush(); !errors.Is(err, syscall.EIO) || !errors.Is(err, ErrLogFailed) {
		t.Fatalf("Flush with a failing fsync = %v, want EIO and ErrLogFailed", err)
	}
	stProbeFailed(t, l, syscall.EIO, "after a failed fsync")
	l, err = Open(dir, Options{FS: fsys})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer l.Close()
	if l.EndOffset() != 6 {
		t.Errorf("reopened LEO %d, want 6 (a process crash or a failed fsync loses nothing the page cache still has)", l.EndOffset())
	}
	if err := l.Flush(); err != nil {
		t.Errorf("Flush after reopen: %v", err)
	}
}

// TestCloseOnAFullDiskReleasesTheFiles: Close cannot write its checkpoints
// on a full disk; it says so, and still releases the lock.
func TestCloseOnAFullDiskReleasesTheFiles(t *testing.T) {
	mem := vfs.NewMem()
	fsys := vfs.Faulty(mem)
	l, err := Open("/p", Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	stAppendLeader(t, l, 2, 2, 10, 1)
	fsys.FailFrom(vfs.OpWrite, fsys.Calls(vfs.OpWrite)+1, syscall.ENOSPC)
	if err := l.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close on a full disk = %v, want ENOSPC", err)
	}
	fsys.Heal()
	l, err = Open("/p", Options{FS: fsys})
	if err != nil {
		t.Fatalf("Open after a failed Close = %v; the lock must be released", err)
	}
	defer l.Close()
	if r := l.Recovery(); r.Clean {
		t.Errorf("Open trusted a clean shutdown that did not complete:\n%s", r)
	}
	// The old (missing) HW checkpoint stands: HW 0 until the replica
	// layer learns it again.
	if l.EndOffset() != 4 || l.HighWatermark() != 0 {
		t.Errorf("after a failed Close: LEO %d, HW %d; want 4, 0", l.EndOffset(), l.HighWatermark())
	}
}
