package log

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// dirSyncSpy records the directories an FS was asked to SyncDir.
type dirSyncSpy struct {
	vfs.FS
	synced []string
}

func (s *dirSyncSpy) SyncDir(dir string) error {
	s.synced = append(s.synced, filepath.Clean(dir))
	return s.FS.SyncDir(dir)
}

// Under SyncEveryAppend an acknowledged append survives power loss
// (doc.go, "Durability"), and the recovery point promises "segments and the
// directory entries naming them" are on disk. On a strict POSIX file system
// (the one vfs.Mem models for files) a directory Open creates is named by
// an entry in its parent, which is durable only once the parent is
// fsynced; until then a power cut can take the whole partition directory,
// acknowledged batches included. vfs.Mem makes new directories durable at
// once (a documented simplification), so this test watches the calls: the
// parent of a directory Open created must be fsynced before the first
// append is acknowledged.
func TestOpenMakesANewDirectoryDurable(t *testing.T) {
	spy := &dirSyncSpy{FS: vfs.NewMem()}
	l := stOpen(t, "/data/orders-0", Options{FS: spy, Sync: SyncEveryAppend})
	plainAppend(t, l, 1, 1)
	if !slices.Contains(spy.synced, "/data") {
		t.Errorf("Open created /data/orders-0 and an append was acknowledged under SyncEveryAppend, but /data was never fsynced (SyncDir calls: %q)", spy.synced)
	}
}
