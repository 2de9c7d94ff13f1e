package vfs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// CrashMode says what a Mem keeps when its "machine" goes down.
type CrashMode uint8

const (
	// KeepUnsynced is a process crash (kill -9): the kernel keeps every
	// write, synced or not, so every file and directory stays as it is.
	// Only the open files die.
	KeepUnsynced CrashMode = iota
	// LoseUnsynced is a power cut: every file reverts to its content as of
	// its last Sync, every directory to its entries as of its last SyncDir
	// (files created since vanish, removed ones come back, renames revert).
	LoseUnsynced
	// TornUnsynced is a power cut in the middle of writeback: like
	// LoseUnsynced, except that a file whose unsynced change only appended
	// to its synced content keeps a prefix of the appended bytes, of a
	// length chosen by a rand seeded with Crash's seed.
	TornUnsynced
)

// String returns the mode's name.
func (m CrashMode) String() string {
	switch m {
	case KeepUnsynced:
		return "KeepUnsynced"
	case LoseUnsynced:
		return "LoseUnsynced"
	case TornUnsynced:
		return "TornUnsynced"
	}
	return fmt.Sprintf("CrashMode(%d)", uint8(m))
}

// Mem is an in-memory FS with a durability model. Per file it keeps the
// current content and the durable content (as of the file's last Sync);
// per directory the current entries and the durable entries (as of its last
// SyncDir). Crash applies a CrashMode to them and kills every open File.
//
// Files are inodes: a directory entry names one, Rename moves the name, a
// removed file stays readable through its open Files, and a file's durable
// content belongs to the inode, so a rename that was not made durable
// brings back the old name with the inode's durable content.
//
// Simplifications, documented so that no test relies on more: directories
// made by MkdirAll are durable at once; Sync of a file makes its content
// durable but not its name (that takes SyncDir of its directory, as on a
// strict POSIX file system). Mem is safe for concurrent use and starts no
// goroutine.
type Mem struct {
	mu    sync.Mutex
	gen   uint64              // the current "process"; Files of older ones are dead
	dirs  map[string]*memDir  // by cleaned path
	locks map[string]struct{} // held Lock paths
}

type memDir struct {
	cur     map[string]*memInode
	durable map[string]*memInode
}

type memInode struct {
	data    []byte // current content
	durable []byte // content as of the last Sync
	// same is the length of the prefix of data known to equal durable:
	// every write or truncation since the last Sync lowers it to where the
	// change began, so Sync copies only what changed.
	same int
}

// NewMem returns an empty in-memory file system holding only the root
// directory "/" and the current directory ".".
func NewMem() *Mem {
	m := &Mem{dirs: map[string]*memDir{}, locks: map[string]struct{}{}}
	m.dirs["/"] = newMemDir()
	m.dirs["."] = newMemDir()
	return m
}

func newMemDir() *memDir {
	return &memDir{cur: map[string]*memInode{}, durable: map[string]*memInode{}}
}

// split returns the directory and base name of a cleaned path.
func split(name string) (dir, base string) {
	name = filepath.Clean(name)
	return filepath.Dir(name), filepath.Base(name)
}

func pathErr(op, name string, err error) error { return &fs.PathError{Op: op, Path: name, Err: err} }

// OpenFile implements FS.
func (m *Mem) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, base := split(name)
	d := m.dirs[dir]
	if d == nil {
		return nil, pathErr("open", name, fs.ErrNotExist)
	}
	if _, isDir := m.dirs[filepath.Clean(name)]; isDir {
		return nil, pathErr("open", name, errors.New("is a directory"))
	}
	ino := d.cur[base]
	switch {
	case ino == nil && flag&os.O_CREATE == 0:
		return nil, pathErr("open", name, fs.ErrNotExist)
	case ino != nil && flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0:
		return nil, pathErr("open", name, fs.ErrExist)
	case ino == nil:
		ino = &memInode{}
		d.cur[base] = ino
	}
	writable := flag&(os.O_WRONLY|os.O_RDWR) != 0
	if flag&os.O_TRUNC != 0 && writable {
		ino.data = ino.data[:0:0]
		ino.same = 0
	}
	return &memFile{m: m, ino: ino, gen: m.gen, name: name, writable: writable}, nil
}

