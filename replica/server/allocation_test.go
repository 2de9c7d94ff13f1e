package server_test

import (
	"bufio"
	"net"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// noise is the difference in allocations per request that background
// work can account for.
const noise = 5

// rawConn is a client that allocates nothing per request: it writes
// frames encoded beforehand and reads each response into one buffer.
type rawConn struct {
	nc  net.Conn
	br  *bufio.Reader
	buf []byte
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{nc: nc, br: bufio.NewReaderSize(nc, 1<<20)}
}

// roundTrip writes frame and returns the payload of the response.
func (r *rawConn) roundTrip(t testing.TB, frame []byte) []byte {
	if _, err := r.nc.Write(frame); err != nil {
		t.Fatal(err)
	}
	var err error
	if r.buf, err = wire.ReadFrame(r.br, r.buf, 0); err != nil {
		t.Fatal(err)
	}
	return r.buf
}

// frameOf returns m framed.
func frameOf(t testing.TB, m wire.Message) []byte {
	t.Helper()
	p, err := m.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := wire.AppendFrame(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// recordsOf returns one batch of n records of size bytes each.
func recordsOf(t testing.TB, n, size int) []byte {
	t.Helper()
	recs := make([]log.Record, n)
	v := []byte(strings.Repeat("x", size))
	for i := range recs {
		recs[i] = log.Record{OffsetDelta: int32(i), Value: v}
	}
	b, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// produceFrame is an acks=1 produce of one batch of n 100-byte records.
func produceFrame(t testing.TB, tp replica.TopicPartition, acks int16, n int) []byte {
	return frameOf(t, &wire.ProduceRequest{CorrelationID: 1, Acks: acks, TimeoutMs: 30_000, Partitions: []wire.ProducePartition{
		{Topic: tp.Topic, Partition: tp.Partition, Records: recordsOf(t, n, 100)},
	}})
}

// fetchFrame is a consumer's fetch of tp from offset 0, at most maxBytes.
func fetchFrame(t testing.TB, tp replica.TopicPartition, maxBytes int32) []byte {
	return frameOf(t, &wire.FetchRequest{CorrelationID: 2, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1, MaxBytes: maxBytes,
		Partitions: []wire.FetchPartition{{Topic: tp.Topic, Partition: tp.Partition, CurrentLeaderEpoch: wire.NoEpoch,
			FetchOffset: 0, LastFetchedEpoch: wire.NoEpoch, MaxBytes: maxBytes}}})
}

// TestNoAllocationPerRecord: over TCP, a broker's produce path (read,
// decode, append, answer) and fetch path (read, decode, read the log,
// frame, write) allocate the same whether a request carries one record or
// a thousand: nothing per record. What they allocate per request is the
// broker's own (its response values), not the transport's. The process's
// background work (heartbeats, the metadata long-poll) allocates too, so
// a difference of a few allocations per request is noise; one per record
// would be a thousand.
func TestNoAllocationPerRecord(t *testing.T) {
	c := clustertest.Start(t, clustertest.Options{Brokers: 1, Broker: func(cfg *replica.BrokerConfig) { cfg.HeartbeatIntervalMs = 5000 }})
	tp := replica.TopicPartition{Topic: "allocs", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 1, 1)
	conn := dialRaw(t, c.Broker(1).Host.Addr().String())

	perRequest := func(frame []byte, check func([]byte)) float64 {
		check(conn.roundTrip(t, frame)) // warm the buffers
		return testing.AllocsPerRun(200, func() { conn.roundTrip(t, frame) })
	}
	produceOK := func(p []byte) {
		var r wire.ProduceResponse
		if err := wire.DecodeProduceResponseInto(p, &r); err != nil || r.Partitions[0].ErrorCode != wire.CodeNone {
			t.Fatalf("produce: %v %+v", err, r)
		}
	}
	one := perRequest(produceFrame(t, tp, wire.AcksLeader, 1), produceOK)
	thousand := perRequest(produceFrame(t, tp, wire.AcksLeader, 1000), produceOK)
	t.Logf("produce: %.1f allocations per request of 1 record, %.1f of 1000", one, thousand)
	if thousand-one >= noise {
		t.Errorf("produce: %.1f allocations for 1000 records, %.1f for 1: %.3f per record", thousand, one, (thousand-one)/999)
	}

	fetchOK := func(want int) func([]byte) {
		return func(p []byte) {
			var r wire.FetchResponse
			if err := wire.DecodeFetchResponseInto(p, &r); err != nil || r.Partitions[0].ErrorCode != wire.CodeNone {
				t.Fatalf("fetch: %v %+v", err, r)
			}
			if len(r.Partitions[0].Records) < want {
				t.Fatalf("fetch: %d bytes of records, want %d", len(r.Partitions[0].Records), want)
			}
		}
	}
	// The log now starts with a 1-record batch; the 1000-record batches
	// follow. A fetch of 1 byte gets the first batch whole (KIP-74); one of
	// 1 MiB gets the 1-record batch and several 1000-record ones.
	one = perRequest(fetchFrame(t, tp, 1), fetchOK(1))
	thousand = perRequest(fetchFrame(t, tp, 1<<20), fetchOK(1000*100))
	t.Logf("fetch: %.1f allocations per request of 1 record, %.1f of ~10000", one, thousand)
	if thousand-one >= noise {
		t.Errorf("fetch: %.1f allocations for ~10000 records, %.1f for 1", thousand, one)
	}
}
