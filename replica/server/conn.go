package server

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"net"
	"slices"
	"sync"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// fastPath turns the writes from the node's goroutine on (tests and
// benchmarks turn it off to compare).
var fastPath = true

// readBufferSize is each connection's bufio.Reader: small frames are read
// in one system call, large ones straight into their payload buffer. It
// is all an idle connection keeps besides its goroutines.
const readBufferSize = 16 << 10

// maxKeptParts bounds the decoded partitions a slot keeps for its next
// request; a request naming more leaves its slice to the collector.
const maxKeptParts = 64

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
	hdr      [4]byte     // the length prefix being read (the reader's)
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
	// writeSinceMs is when the writer's write under way began, on the
	// host's clock; -1 when it is not writing (deadline.go).
	writeSinceMs int64

	// The connection's share of the host's memory budget (budget.go),
	// guarded by h.mem.mu.
	memHeld    int64         // bytes held: requests being read or waiting, unsent responses
	memGranted int64         // of them, fetch-response bytes granted in the route under way
	memDead    bool          // closed: it holds nothing any more
	memWake    chan struct{} // signalled when memHeld falls or the connection dies
	memWaiter  *memWaiter    // the reader's place in the budget's queue, if it waits
	memWaiting bool          // the reader waits for the budget
}

// slot is one request's place on its connection: its frame's bytes, the
// values it decodes into, and, once answered, its response frame. A slot
// is reused for a later request only once its response is written, so the
// node may keep the request (a parked fetch) until it answers.
type slot struct {
	buf      []byte    // the request's payload, in req
	req      *pooled   // the buffer of buf
	reqHeld  int64     // the bytes the budget counts for the request
	resp     []*pooled // the part of the response the socket did not take, in chunks
	respHeld int64     // the bytes the budget counts for it
	// activeUntilMs is how long the request, waiting for its answer,
	// counts as activity on its connection: its arrival plus the wait it
	// may be parked for, clamped (idle.go).
	activeUntilMs int64
	receivedMs    int64 // when the node got it, for its latency (metrics.go)
	key           wire.APIKey
	corr          int32       // the id the host gave the request
	clientCorr    int32       // the id the client gave it, which its response carries
	ready         bool        // answered: frame holds what is left to write of its response
	closeMark     bool        // not a request: the connection closes here (closeAfter)
	sent          bool        // the fast path wrote its response whole (respond's)
	frame         net.Buffers // what the socket did not take of the response: resp's chunks
	produce       wire.ProduceRequest
	fetch         wire.FetchRequest
	codecReq      Request // an exported Codec's view of the slot (listener.go)
}

