package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// fastPath turns the writes from the node's goroutine on (tests and
// benchmarks turn it off to compare).
var fastPath = true

// readBufferSize is each connection's bufio.Reader: small frames are read
// in one system call, large ones straight into their payload buffer.
const readBufferSize = 64 << 10

// keepBufferBytes is the largest request buffer a slot keeps for the next
// request; a larger one (a rare huge produce) is left to the collector.
const keepBufferBytes = 8 << 20

// inConn is an accepted connection: a client's, or a peer broker's (a
// follower fetching, a broker talking to the controller). The node knows
// it as replica.ClientAt(id).
//
// One goroutine reads, decodes and delivers requests (readLoop), another
// writes responses (writeLoop). Per-connection order is Kafka's: responses
// leave in the order their requests arrived. Up to MaxInFlight requests are
// read ahead of their responses; with all of them waiting, the reader
// stops reading (the connection is muted, as Kafka mutes it) until the
// oldest response is written. A request that gets no response (acks=0
// produce) takes no place in the order.
type inConn struct {
	h  *Host
	id int32
	nc net.Conn
	br *bufio.Reader
	// codec is the protocol of the listener that accepted it.
	codec codec

	// queue holds the requests awaiting their response, in arrival order.
	// It and the fast path's buffers are guarded by the node lock (h.mu).
	queue    []*slot
	nextCorr int32       // the last correlation id the host gave a request
	raw      *rawWriter  // the fast path, nil where there is none
	pieces   net.Buffers // a frame's pieces, for the fast path
	scratch  []byte      // their encoded bytes
	wbufs    net.Buffers // the writer's vectored write
	// lastActiveMs is when a request was last read or a response handed
	// over (idle.go).
	lastActiveMs int64
	// closing: the node asked to close the connection (Envelope.Close);
	// no request is delivered any more, and the connection closes once
	// the answers of those delivered before are written (closeAfter).
	closing bool

	// mu guards the fields below; it is taken after h.mu, never before.
	mu       sync.Mutex
	credit   sync.Cond // the reader waits here for a free place
	work     sync.Cond // the writer waits here for responses
	inFlight int       // requests read and not yet answered on the wire
	free     []*slot   // slots to reuse
	out      []*slot   // answered, in order, waiting for the writer
	writing  bool      // the writer, or the fast path, is writing
	dead     bool
}

// slot is one request's place on its connection: its frame's bytes, the
// values it decodes into, and, once answered, its response frame. A slot
// is reused for a later request only once its response is written, so the
// node may keep the request (a parked fetch) until it answers.
type slot struct {
	buf        []byte // the request's payload
	key        wire.APIKey
	corr       int32  // the id the host gave the request
	clientCorr int32  // the id the client gave it, which its response carries
	ready      bool   // answered: frame holds the response
	closeMark  bool   // not a request: the connection closes here (closeAfter)
	frame      []byte // the response, framed
	produce    wire.ProduceRequest
	fetch      wire.FetchRequest
	req        Request // an exported Codec's view of the slot (listener.go)
}

func newInConn(h *Host, id int32, nc net.Conn) *inConn {
	c := &inConn{h: h, id: id, nc: nc, br: bufio.NewReaderSize(nc, readBufferSize), raw: newRawWriter(nc)}
	c.credit.L = &c.mu
	c.work.L = &c.mu
	return c
}

// acquire waits for a place among the in-flight requests and returns a
// slot for the next request, or nil once the connection is dead.
func (c *inConn) acquire() *slot {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.inFlight >= c.h.cfg.maxInFlight() && !c.dead {
		c.credit.Wait()
	}
	if c.dead {
		return nil
	}
	c.inFlight++
	if n := len(c.free); n > 0 {
		s := c.free[n-1]
		c.free = c.free[:n-1]
		return s
	}
	return new(slot)
}

// release gives a slot's place back, and the slot for reuse.
func (c *inConn) release(s *slot) {
	s.ready = false
	if cap(s.buf) > keepBufferBytes {
		s.buf = nil
	}
	if cap(s.frame) > keepBufferBytes {
		s.frame = nil
	}
	c.mu.Lock()
	c.inFlight--
	c.free = append(c.free, s)
	c.credit.Signal()
	c.mu.Unlock()
}

