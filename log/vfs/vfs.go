// Package vfs is the seam between package log and the file system: every
// file operation the log does (segments, index files, checkpoints, the
// clean-shutdown marker, directory listings, directory fsyncs and the
// directory lock) goes through an FS.
//
// Four implementations are provided:
//
//   - OS is the real file system;
//   - NewMem is an in-memory file system with a durability model: it knows
//     what an fsync made durable, and Crash throws away what a process kill
//     or a power cut would. It is deterministic (no goroutines, no clock,
//     randomness only from a seed the caller passes), so it serves as the
//     oracle of the log's power-cut tests and of a deterministic simulator;
//   - Faulty wraps any FS and makes chosen calls fail (EIO, ENOSPC, ...),
//     to test that a failed write or fsync is never forgotten;
//   - NewVolatileCache wraps a real FS and keeps unsynced file data in the
//     process's memory until Sync, so that a kill -9 of the process loses
//     what a power cut of the machine would: power-loss tests of real
//     processes (a broker's -simulate-power-loss).
//
// The model is hashicorp/raft-wal's VFS: small interfaces, holding exactly
// what the log needs.
package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// FS is the set of file-system operations package log uses. Names are
// paths as the os package takes them. Errors for missing files match
// fs.ErrNotExist, for existing ones (O_EXCL) fs.ErrExist.
type FS interface {
	// OpenFile opens a file with os.OpenFile's flags (os.O_RDONLY,
	// os.O_WRONLY, os.O_RDWR, os.O_CREATE, os.O_EXCL, os.O_TRUNC).
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	// Remove deletes a file. The deletion is durable once its directory
	// is synced (SyncDir).
	Remove(name string) error
	// Rename replaces newpath with oldpath atomically. The rename is
	// durable once the directory is synced (SyncDir).
	Rename(oldpath, newpath string) error
	// ReadDir lists a directory, in no particular order.
	ReadDir(dir string) ([]DirEntry, error)
	// MkdirAll creates a directory and any missing parents.
	MkdirAll(dir string, perm fs.FileMode) error
	// RemoveDir deletes an empty directory (a deleted partition's). The
	// deletion is durable once its parent is synced (SyncDir).
	RemoveDir(dir string) error
	// SyncDir makes the directory's entries (creations, renames,
	// deletions) durable: an fsync of the directory.
	SyncDir(dir string) error
	// Lock takes an exclusive lock on the file at path (creating it) for
	// as long as the returned Closer is open, and writes the holder's
	// process id into the file. If the lock is held, by this process or
	// another, it returns an error wrapping ErrLocked that names the
	// holder's pid when known.
	Lock(path string) (io.Closer, error)
}

// DirEntry is one name in a directory listing.
type DirEntry struct {
	Name    string // base name
	Regular bool   // a regular file (not a directory, link or device)
}

// File is an open file. Offsets are explicit: there is no file position.
type File interface {
	// ReadAt reads len(p) bytes at off, as io.ReaderAt (io.EOF when the
	// file ends first).
	ReadAt(p []byte, off int64) (int, error)
	// WriteAt writes p at off, extending the file (with zeros up to off)
	// if needed.
	WriteAt(p []byte, off int64) (int, error)
	// Truncate changes the file's size.
	Truncate(size int64) error
	// Sync makes the file's content durable: an fsync.
	Sync() error
	// Size returns the file's current size.
	Size() (int64, error)
	// Close closes the file.
	Close() error
}

// Preallocator is a File that can reserve disk blocks ahead of its
// writes without changing its size or any byte a read sees (Linux's
// fallocate with FALLOC_FL_KEEP_SIZE, what Kafka's preallocate option
// does for a whole segment). It is optional: the files of OS implement it
// (on Linux; elsewhere it returns errors.ErrUnsupported), the simulated
// file systems do not, and a caller treats a failure as "no reservation".
type Preallocator interface {
	Preallocate(off, n int64) error
}

// ErrLocked is wrapped by the error FS.Lock returns when the lock is held
// by someone else.
var ErrLocked = errors.New("vfs: locked by another holder")

// ErrCrashed is returned by every File operation on a file opened before
// Mem.Crash: the process that opened it is dead.
var ErrCrashed = errors.New("vfs: file belongs to a crashed process")

// lockedError builds the error Lock returns: it names the path and, when
// known (pid > 0), the holder's process id.
func lockedError(path string, pid int) error {
	if pid > 0 {
		return fmt.Errorf("vfs: %s is held by process %d: %w", path, pid, ErrLocked)
	}
	return fmt.Errorf("vfs: %s is held by another process (pid unknown): %w", path, ErrLocked)
}

// ErrTooLarge is wrapped by the error ReadFile returns for a file larger
// than its limit.
var ErrTooLarge = errors.New("vfs: file larger than the limit")

// ReadFile reads the whole file name from fsys. A file larger than limit
// bytes is not read (an error wrapping ErrTooLarge), so a damaged file
// cannot make the caller allocate more than it expects.
func ReadFile(fsys FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return nil, err
	}
	if size > limit {
		return nil, fmt.Errorf("vfs: %s is %d bytes, more than %d: %w", name, size, limit, ErrTooLarge)
	}
	buf := make([]byte, size)
	n, err := f.ReadAt(buf, 0)
	if n == len(buf) {
		return buf, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, &fs.PathError{Op: "read", Path: name, Err: err}
}
