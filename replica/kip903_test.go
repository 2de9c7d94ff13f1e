package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// KIP-903: an ISR expansion carries the broker epoch of the follower as
// the leader saw it in the follower's fetch, so that a proposal made for
// one incarnation cannot add the next one. Here the leader proposes B back
// into the ISR when B caught up; the proposal is lost; B then loses its
// tail in a power cut and registers again (uncleanly, KIP-966). The
// leader's resent proposal must not put the new incarnation, which holds
// none of the committed records, into the ISR, and B must never be elected
// over them.
func TestAnExpansionForAnOldIncarnationIsRefused(t *testing.T) {
	const a, b = 1, 2
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b}}, 1, a, b)
	ctl := replica.ControllerAt()
	// The ISR changes the controller receives and answers, for the log.
	c.Watch(func(env replica.Envelope) {
		switch m := env.Msg.(type) {
		case *wire.AlterPartitionRequest:
			t.Logf("at %d ms: AlterPartition from broker %d delivered: ISR %+v", c.NowMs()-t0, m.BrokerID, m.NewISR)
		case *wire.AlterPartitionResponse:
			t.Logf("at %d ms: AlterPartition answered %v: ISR %v", c.NowMs()-t0, m.ErrorCode, m.ISR)
		}
	})
	produce(t, c, wire.AcksAll, "r0")
	rounds(c, 2)

	// B falls out of the ISR (the lag timer), and A commits alone.
	c.Network().Cut(replica.BrokerAt(b), replica.BrokerAt(a))
	c.Advance(45_000)
	rounds(c, 1)
	if got := isrOf(c); !slices.Equal(got, []int32{a}) {
		t.Fatalf("ISR %v, want [1]", got)
	}
	want := []string{"r0"}
	for _, v := range []string{"r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9"} {
		produce(t, c, wire.AcksAll, v)
		want = append(want, v)
	}

	// B catches up; A's expansion proposal to the controller is lost.
	c.Network().Heal()
	c.Disconnect(replica.BrokerAt(b), replica.BrokerAt(a)) // B forgets the fetch the cut lost
	c.Network().Cut(replica.BrokerAt(a), ctl)
	rb, _ := c.Replica(b, topic)
	if err := c.Await(func() bool { c.FetchRound(); return rb.LEO() == 10 }, 5_000); err != nil {
		ra, _ := c.Replica(a, topic)
		t.Fatalf("B did not catch up: LEO %d role %v epoch %d; A LEO %d role %v epoch %d; leader %d; fenced %v %v; halted %v", rb.LEO(), rb.Role(), rb.LeaderEpoch(), ra.LEO(), ra.Role(), ra.LeaderEpoch(), c.LeaderOf(topic), c.Broker(a).Fenced(), c.Broker(b).Fenced(), c.Broker(b).Halted())
	}
	rounds(c, 1) // B's next fetch reports LEO 10: A proposes B back
	if rb.LEO() != 10 {
		t.Fatalf("B's LEO %d, want 10 (caught up)", rb.LEO())
	}
	if got := isrOf(c); !slices.Equal(got, []int32{a}) {
		t.Fatalf("ISR %v before the power cut, want [1] (the proposal was to be lost)", got)
	}

	// B loses its unflushed tail and comes back as a new incarnation; its
	// fetches do not reach A.
	if err := c.CrashBroker(b, vfs.LoseUnsynced); err != nil {
		t.Fatal(err)
	}
	c.Network().Cut(replica.BrokerAt(b), replica.BrokerAt(a))
	if err := c.StartBroker(b); err != nil {
		t.Fatal(err)
	}
	rb, _ = c.Replica(b, topic)
	lostLEO := rb.LEO()
	t.Logf("at %d ms: B restarted with broker epoch %d, LEO %d; ISR %v", c.NowMs()-t0, c.Broker(b).Epoch(), lostLEO, isrOf(c))
	if lostLEO >= 10 {
		t.Fatalf("B's LEO %d after the power cut: the test needs a lost tail", lostLEO)
	}
	// A reaches the controller again before its session ends and resends
	// its proposal. B's new incarnation is refused until its old session
	// expires (DUPLICATE_BROKER_REGISTRATION), so the proposal, naming the
	// old incarnation's epoch, may still be applied; the new registration
	// then fences the old one and takes it out of the ISR.
	c.Network().Heal()
	c.Network().Cut(replica.BrokerAt(b), replica.BrokerAt(a))
	if err := c.AwaitBrokers(30_000); err != nil {
		t.Fatalf("brokers: %v", err)
	}
	for range 10 {
		c.Advance(1_000)
	}
	t.Logf("B's LEO %d after its power cut; ISR now %v", lostLEO, isrOf(c))
	if slices.Contains(isrOf(c), b) {
		t.Errorf("B (LEO %d, new incarnation) was added to the ISR %v by a proposal made for its previous incarnation (LEO 10): KIP-903", lostLEO, isrOf(c))
	}

	// The consequence: A dies, and the controller elects an ISR member.
	if err := c.CrashBroker(a, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	c.Network().Heal()
	if err := c.Await(func() bool {
		l := c.LeaderOf(topic)
		r, ok := c.Replica(l, topic)
		return l >= 0 && l != a && ok && r.Role() == replica.RoleLeader
	}, 30_000); err != nil {
		return // no one elected: nothing committed was lost
	}
	next := c.LeaderOf(topic)
	if got := logOf(t, c, next); !slices.Equal(got, want) {
		t.Errorf("broker %d was elected holding %q; the committed records were %q", next, got, want)
	}
}