// Remove implements FS.
func (m *Mem) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, base := split(name)
	d := m.dirs[dir]
	if d == nil || d.cur[base] == nil {
		return pathErr("remove", name, fs.ErrNotExist)
	}
	delete(d.cur, base)
	return nil
}

// Rename implements FS.
func (m *Mem) Rename(oldpath, newpath string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	odir, obase := split(oldpath)
	ndir, nbase := split(newpath)
	od, nd := m.dirs[odir], m.dirs[ndir]
	if od == nil || od.cur[obase] == nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrNotExist}
	}
	if nd == nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrNotExist}
	}
	ino := od.cur[obase]
	delete(od.cur, obase)
	nd.cur[nbase] = ino
	return nil
}

// ReadDir implements FS, sorted by name (so that tests are deterministic).
func (m *Mem) ReadDir(dir string) ([]DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir = filepath.Clean(dir)
	d := m.dirs[dir]
	if d == nil {
		return nil, pathErr("readdir", dir, fs.ErrNotExist)
	}
	out := make([]DirEntry, 0, len(d.cur))
	for name := range d.cur {
		out = append(out, DirEntry{Name: name, Regular: true})
	}
	for p := range m.dirs {
		if p != dir && filepath.Dir(p) == dir {
			out = append(out, DirEntry{Name: filepath.Base(p)})
		}
	}
	slices.SortFunc(out, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// MkdirAll implements FS. New directories are durable at once.
func (m *Mem) MkdirAll(dir string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, ok := m.dirs[p]; ok {
			break
		}
		pd, base := split(p)
		if d := m.dirs[pd]; d != nil && d.cur[base] != nil {
			return pathErr("mkdir", p, errors.New("not a directory"))
		}
		m.dirs[p] = newMemDir()
		if p == filepath.Dir(p) {
			break
		}
	}
	return nil
}

// RemoveDir implements FS: an empty directory (no file, durable or not,
// and no subdirectory) goes at once and for good, as MkdirAll's are made.
func (m *Mem) RemoveDir(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir = filepath.Clean(dir)
	d := m.dirs[dir]
	if d == nil {
		return pathErr("remove", dir, fs.ErrNotExist)
	}
	if len(d.cur) > 0 || len(d.durable) > 0 {
		return pathErr("remove", dir, errors.New("directory not empty"))
	}
	for p := range m.dirs {
		if p != dir && filepath.Dir(p) == dir {
			return pathErr("remove", dir, errors.New("directory not empty"))
		}
	}
	delete(m.dirs, dir)
	return nil
}

// SyncDir implements FS: the directory's current entries become durable.
func (m *Mem) SyncDir(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.dirs[filepath.Clean(dir)]
	if d == nil {
		return pathErr("syncdir", dir, fs.ErrNotExist)
	}
	d.durable = cloneEntries(d.cur)
	return nil
}

func cloneEntries(src map[string]*memInode) map[string]*memInode {
	dst := make(map[string]*memInode, len(src))
	for k, v := range src {
		dst[k] = v
	}
	return dst
}

// Lock implements FS. The lock lives in this Mem only; Crash releases it
// (the holder died). The lock file is created like any other file.
func (m *Mem) Lock(path string) (io.Closer, error) {
	key := filepath.Clean(path)
	m.mu.Lock()
	_, held := m.locks[key]
	m.mu.Unlock()
	if held {
		return nil, lockedError(path, os.Getpid())
	}
	f, err := m.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.WriteAt(fmt.Appendf(nil, "%d\n", os.Getpid()), 0); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, held := m.locks[key]; held {
		return nil, lockedError(path, os.Getpid())
	}
	m.locks[key] = struct{}{}
	return &memLock{m: m, key: key, gen: m.gen}, nil
}

type memLock struct {
	m   *Mem
	key string
	gen uint64
}

func (l *memLock) Close() error {
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	if l.gen == l.m.gen { // a crash already released it
		delete(l.m.locks, l.key)
	}
	return nil
}

// Crash ends the current "process": every File opened so far fails with
// ErrCrashed from now on, every lock is released, and mode decides what
// the files and directories keep. seed drives TornUnsynced's choices (the
// same seed on the same state gives the same result); the other modes
// ignore it.
func (m *Mem) Crash(mode CrashMode, seed uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen++
	clear(m.locks)
	if mode == KeepUnsynced {
		return
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b61656e))
	dirs := make([]string, 0, len(m.dirs))
	for p := range m.dirs {
		dirs = append(dirs, p)
	}
	slices.Sort(dirs)
	seen := map[*memInode]bool{}
	for _, p := range dirs {
		d := m.dirs[p]
		d.cur = cloneEntries(d.durable)
		names := make([]string, 0, len(d.cur))
		for name := range d.cur {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			ino := d.cur[name]
			if seen[ino] {
				continue
			}
			seen[ino] = true
			keep := ino.durable
			if mode == TornUnsynced && len(ino.data) > len(ino.durable) && ino.same == len(ino.durable) {
				extra := len(ino.data) - len(ino.durable)
				keep = ino.data[:len(ino.durable)+rng.IntN(extra+1)]
			}
			ino.data = bytes.Clone(keep)
			ino.durable = bytes.Clone(keep)
			ino.same = len(keep)
		}
	}
}

