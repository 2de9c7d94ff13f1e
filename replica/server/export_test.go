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
