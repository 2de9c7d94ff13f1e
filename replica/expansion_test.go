package replica_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A lagging follower leaves the ISR by the leader's time rule and comes
// back through expansion once it has caught up to the high watermark and
// the start of the leader's epoch — both changes committed by the
// controller, on the timer.
func TestALaggingFollowerRejoinsThroughExpansion(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 2, a, b, cc)
	c.Network().Cut(replica.BrokerAt(cc), replica.BrokerAt(a))
	// acks=1: an acks=all write would wait for the lagging follower until
	// the time rule removes it.
	produce(t, c, wire.AcksLeader, "x", "y")
	if err := c.Await(func() bool { c.FetchRound(); return !slices.Contains(isrOf(c), cc) }, 60_000); err != nil {
		t.Fatalf("the time rule did not remove the lagging follower: ISR %v", isrOf(c))
	}
	produce(t, c, wire.AcksAll, "z")
	c.Network().Heal()
	if err := c.Await(func() bool { c.FetchRound(); return slices.Contains(isrOf(c), cc) }, 60_000); err != nil {
		t.Fatalf("the follower did not rejoin: ISR %v", isrOf(c))
	}
	if got := logOf(t, c, cc); !slices.Equal(got, []string{"x", "y", "z"}) {
		t.Fatalf("the rejoined follower holds %q", got)
	}
}

// A caught-up follower rejoins a busy leader. Kafka's high-watermark rule
// counts, besides the maximal ISR, every replica that is caught up by the
// time rule and may join the ISR (Partition.maybeIncrementLeaderHW):
// otherwise, with the leader alone in the ISR and min ISR 1, the high
// watermark is the leader's log end after every produce, and a follower
// that fetches between two produces always arrives one produce behind
// it — at the log end of the last fetch, never at or past the high
// watermark — and never rejoins, however closely it follows.
func TestACaughtUpFollowerRejoinsABusyLeader(t *testing.T) {
	g := newGroup(t, replica.Options{LagMaxMs: 10_000}, 1, 2)
	g.elect(1, 1) // 2 is out of the ISR
	g.produce(wire.AcksLeader, "a")
	g.fetch(2)
	for i := range 20 {
		g.now += 100
		if _, _, err := g.produce(wire.AcksLeader, fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
		g.fetch(2) // one fetch per produce: 2 is never more than one produce behind
		if isr, ok := g.alter(); ok && slices.Contains(isr, 2) {
			return
		}
	}
	t.Fatalf("follower 2 (LEO %d, leader LEO %d, HW %d) never rejoined the ISR %v",
		g.r[2].LEO(), g.r[1].LEO(), g.r[1].HighWatermark(), g.r[1].ISR())
}
