package log

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// orderFS records, per file, whether bytes were written to it since its
// last Sync, and which files were created since their directory's last
// SyncDir: what a power cut would lose on a file system that keeps only
// what was fsynced (data, size and extents by the file's fsync, names by
// the directory's).
type orderFS struct {
	vfs.FS
	mu       sync.Mutex
	unsynced map[string]bool // written since its last Sync
	unnamed  map[string]bool // created since its directory's last SyncDir
}

type orderFile struct {
	vfs.File
	fs   *orderFS
	name string
}

func (o *orderFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	_, err := o.FS.OpenFile(name, flag&^(os.O_CREATE|os.O_TRUNC|os.O_EXCL|os.O_WRONLY|os.O_RDWR), 0)
	existed := err == nil
	f, err := o.FS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	if !existed && flag&os.O_CREATE != 0 {
		o.mu.Lock()
		o.unnamed[name] = true
		o.mu.Unlock()
	}
	return &orderFile{File: f, fs: o, name: name}, nil
}

func (o *orderFS) SyncDir(dir string) error {
	err := o.FS.SyncDir(dir)
	if err == nil {
		o.mu.Lock()
		for name := range o.unnamed {
			if filepath.Dir(name) == dir {
				delete(o.unnamed, name)
			}
		}
		o.mu.Unlock()
	}
	return err
}

func (o *orderFS) Rename(oldpath, newpath string) error {
	err := o.FS.Rename(oldpath, newpath)
	if err == nil {
		o.mu.Lock()
		o.unnamed[newpath] = true
		o.mu.Unlock()
	}
	return err
}

func (f *orderFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	f.fs.unsynced[f.name] = true
	f.fs.mu.Unlock()
	return f.File.WriteAt(p, off)
}

func (f *orderFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	f.fs.unsynced[f.name] = true
	f.fs.mu.Unlock()
	return f.File.Truncate(size)
}

func (f *orderFile) Sync() error {
	err := f.File.Sync()
	if err == nil {
		f.fs.mu.Lock()
		delete(f.fs.unsynced, f.name)
		f.fs.mu.Unlock()
	}
	return err
}

// Under SyncEveryAppend an append is acknowledged only once everything
// retrieving its batches needs is durable, in kaenlog's own order: its
// bytes, and with them the segment's size, fsynced (fsync, not
// fdatasync: the size and extents too) through the descriptor that wrote
// them, and the segment file's name fsynced in its directory, for a
// segment the append rolled, before any byte goes in it. The index file
// is not needed: it may still lag, and Open rebuilds it. So when each
// acknowledgement returns, no segment file holds an unsynced write or an
// unsynced name, and a power cut right then — modelled as losing every
// file's unsynced content, size included, every unsynced name, and every
// index file — loses no acknowledged batch. What a real file system loses
// beyond that (ext4 without a journal after a failed write) is its own:
// see the package doc, "Durability".
func TestUnderSyncEveryAppendAnAcknowledgedBatchNeedsNothingUnsynced(t *testing.T) {
	const appends = 40
	rolls := 0
	for cut := range appends {
		mem := vfs.NewMem()
		o := &orderFS{FS: mem, unsynced: map[string]bool{}, unnamed: map[string]bool{}}
		opts := Options{FS: o, Sync: SyncEveryAppend, SegmentBytes: 600, IndexIntervalBytes: 100}
		l, err := Open(stDir, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cut + 1 {
			b := stBatch(t, 0, 1+i%4, 20+i%30, 1)
			if _, err := l.AppendAsLeader(b, 1); err != nil {
				t.Fatalf("append %d: %v", i, err)
			}
			o.mu.Lock()
			for name := range o.unsynced {
				if strings.HasSuffix(name, segmentSuffix) {
					t.Errorf("append %d acknowledged with a write to %s not fsynced", i, filepath.Base(name))
				}
			}
			for name := range o.unnamed {
				if strings.HasSuffix(name, segmentSuffix) {
					t.Errorf("append %d acknowledged before the name of %s was fsynced in its directory", i, filepath.Base(name))
				}
			}
			o.mu.Unlock()
			if t.Failed() {
				t.FailNow()
			}
		}
		acked := stReadAll(t, l, IsolationLogEnd)

		// The power fails right after the acknowledgement; the index
		// files are lost too.
		mem.Crash(vfs.LoseUnsynced, uint64(cut))
		entries, err := mem.ReadDir(stDir)
		if err != nil {
			t.Fatal(err)
		}
		segs := 0
		for _, e := range entries {
			switch {
			case strings.HasSuffix(e.Name, indexSuffix):
				mem.Remove(filepath.Join(stDir, e.Name))
			case strings.HasSuffix(e.Name, segmentSuffix):
				segs++
			}
		}
		rolls = max(rolls, segs-1)
		l2, err := Open(stDir, Options{FS: mem, SegmentBytes: opts.SegmentBytes, IndexIntervalBytes: opts.IndexIntervalBytes})
		if err != nil {
			t.Fatalf("Open after a power cut after append %d: %v", cut, err)
		}
		got := stReadAll(t, l2, IsolationLogEnd)
		r := l2.Recovery()
		l2.Close()
		if !bytes.Equal(got, acked) {
			t.Fatalf("a power cut right after append %d was acknowledged: batches %v read back, %v acknowledged\n%s",
				cut, stOffsets(stHeaders(t, got)), stOffsets(stHeaders(t, acked)), r.String())
		}
	}
	if rolls < 3 {
		t.Fatalf("%d rolls: too few to test a new segment's name", rolls)
	}
}
