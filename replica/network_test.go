package replica_test

import (
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
