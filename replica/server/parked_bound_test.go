package server_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// TestParkedFetchesBoundedPerConnection: a connection parks at most
// Config.MaxInFlight requests in the broker, as Kafka's processor, which
// mutes a channel while its request is in flight, parks at most one. A
// client that sends more long-polling fetches is not dropped: it is no
// longer read (back-pressure) until an answer is written, and then its
// next fetches are read and answered in order.
func TestParkedFetchesBoundedPerConnection(t *testing.T) {
	const bound = 2
	c := clustertest.Start(t, clustertest.Options{Brokers: 1, Wrap: record,
		Host: func(id int32, _ *replica.Broker, cfg *server.Config) { cfg.MaxInFlight = bound }})
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 1, 1)
	if p := produce(c, tp, wire.AcksAll, "a"); p.ErrorCode != wire.CodeNone {
		t.Fatalf("first produce: %+v", p)
	}
	b := c.Broker(1)
	rec := b.Node.(*recorder)
	fetches := func() int {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		n := 0
		for _, r := range rec.received {
			if r.key == wire.APIFetch {
				n++
			}
		}
		return n
	}

	cl := dial(t, b.Host.Addr().String())
	defer cl.close()
	var corrs []int32
	for range bound + 2 {
		// At the log end: each parks for up to a minute.
		corrs = append(corrs, cl.send(&wire.FetchRequest{ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1,
			MaxWaitMs: 60_000, MinBytes: 1, MaxBytes: 1 << 20, Partitions: []wire.FetchPartition{
				{Topic: tp.Topic, Partition: tp.Partition, CurrentLeaderEpoch: wire.NoEpoch, FetchOffset: 1, LastFetchedEpoch: wire.NoEpoch, MaxBytes: 1 << 20},
			}}))
	}
	c.Await("the first fetches parked and the connection muted", func() bool {
		if n := fetches(); n > bound {
			t.Fatalf("the broker got %d fetches of a connection bounded at %d, all parked", n, bound)
		}
		return fetches() == bound && b.Host.Muted() == 1
	})
	// Muted with every place taken by a delivered fetch: the reader waits
	// for a place before it reads the next frame.
	if n := fetches(); n != bound {
		t.Fatalf("the broker got %d fetches of a connection muted at %d", n, bound)
	}

	// A record on another connection answers the parked fetches; their
	// answers free the places of the next two, which find it at once.
	if p := produce(c, tp, wire.AcksLeader, "b"); p.ErrorCode != wire.CodeNone {
		t.Fatalf("second produce: %+v", p)
	}
	for i, corr := range corrs {
		m := cl.receive()
		f, ok := m.(*wire.FetchResponse)
		if !ok || f.Correlation() != corr {
			t.Fatalf("answer %d: %v %d, want the fetch answer %d", i+1, m.APIKey(), m.Correlation(), corr)
		}
		if len(f.Partitions) != 1 || f.Partitions[0].ErrorCode != wire.CodeNone || len(f.Partitions[0].Records) == 0 {
			t.Fatalf("answer %d: %+v, want the second record", i+1, f.Partitions)
		}
	}
	if n := fetches(); n != bound+2 {
		t.Fatalf("the broker got %d fetches, want %d", n, bound+2)
	}
}
