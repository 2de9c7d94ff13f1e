package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A node's requests to one peer travel on two connections, its lanes, as a
// Kafka broker keeps separate channels for its fetchers, its raft client
// and its lifecycle manager: fetches, which the peer may park for their
// MaxWaitMs, go on one; everything else (heartbeats, AlterPartition, epoch
// questions) on the other, so that a heartbeat never waits behind a parked
// fetch of the metadata log in the peer's response order.
const (
	laneControl = iota
	laneFetch
	lanes
)

// laneOf returns the lane of a request of kind key.
func laneOf(key wire.APIKey) int {
	if key == wire.APIFetch {
		return laneFetch
	}
	return laneControl
}

// outKey names an outbound connection: its peer and lane.
type outKey struct {
	peer replica.Addr
	lane int
}

// outState is where an outbound connection is in its life.
type outState uint8

const (
	outIdle    outState = iota // no connection; the next request dials
	outWaiting                 // a dial failed: the backoff timer redials
	outDialing                 // a dial is under way
	outUp                      // connected: requests are written as they come
)

// outConn is the host's connection to one peer on one lane. It dials when
// there is something to send, queues requests while it dials, and after a
// failure waits a backoff on the host's clock (doubling from
// ReconnectBackoffMs to ReconnectBackoffMaxMs) before dialling again. When
// a dial fails or a connection breaks, the requests queued or in flight on
// it are dropped and the node is told (Disconnected), so it sends them
// again; responses that might have been on their way are never delivered.
type outConn struct {
	h   *Host
	key outKey

	// Guarded by the node lock (h.mu):
	state       outState
	link        *link // the live connection, while outUp
	backoffMs   int64 // the wait after the next failure
	notBeforeMs int64 // no dial before this time
	timer       clock.Timer
	cancelDial  context.CancelFunc

	// mu guards the fields below; it is taken after h.mu, never before.
	mu      sync.Mutex
	work    sync.Cond
	buf     []byte    // framed requests not yet written
	spare   []byte    // the writer's previous buffer, for reuse
	sent    []pending // requests framed, oldest first, awaiting their response
	writing bool      // the writer, or send's fast path, is writing
	one     [1][]byte // the fast path's one piece
}

// pending is a request awaiting its response: responses carry no trusted
// key of their own, so this is how a response is decoded.
type pending struct {
	corr int32
	key  wire.APIKey
}

// link is one TCP connection of an outConn, with the values its responses
// decode into.
type link struct {
	nc    net.Conn
	br    *bufio.Reader
	raw   *rawWriter // the fast path, nil where there is none
	dead  bool       // guarded by outConn.mu
	buf   []byte
	fetch wire.FetchResponse
	prod  wire.ProduceResponse
}

// outConn returns the connection to peer on lane, creating it. The node
// lock is held.
func (h *Host) outConn(peer replica.Addr, lane int) *outConn {
	k := outKey{peer, lane}
	o := h.outbound[k]
	if o == nil {
		o = &outConn{h: h, key: k, backoffMs: h.cfg.backoffMs()}
		o.work.L = &o.mu
		h.outbound[k] = o
	}
	return o
}

// resolve returns the address of peer, with the node lock held.
func (h *Host) resolve(peer replica.Addr) (string, bool) {
	if h.cfg.Resolve != nil {
		if a, ok := h.cfg.Resolve(peer); ok {
			return a, true
		}
	}
	switch peer.Kind {
	case replica.ControllerAddr:
		return h.cfg.Controller, h.cfg.Controller != ""
	case replica.BrokerAddr:
		if h.api.image != nil {
			if reg, ok := h.api.image().Broker(peer.ID); ok && reg.Endpoint != "" {
				return reg.Endpoint, true
			}
		}
	}
	return "", false
}

// send frames request m (its records copied) and queues it. Connected,
// with the writer idle and nothing else waiting, it writes the frame at
// once (what the socket takes without waiting); otherwise the writer
// sends it, once connected. The node lock is held.
func (o *outConn) send(m wire.Message) {
	o.mu.Lock()
	buf, err := appendFrame(o.buf, m)
	if err != nil {
		o.mu.Unlock()
		o.h.logf("%v: dropped a %v request that does not encode: %v", o.key.peer, m.APIKey(), err)
		return
	}
	first := len(o.buf) == 0
	o.buf = buf
	o.sent = append(o.sent, pending{m.Correlation(), m.APIKey()})
	l := o.link
	if o.state != outUp || l.raw == nil || !fastPath || o.writing || !first {
		o.work.Signal()
		o.mu.Unlock()
		if o.state == outIdle {
			o.dial()
		}
		return
	}
	o.writing = true
	o.mu.Unlock()
	o.one[0] = o.buf
	n, err := l.raw.try(o.one[:])
	o.one[0] = nil
	o.mu.Lock()
	o.writing = false
	o.buf = o.buf[:copy(o.buf, o.buf[n:])]
	if len(o.buf) > 0 {
		o.work.Signal()
	}
	o.mu.Unlock()
	if err != nil {
		o.brokenLocked(l, err)
	}
}

