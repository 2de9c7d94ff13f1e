//go:build linux

package server

import (
	"net"
	"syscall"
	"unsafe"
)

// maxIovecs is Linux's IOV_MAX: the most pieces one writev takes.
const maxIovecs = 1024

// rawWriter makes one attempt to write pieces with a single writev
// without waiting for the socket: the fast path of a connection whose
// writer is idle. The socket is non-blocking (Go's poller keeps it so),
// so the attempt writes what the socket buffer takes, or nothing, at
// once; it never stalls the caller, who holds the node lock.
type rawWriter struct {
	rc    syscall.RawConn
	iov   []syscall.Iovec
	n     int
	errno syscall.Errno
	fn    func(uintptr) bool // w.writev, bound once: no closure per write
}

// newRawWriter returns the fast path of nc, or nil if nc has no file
// descriptor to write to.
func newRawWriter(nc net.Conn) *rawWriter {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &rawWriter{rc: rc}
	w.fn = w.writev
	return w
}

func (w *rawWriter) writev(fd uintptr) bool {
	r, _, e := syscall.Syscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&w.iov[0])), uintptr(len(w.iov)))
	w.n, w.errno = int(r), e
	return true // one attempt: never wait for the socket here
}

// try writes what the socket takes of pieces at once and returns how many
// bytes went; an error means the connection is broken.
func (w *rawWriter) try(pieces [][]byte) (int, error) {
	w.iov = w.iov[:0]
	for _, b := range pieces {
		if len(b) == 0 {
			continue
		}
		if len(w.iov) == maxIovecs {
			break
		}
		v := syscall.Iovec{Base: &b[0]}
		v.SetLen(len(b))
		w.iov = append(w.iov, v)
	}
	if len(w.iov) == 0 {
		return 0, nil
	}
	err := w.rc.Write(w.fn)
	clear(w.iov) // keep no buffer alive
	if err != nil {
		return 0, err
	}
	switch w.errno {
	case 0:
		return w.n, nil
	case syscall.EAGAIN, syscall.EINTR:
		return 0, nil
	}
	return 0, w.errno
}
