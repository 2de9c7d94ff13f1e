package replica_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/wire"
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

// A fetch of the metadata log that fails — the controller refuses it (it
// has failed: NOT_CONTROLLER), or the broker cannot apply what it got — is
// tried again after a backoff, not at once: the controller answers a
// failing fetch at once, so every broker would hammer it in a hot loop
// (and on a manual clock time would never pass again).
func TestAFailedMetadataFetchBacksOff(t *testing.T) {
	now := t0
	b, err := replica.OpenBroker(replica.BrokerConfig{ID: 1, Dir: "/b1", IncarnationID: [16]byte{1},
		Replica: replica.Options{Log: log.Options{FS: vfs.NewMem()}}}, now)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	answer := func(m wire.Message) {
		b.Receive(replica.Envelope{From: replica.ControllerAt(), To: replica.BrokerAt(1), Response: true, Msg: m}, now)
	}
	// metadataFetches answers registrations and returns the metadata
	// fetches in the outbox.
	metadataFetches := func() []*wire.FetchRequest {
		var out []*wire.FetchRequest
		for _, env := range b.Outbox() {
			switch m := env.Msg.(type) {
			case *wire.BrokerRegistrationRequest:
				answer(&wire.BrokerRegistrationResponse{CorrelationID: m.CorrelationID, BrokerEpoch: 5})
			case *wire.FetchRequest:
				out = append(out, m)
			}
		}
		return out
	}
	metadataFetches()
	fetches := metadataFetches()
	if len(fetches) != 1 {
		t.Fatalf("%d metadata fetches after registering, want 1", len(fetches))
	}
	for _, failure := range []wire.FetchPartitionResponse{
		{Topic: controller.MetadataTopic, ErrorCode: wire.CodeNotController},
		{Topic: controller.MetadataTopic, Records: []byte("not a batch")},
	} {
		answer(&wire.FetchResponse{CorrelationID: fetches[0].CorrelationID, Partitions: []wire.FetchPartitionResponse{failure}})
		if again := metadataFetches(); len(again) != 0 {
			t.Fatalf("a failed metadata fetch (%v) was sent again at the same instant", failure.ErrorCode)
		}
		fetches = nil
		for range 10 {
			next := b.NextTickMs()
			if next <= now {
				t.Fatalf("next tick at %d, now %d", next, now)
			}
			now = next
			b.Tick(now)
			if fetches = metadataFetches(); len(fetches) > 0 {
				break
			}
		}
		if len(fetches) != 1 {
			t.Fatalf("after a failed metadata fetch: %d fetches, want one after a backoff", len(fetches))
		}
	}
}

// A controller whose store fails answers everything with NOT_CONTROLLER,
// and a fetch of the metadata log it cannot serve at once. A broker behind
// it keeps asking, but on a backoff: the cluster's clock still moves
// (before, the broker's metadata fetch looped at one instant and Advance
// never returned).
func TestAFailedControllerIsNotHammered(t *testing.T) {
	ctlFS := vfs.Faulty(vfs.NewMem())
	c, err := replica.OpenCluster(replica.ClusterConfig{
		Dir: "/cluster", Brokers: []int32{1, 2}, StartMs: t0,
		Log:    log.Options{FS: ctlFS},
		Broker: replica.BrokerConfig{Replica: replica.Options{Log: log.Options{FS: vfs.NewMem()}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Broker 2 falls behind the metadata log: cut off, it is fenced.
	c.Network().Cut(replica.BrokerAt(2), replica.ControllerAt())
	c.Advance(15_000)
	if reg, _ := c.Controller().Image().Broker(2); !reg.Fenced {
		t.Fatal("broker 2 was not fenced")
	}
	ctlFS.FailFrom(vfs.OpSync, ctlFS.Calls(vfs.OpSync)+1, errors.New("disk gone"))
	resp, err := c.Call(replica.ControllerAt(), &wire.CreateTopicsRequest{CorrelationID: c.NextCorrelation(), Topics: []wire.CreatableTopic{{Name: "t", Partitions: 1, ReplicationFactor: 1}}}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if resp.(*wire.CreateTopicsResponse).Err() == nil || c.Controller().Failed() == nil {
		t.Fatal("the controller did not fail")
	}
	c.Network().Heal()
	sent := c.Network().Sent
	c.Advance(10_000)
	if n := c.Network().Sent - sent; n > 1000 {
		t.Fatalf("%d messages in 10 s to a failed controller", n)
	}
}
