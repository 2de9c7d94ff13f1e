package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A stale leader is fenced. A loses every link; the controller elects B at
// the next epoch. A still believes it leads: an acks=all produce sent to it
// is never acknowledged as committed (nobody fetches from it, and its ISR
// proposals cannot reach the controller), and the new leader's followers,
// at the newer epoch, are refused by it. When A's links come back, the
// controller's metadata makes it a follower and it truncates what it wrote
// alone.
func TestAStaleLeaderIsFenced(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 2, a, b, cc)
	produce(t, c, wire.AcksAll, "before")
	cutAll := func() {
		for _, x := range []replica.Addr{replica.ControllerAt(), replica.BrokerAt(b), replica.BrokerAt(cc)} {
			c.Network().Cut(replica.BrokerAt(a), x)
		}
	}
	cutAll()
	if l := awaitLeader(t, c, a, 60_000); l != b {
		t.Fatalf("leader %d, want B", l)
	}
	stale, _ := c.Replica(a, topic)
	if stale.Role() != replica.RoleLeader {
		t.Fatal("A already knows it was replaced: the test needs a stale leader")
	}
	// The client still thinks A leads, and its own link to A is up.
	call, err := sendProduceTo(c, a, "stale")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(40_000)
	if resp, done, err := call.Result(); done && err == nil {
		t.Fatalf("a stale leader acknowledged an acks=all write: %+v", resp)
	}
	c.Network().Heal()
	if err := c.Await(func() bool { return stale.Role() == replica.RoleFollower }, 30_000); err != nil {
		t.Fatal("A never learned it was replaced")
	}
	converge(t, c)
	if got := logOf(t, c, a); slices.Contains(got, "stale") {
		t.Fatalf("A kept the write it took while stale: %q", got)
	}
}

// sendProduceTo sends one acks=all record straight to broker id, whatever
// the controller says.
func sendProduceTo(c *replica.Cluster, id int32, value string) (*replica.ProduceCall, error) {
	return c.SendProduceTo(id, topic, wire.AcksAll, 30_000, []byte(value))
}
