package server

import (
	"errors"
	"fmt"
	"math"
	"net"
	"sync"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/wire"
)

// Defaults for Config fields left zero.
const (
	// DefaultMaxInFlight is how many requests of one connection a host
	// reads ahead of their answers (Kafka's client default for
	// max.in.flight.requests.per.connection). 1 is Kafka's server exactly:
	// the connection is muted from a request until its response is out.
	DefaultMaxInFlight = 5
	// DefaultShutdownTimeoutMs bounds how long Close waits for the
	// controller to let a broker go (its controlled shutdown) before it
	// closes the broker anyway.
	DefaultShutdownTimeoutMs = 30_000
	// DefaultReconnectBackoffMs is the first wait before dialling a peer
	// again after a dial failed (Kafka's reconnect.backoff.ms); it doubles
	// at each failure up to DefaultReconnectBackoffMaxMs.
	DefaultReconnectBackoffMs = 50
	// DefaultReconnectBackoffMaxMs caps the redial backoff (Kafka's
	// reconnect.backoff.max.ms).
	DefaultReconnectBackoffMaxMs = 1000
	// DefaultDialTimeoutMs bounds one dial (Kafka's
	// socket.connection.setup.timeout.ms).
	DefaultDialTimeoutMs = 10_000
	// DefaultMaxRequestWaitMs is how long the node may park a request at
	// most: Kafka's default request.timeout.ms (30 s), which a client
	// waits for an answer before it gives up on the request anyway.
	DefaultMaxRequestWaitMs = 30_000
	// DefaultWriteTimeoutMs is how long one write of responses may take
	// before the connection is closed: Kafka's default request.timeout.ms,
	// after which the client has given up on them anyway.
	DefaultWriteTimeoutMs = 30_000
)

// Config configures a Host. Clock is required; everything else has a
// default.
type Config struct {
	// Clock runs the node's timed work and every wait of the host (redial
	// backoff, dial timeout, the shutdown bound). The host never reads any
	// other clock: commands hand it the wall clock (examples/wallclock).
	Clock clock.Clock
	// Controller is the controller's address (host:port), where a broker's
	// requests to replica.ControllerAt() go. A controller's host needs none.
	Controller string
	// Resolve, if set, gives the address of a peer before the default
	// does (Controller for the controller, the endpoint the broker
	// registered for a broker, from the node's metadata image). It runs
	// with the node lock held; ok false falls back to the default.
	Resolve func(peer replica.Addr) (addr string, ok bool)
	// MaxInFlight bounds the requests of one inbound connection read ahead
	// of their responses; 0 means DefaultMaxInFlight. Responses go out in
	// request order whatever it is.
	MaxInFlight int
	// MaxFrameSize bounds every frame read, requests and responses alike;
	// 0 means wire.DefaultMaxFrameSize. A larger length prefix closes the
	// connection before anything is allocated for it.
	MaxFrameSize int
	// ShutdownTimeoutMs bounds Close's wait for a broker's controlled
	// shutdown; 0 means DefaultShutdownTimeoutMs.
	ShutdownTimeoutMs int64
	// ReconnectBackoffMs and ReconnectBackoffMaxMs shape the redial
	// backoff; 0 means DefaultReconnectBackoffMs, DefaultReconnectBackoffMaxMs.
	ReconnectBackoffMs, ReconnectBackoffMaxMs int64
	// DialTimeoutMs bounds one dial; 0 means DefaultDialTimeoutMs.
	DialTimeoutMs int64
	// ConnectionsMaxIdleMs closes an accepted connection idle that long
	// (Kafka's connections.max.idle.ms); 0 means
	// DefaultConnectionsMaxIdleMs, negative never. A request waiting for
	// its answer counts as activity for its clamped wait only
	// (MaxRequestWaitMs). See idle.go.
	ConnectionsMaxIdleMs int64
	// MaxHeldBytes bounds the request and response bytes the host holds
	// for all accepted connections together, beyond a small free
	// allowance per connection (Kafka's queued.max.request.bytes, which
	// counts requests only and is unbounded by default); 0 means
	// DefaultMaxHeldBytes, negative no bound. When it is spent, the host
	// stops reading the sockets that need more until bytes are given
	// back. See the package documentation, "Memory a client can pin".
	MaxHeldBytes int64
	// MaxConnectionHeldBytes bounds what one accepted connection may hold
	// (its requests being read or answered, its responses not yet
	// written); 0 means DefaultMaxConnectionHeldBytes, negative no bound.
	// A frame larger than it is read when the connection holds nothing
	// else.
	MaxConnectionHeldBytes int64
	// MaxRequestWaitMs is the longest a request may be parked in the
	// node: a fetch's MaxWaitMs and a produce's TimeoutMs are clamped to
	// it before the node sees them (Kafka's broker has no such cap); 0
	// means DefaultMaxRequestWaitMs. At most math.MaxInt32.
	MaxRequestWaitMs int64
	// WriteTimeoutMs closes an accepted connection one of whose writes of
	// responses has not completed that long after it began: a client that
	// does not read its responses (Kafka's socket has no such deadline);
	// 0 means DefaultWriteTimeoutMs, negative never.
	WriteTimeoutMs int64
	// Listeners are the node's further listeners, each on its own port
	// with its own protocol: a broker's Kafka listener (replica/kafka),
	// say. See Listener.
	Listeners []Listener
	// OnEvent, if set, is called after every event the host handled — a
	// request, a response, a tick, a connection opened or lost — with the
	// node lock held, so it must neither block nor call the Host (signal a
	// channel without waiting). Tests wait on it instead of sleeping.
	OnEvent func()
	// Logf, if set, receives one line per connection event worth telling
	// (a refused frame, a lost connection, a failed dial).
	Logf func(format string, args ...any)
}

