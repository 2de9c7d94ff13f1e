package replica_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A broker whose id another process took while it was cut off from the
// controller (its session expired, the other process registered) does not
// go on acting as the partition's leader: once the controller has told it
// its registration is gone (STALE_BROKER_EPOCH) and refuses it as a
// duplicate, a produce to it is refused, not acknowledged. Otherwise the
// old process, which no longer fetches metadata, leads in its own view
// forever, and acknowledges acks=all writes that no replica the cluster
// knows will ever hold.
func TestASupersededBrokerStopsLeading(t *testing.T) {
	const a = 1
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, 2}}, 1, a)
	ctl := replica.ControllerAt()
	produce(t, c, wire.AcksAll, "r0")

	// A is cut off from the controller past its session: fenced.
	c.Network().Cut(replica.BrokerAt(a), ctl)
	c.Network().Cut(ctl, replica.BrokerAt(a))
	c.Advance(20_000)
	// A second process registers as broker 1, and keeps its session.
	reg := c.Controller().RegisterBroker(wire.BrokerRegistrationRequest{
		BrokerID: a, IncarnationID: [16]byte{0xbb}, Endpoint: "elsewhere", PreviousBrokerEpoch: -1,
	}, c.NowMs())
	if reg.ErrorCode != wire.CodeNone {
		t.Fatalf("the second process's registration: %v", reg.ErrorCode)
	}
	t.Logf("at %d ms: a second process registered as broker %d, epoch %d", c.NowMs()-t0, a, reg.BrokerEpoch)
	keep := func() {
		c.Controller().Heartbeat(wire.BrokerHeartbeatRequest{BrokerID: a, BrokerEpoch: reg.BrokerEpoch, MetadataOffset: c.Controller().MetadataEndOffset()}, c.NowMs())
	}
	keep()

	// A's link comes back: its heartbeat is refused, its registration too.
	c.Network().Heal()
	for range 20 {
		c.Advance(500)
		keep()
	}
	b := c.Broker(a)
	t.Logf("at %d ms: old process: epoch %d, refused %v", c.NowMs()-t0, b.Epoch(), b.RegistrationRefused())
	if b.Epoch() >= 0 {
		t.Fatalf("the old process still has broker epoch %d", b.Epoch())
	}
	r, _ := c.Replica(a, topic)
	call, err := c.SendProduceTo(a, topic, wire.AcksAll, 5_000, []byte("lost"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Await(call.Done, 10_000); err != nil {
		t.Fatal(err)
	}
	got, ok, err := call.Result()
	t.Logf("produce to the old process: %+v, %t, %v", got, ok, err)
	if err == nil && ok && got.ErrorCode == wire.CodeNone {
		t.Fatalf("the superseded process (role %v, leader epoch %d) acknowledged an acks=all write at offset %d", r.Role(), r.LeaderEpoch(), got.BaseOffset)
	}
}
