package server_test

import (
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// holder is a node that holds every request it is sent until told to
// answer it, as a broker parks a fetch, and counts the requests it got.
type holder struct {
	mu       sync.Mutex
	received int
	held     []replica.Envelope
	outbox   []replica.Envelope
}

func (n *holder) Receive(env replica.Envelope, nowMs int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.received++
	if p, ok := env.Msg.(*wire.ProduceRequest); ok && p.Acks == wire.AcksNone {
		return // never answered
	}
	n.held = append(n.held, env)
}

// answerAll answers every held request: call it with the node lock held
// (Host.Do).
func (n *holder) answerAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, env := range n.held {
		n.outbox = append(n.outbox, replica.Envelope{From: env.To, To: env.From, Response: true,
			Msg: &wire.MetadataResponse{CorrelationID: env.Msg.Correlation()}})
	}
	n.held = nil
}

func (n *holder) count() (received, held int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.received, len(n.held)
}

func (n *holder) Tick(int64)        {}
func (n *holder) NextTickMs() int64 { return clock.Never }
func (n *holder) Outbox() []replica.Envelope {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := n.outbox
	n.outbox = nil
	return out
}

// idleHost hosts a holder on a Manual clock with cfg's idle bound.
func idleHost(t *testing.T, maxIdleMs int64) (*server.Host, *holder, *clock.Manual, *events) {
	t.Helper()
	ev := newEvents()
	clk := clock.NewManual(1_000_000)
	node := &holder{}
	h, err := server.Serve(listen(t), node, server.Config{Clock: clk, OnEvent: ev.signal, ConnectionsMaxIdleMs: maxIdleMs, Logf: logf(t, "host")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Kill)
	return h, node, clk, ev
}

// TestIdleConnectionClosed: a connection nothing was read from or written
// to for ConnectionsMaxIdleMs (Kafka's connections.max.idle.ms, 10 minutes
// by default) is closed, on the host's clock. Every request read restarts
// the count, an acks=0 produce too, though it is never answered.
func TestIdleConnectionClosed(t *testing.T) {
	const maxIdle = server.DefaultConnectionsMaxIdleMs
	h, node, clk, ev := idleHost(t, 0)
	cl := dial(t, h.Addr().String())
	defer cl.close()
	ev.await(t, "the connection accepted", func() bool { return h.OpenInbound() == 1 })

	clk.Advance(maxIdle - 1)
	if h.OpenInbound() != 1 {
		t.Fatalf("closed %d ms after it was accepted, before connections.max.idle.ms", maxIdle-1)
	}
	cl.send(&wire.ProduceRequest{Acks: wire.AcksNone})
	ev.await(t, "the acks=0 produce delivered", func() bool { r, _ := node.count(); return r == 1 })
	clk.Advance(maxIdle - 1)
	if h.OpenInbound() != 1 {
		t.Fatalf("closed %d ms after a request was read", maxIdle-1)
	}
	clk.Advance(1)
	if h.OpenInbound() != 0 {
		t.Fatalf("open after %d ms idle", maxIdle)
	}
	cl.expectClosed()
}

// TestConnectionWithARequestInFlightIsNotIdle: a connection whose request
// waits for its answer (parked, as a long-polling fetch) is not idle,
// however long it waits; the count starts once the answer is out.
func TestConnectionWithARequestInFlightIsNotIdle(t *testing.T) {
	const maxIdle = 1000
	h, node, clk, ev := idleHost(t, maxIdle)
	cl := dial(t, h.Addr().String())
	defer cl.close()
	corr := cl.send(&wire.MetadataRequest{})
	ev.await(t, "the request held", func() bool { _, held := node.count(); return held == 1 })
	clk.Advance(10 * maxIdle)
	if h.OpenInbound() != 1 {
		t.Fatalf("a connection whose request was held for %d ms was closed as idle", 10*maxIdle)
	}
	h.Do(func(int64) { node.answerAll() })
	if m := cl.receive(); m.Correlation() != corr {
		t.Fatalf("answer %d, want %d", m.Correlation(), corr)
	}
	clk.Advance(maxIdle - 1)
	if h.OpenInbound() != 1 {
		t.Fatalf("closed %d ms after its answer", maxIdle-1)
	}
}

// TestIdleBoundOff: a negative ConnectionsMaxIdleMs, as Kafka's -1, never
// closes a connection for idleness.
func TestIdleBoundOff(t *testing.T) {
	h, _, clk, ev := idleHost(t, -1)
	cl := dial(t, h.Addr().String())
	defer cl.close()
	ev.await(t, "the connection accepted", func() bool { return h.OpenInbound() == 1 })
	clk.Advance(100 * server.DefaultConnectionsMaxIdleMs)
	if h.OpenInbound() != 1 {
		t.Fatal("closed for idleness with the bound off")
	}
	if n := clk.Pending(); n != 0 {
		t.Fatalf("%d timers pending with the bound off", n)
	}
}
