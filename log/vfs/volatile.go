package vfs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// VolatilePageSize is the unit in which a VolatileCache holds unsynced
// data, as a page cache does.
const VolatilePageSize = 4096

// DefaultVolatileLimit is the VolatileCache's bound on unsynced bytes
// when NewVolatileCache is given 0.
const DefaultVolatileLimit = 256 << 20

// VolatileCache is an FS over another one (normally OS) that keeps every
// file's unsynced data in this process's memory instead of handing it to
// the kernel. A process that dies, by SIGKILL or otherwise, loses exactly
// the file data a power cut of the machine would lose; so a kill -9 of a
// process that runs on a VolatileCache tests power loss without cutting
// any power. It is a testing aid: nothing else should run on it.
//
// The model of file data (the page cache, moved into the process):
//
//   - WriteAt and Truncate (and O_TRUNC) change a file's content in memory
//     only, in VolatilePageSize pages; ReadAt and Size see the change at
//     once, through every open File of the file.
//   - File.Sync writes the file's dirty pages and any pending truncation
//     to the inner file, then fsyncs it. A Sync that fails returns the
//     error, and pages it could not write stay dirty (a later kill loses
//     them): nothing unwritten is reported written.
//   - Close does not make anything durable, as close(2) does not: the
//     unsynced data stays in the cache, and an OpenFile of the same path
//     in this process sees it again. The cache is keyed by absolute path
//     and follows Rename; Remove drops the data once no File holds it.
//   - Writeback: when a write takes the unsynced bytes of all files past
//     the limit, the file being written has all its pages written to the
//     inner file (not fsynced), so the bound holds. They then survive a process kill, as pages the
//     kernel wrote back would survive most power cuts. Unlike Linux there
//     is no writeback by age (vm.dirty_expire_centisecs, about 30 s), so
//     unsynced data may stay volatile for as long as the process lives: a
//     kill loses at least what a power cut would.
//
// The model of metadata is optimistic: OpenFile's creation, Rename,
// Remove and MkdirAll reach the inner file system at once, so a process
// kill keeps them whether or not SyncDir followed (SyncDir still fsyncs
// the directory). A file created and never synced therefore survives the
// kill, empty, or with what writeback gave it. A real power cut may also
// revert unsynced directory entries; NewMem's LoseUnsynced models that,
// in one process. ReadDir, SyncDir and Lock are the inner FS's.
//
// One VolatileCache per process and directory tree: two over the same
// files would not see each other's unsynced data. It is safe for
// concurrent use and starts no goroutine.
type VolatileCache struct {
	inner FS
	limit int64

	// mu guards files and every vcInode's path and open. Lock order: a
	// vcInode's mu before mu, never the other way.
	mu    sync.Mutex
	files map[string]*vcInode // by absolute path: files with unsynced data or open Files
	gen   atomic.Uint64       // Crash's generation: Files of older ones are dead
	dirty atomic.Int64        // bytes in dirty pages, all files
}

// vcInode is one file's state: what the process sees of it, against what
// the inner file holds.
type vcInode struct {
	path string // its absolute path in files, "" once removed (guarded by VolatileCache.mu)
	open int    // open Files (guarded by VolatileCache.mu)

	mu sync.Mutex
	// size is the file's size as the process sees it.
	size int64
	// valid: outside dirty pages, bytes [0, valid) are the inner file's
	// and bytes [valid, size) are zeros (a truncation cut them, or an
	// extension made them). valid <= size.
	valid int64
	// innerSize is the inner file's size as last written.
	innerSize int64
	// pages are the dirty pages by index; bytes of a page past size are
	// zero.
	pages map[int64][]byte
}

// clean reports whether the inner file holds exactly what the process
// sees. The caller holds ino.mu.
func (ino *vcInode) clean() bool {
	return len(ino.pages) == 0 && ino.valid == ino.size && ino.innerSize == ino.size
}

// NewVolatileCache returns a VolatileCache over inner that holds at most
// limit bytes of unsynced data (0: DefaultVolatileLimit; at least one
// page).
func NewVolatileCache(inner FS, limit int64) *VolatileCache {
	if limit <= 0 {
		limit = DefaultVolatileLimit
	}
	return &VolatileCache{inner: inner, limit: max(limit, VolatilePageSize), files: map[string]*vcInode{}}
}

// Unsynced returns how many bytes of unsynced data the cache holds, in
// whole pages.
func (c *VolatileCache) Unsynced() int64 { return c.dirty.Load() }