func (c Config) maxInFlight() int  { return positive(c.MaxInFlight, DefaultMaxInFlight) }
func (c Config) maxFrameSize() int { return positive(c.MaxFrameSize, wire.DefaultMaxFrameSize) }
func (c Config) shutdownMs() int64 { return positive(c.ShutdownTimeoutMs, DefaultShutdownTimeoutMs) }
func (c Config) backoffMs() int64  { return positive(c.ReconnectBackoffMs, DefaultReconnectBackoffMs) }
func (c Config) backoffMaxMs() int64 {
	return positive(c.ReconnectBackoffMaxMs, DefaultReconnectBackoffMaxMs)
}
func (c Config) dialTimeoutMs() int64 { return positive(c.DialTimeoutMs, DefaultDialTimeoutMs) }
func (c Config) maxRequestWaitMs() int64 {
	return min(positive(c.MaxRequestWaitMs, DefaultMaxRequestWaitMs), math.MaxInt32)
}

// orDefault returns v, deflt for 0, and -1 (none) for a negative v.
func orDefault(v, deflt int64) int64 {
	switch {
	case v < 0:
		return -1
	case v == 0:
		return deflt
	}
	return v
}

func positive[T int | int64](v, deflt T) T {
	if v <= 0 {
		return deflt
	}
	return v
}

// Errors of a Host. Each wraps the wire error a peer would see.
var (
	// ErrClosed is returned by Close after Close or Kill. It wraps
	// wire.ErrNetworkException: the host's connections are gone.
	ErrClosed = fmt.Errorf("server: host closed: %w", wire.ErrNetworkException)
	// ErrShutdownTimedOut is returned by Close when the controller did not
	// let the broker go within ShutdownTimeoutMs; the broker was closed
	// cleanly anyway (its clean-shutdown marker is written), but its
	// leaderships moved only when its session expired. It wraps
	// wire.ErrRequestTimedOut.
	ErrShutdownTimedOut = fmt.Errorf("server: controlled shutdown not confirmed in time: %w", wire.ErrRequestTimedOut)
)

