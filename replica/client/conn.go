package client

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"sort"
	"sync"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// conn is one TCP connection to a broker or the controller. Requests are
// multiplexed on it by correlation id: any goroutine sends, one writer
// goroutine puts the queued frames out (as many as are waiting, in one
// vectored write, records by reference), and one reader goroutine reads
// the answers — each frame's length checked against Config.MaxFrameSize
// before anything is allocated — and hands each to the request it answers.
// Every request with an answer has a timeout on the client's clock; a
// request that times out breaks the connection, as in Kafka, since the
// answers that follow can no longer be matched in order.
type conn struct {
	cl     *Client
	peer   string // "controller" or "broker 2", for errors
	addr   string
	broker bool

	mu       sync.Mutex
	nc       net.Conn
	queue    []outFrame
	spare    []outFrame
	calls    map[int32]*call
	nextCorr int32
	timer    clock.Timer // armed while calls wait: at or before the earliest deadline
	timerAt  int64       // when timer fires
	// writeDeadlineMs is when the write in progress times out (0: none):
	// a write to a peer that stopped reading blocks for ever, and an
	// acks=0 produce has no answer to time out instead. It is the latest
	// deadline of the requests written, at least RequestTimeoutMs away.
	writeDeadlineMs int64
	free            []*call       // answered calls, for reuse
	err             error         // why it broke; nil while it works
	wake            chan struct{} // tells the writer there is work
	done            chan struct{} // closed when it breaks
	ctx             context.Context
	cancel          context.CancelFunc // cancels a dial in progress when it breaks

}

// call is a request waiting for its answer. handle runs once, in the
// reader goroutine (or whichever goroutine broke the connection), with the
// payload or the error; it returns true if it keeps the payload, which the
// reader then never reuses.
type call struct {
	key        wire.APIKey
	corr       int32
	deadlineMs int64 // when it times out, on the client's clock
	timeoutMs  int64 // the wait it was given, for the error
	handle     func(payload []byte, err error) (kept bool)
}

// outFrame is a request queued for the writer. written, if set, is told
// when the frame has been written or could not be: for a produce with
// acks=0, which nothing answers, that is its end; for others, that the
// writer is done with the request's memory.
type outFrame struct {
	msg     wire.Message
	written func(error)
}

func newConn(cl *Client, peer, addr string, broker bool) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	return &conn{
		cl: cl, peer: peer, addr: addr, broker: broker,
		calls:  map[int32]*call{},
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
		ctx:    ctx,
		cancel: cancel,
	}
}

// start runs the writer, which dials first. The caller holds cl.mu.
func (c *conn) start() {
	if !c.cl.track.goroutine(c.writeLoop) {
		c.err = ErrClosed
		close(c.done)
		c.cancel()
	}
}

// cause returns why the connection broke, or nil.
func (c *conn) cause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// broken reports whether the connection has failed.
func (c *conn) broken() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err != nil
}

// send queues m. With handle, m gets the next correlation id and waits
// for its answer for waitMs plus Config.RequestTimeoutMs. It never calls
// handle or written itself: if the connection is broken it returns the
// error instead, and the caller deals with it.
func (c *conn) send(m wire.Message, waitMs int64, handle func([]byte, error) bool, written func(error)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	if handle != nil {
		c.nextCorr++
		if c.nextCorr < 0 {
			c.nextCorr = 1
		}
		var cl *call
		if n := len(c.free); n > 0 {
			cl, c.free = c.free[n-1], c.free[:n-1]
		} else {
			cl = new(call)
		}
		timeout := waitMs + c.cl.cfg.RequestTimeoutMs
		*cl = call{key: m.APIKey(), corr: c.nextCorr, deadlineMs: c.cl.clock.NowMs() + timeout, timeoutMs: timeout, handle: handle}
		if !wire.SetCorrelation(m, cl.corr) {
			panic(fmt.Sprintf("client: a %T has no correlation id", m)) // the client's own messages have
		}
		c.calls[cl.corr] = cl
		if c.timer == nil {
			c.armLocked(cl.deadlineMs)
		}
	}
	c.queue = append(c.queue, outFrame{msg: m, written: written})
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return nil
}