func newInConn(h *Host, id int32, nc net.Conn) *inConn {
	c := &inConn{h: h, id: id, nc: nc, br: bufio.NewReaderSize(nc, readBufferSize), raw: newRawWriter(nc),
		writeSinceMs: -1, memWake: make(chan struct{}, 1)}
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

// release gives a slot's place back, its buffers to their pools and its
// bytes to the budget, and the slot for reuse. The node is done with the
// request: its decoded records are cleared so that they keep no buffer
// alive.
func (c *inConn) release(s *slot) {
	s.ready = false
	putBuf(s.req)
	for i, ch := range s.resp {
		putBuf(ch)
		s.resp[i] = nil
	}
	clear(s.frame)
	s.req, s.resp, s.buf, s.frame = nil, s.resp[:0], nil, s.frame[:0]
	if cap(s.resp) > maxKeptParts {
		s.resp, s.frame = nil, nil
	}
	c.h.mem.release(c, s.reqHeld+s.respHeld)
	s.reqHeld, s.respHeld = 0, 0
	if cap(s.produce.Partitions) > maxKeptParts {
		s.produce.Partitions = nil
	}
	for i := range s.produce.Partitions[:cap(s.produce.Partitions)] {
		// The records alias the buffer just given back; the topic is the
		// decoder's own string, kept so that the next request's equal
		// name costs nothing.
		s.produce.Partitions[:cap(s.produce.Partitions)][i].Records = nil
	}
	if cap(s.fetch.Partitions) > maxKeptParts {
		s.fetch.Partitions = nil
	}
	c.mu.Lock()
	c.inFlight--
	c.free = append(c.free, s)
	c.credit.Signal()
	c.mu.Unlock()
}

// errConnDead ends a reader whose connection was closed while it waited
// for the memory budget.
var errConnDead = errors.New("the connection was closed")

// readFrame reads the next request frame into s: its length prefix,
// bounded by Config.MaxFrameSize; then, once the memory budget lets the
// connection hold the frame (the wait that stops reading a socket whose
// client, or the host, has spent its bytes), its payload. A large payload
// is read into a pooled buffer first and moved to one of its full size
// once its first 64 KiB came, so that a length prefix alone costs no
// large allocation.
func (c *inConn) readFrame(s *slot) error {
	if _, err := io.ReadFull(c.br, c.hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: inside the length prefix", wire.ErrShortFrame)
		}
		return err
	}
	n := int32(binary.BigEndian.Uint32(c.hdr[:]))
	if n < 0 {
		return fmt.Errorf("%w: frame length prefix %d", wire.ErrNegativeLength, n)
	}
	if int64(n) > int64(c.h.cfg.maxFrameSize()) {
		return fmt.Errorf("%w: length prefix %d exceeds limit %d", wire.ErrFrameTooLarge, n, c.h.cfg.maxFrameSize())
	}
	size := int(n)
	held := int64(size)
	if size <= maxPooled {
		held = int64(max(1<<minPooledShift, 1<<bits.Len(uint(max(size, 1)-1))))
	}
	if !c.h.mem.admit(c, held) {
		return errConnDead
	}
	s.reqHeld = held
	firstLen := size
	if size > maxPooled {
		firstLen = largeFrameFirstBytes
	}
	first := getBuf(firstLen)
	s.req = first
	if _, err := io.ReadFull(c.br, first.b); err != nil {
		return payloadError(err, size)
	}
	if size > maxPooled {
		whole := &pooled{b: make([]byte, size), class: -1}
		copy(whole.b, first.b)
		putBuf(first)
		s.req = whole
		if _, err := io.ReadFull(c.br, whole.b[firstLen:]); err != nil {
			return payloadError(err, size)
		}
	}
	s.buf = s.req.b
	c.h.stats.bytesIn.Add(int64(size) + 4)
	return nil
}

// largeFrameFirstBytes is how much of a frame larger than maxPooled is
// read before its buffer is allocated whole.
const largeFrameFirstBytes = 64 << 10

// payloadError tells a payload cut short from another failure.
func payloadError(err error, size int) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: payload of %d bytes", wire.ErrShortFrame, size)
	}
	return err
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
		if err = c.readFrame(s); err != nil {
			if err == errConnDead {
				err = nil
			}
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
	now := h.clk.NowMs()
	c.touch(now)
	s.activeUntilMs, s.receivedMs = now, now
	if refusal != nil {
		h.stats.request(refusal.APIKey())
	} else {
		h.stats.request(m.APIKey())
	}
	switch {
	case refusal != nil:
		if !c.enqueue(s, refusal) {
			return fmt.Errorf("a %v refusal: no correlation id to give it", refusal.APIKey())
		}
		c.respond(refusal)
	case c.codec.answered(m):
		s.activeUntilMs = clock.Deadline(now, clampWait(m, h.cfg.maxRequestWaitMs()))
		if !c.enqueue(s, m) {
			return fmt.Errorf("a %v request: no correlation id to give it", m.APIKey())
		}
		h.node.Receive(replica.Envelope{From: replica.ClientAt(c.id), To: h.self, Msg: m}, h.clk.NowMs())
	default:
		clampWait(m, h.cfg.maxRequestWaitMs())
		h.node.Receive(replica.Envelope{From: replica.ClientAt(c.id), To: h.self, Msg: m}, h.clk.NowMs())
		c.release(s)
	}
	h.event()
	return nil
}

