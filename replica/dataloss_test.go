package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The two losses issue 8 found, now losing nothing.

// A follower the time rule dropped does not come back into the ISR when the
// leader restarts: the new leadership takes the controller's ISR, and when
// the leader then dies the controller elects an ISR member, not the
// straggler (before, BecomeLeader put everyone back and FailOver lost the
// committed records the straggler never had).
func TestReElectionDoesNotBringStragglersBack(t *testing.T) {
	const a, b, straggler = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, straggler}}, 1, a, b, straggler)
	produce(t, c, wire.AcksAll, "r0")
	c.Network().Cut(replica.BrokerAt(straggler), replica.BrokerAt(a))
	c.Advance(45_000) // past replica.lag.time.max.ms: the lag timer proposes, the controller commits
	rounds(c, 1)
	if got := isrOf(c); !slices.Equal(got, []int32{a, b}) {
		t.Fatalf("ISR %v, want [1 2]", got)
	}
	for _, v := range []string{"r1", "r2", "r3"} {
		produce(t, c, wire.AcksAll, v)
	}

	// The leader restarts cleanly; the straggler is still out.
	if err := c.StopBroker(a); err != nil {
		t.Fatal(err)
	}
	if err := c.StartBroker(a); err != nil {
		t.Fatal(err)
	}
	// A restart takes the leader out of the ISR for as long as it needs to
	// catch up again (its old registration is fenced); it rejoins by
	// fetching. The straggler, cut off, stays out whoever leads.
	if err := c.Await(func() bool { c.FetchRound(); return len(isrOf(c)) == 2 }, 60_000); err != nil {
		t.Fatalf("ISR %v: the restarted broker did not rejoin", isrOf(c))
	}
	if slices.Contains(isrOf(c), straggler) {
		t.Fatalf("the straggler is back in the ISR %v", isrOf(c))
	}
	leader := c.LeaderOf(topic)
	if err := c.CrashBroker(leader, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	next := awaitLeader(t, c, leader, 60_000)
	if next == straggler {
		t.Fatal("the straggler was elected")
	}
	if got := logOf(t, c, next); !slices.Equal(got, []string{"r0", "r1", "r2", "r3"}) {
		t.Fatalf("the new leader holds %q", got)
	}
}

// KAFKA-14139 (fixed by KIP-966): a follower whose unflushed tail is lost
// on restart must not stay in the ISR and be elected. B loses its tail in a
// power cut; its registration is unclean, the controller takes it out of
// the ISR, and when the leader then dies it is not elected: the committed
// records survive on the replica that is.
func TestALostTailIsNotElected(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 2, a, b, cc)
	var want []string
	for i := range 10 {
		v := string(rune('a' + i))
		want = append(want, v)
		produce(t, c, wire.AcksAll, v)
	}
	rounds(c, 2)
	before, _ := c.Replica(b, topic)
	if before.LEO() != 10 {
		t.Fatalf("B's LEO %d before the cut, want 10", before.LEO())
	}
	if err := c.CrashBroker(b, vfs.LoseUnsynced); err != nil { // nothing was fsynced: SyncNever
		t.Fatal(err)
	}
	if err := c.StartBroker(b); err != nil {
		t.Fatal(err)
	}
	after, _ := c.Replica(b, topic)
	if after.LEO() >= 10 {
		t.Fatalf("B's LEO %d after the power cut: the test needs a lost tail", after.LEO())
	}
	if err := c.Await(func() bool { return !slices.Contains(isrOf(c), b) }, 10_000); err != nil {
		t.Fatalf("B with a lost tail is still in the ISR %v", isrOf(c))
	}
	if err := c.CrashBroker(a, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	next := awaitLeader(t, c, a, 60_000)
	if next == b {
		t.Fatal("B, which lost committed records, was elected")
	}
	if got := logOf(t, c, next); !slices.Equal(got, want) {
		t.Fatalf("the new leader holds %q, want %q", got, want)
	}
}

var _ = log.SyncNever
