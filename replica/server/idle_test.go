package server_test

import (
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
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
		var resp wire.Message = &wire.MetadataResponse{CorrelationID: env.Msg.Correlation()}
		if env.Msg.APIKey() == wire.APIFetch {
			resp = &wire.FetchResponse{CorrelationID: env.Msg.Correlation()}
		}
		n.outbox = append(n.outbox, replica.Envelope{From: env.To, To: env.From, Response: true, Msg: resp})
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
func idleHost(t *testing.T, maxIdleMs int64) (*server.Host, *holder, *clock.Manual, *clustertest.Events) {
	return idleHostWith(t, server.Config{ConnectionsMaxIdleMs: maxIdleMs})
}

// idleHostWith hosts a holder on a Manual clock with cfg (its Clock,
// OnEvent and Logf set here).
func idleHostWith(t *testing.T, cfg server.Config) (*server.Host, *holder, *clock.Manual, *clustertest.Events) {
	t.Helper()
	ev := clustertest.NewEvents()
	clk := clock.NewManual(1_000_000)
	node := &holder{}
	cfg.Clock, cfg.OnEvent, cfg.Logf = clk, ev.Signal, clustertest.Logf(t, "host")
	h, err := server.Serve(clustertest.Listen(t), node, cfg)
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
	ev.Await(t, "the connection accepted", func() bool { return h.OpenInbound() == 1 })

	clk.Advance(maxIdle - 1)
	if h.OpenInbound() != 1 {
		t.Fatalf("closed %d ms after it was accepted, before connections.max.idle.ms", maxIdle-1)
	}
	cl.send(&wire.ProduceRequest{Acks: wire.AcksNone})
	ev.Await(t, "the acks=0 produce delivered", func() bool { r, _ := node.count(); return r == 1 })
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

// TestAParkedRequestCountsAsActivityOnlyForItsClampedWait: a connection
// whose request waits for its answer (parked, as a long-polling fetch) is
// not idle while the request may still be parked — its MaxWaitMs,
// clamped to MaxRequestWaitMs — and is idle the bound after that, answer
// or not; a request that asks for no wait (a metadata request) counts
// only at its arrival. Once an answer is out, the count starts from it.
func TestAParkedRequestCountsAsActivityOnlyForItsClampedWait(t *testing.T) {
	const maxIdle, maxWait = 1000, 5000
	h, node, clk, ev := idleHostWith(t, server.Config{ConnectionsMaxIdleMs: maxIdle, MaxRequestWaitMs: maxWait})

	cl := dial(t, h.Addr().String())
	defer cl.close()
	corr := cl.send(&wire.FetchRequest{ReplicaID: wire.ConsumerReplicaID, MaxWaitMs: math.MaxInt32, MinBytes: 1})
	ev.Await(t, "the fetch held", func() bool { _, held := node.count(); return held == 1 })
	clk.Advance(maxWait + maxIdle - 1)
	if h.OpenInbound() != 1 {
		t.Fatalf("closed %d ms after a fetch that may be parked %d ms", maxWait+maxIdle-1, maxWait)
	}
	h.Do(func(int64) { node.answerAll() })
	if m := cl.receive(); m.Correlation() != corr {
		t.Fatalf("answer %d, want %d", m.Correlation(), corr)
	}
	clk.Advance(maxIdle - 1)
	if h.OpenInbound() != 1 {
		t.Fatalf("closed %d ms after its answer", maxIdle-1)
	}
	clk.Advance(1)
	if h.OpenInbound() != 0 {
		t.Fatalf("open %d ms after its answer", maxIdle)
	}
	cl.expectClosed()

	// Never answered: idle the bound after the clamped wait ends.
	cl2 := dial(t, h.Addr().String())
	defer cl2.close()
	cl2.send(&wire.FetchRequest{ReplicaID: wire.ConsumerReplicaID, MaxWaitMs: math.MaxInt32, MinBytes: 1})
	ev.Await(t, "the second fetch held", func() bool { _, held := node.count(); return held == 1 })
	clk.Advance(maxWait + maxIdle - 1)
	if h.OpenInbound() != 1 {
		t.Fatal("closed before the clamped wait and the idle bound passed")
	}
	clk.Advance(1)
	if h.OpenInbound() != 0 {
		t.Fatalf("a fetch never answered kept its connection %d ms past its clamped wait", maxIdle)
	}
	cl2.expectClosed()

	// A held metadata request asks for no wait: idle the bound after it.
	cl3 := dial(t, h.Addr().String())
	defer cl3.close()
	cl3.send(&wire.MetadataRequest{})
	ev.Await(t, "the metadata request held", func() bool { _, held := node.count(); return held == 2 })
	clk.Advance(maxIdle)
	if h.OpenInbound() != 0 {
		t.Fatal("a held request that asked for no wait kept its connection past the idle bound")
	}
	cl3.expectClosed()
}

// TestAFetchWaitIsClampedBeforeTheNodeSeesIt: the node is handed a
// fetch's MaxWaitMs and a produce's TimeoutMs clamped to
// MaxRequestWaitMs, so no client can park a request, and what it holds,
// longer (Kafka's broker honours any wait).
func TestAFetchWaitIsClampedBeforeTheNodeSeesIt(t *testing.T) {
	const maxWait = 5000
	h, node, _, ev := idleHostWith(t, server.Config{MaxRequestWaitMs: maxWait})
	cl := dial(t, h.Addr().String())
	defer cl.close()
	cl.send(&wire.FetchRequest{ReplicaID: wire.ConsumerReplicaID, MaxWaitMs: math.MaxInt32, MinBytes: 1})
	cl.send(&wire.FetchRequest{ReplicaID: wire.ConsumerReplicaID, MaxWaitMs: 10, MinBytes: 1})
	cl.send(&wire.ProduceRequest{Acks: wire.AcksAll, TimeoutMs: math.MaxInt32})
	ev.Await(t, "three requests held", func() bool { _, held := node.count(); return held == 3 })
	var waits []int64
	h.Do(func(int64) {
		node.mu.Lock()
		defer node.mu.Unlock()
		for _, env := range node.held {
			switch m := env.Msg.(type) {
			case *wire.FetchRequest:
				waits = append(waits, int64(m.MaxWaitMs))
			case *wire.ProduceRequest:
				waits = append(waits, int64(m.TimeoutMs))
			}
		}
	})
	if want := []int64{maxWait, 10, maxWait}; !slices.Equal(waits, want) {
		t.Fatalf("the node saw waits %v, want %v", waits, want)
	}
}

// TestIdleBoundOff: a negative ConnectionsMaxIdleMs, as Kafka's -1, never
// closes a connection for idleness.
func TestIdleBoundOff(t *testing.T) {
	h, _, clk, ev := idleHost(t, -1)
	cl := dial(t, h.Addr().String())
	defer cl.close()
	ev.Await(t, "the connection accepted", func() bool { return h.OpenInbound() == 1 })
	clk.Advance(100 * server.DefaultConnectionsMaxIdleMs)
	if h.OpenInbound() != 1 {
		t.Fatal("closed for idleness with the bound off")
	}
	if n := clk.Pending(); n != 0 {
		t.Fatalf("%d timers pending with the bound off", n)
	}
}