// A Host runs one replica.Node — a *replica.Broker or a
// *replica.ControllerNode — over TCP: it accepts connections on a
// listener, dials the node's peers, delivers every decoded message to the
// node under one mutex, sends what the node's outbox holds, and ticks the
// node on its clock. See the package documentation for the rules it keeps.
type Host struct {
	cfg   Config
	clk   clock.Clock
	ln    net.Listener
	codec codec // ln's
	self  replica.Addr

	// stats are the host's request metrics (metrics.go).
	stats hostStats

	// mu is the node lock: it guards node and every field below it.
	mu       sync.Mutex
	node     replica.Node
	api      nodeAPI
	drv      *clock.Driver
	inbound  map[int32]*inConn
	outbound map[outKey]*outConn
	nextConn int32
	closing  bool           // Close or Kill began: accept nothing more
	closed   bool           // the connections are gone
	routing  bool           // route is sending an outbox
	deferred []replica.Addr // peers to tell the node of once route is done
	// idleTimer is the idle sweep (idle.go); nil when none runs.
	idleTimer clock.Timer
	// granted lists the connections given fetch-response bytes during the
	// route under way (releaseGrants).
	granted []*inConn

	// mem is the memory budget of the accepted connections (budget.go).
	mem *memBudget
	// wmu guards writeTimer, the sweep of the write deadlines
	// (deadline.go); taken without h.mu or after it.
	wmu        sync.Mutex
	writeTimer clock.Timer

	changed chan struct{} // signalled after every event, for Close's waits
	// flushWake is signalled after an event that left a log with rolled
	// segments to fsync; flushLoop does it outside the lock.
	flushWake chan struct{}
	// rolled is event's scratch for the question, under the lock.
	rolled []*log.Log
	wg     sync.WaitGroup
	done   chan struct{} // closed when the host stops
}

// nodeAPI is what the host knows of its node beyond replica.Node, found by
// interface assertion so that any node (or a wrapper of one) works.
type nodeAPI struct {
	serves       func(wire.APIKey) bool
	image        func() *controller.Image
	disconnected func(replica.Addr, int64)
	shutdown     interface {
		BeginShutdown()
		ShutdownReady() bool
		Epoch() int64
	}
	halted          func() error
	close           func() error
	rolledUnflushed func(dst []*log.Log) []*log.Log
	setFetchBudget  func(replica.FetchBudget)
}

// Serve starts a Host for node on ln and returns at once: connections are
// accepted and the node's timed work runs until Close or Kill. Whatever the
// node already holds in its outbox (a new broker's registration) is sent
// first. The host owns ln from now on. Without a listener, a node or a
// clock it returns an error matching replica.ErrInvalidConfig.
func Serve(ln net.Listener, node replica.Node, cfg Config) (*Host, error) {
	if cfg.Clock == nil || node == nil || ln == nil {
		return nil, fmt.Errorf("server: Serve needs a listener, a node and Config.Clock: %w", replica.ErrInvalidConfig)
	}
	if err := cfg.checkListeners(); err != nil {
		return nil, err
	}
	h := &Host{
		cfg: cfg, clk: cfg.Clock, ln: ln, codec: kaenlogCodec{}, node: node,
		inbound: map[int32]*inConn{}, outbound: map[outKey]*outConn{},
		changed: make(chan struct{}, 1), done: make(chan struct{}), flushWake: make(chan struct{}, 1),
	}
	h.mem = newMemBudget(orDefault(cfg.MaxHeldBytes, DefaultMaxHeldBytes), orDefault(cfg.MaxConnectionHeldBytes, DefaultMaxConnectionHeldBytes))
	h.self, h.api = describe(node)
	if h.api.setFetchBudget != nil {
		h.api.setFetchBudget(h.grantFetchBytes)
	}
	h.drv = clock.NewDriver(h.clk, &h.mu, hostTicker{h}, h.event)
	h.mu.Lock()
	h.event()
	h.mu.Unlock()
	h.wg.Add(1 + len(cfg.Listeners))
	go h.acceptLoop(ln, h.codec)
	for _, l := range cfg.Listeners {
		go h.acceptLoop(l.Listener, codecAdapter{l.Codec})
	}
	if h.api.rolledUnflushed != nil {
		h.wg.Add(1)
		go h.flushLoop()
	}
	return h, nil
}

// flushLoop fsyncs the node's rolled segments after the events that roll
// them, as Kafka's scheduler flushes a segment after it rolls: it asks the
// node for the logs under the lock and calls log.Log.FlushRolled on each
// outside it, so that an fsync of a full segment stalls neither the node
// nor the log's appends. A failed fsync fails the log; an event then lets
// the broker see it and halt.
func (h *Host) flushLoop() {
	defer h.wg.Done()
	var logs []*log.Log
	for {
		clear(logs) // keep no log alive between rounds
		select {
		case <-h.done:
			return
		case <-h.flushWake:
		}
		h.mu.Lock()
		logs = logs[:0]
		if !h.closed {
			logs = h.api.rolledUnflushed(logs)
		}
		h.mu.Unlock()
		failed := false
		for _, l := range logs {
			select {
			case <-h.done:
				return
			default:
			}
			if err := l.FlushRolled(); err != nil && !errors.Is(err, log.ErrClosed) {
				failed = true
			}
		}
		if failed {
			h.mu.Lock()
			if !h.closed {
				h.node.Tick(h.clk.NowMs())
				h.event()
			}
			h.mu.Unlock()
		}
	}
}

