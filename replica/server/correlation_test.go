package server_test

import (
	"net"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// TestARepeatedCorrelationIDKeepsEachRequestItsAnswer: Kafka's broker
// answers a connection's requests in the order they came, whatever their
// correlation ids (the client picks them; nothing makes them unique). A
// client that sends two fetches with the same id — the first parked, the
// second answered at once — and then a third request gets three answers,
// in order. The host gives each request an id of its own (conn.go, enqueue);
// it once matched a response by the client's (API key, correlation id),
// so the second answer took the first request's slot, the third request
// was decoded into it under the parked fetch, and the connection never
// answered again (with a third request of two partitions the broker
// panicked with the node lock held and wedged).
func TestARepeatedCorrelationIDKeepsEachRequestItsAnswer(t *testing.T) {
	cc := dialCorr(t)
	fetch, send := cc.fetch, cc.send
	reqs := []*wire.FetchRequest{
		fetch(7, 1, 1000), // at the high watermark: parks for a second
		fetch(7, 0, 0),    // the same id, answered at once
		fetch(8, 0, 0),    // answered at once, after both in order
	}
	for _, r := range reqs {
		send(r)
	}
	cc.expectAnswers(reqs)
}

// TestRefusalsAndAcksZeroKeepEachRequestItsAnswer: the host's own
// correlation ids hold with a refusal (a request that does not decode,
// carrying the id of a parked one) and an acks=0 produce (never answered,
// never renumbered, sent with the id the host gave the parked fetch)
// pipelined among them: each answered request gets its answer, in order,
// with the client's id.
func TestRefusalsAndAcksZeroKeepEachRequestItsAnswer(t *testing.T) {
	cc := dialCorr(t)
	tp, nc, fetch, send := cc.tp, cc.nc, cc.fetch, cc.send
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
	cc.expectAnswers(reqs)
}

// corrConn is a raw connection to the leader of a one-partition topic
// whose log holds one record.
type corrConn struct {
	t  *testing.T
	tp replica.TopicPartition
	nc net.Conn
}

// dialCorr starts a one-broker cluster, writes one record and dials its
// leader; the connection closes with the test.
func dialCorr(t *testing.T) *corrConn {
	c := clustertest.Start(t, clustertest.Options{Brokers: 1})
	tp := replica.TopicPartition{Topic: "corr", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 1, 1)
	if p := produce(c, tp, wire.AcksAll, "a"); p.ErrorCode != wire.CodeNone {
		t.Fatalf("warm-up produce: %+v", p)
	}
	leader, _ := c.Leader(tp)
	nc, err := net.Dial("tcp", c.Broker(leader).Host.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &corrConn{t: t, tp: tp, nc: nc}
}

// fetch is a consumer's fetch of the partition from offset, waiting up to
// waitMs for a byte.
func (cc *corrConn) fetch(corr int32, offset uint64, waitMs int32) *wire.FetchRequest {
	return &wire.FetchRequest{CorrelationID: corr, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1,
		MaxWaitMs: waitMs, MinBytes: 1, MaxBytes: 1 << 20, Partitions: []wire.FetchPartition{
			{Topic: cc.tp.Topic, Partition: cc.tp.Partition, CurrentLeaderEpoch: wire.NoEpoch, FetchOffset: offset, LastFetchedEpoch: wire.NoEpoch, MaxBytes: 1 << 20},
		}}
}

// send writes m, framed, as it is (its correlation id included).
func (cc *corrConn) send(m wire.Message) {
	bufs, _, err := wire.AppendFrameBuffers(nil, nil, m)
	if err != nil {
		cc.t.Fatal(err)
	}
	if _, err := bufs.WriteTo(cc.nc); err != nil {
		cc.t.Fatal(err)
	}
}

// expectAnswers reads one answer per request, in order, each with its
// request's correlation id.
func (cc *corrConn) expectAnswers(reqs []*wire.FetchRequest) {
	t := cc.t
	t.Helper()
	cc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for i, r := range reqs {
		payload, err := wire.ReadFrame(cc.nc, nil, 0)
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
