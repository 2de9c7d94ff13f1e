package server

import (
	"sync"
)

// Defaults of the memory budget (see the package documentation, "Memory
// a client can pin").
const (
	// DefaultMaxHeldBytes bounds the request and response bytes the host
	// holds for all accepted connections together beyond each one's
	// connectionFreeBytes (Kafka's queued.max.request.bytes, unbounded by
	// default there). 256 MiB lets two frames of the largest size
	// (wire.DefaultMaxFrameSize, 100 MiB) be read at once, or five fetch
	// responses of the largest size wait for their clients, while staying
	// a small part of what a broker host has.
	DefaultMaxHeldBytes = 256 << 20
	// DefaultMaxConnectionHeldBytes bounds what one accepted connection
	// may hold: an eighth of DefaultMaxHeldBytes, so that one client
	// alone cannot spend the host's budget. It is more than a producer's
	// five in-flight requests of Kafka's max.request.size (1 MiB) and
	// more than a follower's fetch response (replica.fetch.response.max.bytes,
	// 10 MiB).
	DefaultMaxConnectionHeldBytes = 32 << 20
)

// connectionFreeBytes is what each accepted connection may hold without
// drawing on Config.MaxHeldBytes: a small constant per connection, so that
// a client sending small requests is never stopped by others that spent
// the shared budget. It is the size of the connection's read buffer.
const connectionFreeBytes = readBufferSize

// memBudget accounts for the bytes the host holds for its accepted
// connections: every request frame from its length prefix (so a frame
// read in part counts whole) until its response is written, and every
// response byte the socket did not take at once until it is written. A
// connection draws on its own bound first (Config.MaxConnectionHeldBytes)
// and, beyond connectionFreeBytes, on the host's (Config.MaxHeldBytes).
//
// Readers wait here, before they read a frame's payload, for the bytes it
// needs (the socket is then not read: back-pressure); they are served in
// arrival order, so a large frame is not passed over for ever by small
// ones. Responses never wait (they are framed with the node lock held):
// their bytes are charged as they are, and the records of a fetch
// response are bounded beforehand by grant, asked by the broker while it
// answers.
type memBudget struct {
	mu sync.Mutex
	// limit and perConn are the bounds; negative is none.
	limit, perConn int64
	// shared is what connections hold beyond connectionFreeBytes: the
	// part counted against limit.
	shared int64
	// queue is the readers waiting for shared bytes, oldest first.
	queue []*memWaiter
}

// memWaiter is a reader waiting for n bytes of the shared budget.
type memWaiter struct {
	c     *inConn
	n     int64
	ready chan struct{} // closed when the bytes are the reader's
	done  bool          // granted or given up
}

func newMemBudget(limit, perConn int64) *memBudget {
	return &memBudget{limit: limit, perConn: perConn}
}

// beyondFree is the part of held that counts against the shared budget.
func beyondFree(held int64) int64 { return max(0, held-connectionFreeBytes) }

// fitsShared reports whether extra more shared bytes may be held: they fit
// under the limit, or nothing shared is held at all — so that one frame
// larger than the whole budget is still read, alone. The lock is held.
func (b *memBudget) fitsShared(extra int64) bool {
	return b.limit < 0 || extra == 0 || b.shared+extra <= b.limit || b.shared == 0
}

// fitsConn reports whether c may hold n more bytes: they fit under its
// bound, or it holds nothing — a frame larger than the bound is read
// when the connection holds nothing else. The lock is held.
func (b *memBudget) fitsConn(c *inConn, n int64) bool {
	return b.perConn < 0 || c.memHeld == 0 || c.memHeld+n <= b.perConn
}

// take adds n bytes to what c holds. The lock is held.
func (b *memBudget) take(c *inConn, n int64) {
	if c.memDead {
		return // forget gave back all it held
	}
	b.shared += beyondFree(c.memHeld+n) - beyondFree(c.memHeld)
	c.memHeld += n
}

