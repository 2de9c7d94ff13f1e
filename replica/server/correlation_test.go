package server_test

import (
	"net"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// TestARepeatedCorrelationIDKeepsEachRequestItsAnswer: Kafka's broker
// answers a connection's requests in the order they came, whatever their
// correlation ids (the client picks them; nothing makes them unique). A
// client that sends two fetches with the same id — the first parked, the
// second answered at once — and then a third request gets three answers,
// in order. The host matches a response to its request by (API key,
// correlation id) instead, so the second answer takes the first request's
// slot; that slot, released when written, is decoded into by the third
// request while the parked first fetch still points at it
// (parkedFetch.req == &slot.fetch). The parked fetch then answers with the
// third request's correlation id, which matches no open slot: the answer
// is dropped, and the connection never answers again. (With a third
// request of two partitions, parkedFetchDone indexes the first request's
// one mark with the second partition and panics on the connection's read
// goroutine with the node lock held; its deferred close then waits for
// that lock for ever, so the whole broker wedges. That variant is not
// here: it would hang the package's tests.)
func TestARepeatedCorrelationIDKeepsEachRequestItsAnswer(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 1})
	tp := replica.TopicPartition{Topic: "corr", Partition: 0}
	c.createTopic(tp.Topic, 1, 1, 1)
	if p := c.produce(tp, wire.AcksAll, "a"); p.ErrorCode != wire.CodeNone {
		t.Fatalf("warm-up produce: %+v", p)
	}
	leader, _ := c.leader(tp)
	nc, err := net.Dial("tcp", c.broker(leader).h.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fetch := func(corr int32, offset uint64, waitMs int32) *wire.FetchRequest {
		return &wire.FetchRequest{CorrelationID: corr, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1,
			MaxWaitMs: waitMs, MinBytes: 1, MaxBytes: 1 << 20, Partitions: []wire.FetchPartition{
				{Topic: tp.Topic, Partition: tp.Partition, CurrentLeaderEpoch: wire.NoEpoch, FetchOffset: offset, LastFetchedEpoch: wire.NoEpoch, MaxBytes: 1 << 20},
			}}
	}
	send := func(m wire.Message) {
		bufs, _, err := wire.AppendFrameBuffers(nil, nil, m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bufs.WriteTo(nc); err != nil {
			t.Fatal(err)
		}
	}
	reqs := []*wire.FetchRequest{
		fetch(7, 1, 1000), // at the high watermark: parks for a second
		fetch(7, 0, 0),    // the same id, answered at once
		fetch(8, 0, 0),    // answered at once, after both in order
	}
	for _, r := range reqs {
		send(r)
	}
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for i, r := range reqs {
		payload, err := wire.ReadFrame(nc, nil, 0)
		if err != nil {
			t.Fatalf("answer %d of %d (to the fetch with correlation id %d): %v", i+1, len(reqs), r.CorrelationID, err)
		}
		m, err := wire.DecodeResponse(payload)
		if err != nil {
			t.Fatal(err)
		}
		if m.Correlation() != r.CorrelationID {
			t.Fatalf("answer %d: correlation id %d, want %d", i+1, m.Correlation(), r.CorrelationID)
		}
	}
}
