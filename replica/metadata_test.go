package replica_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
)

// A broker's fetch of the metadata log that is lost is sent again within
// seconds, as a KRaft broker's fetch times out after
// controller.quorum.request.timeout.ms (2 s): until it is, the broker
// learns nothing — no new leader to follow, no new topic, no lost
// leadership. Waiting the general request timeout (30 s) keeps a broker
// blind for 30 s after one lost message.
func TestALostMetadataFetchIsSentAgain(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 1, a, b, cc)
	// Broker 3's parked metadata fetch is answered when its wait (500 ms)
	// ends, and it sends the next one at once: lose that one.
	c.Network().SetFaults(replica.BrokerAt(cc), replica.ControllerAt(), replica.LinkFaults{DropRate: 1})
	c.Advance(replica.DefaultMetadataMaxWaitMs + 1)
	c.Network().SetFaults(replica.BrokerAt(cc), replica.ControllerAt(), replica.LinkFaults{})
	if err := c.CreateTopic("later", 1, 3, 1, [][]int32{{a, b, cc}}); err != nil {
		t.Fatalf("broker 3 did not learn of a new topic: %v", err)
	}
}
