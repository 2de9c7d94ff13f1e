//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package vfs

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// lockFile takes flock(LOCK_EX|LOCK_NB) on path. flock locks belong to the
// open file description, so a second lockFile of the same path fails in
// this process as in any other.
func lockFile(path string) (*flockLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid := readPID(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, lockedError(path, pid)
		}
		return nil, &fs.PathError{Op: "flock", Path: path, Err: err}
	}
	if err := writePID(f); err != nil {
		f.Close()
		return nil, err
	}
	return &flockLock{f}, nil
}

type flockLock struct{ f *os.File }

// Close releases the lock. The file stays: deleting it would race with a
// process that has just opened it to lock it.
func (l *flockLock) Close() error {
	uerr := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if err := l.f.Close(); err != nil {
		return err
	}
	return uerr
}