// armLocked sets the timeout timer for atMs. One timer serves all the
// connection's calls: when it fires it fails the connection if a call is
// overdue, and otherwise waits again for the earliest deadline — so a
// steady stream of requests costs no timer each (Kafka's NetworkClient
// likewise checks its requests' timeouts as it polls).
func (c *conn) armLocked(atMs int64) {
	c.timerAt = atMs
	c.timer = c.cl.clock.AfterFunc(atMs-c.cl.clock.NowMs(), c.checkTimeouts)
}

// checkTimeouts is the timer: it breaks the connection if a call waited
// past its deadline or a write blocked past its own, and otherwise rearms
// for the earliest one.
func (c *conn) checkTimeouts() {
	now := c.cl.clock.NowMs()
	c.mu.Lock()
	c.timer = nil
	if c.err != nil || (len(c.calls) == 0 && c.writeDeadlineMs == 0) {
		c.mu.Unlock()
		return
	}
	if w := c.writeDeadlineMs; w != 0 && now >= w {
		c.mu.Unlock()
		c.fail(networkError(c.peer, fmt.Errorf("%w: a write did not finish in the time its requests may wait", wire.ErrRequestTimedOut)))
		return
	}
	var overdue *call
	earliest := c.writeDeadlineMs
	for _, cl := range c.calls {
		if now >= cl.deadlineMs && (overdue == nil || cl.corr < overdue.corr) {
			overdue = cl
		}
		if earliest == 0 || cl.deadlineMs < earliest {
			earliest = cl.deadlineMs
		}
	}
	if overdue == nil {
		c.armLocked(earliest)
		c.mu.Unlock()
		return
	}
	key, ms := overdue.key, overdue.timeoutMs
	c.mu.Unlock()
	c.fail(timeoutError(c.peer, key, ms))
}

// fail breaks the connection once: every request waiting on it gets err
// (in the order they were sent), every frame not yet written is told so,
// and the client forgets it.
func (c *conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	close(c.done)
	c.cancel()
	calls := make([]*call, 0, len(c.calls))
	for _, cl := range c.calls {
		calls = append(calls, cl)
	}
	c.calls = nil
	queue := c.queue
	c.queue = nil
	nc := c.nc
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
	if nc != nil {
		nc.Close()
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].corr < calls[j].corr })
	for _, cl := range calls {
		cl.handle(nil, err)
	}
	for _, f := range queue {
		if f.written != nil {
			f.written(err)
		}
	}
	c.cl.connBroken(c)
}

// dial connects, bounded by the request timeout on the client's clock.
func (c *conn) dial() (net.Conn, error) {
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	timer := c.cl.clock.AfterFunc(c.cl.cfg.RequestTimeoutMs, cancel)
	defer timer.Stop()
	nc, err := c.cl.cfg.Dial(ctx, "tcp", c.addr)
	if err != nil {
		return nil, err
	}
	return nc, nil
}