// clampWait clamps the wait a request asks for — a fetch's MaxWaitMs, a
// produce's TimeoutMs — to maxMs, before the node sees it, and returns
// the wait: how long the node may park it. Kafka's broker honours any
// wait a client asks for (fetch.max.wait.ms and a produce's timeout are
// the client's); here one client cannot hold a request, and its
// connection's memory, longer than Config.MaxRequestWaitMs.
func clampWait(m wire.Message, maxMs int64) int64 {
	switch r := m.(type) {
	case *wire.FetchRequest:
		if int64(r.MaxWaitMs) > maxMs {
			r.MaxWaitMs = int32(maxMs)
		}
		return int64(max(r.MaxWaitMs, 0))
	case *wire.ProduceRequest:
		if int64(r.TimeoutMs) > maxMs {
			r.TimeoutMs = int32(maxMs)
		}
		return int64(max(r.TimeoutMs, 0))
	}
	return 0
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
	c.h.stats.answered(s.key, c.h.clk.NowMs()-s.receivedMs)
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
	// The slots the fast path wrote whole are released here; the others
	// are the writer's from the moment they are in c.out, so which is
	// which is decided under c.mu (sent: only respond writes it, under
	// the node lock).
	c.mu.Lock()
	for _, q := range c.queue[:n] {
		q.sent = len(q.frame) == 0 && !q.closeMark
		if !q.sent {
			c.out = append(c.out, q)
		}
	}
	if claimed {
		c.writing = false
	}
	if len(c.out) > 0 {
		c.work.Signal()
	}
	c.mu.Unlock()
	for _, q := range c.queue[:n] {
		if q.sent {
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
// reference) and, if the socket is claimed, writes what it takes at once.
// What was not written is copied into pooled chunks, s.frame, counted
// against the memory budget until they are written; s.frame is empty if
// the frame went whole.
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
	rest := -n
	for _, b := range c.pieces {
		rest += len(b)
	}
	c.h.stats.bytesOut.Add(int64(rest + n))
	s.frame = s.frame[:0]
	if rest > 0 && err == nil {
		// Into chunks of respChunk bytes: what the budget counts exceeds
		// what is held by less than one chunk.
		var chunk *pooled
		for _, b := range c.pieces {
			if n >= len(b) {
				n -= len(b)
				continue
			}
			for b = b[n:]; len(b) > 0; {
				if chunk == nil || len(chunk.b) == cap(chunk.b) {
					chunk = getBuf(respChunk)
					chunk.b = chunk.b[:0]
					s.resp = append(s.resp, chunk)
					s.respHeld += chunk.size()
					c.h.mem.charge(c, chunk.size())
				}
				k := min(len(b), cap(chunk.b)-len(chunk.b))
				chunk.b = append(chunk.b, b[:k]...)
				b = b[k:]
			}
			n = 0
		}
		for _, ch := range s.resp {
			s.frame = append(s.frame, ch.b)
		}
	}
	clear(c.pieces) // keep no reference to the node's buffers
	if cap(c.scratch) > maxKeptScratch {
		c.scratch = nil
	}
	return err
}

// respChunk is the size of the chunks an unsent response is copied into.
const respChunk = 16 << 10

// maxKeptScratch bounds the encoded fixed fields of a response a
// connection keeps for the next one (a large metadata response's are
// left to the collector).
const maxKeptScratch = 4 << 10

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
		c.writeSinceMs = c.h.clk.NowMs()
		c.mu.Unlock()
		c.h.watchWrites()
		bufs = bufs[:0]
		closeNow := false
		for i, s := range batch {
			if s.closeMark {
				// Every answer before it is in this write: nothing
				// after it was delivered (closeAfter).
				closeNow, batch = true, batch[:i]
				break
			}
			bufs = append(bufs, s.frame...)
		}
		c.wbufs = bufs // WriteTo consumes the slice it is given
		_, err = c.wbufs.WriteTo(c.nc)
		c.mu.Lock()
		c.writing = false
		c.writeSinceMs = -1
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
	c.h.mem.forget(c) // and a reader waiting for the budget stops
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
