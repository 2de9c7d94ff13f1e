package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A fetch that finds nothing new waits at the leader for records, up to
// its MaxWaitMs (Kafka's DelayedFetch, rules §4.7): a follower's fetch at
// the log end is answered when a produce arrives, or empty when the wait is
// over — never empty at once. BrokerConfig's ContinuousFetch depends on
// it: a follower that fetches again as soon as it is answered, from a
// leader that answers at once, sends empty fetches in a hot loop (on the
// Cluster's manual clock time never advances again: OpenClusterWith with
// ContinuousFetch never returned).
func TestAFetchWithNothingNewWaitsForData(t *testing.T) {
	const a, b = 1, 2
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b}}, 1, a, b)
	produce(t, c, wire.AcksAll, "x")
	rounds(c, 2)
	leader := c.LeaderOf(topic)
	follower := int32(a + b - leader)
	lr, _ := c.Replica(leader, topic)
	fetch := func() *wire.FetchRequest {
		return &wire.FetchRequest{
			CorrelationID: c.NextCorrelation(), ReplicaID: follower, ReplicaEpoch: -1, MaxWaitMs: 500, MinBytes: 1, MaxBytes: 1 << 20,
			Partitions: []wire.FetchPartition{{Topic: topic.Topic, Partition: topic.Partition, CurrentLeaderEpoch: lr.LeaderEpoch(),
				FetchOffset: lr.LEO(), LastFetchedEpoch: wire.NoEpoch, MaxBytes: 1 << 20}},
		}
	}
	start := c.NowMs()
	resp, err := c.Call(replica.BrokerAt(leader), fetch(), 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if p := resp.(*wire.FetchResponse).Partitions[0]; len(p.Records) != 0 || c.NowMs()-start != 500 {
		t.Fatalf("a fetch at the log end with MaxWaitMs 500 was answered after %d ms with %d bytes; want empty after 500",
			c.NowMs()-start, len(p.Records))
	}

	// A produce while it waits answers it at once, with the records.
	batch, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: []log.Record{{Value: []byte("y")}}})
	if err != nil {
		t.Fatal(err)
	}
	c.Clock().AfterFunc(100, func() {
		c.Network().Send(replica.Envelope{From: replica.ClientAt(0), To: replica.BrokerAt(leader), Msg: &wire.ProduceRequest{
			CorrelationID: c.NextCorrelation(), Acks: wire.AcksLeader, TimeoutMs: 1000,
			Partitions: []wire.ProducePartition{{Topic: topic.Topic, Partition: topic.Partition, Records: batch}},
		}})
	})
	start = c.NowMs()
	resp, err = c.Call(replica.BrokerAt(leader), fetch(), 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if p := resp.(*wire.FetchResponse).Partitions[0]; len(p.Records) == 0 || c.NowMs()-start != 100 {
		t.Fatalf("a produce 100 ms into the wait: answered after %d ms with %d bytes; want the record after 100", c.NowMs()-start, len(p.Records))
	}
}

// Brokers that fetch continuously replicate without fetch rounds: an
// acks=all produce commits as the followers' parked fetches are answered.
func TestContinuousFetchReplicates(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}, Broker: replica.BrokerConfig{ContinuousFetch: true}}, 2, a, b, cc)
	call, err := c.SendProduce(topic, wire.AcksAll, 10_000, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Await(call.Done, 10_000); err != nil {
		t.Fatal("an acks=all produce was not answered")
	}
	if _, _, err := call.Result(); err != nil {
		t.Fatal(err)
	}
	sent := c.Network().Sent
	c.Advance(10_000)
	if n := c.Network().Sent - sent; n > 1000 {
		t.Fatalf("%d messages in 10 s of an idle cluster", n)
	}
	for _, id := range []int32{a, b, cc} {
		if got := logOf(t, c, id); !slices.Equal(got, []string{"x"}) {
			t.Fatalf("broker %d holds %q", id, got)
		}
	}
}
