package vfs

import (
	"fmt"
	"io"
	"io/fs"
	"sync"
)

// Op is a kind of file-system call, for counting and for fault injection.
type Op uint8

// The kinds of call FaultyFS counts. OpRead, OpWrite, OpSync and
// OpTruncate are File calls; the others are FS calls.
const (
	OpOpen Op = iota
	OpRead
	OpWrite
	OpSync
	OpTruncate
	OpRename
	OpRemove
	OpSyncDir
	OpReadDir
	OpLock
	numOps
)

// Ops lists every Op, in order.
var Ops = []Op{OpOpen, OpRead, OpWrite, OpSync, OpTruncate, OpRename, OpRemove, OpSyncDir, OpReadDir, OpLock}

var opNames = [numOps]string{"open", "read", "write", "sync", "truncate", "rename", "remove", "syncdir", "readdir", "lock"}

// String returns the op's name ("open", "read", "write", "sync", ...).
func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// FaultyFS wraps an FS, counts its calls by Op, and fails the calls it was
// told to fail. A failed call does nothing: it returns the injected error
// without reaching the inner FS. It is safe for concurrent use.
type FaultyFS struct {
	inner FS

	mu     sync.Mutex
	calls  [numOps]int
	total  int // calls of every kind
	cutAt  int // from this call on (of any kind) every call fails; 0: never
	cutErr error
	faults []fault
}

type fault struct {
	op     Op
	n      int  // the call number (1-based, counted since Faulty) that fails
	sticky bool // and every later one
	err    error
}

// Faulty returns a FaultyFS over inner with no faults injected.
func Faulty(inner FS) *FaultyFS { return &FaultyFS{inner: inner} }

// FailNth makes the n-th call of op (counting from 1 since Faulty, calls
// already made included) fail with err. Calls after it succeed again, as a
// real disk's retried fsync may.
func (f *FaultyFS) FailNth(op Op, n int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, fault{op: op, n: n, err: err})
}

// FailFrom makes the n-th call of op and every later one fail with err,
// as a full disk does for writes.
func (f *FaultyFS) FailFrom(op Op, n int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, fault{op: op, n: n, sticky: true, err: err})
}

// CutAt makes the n-th call overall (of any kind, counting from 1 since
// Faulty) and every later call fail with err, as if the machine lost
// power at that call: nothing after it reaches the disk. Follow it with
// Mem.Crash to drop what was not synced.
func (f *FaultyFS) CutAt(n int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cutAt, f.cutErr = n, err
}

// TotalCalls returns how many calls of every kind were made so far.
func (f *FaultyFS) TotalCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.total
}

// Heal removes every injected fault, CutAt's included.
func (f *FaultyFS) Heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults, f.cutAt = nil, 0
}

// Calls returns how many calls of op were made so far, failed ones
// included.
func (f *FaultyFS) Calls(op Op) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[op]
}

// call counts one call of op and returns the error to fail it with, or nil.
func (f *FaultyFS) call(op Op, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[op]++
	f.total++
	if f.cutAt > 0 && f.total >= f.cutAt {
		return &fs.PathError{Op: op.String(), Path: name, Err: f.cutErr}
	}
	n := f.calls[op]
	for _, ft := range f.faults {
		if ft.op == op && (n == ft.n || (ft.sticky && n > ft.n)) {
			return &fs.PathError{Op: op.String(), Path: name, Err: ft.err}
		}
	}
	return nil
}

// OpenFile implements FS.
func (f *FaultyFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	if err := f.call(OpOpen, name); err != nil {
		return nil, err
	}
	file, err := f.inner.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultyFile{fs: f, name: name, inner: file}, nil
}

// Remove implements FS.
func (f *FaultyFS) Remove(name string) error {
	if err := f.call(OpRemove, name); err != nil {
		return err
	}
	return f.inner.Remove(name)
}

// RemoveDir implements FS; its faults are OpRemove's.
func (f *FaultyFS) RemoveDir(dir string) error {
	if err := f.call(OpRemove, dir); err != nil {
		return err
	}
	return f.inner.RemoveDir(dir)
}

// Rename implements FS.
func (f *FaultyFS) Rename(oldpath, newpath string) error {
	if err := f.call(OpRename, oldpath); err != nil {
		return err
	}
	return f.inner.Rename(oldpath, newpath)
}

// ReadDir implements FS.
func (f *FaultyFS) ReadDir(dir string) ([]DirEntry, error) {
	if err := f.call(OpReadDir, dir); err != nil {
		return nil, err
	}
	return f.inner.ReadDir(dir)
}

// MkdirAll implements FS. It is not counted and never fails by injection.
func (f *FaultyFS) MkdirAll(dir string, perm fs.FileMode) error {
	return f.inner.MkdirAll(dir, perm)
}

// SyncDir implements FS.
func (f *FaultyFS) SyncDir(dir string) error {
	if err := f.call(OpSyncDir, dir); err != nil {
		return err
	}
	return f.inner.SyncDir(dir)
}

// Lock implements FS.
func (f *FaultyFS) Lock(path string) (io.Closer, error) {
	if err := f.call(OpLock, path); err != nil {
		return nil, err
	}
	return f.inner.Lock(path)
}

type faultyFile struct {
	fs    *FaultyFS
	name  string
	inner File
}

func (f *faultyFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.fs.call(OpRead, f.name); err != nil {
		return 0, err
	}
	return f.inner.ReadAt(p, off)
}

func (f *faultyFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.fs.call(OpWrite, f.name); err != nil {
		return 0, err
	}
	return f.inner.WriteAt(p, off)
}

func (f *faultyFile) Truncate(size int64) error {
	if err := f.fs.call(OpTruncate, f.name); err != nil {
		return err
	}
	return f.inner.Truncate(size)
}

func (f *faultyFile) Sync() error {
	if err := f.fs.call(OpSync, f.name); err != nil {
		return err
	}
	return f.inner.Sync()
}

func (f *faultyFile) Size() (int64, error) { return f.inner.Size() }
func (f *faultyFile) Close() error         { return f.inner.Close() }
