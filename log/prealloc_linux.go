//go:build linux

package log

import "syscall"

// fallocKeepSize is FALLOC_FL_KEEP_SIZE: allocate blocks past the end of
// the file without changing its size.
const fallocKeepSize = 0x1

// fallocate allocates n bytes of f's blocks at off without changing its
// size, if f is an operating-system file (vfs.OS's files expose their
// descriptor through SyscallConn; other file systems have nothing to
// allocate). ok is false when it cannot (not such a file, or the file
// system refuses: no space, no support).
func fallocate(f any, off, n int64) (ok bool) {
	sc, isOS := f.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !isOS {
		return false
	}
	conn, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var ferr error
	if err := conn.Control(func(fd uintptr) {
		for {
			if ferr = syscall.Fallocate(int(fd), fallocKeepSize, off, n); ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return false
	}
	return ferr == nil
}
