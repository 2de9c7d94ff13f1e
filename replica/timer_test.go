package replica_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The timer is real: every node's timed work runs from its own Driver on
// the cluster's clock — heartbeats keep sessions alive, the leader checks
// the ISR every replica.lag.time.max.ms/2, the controller expires sessions,
// parked produces expire — and nothing runs that the clock did not reach.
func TestTimedWorkRunsOnTheClock(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 2, a, b, cc)

	// A parked produce expires at its deadline when nobody fetches.
	call, err := c.SendProduce(topic, wire.AcksAll, 500, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(499)
	if call.Done() {
		t.Fatal("answered before the deadline")
	}
	c.Advance(1)
	if _, done, err := call.Result(); !done || !errors.Is(err, wire.ErrRequestTimedOut) {
		t.Fatalf("at the deadline: done %v err %v, want REQUEST_TIMED_OUT", done, err)
	}

	// Heartbeats: a minute passes and every broker is still unfenced.
	c.Advance(60_000)
	for _, id := range c.BrokerIDs() {
		if c.Broker(id).Fenced() {
			t.Fatalf("broker %d fenced after a minute of heartbeats", id)
		}
	}

	// The ISR check: with no fetch rounds, the followers fell out after
	// lag.max (30 s), checked every 15 s.
	if got := isrOf(c); !slices.Equal(got, []int32{a}) {
		t.Fatalf("ISR %v after a minute without fetches, want [1]", got)
	}

	// Session expiry: the controller fences a silent broker.
	c.Network().Cut(replica.BrokerAt(cc), replica.ControllerAt())
	c.Advance(10_000)
	reg, _ := c.Controller().Image().Broker(cc)
	if !reg.Fenced {
		t.Fatal("a broker silent for 10 s is not fenced")
	}
}

// A Tick moves NextTickMs past the time it ran at: a Driver ticks again at
// NextTickMs, so work that is "due" but that Tick does not do spins the
// clock in place forever. A follower backing off after a refused fetch is
// due again at the end of the backoff; once Tick has seen that time pass,
// nothing more is due until the next refusal (the broker fetches on its own
// schedule).
func TestATickMovesNextTickPastNow(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	f := g.r[2]
	p, ok := f.NextFetch(g.now)
	if !ok {
		t.Fatal("the follower has no fetch to send")
	}
	refused := wire.FetchPartitionResponse{ErrorCode: wire.CodeNotLeaderOrFollower}
	if _, err := f.ApplyFetch(&p, &refused, g.now); err == nil {
		t.Fatal("a refusal applied as success")
	}
	due := f.NextTickMs()
	if due <= g.now {
		t.Fatalf("backing off until %d at %d", due, g.now)
	}
	for _, now := range []int64{due, due + 1, due + 10_000} {
		f.Tick(now)
		if next := f.NextTickMs(); next <= now {
			t.Fatalf("after Tick(%d) the follower is due again at %d: a Driver would spin there forever", now, next)
		}
	}
}
