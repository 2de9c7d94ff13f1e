package server_test

import (
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// pinger is a node that sends a metadata request to broker 7 when told,
// and records what the host tells it of broken connections.
type pinger struct {
	mu           sync.Mutex
	corr         int32
	outbox       []replica.Envelope
	disconnected int
	answers      int
}

func (p *pinger) ping() {
	p.corr++
	p.outbox = append(p.outbox, replica.Envelope{From: replica.BrokerAt(1), To: replica.BrokerAt(7), Msg: &wire.MetadataRequest{CorrelationID: p.corr}})
}

func (p *pinger) Receive(env replica.Envelope, nowMs int64) {
	if env.Response {
		p.mu.Lock()
		p.answers++
		p.mu.Unlock()
	}
}
func (p *pinger) Tick(int64)        {}
func (p *pinger) NextTickMs() int64 { return clock.Never }
func (p *pinger) Outbox() []replica.Envelope {
	out := p.outbox
	p.outbox = nil
	return out
}

func (p *pinger) Disconnected(peer replica.Addr, nowMs int64) {
	p.mu.Lock()
	p.disconnected++
	p.mu.Unlock()
}

func (p *pinger) counts() (disconnected, answers int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.disconnected, p.answers
}

// TestRedialBacksOffOnTheInjectedClock: a dial that fails tells the node
// and makes the next dial wait — 50 ms, then 100, doubling up to the cap —
// on the host's clock, however often the node sends meanwhile; the first
// dial that succeeds resets the wait. The clock here is a Manual one: no
// dial happens until the test moves it.
func TestRedialBacksOffOnTheInjectedClock(t *testing.T) {
	ev := clustertest.NewEvents()
	clk := clock.NewManual(1_000_000)
	dead := clustertest.Listen(t)
	deadAddr := dead.Addr().String()
	dead.Close() // dials to it are refused
	peer := newPeerStub(t)

	var mu sync.Mutex
	dials, target := 0, deadAddr
	node := &pinger{}
	h, err := server.Serve(clustertest.Listen(t), node, server.Config{
		Clock: clk, OnEvent: ev.Signal, ReconnectBackoffMs: 50, ReconnectBackoffMaxMs: 150,
		Resolve: func(replica.Addr) (string, bool) {
			mu.Lock()
			defer mu.Unlock()
			dials++
			return target, true
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Kill()
	dialCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return dials
	}
	failures := func(n int) {
		t.Helper()
		ev.Await(t, "a failed dial told to the node", func() bool { d, _ := node.counts(); return d >= n })
	}

	h.Do(func(int64) { node.ping() })
	failures(1)
	for i, wait := range []int64{50, 100, 150, 150} {
		h.Do(func(int64) { node.ping() }) // the node sends again at once
		if got := dialCount(); got != i+1 {
			t.Fatalf("after failure %d: %d dials before the backoff ended", i+1, got)
		}
		clk.Advance(wait - 1)
		if got := dialCount(); got != i+1 {
			t.Fatalf("after failure %d: a dial %d ms into a %d ms backoff", i+1, wait-1, wait)
		}
		if i == 3 {
			mu.Lock()
			target = peer.addr
			mu.Unlock()
		}
		clk.Advance(1)
		if got := dialCount(); got != i+2 {
			t.Fatalf("after failure %d: %d dials once the %d ms backoff ended", i+1, got, wait)
		}
		if i < 3 {
			failures(i + 2)
		}
	}
	ev.Await(t, "the answer over the connection that succeeded", func() bool { _, a := node.counts(); return a >= 1 })
}

// peerStub answers every metadata request with an empty response.
type peerStub struct{ addr string }

func newPeerStub(t testing.TB) *peerStub {
	ln := clustertest.Listen(t)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				var buf []byte
				for {
					payload, err := wire.ReadFrame(nc, buf, 0)
					if err != nil {
						return
					}
					buf = payload
					req, err := wire.DecodeRequest(payload)
					if err != nil {
						return
					}
					resp, _ := (&wire.MetadataResponse{CorrelationID: req.Correlation()}).AppendTo(nil)
					frame, _ := wire.AppendFrame(nil, resp)
					if _, err := nc.Write(frame); err != nil {
						return
					}
				}
			}()
		}
	}()
	return &peerStub{addr: ln.Addr().String()}
}