// memFile is an open Mem file.
type memFile struct {
	m        *Mem
	ino      *memInode
	gen      uint64
	name     string
	writable bool
	closed   bool
}

// check returns the error for using f now, or nil. The caller holds m.mu.
func (f *memFile) check(op string, write bool) error {
	switch {
	case f.gen != f.m.gen:
		return pathErr(op, f.name, ErrCrashed)
	case f.closed:
		return pathErr(op, f.name, fs.ErrClosed)
	case write && !f.writable:
		return pathErr(op, f.name, fs.ErrPermission)
	}
	return nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.check("read", false); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, pathErr("read", f.name, fs.ErrInvalid)
	}
	if off >= int64(len(f.ino.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.ino.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.check("write", true); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, pathErr("write", f.name, fs.ErrInvalid)
	}
	end := off + int64(len(p))
	if old := int64(len(f.ino.data)); end > old {
		f.ino.data = slices.Grow(f.ino.data, int(end-old))[:end]
		if off > old {
			// The capacity may hold bytes from before a truncation.
			clear(f.ino.data[old:off])
		}
	}
	copy(f.ino.data[off:], p)
	f.ino.same = min(f.ino.same, int(off))
	return len(p), nil
}

func (f *memFile) Truncate(size int64) error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.check("truncate", true); err != nil {
		return err
	}
	if size < 0 {
		return pathErr("truncate", f.name, fs.ErrInvalid)
	}
	f.ino.same = min(f.ino.same, int(size))
	if size <= int64(len(f.ino.data)) {
		f.ino.data = f.ino.data[:size]
		return nil
	}
	old := len(f.ino.data)
	f.ino.data = slices.Grow(f.ino.data, int(size)-old)[:size]
	clear(f.ino.data[old:])
	return nil
}

func (f *memFile) Sync() error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.check("sync", false); err != nil {
		return err
	}
	// durable[:same] already equals data[:same]; copy the rest. durable
	// never shares memory with data.
	f.ino.durable = append(f.ino.durable[:f.ino.same], f.ino.data[f.ino.same:]...)
	f.ino.same = len(f.ino.data)
	return nil
}

func (f *memFile) Size() (int64, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.check("stat", false); err != nil {
		return 0, err
	}
	return int64(len(f.ino.data)), nil
}

func (f *memFile) Close() error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.check("close", false); err != nil {
		return err
	}
	f.closed = true
	return nil
}
