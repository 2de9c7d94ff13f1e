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
// in order. The host gives each request an id of its own (correlation.go);
// it once matched a response by the client's (API key, correlation id),
// so the second answer took the first request's slot, the third request
// was decoded into it under the parked fetch, and the connection never
// answered again (with a third request of two partitions the broker
// panicked with the node lock held and wedged).
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

// TestRefusalsAndAcksZeroKeepEachRequestItsAnswer: the host's own
// correlation ids hold with a refusal (a request that does not decode,
// carrying the id of a parked one) and an acks=0 produce (never answered,
// never renumbered, sent with the id the host gave the parked fetch)
// pipelined among them: each answered request gets its answer, in order,
// with the client's id.
func TestRefusalsAndAcksZeroKeepEachRequestItsAnswer(t *testing.T) {
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
		fetch(7, 0, 0),    // refused: sent cut short, with the same id
		fetch(1, 0, 0),    // answered at once, after both in order
	}
	send(reqs[0])
	// An acks=0 produce with the id the host gave the parked fetch: no
	// answer, and it must not take anyone's.
	acks0 := produceRequest(t, tp, wire.AcksNone, "z")
	acks0.CorrelationID = 1 // the host numbers from 1
	send(acks0)
	bufs, _, err := wire.AppendFrameBuffers(nil, nil, reqs[1])
	if err != nil {
		t.Fatal(err)
	}
	var whole []byte
	for _, b := range bufs {
		whole = append(whole, b...)
	}
	cut, err := wire.AppendFrame(nil, whole[4:len(whole)-3]) // the request without its last bytes
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Write(cut); err != nil {
		t.Fatal(err)
	}
	send(reqs[2])
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
