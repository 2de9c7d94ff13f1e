package replica_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
)

// A broker keeps its session through one lost heartbeat: a heartbeat (or
// its answer) that is lost is sent again well before the controller's
// session timeout, as Kafka's lifecycle channel does since KAFKA-14392
// (its request timeout is half the session timeout). Waiting the general
// request timeout (30 s) instead lets a 9 s session expire on a single
// lost message: the broker is fenced and leaves every ISR.
func TestALostHeartbeatIsSentAgainBeforeTheSessionExpires(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 1, a, b, cc)
	drop := replica.LinkFaults{DropRate: 1}
	// Lose everything broker 3 sends the controller for one heartbeat
	// interval: exactly one heartbeat goes missing.
	c.Network().SetFaults(replica.BrokerAt(cc), replica.ControllerAt(), drop)
	c.Advance(replica.DefaultHeartbeatIntervalMs)
	c.Network().SetFaults(replica.BrokerAt(cc), replica.ControllerAt(), replica.LinkFaults{})
	for range 15 {
		c.Advance(1000)
		if reg, _ := c.Controller().Image().Broker(cc); reg.Fenced {
			t.Fatalf("broker 3 fenced at %d ms, having lost one heartbeat", c.NowMs()-t0)
		}
	}
}
