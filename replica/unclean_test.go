package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// Unclean election loses data only when it is enabled, and says so. The
// leader is alone in the ISR when it dies, holding records the others
// never copied: the controller elects nobody, and a clean ElectLeaders
// elects nobody either. Only an explicit unclean election for the partition
// elects a replica outside the ISR — its answer says data may be lost, the
// partition is marked RECOVERING — and the records only the old leader held
// are gone.
func TestUncleanElectionOnlyWhenEnabledAndSaysSo(t *testing.T) {
	const a, b = 1, 2
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b}}, 1, a, b)
	produce(t, c, wire.AcksAll, "kept")
	c.Network().Cut(replica.BrokerAt(a), replica.BrokerAt(b))
	c.Advance(45_000)
	if got := isrOf(c); !slices.Equal(got, []int32{a}) {
		t.Fatalf("ISR %v, want [1]", got)
	}
	produce(t, c, wire.AcksAll, "only-on-a") // committed: the ISR is A alone, min ISR 1
	if err := c.CrashBroker(a, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	c.Advance(30_000)
	if l := c.LeaderOf(topic); l != -1 {
		t.Fatalf("the controller elected %d without unclean election", l)
	}
	elect := func(unclean bool) *wire.ElectLeadersResponse {
		t.Helper()
		resp, err := c.Call(replica.ControllerAt(), &wire.ElectLeadersRequest{
			CorrelationID: c.NextCorrelation(), Topic: topic.Topic, Partition: topic.Partition, Unclean: unclean,
		}, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		return resp.(*wire.ElectLeadersResponse)
	}
	if r := elect(false); r.Leader != -1 || r.DataMayBeLost {
		t.Fatalf("a clean election: %+v", r)
	}
	r := elect(true)
	if r.Leader != b || !r.DataMayBeLost {
		t.Fatalf("an unclean election: %+v, want B and DataMayBeLost", r)
	}
	p, _ := c.Controller().Image().Partition(topic.Topic, topic.Partition)
	if p.LeaderRecoveryState != wire.LeaderRecovering {
		t.Fatalf("leader recovery state %v, want RECOVERING", p.LeaderRecoveryState)
	}
	awaitLeader(t, c, a, 10_000)
	if got := logOf(t, c, b); !slices.Equal(got, []string{"kept"}) {
		t.Fatalf("B holds %q: the committed record only A had is lost, as the answer warned", got)
	}
}
