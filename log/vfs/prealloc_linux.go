//go:build linux

package vfs

import "syscall"

// fallocKeepSize is FALLOC_FL_KEEP_SIZE: allocate blocks past the end of
// the file without changing its size.
const fallocKeepSize = 0x1

// Preallocate reserves n bytes of the file's disk blocks at off without
// changing its size (fallocate with FALLOC_FL_KEEP_SIZE).
func (f osFile) Preallocate(off, n int64) error {
	conn, err := f.File.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := conn.Control(func(fd uintptr) {
		for {
			if ferr = syscall.Fallocate(int(fd), fallocKeepSize, off, n); ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}
