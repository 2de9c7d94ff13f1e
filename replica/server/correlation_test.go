package server_test

import (
	"net"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// TestARepeatedCorrelationIDClosesTheConnection: responses find their
// request by API key and correlation id, so a client that sends a second
// request with the id of one still waiting (here a parked fetch) breaks
// the protocol. The host closes the connection instead of answering out of
// place — once it let the second answer take the first request's slot,
// which the next request then reused under the parked fetch, and the
// connection never answered again. The first request, parked, gets no
// answer either; the client resends on a new connection, as after any
// broken one.
func TestARepeatedCorrelationIDClosesTheConnection(t *testing.T) {
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
	payload, err := wire.ReadFrame(nc, nil, 0)
	if err == nil {
		m, _ := wire.DecodeResponse(payload)
		t.Fatalf("an answer (%v %d) to a connection that repeated a correlation id in flight; want it closed", m.APIKey(), m.Correlation())
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the connection stayed open: %v", err)
	}
	// The broker goes on serving others.
	if p := c.produce(tp, wire.AcksAll, "b"); p.ErrorCode != wire.CodeNone {
		t.Fatalf("produce after the close: %+v", p)
	}
}