// readLoop reads, decodes and delivers requests until the connection
// fails. Frames are read and decoded outside the node lock.
func (c *inConn) readLoop() {
	defer c.h.wg.Done()
	var err error
	closeLater := false // the writer closes the connection (closeAfter)
	defer func() {
		if !closeLater {
			c.close(err)
		}
	}()
	h := c.h
	for {
		s := c.acquire()
		if s == nil {
			return
		}
		s.buf, err = wire.ReadFrame(c.br, s.buf, h.cfg.maxFrameSize())
		if err != nil {
			return
		}
		m, derr := c.codec.decodeRequest(s)
		var refusal wire.Message
		if derr != nil {
			var ok bool
			if refusal, ok = c.codec.refuse(s, derr); !ok {
				// Nothing to answer it with (or an acks=0 produce):
				// closed on, after the answers to what came before.
				h.logf("client %d: closing the connection on a request that did not decode: %v", c.id, derr)
				closeLater = c.closeOn(s)
				if !closeLater {
					err = derr
				}
				return
			}
			h.logf("client %d: answered a request that did not decode: %v", c.id, derr)
		} else if !h.api.serves(m.APIKey()) {
			err = errors.New("a " + m.APIKey().String() + " request, which this node does not serve")
			return
		}
		if err = c.deliver(s, m, refusal); err != nil {
			if err == errClosing {
				closeLater = true
			}
			if err == errHostClosed || err == errClosing {
				err = nil // not this connection's failure
			}
			return
		}
	}
}

// errHostClosed ends a connection's reader when the host closes.
var errHostClosed = errors.New("the host is closing")

// errClosing ends a connection's reader when the node asked to close the
// connection: the writer closes it once the answers before are written.
var errClosing = errors.New("the node closes the connection")

// deliver hands one request to the node (or answers it with refusal)
// under the node lock, released by a defer: a panic in the node (a bug)
// then crashes the process instead of leaving the lock held by a reader
// whose deferred close would wait for it for ever, wedging every
// connection.
func (c *inConn) deliver(s *slot, m, refusal wire.Message) error {
	h := c.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errHostClosed
	}
	if c.closing {
		// Read after the request that made the node close the
		// connection: never handled, so the client's resend cannot
		// repeat it. The reader stops; the writer closes.
		c.release(s)
		return errClosing
	}
	c.touch(h.clk.NowMs())
	switch {
	case refusal != nil:
		if !c.enqueue(s, refusal) {
			return fmt.Errorf("a %v refusal: no correlation id to give it", refusal.APIKey())
		}
		c.respond(refusal)
	case c.codec.answered(m):
		if !c.enqueue(s, m) {
			return fmt.Errorf("a %v request: no correlation id to give it", m.APIKey())
		}
		h.node.Receive(replica.Envelope{From: replica.ClientAt(c.id), To: h.self, Msg: m}, h.clk.NowMs())
	default:
		h.node.Receive(replica.Envelope{From: replica.ClientAt(c.id), To: h.self, Msg: m}, h.clk.NowMs())
		c.release(s)
	}
	h.event()
	return nil
}

// enqueue gives s its place in the response order, and m, its request (or
// the refusal that answers it), a correlation id unique on the connection;
// s keeps the client's, which the response carries back. So a response
// finds its request by identity even when a client repeats an id, as
// Kafka's broker answers a connection's requests in order whatever their
// ids (a repeated id once let a response take another request's place,
// and a parked fetch answer for a request that had reused its memory). ok is false for a message whose
// id cannot be set. The node lock is held.
func (c *inConn) enqueue(s *slot, m wire.Message) (ok bool) {
	c.nextCorr++
	s.key, s.corr, s.clientCorr, s.ready = m.APIKey(), c.nextCorr, m.Correlation(), false
	if !setCorrelation(m, s.corr) {
		return false
	}
	c.queue = append(c.queue, s)
	return true
}

// respond frames the node's response m for the slot of its request and
// hands every answered slot at the head of the order to the writer. The
// node lock is held: m's records may alias the node's buffers until its
// next event, so they leave before the lock does — written at once when
// the slot is first in line and the writer idle (the fast path: header
// and records in one writev, the records never copied), or copied into
// the slot's frame.
func (c *inConn) respond(m wire.Message) {
	key, corr := m.APIKey(), m.Correlation()
	i := slices.IndexFunc(c.queue, func(q *slot) bool { return !q.ready && q.key == key && q.corr == corr })
	if i < 0 {
		c.h.logf("client %d: dropped a %v response %d that answers no request of the connection", c.id, key, corr)
		return
	}
	s := c.queue[i]
	setCorrelation(m, s.clientCorr) // a kind enqueue set, so it knows it
	claimed := i == 0 && c.claim()
	err := c.frame(s, m, claimed)
	if err != nil {
		// A response its own codec refuses (a bug) or a broken socket:
		// either way the connection can no longer keep its order.
		c.h.logf("client %d: %v response %d: %v", c.id, key, corr, err)
		c.shut()
		return
	}
	s.ready = true
	n := 0
	for n < len(c.queue) && c.queue[n].ready {
		n++
	}
	written := 0 // slots at the head whose frame the fast path wrote whole
	c.mu.Lock()
	for _, q := range c.queue[:n] {
		if len(q.frame) == 0 && !q.closeMark {
			written++
			continue
		}
		c.out = append(c.out, q)
	}
	if claimed {
		c.writing = false
	}
	if len(c.out) > 0 {
		c.work.Signal()
	}
	c.mu.Unlock()
	for _, q := range c.queue[:n] {
		if len(q.frame) == 0 && !q.closeMark {
			c.release(q)
		}
	}
	m2 := copy(c.queue, c.queue[n:])
	clear(c.queue[m2:])
	c.queue = c.queue[:m2]
}

