package replica_test

import (
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