// dial starts a dial, or the backoff timer if one is due first. The node
// lock is held.
func (o *outConn) dial() {
	h := o.h
	if now := h.clk.NowMs(); now < o.notBeforeMs {
		o.state = outWaiting
		o.timer = h.clk.AfterFunc(o.notBeforeMs-now, o.redial)
		return
	}
	addr, ok := h.resolve(o.key.peer)
	if !ok {
		o.failed(fmt.Errorf("no address known for %v", o.key.peer))
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	o.state, o.cancelDial = outDialing, cancel
	o.timer = h.clk.AfterFunc(h.cfg.dialTimeoutMs(), cancel)
	h.wg.Add(1)
	go o.dialing(ctx, addr)
}

// redial runs when a backoff ends: it dials if there is anything to send.
func (o *outConn) redial() {
	h := o.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || o.state != outWaiting {
		return
	}
	o.state = outIdle
	o.mu.Lock()
	queued := len(o.sent) > 0
	o.mu.Unlock()
	if queued {
		o.dial()
		h.event()
	}
}

// dialing dials addr and, connected, starts the connection's reader and
// writer.
func (o *outConn) dialing(ctx context.Context, addr string) {
	h := o.h
	defer h.wg.Done()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	h.mu.Lock()
	defer h.mu.Unlock()
	o.timer.Stop()
	o.cancelDial()
	if h.closed || o.state != outDialing {
		if nc != nil {
			nc.Close()
		}
		return
	}
	if err != nil {
		o.failed(fmt.Errorf("dial %s: %w", addr, err))
		h.event()
		return
	}
	o.backoffMs, o.notBeforeMs = h.cfg.backoffMs(), 0
	l := &link{nc: nc, br: bufio.NewReaderSize(nc, readBufferSize), raw: newRawWriter(nc)}
	o.state, o.link = outUp, l
	h.wg.Add(2)
	go o.readLoop(l)
	go o.writeLoop(l)
	h.event()
}

// failed handles a dial that failed: what was queued is dropped, the node
// is told, and the next dial waits the backoff. The node lock is held.
func (o *outConn) failed(err error) {
	h := o.h
	o.mu.Lock()
	o.buf, o.sent = o.buf[:0], o.sent[:0]
	o.mu.Unlock()
	o.state = outIdle
	o.notBeforeMs = h.clk.NowMs() + o.backoffMs
	h.logf("%v: %v (next dial in %d ms or later)", o.key.peer, err, o.backoffMs)
	o.backoffMs = min(2*o.backoffMs, h.cfg.backoffMaxMs())
	h.disconnected(o.key.peer)
}

// broken ends link l after its reader or writer failed: what was queued or
// in flight is dropped and the node is told. The next request dials again
// at once (a connection that worked is not a failed dial).
func (o *outConn) broken(l *link, err error) {
	h := o.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if o.brokenLocked(l, err) {
		h.event()
	}
}

// brokenLocked is broken with the node lock held; it reports whether l was
// alive (and the node told).
func (o *outConn) brokenLocked(l *link, err error) bool {
	h := o.h
	if !o.kill(l) || h.closed {
		return false
	}
	o.state, o.link = outIdle, nil
	if !errors.Is(err, io.EOF) {
		h.logf("%v: connection lost: %v", o.key.peer, err)
	} else {
		h.logf("%v: connection closed by the peer", o.key.peer)
	}
	h.disconnected(o.key.peer)
	return true
}

// kill marks l dead, drops what was queued or in flight on it and closes
// its socket. It reports whether l was alive.
func (o *outConn) kill(l *link) bool {
	o.mu.Lock()
	if l.dead {
		o.mu.Unlock()
		return false
	}
	l.dead = true
	o.buf, o.sent = o.buf[:0], o.sent[:0]
	o.work.Broadcast()
	o.mu.Unlock()
	l.nc.Close()
	return true
}

// shut stops the connection for good: the host is stopping. The node lock
// is held.
func (o *outConn) shut() {
	if o.timer != nil {
		o.timer.Stop()
	}
	if o.cancelDial != nil {
		o.cancelDial()
	}
	if o.link != nil {
		o.kill(o.link)
	}
}

// writeLoop writes what send framed, everything waiting at once in one
// write, while l lives.
func (o *outConn) writeLoop(l *link) {
	defer o.h.wg.Done()
	for {
		o.mu.Lock()
		for (len(o.buf) == 0 || o.writing) && !l.dead {
			o.work.Wait()
		}
		if l.dead {
			o.mu.Unlock()
			return
		}
		out := o.buf
		o.buf, o.spare = o.spare[:0], nil
		o.writing = true
		o.mu.Unlock()
		_, err := l.nc.Write(out)
		o.mu.Lock()
		o.spare = out[:0]
		o.writing = false
		o.mu.Unlock()
		if err != nil {
			o.broken(l, err)
			return
		}
	}
}

// readLoop reads responses while l lives: each is matched with the oldest
// request in flight (peers answer in order), decoded by that request's key
// outside the node lock, and delivered from the peer.
func (o *outConn) readLoop(l *link) {
	h := o.h
	defer h.wg.Done()
	for {
		var err error
		l.buf, err = wire.ReadFrame(l.br, l.buf, h.cfg.maxFrameSize())
		if err != nil {
			o.broken(l, err)
			return
		}
		_, corr, _ := wire.PeekHeader(l.buf)
		o.mu.Lock()
		if l.dead {
			o.mu.Unlock()
			return
		}
		if len(o.sent) == 0 || o.sent[0].corr != corr {
			o.mu.Unlock()
			o.broken(l, fmt.Errorf("a response with correlation id %d answers no request in order", corr))
			return
		}
		p := o.sent[0]
		o.sent = o.sent[:copy(o.sent, o.sent[1:])]
		o.mu.Unlock()
		m, err := decodeResponse(p.key, l)
		if err != nil {
			o.broken(l, err)
			return
		}
		h.mu.Lock()
		if o.link != l || h.closed {
			h.mu.Unlock()
			return
		}
		h.node.Receive(replica.Envelope{From: o.key.peer, To: h.self, Response: true, Msg: m}, h.clk.NowMs())
		h.event()
		h.mu.Unlock()
	}
}