// writeLoop dials, starts the reader, then writes whatever is queued until
// the connection breaks.
func (c *conn) writeLoop() {
	nc, err := c.dial()
	if err != nil {
		c.fail(networkError(c.peer, err))
		return
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		nc.Close()
		return
	}
	c.nc = nc
	c.mu.Unlock()
	if !c.cl.track.goroutine(func() { c.readLoop(nc) }) {
		c.fail(ErrClosed)
		return
	}
	var (
		bufs    net.Buffers
		scratch []byte
		written []func(error)
		w       net.Buffers // WriteTo's receiver escapes: made once, not per write
	)
	for {
		c.mu.Lock()
		for len(c.queue) == 0 && c.err == nil {
			c.mu.Unlock()
			select {
			case <-c.wake:
			case <-c.done:
			}
			c.mu.Lock()
		}
		if c.err != nil {
			c.mu.Unlock()
			return
		}
		frames := c.queue
		c.queue, c.spare = c.spare[:0], nil
		// A write may take as long as the requests it carries may wait
		// (a produce's AckTimeoutMs and the request timeout), and an
		// unanswered one the request timeout, as Kafka counts a send's
		// time against request.timeout.ms.
		c.writeDeadlineMs = c.cl.clock.NowMs() + c.cl.cfg.RequestTimeoutMs
		for _, f := range frames {
			if cl := c.calls[f.msg.Correlation()]; cl != nil && cl.deadlineMs > c.writeDeadlineMs {
				c.writeDeadlineMs = cl.deadlineMs
			}
		}
		if c.timer == nil || c.timerAt > c.writeDeadlineMs {
			if c.timer != nil {
				c.timer.Stop()
			}
			c.armLocked(c.writeDeadlineMs)
		}
		c.mu.Unlock()

		bufs, scratch, written = bufs[:0], scratch[:0], written[:0]
		for _, f := range frames {
			var err error
			bufs, scratch, err = wire.AppendFrameBuffers(bufs, scratch, f.msg)
			if err != nil {
				// The client built a message the wire refuses: a bug
				// here, not the peer's doing. Fail it alone.
				c.refuse(f, err)
				continue
			}
			if f.written != nil {
				written = append(written, f.written)
			}
		}
		w = bufs
		_, err := w.WriteTo(nc)
		clear(bufs)
		if err != nil {
			err = networkError(c.peer, err)
			c.fail(err)
			for _, f := range written {
				f(err)
			}
			return
		}
		for _, f := range written {
			f(nil)
		}
		clear(frames)
		c.mu.Lock()
		c.spare = frames[:0]
		c.writeDeadlineMs = 0
		c.mu.Unlock()
	}
}

// refuse fails the request of frame f, which could not be encoded.
func (c *conn) refuse(f outFrame, err error) {
	if f.written != nil {
		f.written(err)
	}
	corr := f.msg.Correlation()
	c.mu.Lock()
	cl := c.calls[corr]
	delete(c.calls, corr)
	c.mu.Unlock()
	if cl != nil {
		cl.handle(nil, err)
	}
}

// nextBufferMax bounds the buffer a connection allocates for an answer
// before it arrives.
const nextBufferMax = 8 << 20

// readLoop reads answers until the connection breaks.
func (c *conn) readLoop(nc net.Conn) {
	br := bufio.NewReaderSize(nc, 64<<10)
	var buf []byte
	for {
		payload, err := wire.ReadFrame(br, buf, c.cl.cfg.MaxFrameSize)
		if err != nil {
			c.fail(networkError(c.peer, err))
			return
		}
		// The header's API key and correlation id find the request; the
		// request's decoder checks the rest (the version, the body).
		if len(payload) < 8 {
			c.fail(networkError(c.peer, fmt.Errorf("%w: answer of %d bytes has no header", wire.ErrMalformed, len(payload))))
			return
		}
		key, corr := wire.APIKey(binary.BigEndian.Uint16(payload)), int32(binary.BigEndian.Uint32(payload[4:]))
		c.mu.Lock()
		cl := c.calls[corr]
		if cl != nil && cl.key == key {
			delete(c.calls, corr)
		}
		c.mu.Unlock()
		if cl == nil || cl.key != key {
			c.fail(networkError(c.peer, fmt.Errorf("%w: answer %s with correlation id %d matches no request", wire.ErrMalformed, key, corr)))
			return
		}
		if cl.handle(payload, nil) {
			// The next answer gets a buffer of this one's size (one a peer
			// proved by sending it, at most nextBufferMax), so a stream
			// of large fetch answers is read in place, not grown from
			// ReadFrame's first 64 KiB by doubling.
			buf = make([]byte, 0, min(len(payload), nextBufferMax))
		} else {
			buf = payload
		}
		c.mu.Lock()
		*cl = call{}
		c.free = append(c.free, cl)
		c.mu.Unlock()
	}
}