// hasRolledUnflushed asks the node whether a log waits for FlushRolled,
// into the host's scratch (no allocation per event). The lock is held.
func (h *Host) hasRolledUnflushed() bool {
	h.rolled = h.api.rolledUnflushed(h.rolled[:0])
	n := len(h.rolled)
	clear(h.rolled) // keep no log alive
	return n > 0
}

// hostTicker is the node as its driver sees it: a timer that fires after
// the host stopped (it was already waiting for the lock) finds nothing to
// do, so a node is never ticked once Close or Kill has returned.
type hostTicker struct{ h *Host }

func (t hostTicker) Tick(nowMs int64) {
	if !t.h.closed {
		t.h.node.Tick(nowMs)
	}
}

func (t hostTicker) NextTickMs() int64 {
	if t.h.closed {
		return clock.Never
	}
	return t.h.node.NextTickMs()
}

// describe finds the node's address and optional methods.
func describe(node replica.Node) (replica.Addr, nodeAPI) {
	var api nodeAPI
	self := replica.ClientAt(-1)
	switch n := node.(type) {
	case *replica.ControllerNode:
		self = replica.ControllerAt()
		api.serves = controllerServes
	case interface{ ID() int32 }:
		self = replica.BrokerAt(n.ID())
		api.serves = brokerServes
	}
	if s, ok := node.(interface{ Serves(wire.APIKey) bool }); ok {
		api.serves = s.Serves
	}
	if api.serves == nil {
		api.serves = func(wire.APIKey) bool { return true }
	}
	if n, ok := node.(interface{ Image() *controller.Image }); ok {
		api.image = n.Image
	}
	if n, ok := node.(interface{ Disconnected(replica.Addr, int64) }); ok {
		api.disconnected = n.Disconnected
	}
	if n, ok := node.(interface {
		BeginShutdown()
		ShutdownReady() bool
		Epoch() int64
	}); ok {
		api.shutdown = n
	}
	if n, ok := node.(interface{ Halted() error }); ok {
		api.halted = n.Halted
	}
	if n, ok := node.(interface{ Close() error }); ok {
		api.close = n.Close
	}
	if n, ok := node.(interface {
		RolledUnflushedLogs(dst []*log.Log) []*log.Log
	}); ok {
		api.rolledUnflushed = n.RolledUnflushedLogs
	}
	if n, ok := node.(interface{ SetFetchBudget(replica.FetchBudget) }); ok {
		api.setFetchBudget = n.SetFetchBudget
	}
	return self, api
}

// brokerServes lists the requests a broker answers; any other closes the
// connection (the broker would drop it, and its answer would never come).
func brokerServes(k wire.APIKey) bool {
	switch k {
	case wire.APIProduce, wire.APIFetch, wire.APIListOffsets, wire.APIOffsetsForLeaderEpoch,
		wire.APIMetadata,                                                                         // from its image
		wire.APIInitProducerID, wire.APICreateTopics, wire.APIDeleteTopics, wire.APIElectLeaders, // forwarded to the controller
		wire.APICreatePartitions, wire.APIAlterPartitionReassignments, wire.APIListPartitionReassignments,
		wire.APIIncrementalAlterConfigs:
		return true
	}
	return replica.IsGroupAPI(k) // a codec's replica.GroupRequest
}

// controllerServes lists the requests a ControllerNode answers.
func controllerServes(k wire.APIKey) bool {
	switch k {
	case wire.APIFetch, wire.APIMetadata, wire.APICreateTopics, wire.APIDeleteTopics, wire.APIElectLeaders, wire.APICreatePartitions,
		wire.APIAlterPartitionReassignments, wire.APIListPartitionReassignments,
		wire.APIAlterPartition, wire.APIBrokerRegistration, wire.APIBrokerHeartbeat,
		wire.APIInitProducerID, wire.APIIncrementalAlterConfigs:
		return true
	}
	return false
}

// Addr returns the address the host listens on.
func (h *Host) Addr() net.Addr { return h.ln.Addr() }