// admit waits until c may hold n more bytes for a request frame and takes
// them. It returns false, holding nothing more, once c is dead.
func (b *memBudget) admit(c *inConn, n int64) bool {
	b.mu.Lock()
	for !b.fitsConn(c, n) {
		if c.memDead {
			b.mu.Unlock()
			return false
		}
		c.memWaiting = true
		b.mu.Unlock()
		<-c.memWake
		b.mu.Lock()
		c.memWaiting = false
	}
	if c.memDead {
		b.mu.Unlock()
		return false
	}
	extra := beyondFree(c.memHeld+n) - beyondFree(c.memHeld)
	if extra == 0 || (len(b.queue) == 0 && b.fitsShared(extra)) {
		b.take(c, n)
		b.mu.Unlock()
		return true
	}
	w := &memWaiter{c: c, n: n, ready: make(chan struct{})}
	b.queue = append(b.queue, w)
	c.memWaiter, c.memWaiting = w, true
	b.mu.Unlock()
	<-w.ready
	b.mu.Lock()
	defer b.mu.Unlock()
	c.memWaiter, c.memWaiting = nil, false
	return !c.memDead
}

// pump grants the oldest waiters what fits, and any waiter whose frame
// now needs nothing shared: its own connection gave back what it held
// (a response written) after it queued, and making it wait behind
// others' large frames would stall it until they are read, though it
// takes nothing from them. The lock is held.
func (b *memBudget) pump() {
	for len(b.queue) > 0 {
		w := b.queue[0]
		if !w.done {
			if !b.fitsShared(w.extra()) {
				break
			}
			b.grantWaiter(w)
		}
		b.queue[0] = nil
		b.queue = b.queue[1:]
	}
	if len(b.queue) == 0 {
		b.queue = nil // let the backing array go once the queue is empty
		return
	}
	for _, w := range b.queue[1:] {
		if !w.done && w.extra() == 0 {
			b.grantWaiter(w) // dropped from the queue when it reaches the head
		}
	}
}

// extra is what w's frame would take from the shared budget now. The
// lock is held.
func (w *memWaiter) extra() int64 {
	return beyondFree(w.c.memHeld+w.n) - beyondFree(w.c.memHeld)
}

// grantWaiter gives w its bytes and wakes it. The lock is held.
func (b *memBudget) grantWaiter(w *memWaiter) {
	b.take(w.c, w.n)
	w.done = true
	close(w.ready)
}

// charge adds n bytes to what c holds without waiting (a response's).
func (b *memBudget) charge(c *inConn, n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.take(c, n)
	b.mu.Unlock()
}

// release gives back n bytes c held, and wakes whoever they let in.
func (b *memBudget) release(c *inConn, n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	if !c.memDead {
		b.shared -= beyondFree(c.memHeld) - beyondFree(c.memHeld-n)
		c.memHeld -= n
	}
	select {
	case c.memWake <- struct{}{}:
	default:
	}
	b.pump()
	b.mu.Unlock()
}

// grant returns how many bytes of records, at most want, a response to c
// may carry now, and takes them until the host's route is done
// (Host.releaseGrants): what c may still hold, and of the shared budget
// what is free and not owed to a waiting reader.
func (b *memBudget) grant(c *inConn, want int) int {
	if want <= 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	room := int64(want)
	if b.perConn >= 0 {
		room = min(room, b.perConn-c.memHeld)
	}
	if b.limit >= 0 {
		free := max(0, connectionFreeBytes-c.memHeld)
		if len(b.queue) == 0 {
			free += max(0, b.limit-b.shared)
		}
		room = min(room, free)
	}
	if room <= 0 {
		return 0
	}
	b.take(c, room)
	c.memGranted += room
	return int(room)
}

// releaseGrant gives back what grant took for c.
func (b *memBudget) releaseGrant(c *inConn) {
	b.mu.Lock()
	n := c.memGranted
	c.memGranted = 0
	b.mu.Unlock()
	b.release(c, n)
}

// forget gives back everything c holds once it is closed, and ends its
// wait if it is waiting.
func (b *memBudget) forget(c *inConn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.memDead {
		return
	}
	c.memDead = true
	if w := c.memWaiter; w != nil && !w.done {
		w.done = true
		close(w.ready)
	}
	select {
	case c.memWake <- struct{}{}:
	default:
	}
	b.shared -= beyondFree(c.memHeld)
	c.memHeld = 0
	b.pump()
}
