package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A message on its way to a node that crashes is lost, as on a TCP
// connection that died with the process — even when the node is started
// again before the message would have arrived. Delivered to the new
// incarnation, an answer meant for the old one matches a request of the
// new one by correlation id (both count from 1): a registration answer
// hands it its predecessor's broker epoch, a fetch answer hands a follower
// records from another fetch offset. Cluster.CrashBroker and
// RestartController promise exactly this loss.
func TestAMessageToACrashedNodeIsLost(t *testing.T) {
	clk := clock.NewManual(t0)
	n := replica.NewNetwork(clk, 1)
	n.SetDefaultFaults(replica.LinkFaults{MinDelayMs: 10, MaxDelayMs: 10})
	to := replica.BrokerAt(1)
	var old, restarted int
	n.Attach(to, func(replica.Envelope) { old++ })
	n.Send(replica.Envelope{From: replica.ControllerAt(), To: to, Response: true,
		Msg: &wire.BrokerRegistrationResponse{CorrelationID: 1, BrokerEpoch: 7}})
	n.Detach(to) // the broker crashes with the answer on its way
	n.Attach(to, func(replica.Envelope) { restarted++ })
	// A message sent to the new incarnation arrives.
	n.Send(replica.Envelope{From: replica.ControllerAt(), To: to, Response: true,
		Msg: &wire.BrokerRegistrationResponse{CorrelationID: 1, BrokerEpoch: 9}})
	clk.Advance(10)
	if old != 0 || restarted != 1 {
		t.Fatalf("the old incarnation got %d messages, the new one %d; want 0 and 1 (only the one sent to it)", old, restarted)
	}
}

// A message the network duplicates arrives twice, each copy as it was
// sent. The copies must not share bytes: a leader stamps a produce's batch
// in place (base offset, leader epoch), so a second copy decoded from the
// same bytes reached it already stamped and was refused as INVALID_RECORD
// — a duplicated produce was not written twice, as it is in Kafka without
// idempotence, and the producer, whose record was written, was told
// INVALID_RECORD.
func TestADuplicatedMessageArrivesTwiceIntact(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1}}, 1, 1)
	produce(t, c, wire.AcksLeader, "a")
	c.Network().SetFaults(replica.ClientAt(0), replica.BrokerAt(1), replica.LinkFaults{DuplicateRate: 1})
	call, err := c.SendProduce(topic, wire.AcksLeader, 1000, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	c.Run()
	if _, done, err := call.Result(); !done || err != nil {
		t.Fatalf("a duplicated produce was answered %v (done %v)", err, done)
	}
	if got := logOf(t, c, 1); !slices.Equal(got, []string{"a", "x", "x"}) {
		t.Fatalf("the leader holds %q after a duplicated produce, want a x x", got)
	}
}
