package replica_test

import (
	"fmt"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// Metadata requests naming ever new unknown topics whose auto-creation the
// controller refuses (here a replication factor above the brokers) leave
// a bounded amount of state on the broker: a refusal kept for a name no
// client asks about again is not kept forever (Kafka's
// AutoTopicCreationManager keeps none), and the creations in flight are
// bounded.
func TestAutoCreationHoldsBoundedStateForRefusedNames(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1}}, 1, 1)
	const perRequest, requests = 1000, 10
	for r := range requests {
		names := make([]string, perRequest)
		for i := range names {
			names[i] = fmt.Sprintf("flood-%d-%d", r, i)
		}
		resp, err := c.Call(replica.BrokerAt(1), &wire.MetadataRequest{
			CorrelationID: c.NextCorrelation(), Topics: names,
			AutoCreate: wire.AutoCreate{Partitions: 1, ReplicationFactor: 3},
		}, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(resp.(*wire.MetadataResponse).Topics); n != perRequest {
			t.Fatalf("answered %d topics, want %d", n, perRequest)
		}
		if err := c.Await(func() bool { n, _ := c.Broker(1).AutoCreateHeld(); return n == 0 }, 10_000); err != nil {
			t.Fatalf("the auto-creations did not end: %v", err)
		}
	}
	inFlight, refusals := c.Broker(1).AutoCreateHeld()
	if refusals > replica.MaxAutoCreateHeld || inFlight > replica.MaxAutoCreateHeld {
		t.Fatalf("after %d distinct refused names the broker holds %d refusals and %d creations in flight, want at most %d",
			perRequest*requests, refusals, inFlight, replica.MaxAutoCreateHeld)
	}
}
