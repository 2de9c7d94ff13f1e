package server

import (
	"math/bits"
	"sync"
)

// Request frames and the parts of responses the socket did not take at
// once live in buffers drawn from pools shared by every connection of the
// process, by size class (powers of two from minPooled to maxPooled): a
// buffer goes back when its request's response is written, so a
// connection keeps no buffer between requests, and an idle one holds only
// its read buffer. Larger buffers are allocated for the frame and left to
// the collector after it.
const (
	minPooledShift = 10 // 1 KiB
	maxPooledShift = 20 // 1 MiB
	maxPooled      = 1 << maxPooledShift
)

// pooled is one buffer of a pool; the box travels with the buffer so that
// putting it back allocates nothing.
type pooled struct {
	b     []byte
	class int8 // its pool, or -1 for a buffer of no pool
}

var pools [maxPooledShift - minPooledShift + 1]sync.Pool

// getBuf returns a buffer of n bytes.
func getBuf(n int) *pooled {
	if n > maxPooled {
		return &pooled{b: make([]byte, n), class: -1}
	}
	shift := minPooledShift
	if n > 1<<minPooledShift {
		shift = bits.Len(uint(n - 1))
	}
	class := shift - minPooledShift
	if p, ok := pools[class].Get().(*pooled); ok {
		p.b = p.b[:n]
		return p
	}
	return &pooled{b: make([]byte, n, 1<<shift), class: int8(class)}
}

// putBuf gives p back to its pool; nil is nothing.
func putBuf(p *pooled) {
	if p == nil || p.class < 0 {
		return
	}
	pools[p.class].Put(p)
}

// size is what p occupies: what the budget counts for it.
func (p *pooled) size() int64 { return int64(cap(p.b)) }