// Do runs f with the node lock held, at the clock's nowMs, then sends what
// the node queued and lets its driver see any earlier deadline: the way to
// read the node's state, or to act on it (create a partition, begin a
// shutdown) from outside.
func (h *Host) Do(f func(nowMs int64)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f(h.clk.NowMs())
	h.settle()
}

// event finishes an event, with the node lock held: it routes the outbox,
// lets the driver see any earlier deadline and tells the watchers.
func (h *Host) event() {
	h.settle()
	select {
	case h.changed <- struct{}{}:
	default:
	}
	if h.api.rolledUnflushed != nil && !h.closed && h.hasRolledUnflushed() {
		select {
		case h.flushWake <- struct{}{}:
		default:
		}
	}
	if h.cfg.OnEvent != nil {
		h.cfg.OnEvent()
	}
}

// settle routes the outbox and lets the driver see any earlier deadline,
// with the node lock held.
func (h *Host) settle() {
	h.route()
	h.releaseGrants()
	if h.drv != nil && !h.closed {
		h.drv.Kick()
	}
}

// route sends every envelope of the outbox: a response on the inbound
// connection its request came on, a request on an outbound connection to
// its peer. Fetch-response records alias the node's buffers until its next
// event, so each response is framed (copied) here, under the lock.
func (h *Host) route() {
	for {
		out := h.node.Outbox()
		if len(out) == 0 {
			return
		}
		h.routing = true
		h.routeEach(out)
		h.routing = false
		// A connection that broke on the way is told to the node only
		// now: the records of the envelopes above were the node's until
		// they were framed. What it sends in turn goes round again.
		for _, peer := range h.deferred {
			h.disconnected(peer)
		}
		clear(h.deferred)
		h.deferred = h.deferred[:0]
	}
}

// routeEach sends the envelopes of one Outbox.
func (h *Host) routeEach(out []replica.Envelope) {
	for _, env := range out {
		if h.closed {
			continue
		}
		if env.Close {
			// Kafka's closeConnection: the client's only news of a refused
			// acks=0 produce, after the answers to what came before it.
			if c := h.inbound[env.To.ID]; c != nil && env.To.Kind == replica.ClientAddr {
				c.closeAfter()
			}
			continue
		}
		if env.Response {
			if env.To.Kind != replica.ClientAddr {
				h.logf("dropped a %v response to %v: responses go back on inbound connections", env.Msg.APIKey(), env.To)
				continue
			}
			if c := h.inbound[env.To.ID]; c != nil {
				c.touch(h.clk.NowMs())
				c.respond(env.Msg)
			}
			continue
		}
		if env.To.Kind == replica.ClientAddr {
			h.logf("dropped a %v request to %v: clients are not dialled", env.Msg.APIKey(), env.To)
			continue
		}
		h.outConn(env.To, laneOf(env.Msg.APIKey())).send(env.Msg)
	}
}

// grantFetchBytes is the broker's replica.FetchBudget: how many bytes of
// records a fetch response to peer may carry now, taken from the memory
// budget until the route that frames it is done (releaseGrants), when
// what the socket did not take is counted instead. Peers the host did not
// accept a connection from are not bounded here. The node lock is held.
func (h *Host) grantFetchBytes(peer replica.Addr, want int) int {
	if peer.Kind != replica.ClientAddr {
		return want
	}
	c := h.inbound[peer.ID]
	if c == nil {
		return 0 // its answer has nowhere to go
	}
	g := h.mem.grant(c, want)
	if g > 0 && c.memGranted == int64(g) {
		h.granted = append(h.granted, c)
	}
	return g
}

// releaseGrants gives back the bytes granted to fetch responses once they
// are framed (their unsent part is counted on its own) or were not sent.
// The node lock is held.
func (h *Host) releaseGrants() {
	for _, c := range h.granted {
		h.mem.releaseGrant(c)
	}
	clear(h.granted)
	h.granted = h.granted[:0]
}

// disconnected tells the node that the connection to or from peer broke,
// with the node lock held.
func (h *Host) disconnected(peer replica.Addr) {
	if h.routing {
		h.deferred = append(h.deferred, peer)
		return
	}
	if h.api.disconnected != nil && !h.closed {
		h.api.disconnected(peer, h.clk.NowMs())
	}
}

func (h *Host) logf(format string, args ...any) {
	if h.cfg.Logf != nil {
		h.cfg.Logf(format, args...)
	}
}

