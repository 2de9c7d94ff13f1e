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
// response handed to it, no write of responses under way, and none of its
// requests waiting for an answer within the wait it may be parked for
// (Config.MaxRequestWaitMs clamps it): a parked fetch counts as activity
// until its clamped MaxWaitMs ends, never longer, so a request the node
// never answers does not keep its connection, and the memory it holds,
// for ever. Kafka's Selector closes idle connections, so that a client
// that vanished without a FIN does not hold a socket for ever.
//
// One timer per host sweeps the connections: at the earliest moment one
// of them can have been idle long enough, or one bound from now when none
// is idle (a connection that goes idle later expires later still), and
// only while there are connections.

// touch records activity on c at nowMs. The node lock is held.
func (c *inConn) touch(nowMs int64) { c.lastActiveMs = nowMs }

// activeUntil returns until when c counts as active: its last activity,
// or later while one of its requests may still be parked; ok false while
// a write of its responses is under way or c is dead (nothing to close).
// The node lock is held.
func (c *inConn) activeUntil(nowMs int64) (untilMs int64, ok bool) {
	c.mu.Lock()
	busy := c.dead || len(c.out) > 0 || c.writing
	c.mu.Unlock()
	if busy {
		return nowMs, false
	}
	untilMs = c.lastActiveMs
	for _, q := range c.queue {
		if !q.ready && !q.closeMark {
			untilMs = max(untilMs, q.activeUntilMs)
		}
	}
	return untilMs, true
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
		active, ok := c.activeUntil(now)
		if !ok {
			// Writing now: idle, if ever, only from now on. A write that
			// does not end is the write deadline's (deadline.go).
			c.touch(now)
			continue
		}
		if expires := clock.Deadline(active, bound); expires > now {
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