// closeAfter closes the connection once every request delivered so far
// is answered and its answer written, and delivers no request read after
// now (Kafka's closeConnection after a refused acks=0 produce). Kafka's
// broker handles one request of a connection at a time, so when it closes
// one, no answer is pending; closing here at once would drop answers
// already computed (an acks=1 produce appended, its client left to resend
// it: a duplicate). The node lock is held.
func (c *inConn) closeAfter() {
	if c.closing {
		return
	}
	c.closing = true
	mark := &slot{closeMark: true, ready: true}
	c.queue = append(c.queue, mark)
	if len(c.queue) > 1 {
		return // respond hands it to the writer behind the answers before it
	}
	c.queue = c.queue[:0]
	c.mu.Lock()
	c.out = append(c.out, mark)
	c.work.Signal()
	c.mu.Unlock()
}

// closeOn closes the connection after the answers to the requests
// delivered before s, which is not delivered (closeAfter). It reports
// false if the host is closing, which closes the connection anyway.
func (c *inConn) closeOn(s *slot) bool {
	h := c.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	c.release(s)
	c.closeAfter()
	return true
}

// claim takes the socket for a write from the node's goroutine: it
// succeeds when the writer is idle with nothing waiting, and then the
// writer waits until the claim ends.
func (c *inConn) claim() bool {
	if c.raw == nil || !fastPath {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead || c.writing || len(c.out) > 0 {
		return false
	}
	c.writing = true
	return true
}

// frame frames m as pieces (the codec's frameResponse: the records by
// reference) and, if the socket is claimed, writes what it takes at once;
// what was not written is copied into s.frame, which is empty if the
// frame went whole.
func (c *inConn) frame(s *slot, m wire.Message, claimed bool) error {
	var err error
	c.pieces, c.scratch, err = c.codec.frameResponse(c.pieces[:0], c.scratch[:0], s, m)
	if err != nil {
		return err
	}
	n := 0
	if claimed {
		n, err = c.raw.try(c.pieces)
	}
	s.frame = s.frame[:0]
	for _, b := range c.pieces {
		if n >= len(b) {
			n -= len(b)
			continue
		}
		s.frame = append(s.frame, b[n:]...)
		n = 0
	}
	clear(c.pieces) // keep no reference to the node's buffers
	return err
}

// writeLoop writes answered responses, every one waiting at once in one
// vectored write, and gives their places back.
func (c *inConn) writeLoop() {
	defer c.h.wg.Done()
	var (
		batch []*slot
		bufs  net.Buffers
		err   error
	)
	defer func() { c.close(err) }()
	for {
		c.mu.Lock()
		for (len(c.out) == 0 || c.writing) && !c.dead {
			c.work.Wait()
		}
		if c.dead {
			c.mu.Unlock()
			return
		}
		batch = append(batch[:0], c.out...)
		clear(c.out)
		c.out = c.out[:0]
		c.writing = true
		c.mu.Unlock()
		bufs = bufs[:0]
		closeNow := false
		for i, s := range batch {
			if s.closeMark {
				// Every answer before it is in this write: nothing
				// after it was delivered (closeAfter).
				closeNow, batch = true, batch[:i]
				break
			}
			bufs = append(bufs, s.frame)
		}
		c.wbufs = bufs // WriteTo consumes the slice it is given
		_, err = c.wbufs.WriteTo(c.nc)
		c.mu.Lock()
		c.writing = false
		c.mu.Unlock()
		if err != nil {
			return
		}
		for i, s := range batch {
			c.release(s)
			batch[i] = nil
		}
		if closeNow {
			return
		}
	}
}

// shut marks the connection dead and closes its socket; both loops end.
// It needs no lock and may be called more than once.
func (c *inConn) shut() {
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		return
	}
	c.dead = true
	c.credit.Broadcast()
	c.work.Broadcast()
	c.mu.Unlock()
	c.nc.Close()
}

// close ends the connection after one of its loops stopped, and tells the
// node that whatever it holds for this client has nowhere to go.
func (c *inConn) close(err error) {
	c.shut()
	h := c.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.inbound[c.id] != c {
		return // already closed
	}
	delete(h.inbound, c.id)
	c.queue = nil
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		h.logf("client %d (%v): connection closed: %v", c.id, c.nc.RemoteAddr(), err)
	}
	h.disconnected(replica.ClientAt(c.id))
	h.event()
}