// Crash throws away every unsynced byte, as the death of the process
// would, and kills every File opened so far (ErrCrashed). It lets one
// process test what a kill -9 of another would leave: open the files
// again through this cache (or a new one over the same inner FS) to see
// it.
func (c *VolatileCache) Crash() {
	c.mu.Lock()
	c.gen.Add(1)
	inos := make([]*vcInode, 0, len(c.files))
	for _, ino := range c.files {
		ino.path = ""
		inos = append(inos, ino)
	}
	clear(c.files)
	c.mu.Unlock()
	for _, ino := range inos { // ino.mu after c.mu, never inside it
		ino.mu.Lock()
		ino.drop(c)
		ino.mu.Unlock()
	}
}

// key is the cache's name for a path.
func key(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return filepath.Clean(name)
}

const accessModes = os.O_RDONLY | os.O_WRONLY | os.O_RDWR

// OpenFile implements FS. The inner file is opened for reading and
// writing when it can be (a Sync through a read-only File writes its
// file's pages, as fsync on a read-only descriptor does); O_TRUNC is a
// pending truncation, durable at the next Sync.
func (c *VolatileCache) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	writable := flag&(os.O_WRONLY|os.O_RDWR) != 0
	innerFlag := flag &^ (accessModes | os.O_TRUNC | os.O_APPEND)
	inner, err := c.inner.OpenFile(name, innerFlag|os.O_RDWR, perm)
	if err != nil && !writable {
		// A file or file system this process may only read: the
		// caller asked for no more.
		inner, err = c.inner.OpenFile(name, innerFlag|os.O_RDONLY, perm)
	}
	if err != nil {
		return nil, err
	}
	innerSize, err := inner.Size()
	if err != nil {
		inner.Close()
		return nil, err
	}
	k := key(name)
	gen := c.gen.Load()
	c.mu.Lock()
	ino := c.files[k]
	if ino == nil {
		ino = &vcInode{path: k, size: innerSize, valid: innerSize, innerSize: innerSize}
		c.files[k] = ino
	}
	ino.open++
	c.mu.Unlock()
	f := &vcFile{c: c, ino: ino, inner: inner, name: name, gen: gen, writable: writable}
	if flag&os.O_TRUNC != 0 && writable {
		ino.mu.Lock()
		ino.truncate(c, 0)
		ino.mu.Unlock()
	}
	return f, nil
}

// Remove implements FS: the name goes at once; the data goes when no open
// File holds it any more.
func (c *VolatileCache) Remove(name string) error {
	k := key(name)
	c.mu.Lock()
	if err := c.inner.Remove(name); err != nil {
		c.mu.Unlock()
		return err
	}
	ino := c.detach(k)
	c.mu.Unlock()
	if ino != nil {
		ino.mu.Lock()
		ino.drop(c)
		ino.mu.Unlock()
	}
	return nil
}

// detach takes the file at k out of the cache's names. It returns the
// file if no File holds it (the caller drops its data), else nil. The
// caller holds c.mu.
func (c *VolatileCache) detach(k string) *vcInode {
	ino := c.files[k]
	if ino == nil {
		return nil
	}
	delete(c.files, k)
	ino.path = ""
	if ino.open > 0 {
		return nil
	}
	return ino
}

// Rename implements FS: the inner rename happens at once and the
// unsynced data follows the name (a directory's files follow it too).
func (c *VolatileCache) Rename(oldpath, newpath string) error {
	ok, nk := key(oldpath), key(newpath)
	c.mu.Lock()
	if err := c.inner.Rename(oldpath, newpath); err != nil {
		c.mu.Unlock()
		return err
	}
	var dropped []*vcInode
	if ok != nk {
		if ino := c.detach(nk); ino != nil {
			dropped = append(dropped, ino)
		}
		if ino := c.files[ok]; ino != nil {
			delete(c.files, ok)
			ino.path = nk
			c.files[nk] = ino
		}
		prefix := ok + string(filepath.Separator)
		for k, ino := range c.files {
			if strings.HasPrefix(k, prefix) {
				delete(c.files, k)
				ino.path = nk + k[len(ok):]
				c.files[ino.path] = ino
			}
		}
	}
	c.mu.Unlock()
	for _, ino := range dropped {
		ino.mu.Lock()
		ino.drop(c)
		ino.mu.Unlock()
	}
	return nil
}

// ReadDir implements FS with the inner FS's listing: names are applied
// at once, so it is current.
func (c *VolatileCache) ReadDir(dir string) ([]DirEntry, error) { return c.inner.ReadDir(dir) }

// MkdirAll implements FS on the inner FS.
func (c *VolatileCache) MkdirAll(dir string, perm fs.FileMode) error {
	return c.inner.MkdirAll(dir, perm)
}

