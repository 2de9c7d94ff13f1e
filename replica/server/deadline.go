package server

import "github.com/kaenlog/kaenlog/replica/clock"

// A connection whose client does not read its responses would keep them,
// and the requests they answer, for as long as the socket stays open:
// Kafka's broker has no write deadline (its idle close waits for the
// socket, which never drains). Here one write of the connection's writer
// goroutine — every response ready at the head of the order, at most the
// connection's share of the memory budget — that has not completed
// Config.WriteTimeoutMs after it began closes the connection. The fast
// path's writes never wait, so they need no deadline. One timer per host
// sweeps, only while a write is under way.

// writeTimeoutMs is the write deadline, negative for none.
func (c Config) writeTimeoutMs() int64 { return orDefault(c.WriteTimeoutMs, DefaultWriteTimeoutMs) }

// watchWrites starts the write-deadline sweep when a write begins, if it
// is not running.
func (h *Host) watchWrites() {
	bound := h.cfg.writeTimeoutMs()
	if bound < 0 {
		return
	}
	h.wmu.Lock()
	defer h.wmu.Unlock()
	if h.writeTimer == nil {
		h.writeTimer = h.clk.AfterFunc(bound, h.sweepWrites)
	}
}

// sweepWrites closes the connections whose write under way began at
// least the deadline ago and schedules the next sweep while writes go on.
func (h *Host) sweepWrites() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.wmu.Lock()
	defer h.wmu.Unlock()
	h.writeTimer = nil
	if h.closed {
		return
	}
	now, bound := h.clk.NowMs(), h.cfg.writeTimeoutMs()
	next := int64(-1)
	for _, c := range h.inbound {
		c.mu.Lock()
		since := c.writeSinceMs
		c.mu.Unlock()
		if since < 0 {
			continue
		}
		if expires := clock.Deadline(since, bound); expires > now {
			if next < 0 || expires < next {
				next = expires
			}
			continue
		}
		h.logf("client %d (%v): closed after a write of responses took %d ms (write timeout %d ms): it does not read them", c.id, c.nc.RemoteAddr(), now-since, bound)
		c.shut()
	}
	if next >= 0 {
		h.writeTimer = h.clk.AfterFunc(next-now, h.sweepWrites)
	}
}

// stopWrites stops the sweep. The node lock is held.
func (h *Host) stopWrites() {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	if h.writeTimer != nil {
		h.writeTimer.Stop()
		h.writeTimer = nil
	}
}
