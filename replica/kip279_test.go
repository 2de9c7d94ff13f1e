package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// KIP-279's fast leader change A→B→A, driven through the controller.
//
// A leads and commits m1. It writes m2, which nobody copies, and then loses
// the controller: its session expires and B is elected at epoch 1. B writes
// m3 at offset 1 — where A's m2 is. When A's links come back it follows B,
// and the DivergingEpoch of its first fetch tells it that its epoch 0 ended
// at offset 1 on B: A drops m2 and copies m3 before it can rejoin the ISR.
// Then B dies and A, back in the ISR, is elected at epoch 2. At the end
// every log and every epoch cache is equal.
func TestFastLeaderChangeThroughTheController(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 1, a, b, cc)
	produce(t, c, wire.AcksAll, "m1")
	rounds(c, 2)

	// m2 reaches A only.
	produce(t, c, wire.AcksLeader, "m2")
	// A loses everyone; the controller fences it and elects B.
	for _, x := range []replica.Addr{replica.ControllerAt(), replica.BrokerAt(b), replica.BrokerAt(cc)} {
		c.Network().Cut(replica.BrokerAt(a), x)
	}
	if l := awaitLeader(t, c, a, 60_000); l != b {
		t.Fatalf("leader %d, want B", l)
	}
	produce(t, c, wire.AcksLeader, "m3") // at offset 1, on B
	if got := logOf(t, c, a); !slices.Equal(got, []string{"m1", "m2"}) {
		t.Fatalf("A holds %q", got)
	}

	// A comes back: it follows B, truncates m2, copies m3 and rejoins.
	c.Network().Heal()
	if err := c.Await(func() bool { c.FetchRound(); return slices.Contains(isrOf(c), a) }, 60_000); err != nil {
		t.Fatalf("A did not rejoin the ISR %v: %v", isrOf(c), err)
	}
	if got := logOf(t, c, a); !slices.Equal(got, []string{"m1", "m3"}) {
		t.Fatalf("A holds %q after following B, want m1 m3", got)
	}

	// B dies: A is elected again (first in the assignment, in the ISR).
	if err := c.CrashBroker(b, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	if l := awaitLeader(t, c, b, 60_000); l != a {
		t.Fatalf("leader %d, want A", l)
	}
	produce(t, c, wire.AcksLeader, "m4")
	if err := c.StartBroker(b); err != nil {
		t.Fatal(err)
	}
	converge(t, c)
	sameEpochs(t, c)
	if got := logOf(t, c, b); !slices.Equal(got, []string{"m1", "m3", "m4"}) {
		t.Fatalf("B holds %q, want m1 m3 m4", got)
	}
}