// RemoveDir implements FS on the inner FS.
func (c *VolatileCache) RemoveDir(dir string) error { return c.inner.RemoveDir(dir) }

// SyncDir implements FS on the inner FS.
func (c *VolatileCache) SyncDir(dir string) error { return c.inner.SyncDir(dir) }

// Lock implements FS on the inner FS: a real lock, released by the
// process's death.
func (c *VolatileCache) Lock(path string) (io.Closer, error) { return c.inner.Lock(path) }

// vcFile is an open File of a VolatileCache: the shared state of its file
// and a descriptor of the inner file of its own.
type vcFile struct {
	c        *VolatileCache
	ino      *vcInode
	inner    File
	name     string
	gen      uint64
	writable bool
	closed   atomic.Bool
}

// check returns the error for using f now, or nil.
func (f *vcFile) check(op string, write bool) error {
	switch {
	case f.gen != f.c.gen.Load():
		return pathErr(op, f.name, ErrCrashed)
	case f.closed.Load():
		return pathErr(op, f.name, fs.ErrClosed)
	case write && !f.writable:
		return pathErr(op, f.name, fs.ErrPermission)
	}
	return nil
}

func (f *vcFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.check("read", false); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, pathErr("read", f.name, fs.ErrInvalid)
	}
	ino := f.ino
	ino.mu.Lock()
	defer ino.mu.Unlock()
	if off >= ino.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), ino.size-off))
	if err := ino.read(f.inner, p[:n], off); err != nil {
		return 0, pathErr("read", f.name, err)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// read fills p with the file's content at off; p ends at or before size.
// Runs of clean pages are read from the inner file in one call. The
// caller holds ino.mu.
func (ino *vcInode) read(inner File, p []byte, off int64) error {
	end := off + int64(len(p))
	for pos := off; pos < end; {
		idx := pos / VolatilePageSize
		if pg, ok := ino.pages[idx]; ok {
			n := copy(p[pos-off:end-off], pg[pos-idx*VolatilePageSize:])
			pos += int64(n)
			continue
		}
		// A run of clean pages: [pos, runEnd).
		runEnd := (idx + 1) * VolatilePageSize
		for runEnd < end {
			if _, ok := ino.pages[runEnd/VolatilePageSize]; ok {
				break
			}
			runEnd += VolatilePageSize
		}
		runEnd = min(runEnd, end)
		if from := min(runEnd, ino.valid); pos < from {
			if err := readFull(inner, p[pos-off:from-off], pos); err != nil {
				return err
			}
			pos = from
		}
		clear(p[pos-off : runEnd-off]) // past valid: zeros
		pos = runEnd
	}
	return nil
}

// readFull reads exactly len(p) bytes at off: a shorter inner file is an
// error, never zeros.
func readFull(f File, p []byte, off int64) error {
	n, err := f.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = fmt.Errorf("vfs: the inner file ended at %d, before %d: %w", off+int64(n), off+int64(len(p)), io.ErrUnexpectedEOF)
	}
	return err
}

func (f *vcFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.check("write", true); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, pathErr("write", f.name, fs.ErrInvalid)
	}
	ino := f.ino
	ino.mu.Lock()
	defer ino.mu.Unlock()
	end := off + int64(len(p))
	for pos := off; pos < end; {
		idx := pos / VolatilePageSize
		pg, err := ino.page(f.c, f.inner, idx, pos == idx*VolatilePageSize && end >= (idx+1)*VolatilePageSize)
		if err != nil {
			return int(pos - off), pathErr("write", f.name, err)
		}
		n := copy(pg[pos-idx*VolatilePageSize:], p[pos-off:])
		pos += int64(n)
		ino.size = max(ino.size, pos) // after the copy: a failed load leaves size alone
	}
	if f.c.dirty.Load() > f.c.limit {
		if err := ino.flush(f.c, f.inner); err != nil {
			// The write itself stands (it is in the cache); the failed
			// writeback leaves its pages dirty.
			return len(p), pathErr("writeback", f.name, err)
		}
	}
	return len(p), nil
}

// page returns dirty page idx, making it dirty first with the content it
// has now unless whole (the caller overwrites all of it). The caller
// holds ino.mu.
func (ino *vcInode) page(c *VolatileCache, inner File, idx int64, whole bool) ([]byte, error) {
	if pg, ok := ino.pages[idx]; ok {
		return pg, nil
	}
	pg := make([]byte, VolatilePageSize)
	start := idx * VolatilePageSize
	if lim := min(ino.valid, ino.size); !whole && start < lim {
		if err := readFull(inner, pg[:min(VolatilePageSize, lim-start)], start); err != nil {
			return nil, err
		}
	}
	if ino.pages == nil {
		ino.pages = map[int64][]byte{}
	}
	ino.pages[idx] = pg
	c.dirty.Add(VolatilePageSize)
	return pg, nil
}

