//go:build linux

package server

import (
	"io"
	"net"
	"os"
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

// writev is a raw system call: a writev of a non-blocking socket never
// waits, so the runtime need not hand the P to another thread around it
// (entersyscall), and skipping that keeps an idle process's sysmon thread
// asleep: entersyscall wakes it, and it then polls every 20 µs until the
// process idles again, a wake-up and a context switch each time, which on
// a machine with fewer cores than busy processes delays the next hop.
func (w *rawWriter) writev(fd uintptr) bool {
	r, _, e := syscall.RawSyscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&w.iov[0])), uintptr(len(w.iov)))
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

// rawReader reads a connection with raw read system calls, for the reason
// writev gives; Go's poller still parks the reader while the socket is
// empty (the read returns EAGAIN), as net.Conn's Read does.
type rawReader struct {
	rc    syscall.RawConn
	p     []byte
	n     int
	errno syscall.Errno
	fn    func(uintptr) bool // r.read, bound once: no closure per read
}

// newReader returns what a connection's bufio.Reader reads from: the raw
// reader of nc, or nc itself if it has no file descriptor.
func newReader(nc net.Conn) io.Reader {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nc
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nc
	}
	r := &rawReader{rc: rc}
	r.fn = r.read
	return r
}

func (r *rawReader) read(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.p[0])), uintptr(len(r.p)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // the poller waits for the socket
		}
		r.n, r.errno = int(n), e
		return true
	}
}

// Read reads what the socket holds into p, waiting for it if it holds
// nothing; 0 bytes read is the peer's end (io.EOF).
func (r *rawReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p = p
	err := r.rc.Read(r.fn)
	r.p = nil
	switch {
	case err != nil:
		return 0, err
	case r.errno != 0:
		return 0, os.NewSyscallError("read", r.errno)
	case r.n == 0:
		return 0, io.EOF
	}
	return r.n, nil
}
