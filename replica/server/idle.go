package server

import "github.com/kaenlog/kaenlog/replica/clock"

// DefaultConnectionsMaxIdleMs is how long an accepted connection may stay
// idle before the host closes it (Kafka's connections.max.idle.ms).
const DefaultConnectionsMaxIdleMs = 10 * 60 * 1000

// maxIdleMs is the idle bound, negative for none.
func (c Config) maxIdleMs() int64 {
	if c.ConnectionsMaxIdleMs < 0 {
		return -1
	}
	return positive(c.ConnectionsMaxIdleMs, DefaultConnectionsMaxIdleMs)
}

// An accepted connection is idle when nothing happened on it for
// Config.ConnectionsMaxIdleMs on the host's clock: no request read, no
// response handed to it, and none of its requests waiting for an answer
// or for the socket (a parked fetch keeps its connection open however long
// it waits). Kafka's Selector closes such connections, so that a client
// that vanished without a FIN does not hold a socket for ever.
//
// One timer per host sweeps the connections: at the earliest moment one
// of them can have been idle long enough, or one bound from now when none
// is idle (a connection that goes idle later expires later still), and
// only while there are connections.

// touch records activity on c at nowMs. The node lock is held.
func (c *inConn) touch(nowMs int64) { c.lastActiveMs = nowMs }

// busy reports whether a request of c waits for its answer or its answer
// for the socket, or whether c is dead (nothing to close). The node lock
// is held.
func (c *inConn) busy() bool {
	if len(c.queue) > 0 {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead || len(c.out) > 0 || c.writing
}

// watchIdle starts the idle sweep after a connection was accepted, if it
// is not running. The node lock is held.
func (h *Host) watchIdle() {
	if bound := h.cfg.maxIdleMs(); bound >= 0 && h.idleTimer == nil && !h.closed {
		h.idleTimer = h.clk.AfterFunc(bound, h.sweepIdle)
	}
}

// sweepIdle closes the connections idle for the bound and schedules the
// next sweep while connections remain.
func (h *Host) sweepIdle() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.idleTimer = nil
	if h.closed {
		return
	}
	now, bound := h.clk.NowMs(), h.cfg.maxIdleMs()
	next := clock.Never
	if now <= clock.Never-bound {
		next = now + bound
	}
	for _, c := range h.inbound {
		if c.busy() {
			// Busy now: idle, if ever, only from now on. A response still
			// being written counts as activity until it is out.
			c.touch(now)
			continue
		}
		if expires := c.lastActiveMs + bound; expires > now {
			next = min(next, expires)
			continue
		}
		h.logf("client %d (%v): closed after %d ms idle (connections.max.idle.ms %d)", c.id, c.nc.RemoteAddr(), now-c.lastActiveMs, bound)
		c.shut()
	}
	if len(h.inbound) > 0 && next != clock.Never {
		h.idleTimer = h.clk.AfterFunc(next-now, h.sweepIdle)
	}
}

// stopIdle stops the sweep. The node lock is held.
func (h *Host) stopIdle() {
	if h.idleTimer != nil {
		h.idleTimer.Stop()
		h.idleTimer = nil
	}
}