func (f *vcFile) Truncate(size int64) error {
	if err := f.check("truncate", true); err != nil {
		return err
	}
	if size < 0 {
		return pathErr("truncate", f.name, fs.ErrInvalid)
	}
	f.ino.mu.Lock()
	defer f.ino.mu.Unlock()
	f.ino.truncate(f.c, size)
	return nil
}

// truncate sets the size; the inner file follows at the next Sync. The
// caller holds ino.mu.
func (ino *vcInode) truncate(c *VolatileCache, size int64) {
	if size < ino.size {
		for idx, pg := range ino.pages {
			switch start := idx * VolatilePageSize; {
			case start >= size:
				delete(ino.pages, idx)
				c.dirty.Add(-VolatilePageSize)
			case start+VolatilePageSize > size:
				clear(pg[size-start:]) // bytes past size stay zero
			}
		}
	}
	ino.size = size
	ino.valid = min(ino.valid, size)
}

// flush writes the file's pending truncation and dirty pages to inner,
// without fsync; after it the inner file holds what the process sees.
// The caller holds ino.mu.
func (ino *vcInode) flush(c *VolatileCache, inner File) error {
	if ino.innerSize > ino.valid {
		// Bytes past valid read as zeros here but not in the inner file.
		if err := inner.Truncate(ino.valid); err != nil {
			return err
		}
		ino.innerSize = ino.valid
	}
	idxs := make([]int64, 0, len(ino.pages))
	for idx := range ino.pages {
		idxs = append(idxs, idx)
	}
	slices.Sort(idxs)
	var buf []byte
	for i := 0; i < len(idxs); {
		// Contiguous pages go out in one write of up to 64 pages.
		j := i + 1
		for j < len(idxs) && idxs[j] == idxs[j-1]+1 && j-i < 64 {
			j++
		}
		start := idxs[i] * VolatilePageSize
		end := min((idxs[j-1]+1)*VolatilePageSize, ino.size)
		buf = buf[:0]
		for _, idx := range idxs[i:j] {
			buf = append(buf, ino.pages[idx]...)
		}
		if _, err := inner.WriteAt(buf[:end-start], start); err != nil {
			return err
		}
		ino.innerSize = max(ino.innerSize, end)
		for _, idx := range idxs[i:j] {
			delete(ino.pages, idx)
			c.dirty.Add(-VolatilePageSize)
		}
		i = j
	}
	if ino.innerSize != ino.size {
		if err := inner.Truncate(ino.size); err != nil {
			return err
		}
		ino.innerSize = ino.size
	}
	ino.valid = ino.size
	return nil
}

// drop forgets the file's unsynced data. The caller holds ino.mu.
func (ino *vcInode) drop(c *VolatileCache) {
	c.dirty.Add(-int64(len(ino.pages)) * VolatilePageSize)
	ino.pages = nil
}

// Sync writes the file's unsynced data to the inner file, then fsyncs it.
// Reads and writes of the file wait for the writes, not for the fsync.
func (f *vcFile) Sync() error {
	if err := f.check("sync", false); err != nil {
		return err
	}
	f.ino.mu.Lock()
	err := f.ino.flush(f.c, f.inner)
	f.ino.mu.Unlock()
	if err != nil {
		return pathErr("sync", f.name, err)
	}
	return f.inner.Sync()
}

func (f *vcFile) Size() (int64, error) {
	if err := f.check("stat", false); err != nil {
		return 0, err
	}
	f.ino.mu.Lock()
	defer f.ino.mu.Unlock()
	return f.ino.size, nil
}

// Close closes the inner descriptor. The file's unsynced data stays in
// the cache under its path (or goes, if the file was removed).
func (f *vcFile) Close() error {
	if f.gen != f.c.gen.Load() {
		f.inner.Close()
		return pathErr("close", f.name, ErrCrashed)
	}
	if f.closed.Swap(true) {
		return pathErr("close", f.name, fs.ErrClosed)
	}
	ino, c := f.ino, f.c
	ino.mu.Lock()
	clean := ino.clean()
	c.mu.Lock()
	ino.open--
	last := ino.open == 0
	if last && ino.path == "" {
		ino.drop(c) // removed: nobody can reach the data any more
	} else if last && clean && c.files[ino.path] == ino {
		delete(c.files, ino.path)
	}
	c.mu.Unlock()
	ino.mu.Unlock()
	return f.inner.Close()
}