// acceptLoop accepts connections on ln, each speaking cd, until ln
// closes. A failed
// Accept that is not the end (out of file descriptors) waits a backoff on
// the clock before trying again.
func (h *Host) acceptLoop(ln net.Listener, cd codec) {
	defer h.wg.Done()
	backoff := h.cfg.backoffMs()
	for {
		nc, err := ln.Accept()
		if err != nil {
			h.mu.Lock()
			closing := h.closing
			h.mu.Unlock()
			if closing || errors.Is(err, net.ErrClosed) {
				return
			}
			h.logf("accept: %v (again in %d ms)", err, backoff)
			wait := make(chan struct{})
			h.clk.AfterFunc(backoff, func() { close(wait) })
			select {
			case <-wait:
			case <-h.done:
				return
			}
			backoff = min(2*backoff, h.cfg.backoffMaxMs())
			continue
		}
		backoff = h.cfg.backoffMs()
		h.mu.Lock()
		if h.closing {
			h.mu.Unlock()
			nc.Close()
			return
		}
		h.nextConn++
		c := newInConn(h, h.nextConn, nc)
		c.codec = cd
		h.inbound[c.id] = c
		c.touch(h.clk.NowMs())
		h.watchIdle()
		h.wg.Add(2)
		go c.readLoop()
		go c.writeLoop()
		h.event()
		h.mu.Unlock()
	}
}

// Close stops the host gracefully. It stops accepting connections; for a
// broker it runs the controlled shutdown — asks the controller (in its
// heartbeats) to move its leaderships away and waits, at most
// ShutdownTimeoutMs on the host's clock, until the controller lets it go —
// then stops the node's timer, closes every connection and, for a node
// with a Close method (a broker), closes it: a broker closes its logs
// cleanly and writes its clean-shutdown marker. A controller's store is
// its owner's to close, after Close returns.
//
// It returns ErrShutdownTimedOut if the controller did not confirm in time
// (the broker is closed anyway), the node's Close error, or ErrClosed if
// the host was already stopped.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		return ErrClosed
	}
	h.closing = true
	h.closeListeners()
	var timedOut bool
	if s := h.api.shutdown; s != nil && s.Epoch() >= 0 && !h.halted() {
		s.BeginShutdown()
		// The broker asks at its next event: make one now.
		h.node.Tick(h.clk.NowMs())
		h.event()
		timedOut = !h.awaitLocked(func() bool { return s.ShutdownReady() || h.halted() }, h.cfg.shutdownMs())
	}
	h.stopLocked()
	var err error
	if h.api.close != nil {
		err = h.api.close()
	}
	h.mu.Unlock()
	h.wg.Wait()
	if timedOut {
		err = errors.Join(ErrShutdownTimedOut, err)
	}
	return err
}

// Kill stops the host at once, as a killed process stops: no controlled
// shutdown, no clean close of the node (a broker leaves no clean-shutdown
// marker and writes no checkpoint). Connections close, the timer stops,
// and the node is left as it was; its files stay open until the process
// ends. For tests: the process-level kill is the commands'.
func (h *Host) Kill() {
	h.mu.Lock()
	h.closing = true
	h.closeListeners()
	h.stopLocked()
	h.mu.Unlock()
	h.wg.Wait()
}

// halted reports whether the node stopped on its own (a broker whose log
// failed): it has nothing to hand over. The node lock is held.
func (h *Host) halted() bool { return h.api.halted != nil && h.api.halted() != nil }

// stopLocked stops the driver and closes every connection, with the node
// lock held.
func (h *Host) stopLocked() {
	if h.closed {
		return
	}
	h.closed = true
	h.drv.Stop()
	h.stopIdle()
	h.stopWrites()
	close(h.done)
	for _, c := range h.inbound {
		c.shut()
	}
	for _, o := range h.outbound {
		o.shut()
	}
	clear(h.inbound)
}

// awaitLocked waits, with the node lock held between looks, until cond
// holds or ms pass on the host's clock; it reports whether cond held.
func (h *Host) awaitLocked(cond func() bool, ms int64) bool {
	expired := make(chan struct{})
	t := h.clk.AfterFunc(ms, func() { close(expired) })
	defer t.Stop()
	for !cond() {
		h.mu.Unlock()
		select {
		case <-h.changed:
		case <-expired:
		}
		h.mu.Lock()
		select {
		case <-expired:
			return cond()
		default:
		}
	}
	return true
}
