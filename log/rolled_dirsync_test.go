package log

import (
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// FlushRolled's fsync of the directory makes its entries durable, so the
// next Flush does not fsync the directory again for them — unless the
// directory changed (a roll) while that fsync ran: then the change may
// have missed it, and the next Flush must fsync it.

// dirSyncFS counts SyncDir calls and runs onSync, once armed, inside the
// next one, before the directory is synced.
type dirSyncFS struct {
	vfs.FS
	mu     sync.Mutex
	syncs  int
	onSync func()
}

func (f *dirSyncFS) SyncDir(dir string) error {
	f.mu.Lock()
	f.syncs++
	hook := f.onSync
	f.onSync = nil
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	return f.FS.SyncDir(dir)
}

func (f *dirSyncFS) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.syncs
}

// Every Flush here moves the recovery point, and the recovery-point
// checkpoint is written with its own SyncDir: that one is always there.
const checkpointDirSyncs = 1

func TestFlushAfterFlushRolledSyncsTheDirectoryOnlyForItsCheckpoint(t *testing.T) {
	fsys := &dirSyncFS{FS: vfs.NewMem()}
	l := stOpen(t, rollDir, Options{FS: fsys, SegmentBytes: 1000})
	rollUntil(t, l, 3)
	if err := l.FlushRolled(); err != nil {
		t.Fatal(err)
	}
	before := fsys.count()
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := fsys.count() - before; got != checkpointDirSyncs {
		t.Fatalf("Flush after FlushRolled, with no directory change between, synced the directory %d times, want %d (its checkpoint's)", got, checkpointDirSyncs)
	}
}

func TestARollDuringFlushRolledsDirectorySyncKeepsTheDirectoryDirty(t *testing.T) {
	mem := vfs.NewMem()
	fsys := &dirSyncFS{FS: mem}
	opts := Options{FS: fsys, SegmentBytes: 1000}
	l := stOpen(t, rollDir, opts)
	rollUntil(t, l, 3)
	var rolledTo uint64
	fsys.mu.Lock()
	fsys.onSync = func() {
		// FlushRolled's directory fsync, without the append lock: a roll
		// creates a segment file the fsync may not cover.
		rollUntil(t, l, 4)
		rolledTo = activeBase(l)
	}
	fsys.mu.Unlock()
	if err := l.FlushRolled(); err != nil {
		t.Fatal(err)
	}
	if rolledTo == 0 {
		t.Fatal("FlushRolled synced no directory")
	}
	before := fsys.count()
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := fsys.count() - before; got != 1+checkpointDirSyncs {
		t.Fatalf("Flush after a roll during FlushRolled's directory fsync synced the directory %d times, want %d (the roll's entries, then its checkpoint)", got, 1+checkpointDirSyncs)
	}
	end := l.EndOffset()
	l.Abandon()
	mem.Crash(vfs.LoseUnsynced, 1)
	l = stOpen(t, rollDir, opts)
	if l.EndOffset() != end {
		t.Fatalf("power cut after Flush: log end %d, want the flushed %d (segment %d rolled during FlushRolled)\n%s", l.EndOffset(), end, rolledTo, l.Recovery())
	}
}
