package server

// SetFastPath turns the writes from the node's goroutine (the fast path:
// a response or request written at once, records by reference, when the
// connection's writer is idle) on or off, and returns what it was.
func SetFastPath(on bool) bool {
	was := fastPath
	fastPath = on
	return was
}

// OpenInbound returns how many accepted connections are open: not closed
// by the host, nor ended by their peer.
func (h *Host) OpenInbound() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.inbound {
		c.mu.Lock()
		if !c.dead {
			n++
		}
		c.mu.Unlock()
	}
	return n
}

// Muted returns how many accepted connections are muted: as many of their
// requests in flight as Config.MaxInFlight allows, so that the next one is
// not read until an answer is written.
func (h *Host) Muted() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.inbound {
		c.mu.Lock()
		if !c.dead && c.inFlight >= h.cfg.maxInFlight() {
			n++
		}
		c.mu.Unlock()
	}
	return n
}

// ConnMemory is what an accepted connection holds of the memory budget.
type ConnMemory struct {
	Held       int64 // bytes held: requests read or being read, unsent responses
	Waiting    bool  // its reader waits for the budget before reading a frame
	Unanswered int   // requests delivered and not yet answered
	Delivered  int   // requests delivered that get an answer
}

// Memory returns what each open accepted connection holds, and what all
// hold beyond their free allowance.
func (h *Host) Memory() (conns []ConnMemory, shared int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.mem.mu.Lock()
	defer h.mem.mu.Unlock()
	for _, c := range h.inbound {
		if c.memDead {
			continue
		}
		m := ConnMemory{Held: c.memHeld, Waiting: c.memWaiting, Delivered: int(c.nextCorr)}
		for _, q := range c.queue {
			if !q.ready && !q.closeMark {
				m.Unanswered++
			}
		}
		conns = append(conns, m)
	}
	return conns, h.mem.shared
}
