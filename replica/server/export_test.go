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
