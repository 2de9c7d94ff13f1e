package server_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// TestAcksZeroAnsweredByNothing: an acks=0 produce gets no response at
// all, and takes no place in the connection's order: the request sent
// after it on the same connection is answered first, and nothing else
// ever comes. Its records are written all the same.
func TestAcksZeroAnsweredByNothing(t *testing.T) {
	c := clustertest.Start(t, clustertest.Options{Brokers: 3})
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 3, 2)
	leader, _ := c.Leader(tp)

	cl := dial(t, c.Broker(leader).Host.Addr().String())
	defer cl.close()
	cl.send(produceRequest(t, tp, wire.AcksNone, "fire", "and", "forget"))
	listOffsets := func() *wire.ListOffsetsRequest {
		return &wire.ListOffsetsRequest{ReplicaID: wire.ConsumerReplicaID, Partitions: []wire.ListOffsetsPartition{
			{Topic: tp.Topic, Partition: tp.Partition, CurrentLeaderEpoch: wire.NoEpoch, Timestamp: wire.EarliestTimestamp},
		}}
	}
	for range 2 {
		corr := cl.send(listOffsets())
		if m := cl.receive(); m.APIKey() != wire.APIListOffsets || m.Correlation() != corr {
			t.Fatalf("got %v %d, want the list-offsets answer %d", m.APIKey(), m.Correlation(), corr)
		}
	}
	c.Await("the acks=0 records on the leader", func() bool {
		_, leo := c.HW(leader, tp)
		return leo == 3
	})
	// The connection is still in step: an acks=1 produce is answered, at
	// the offset after the acks=0 records.
	resp := cl.call(produceRequest(t, tp, wire.AcksLeader, "next")).(*wire.ProduceResponse)
	if p := resp.Partitions[0]; p.ErrorCode != wire.CodeNone || p.BaseOffset != 3 {
		t.Fatalf("acks=1 after acks=0: %+v", p)
	}
}

// TestUndecodableAcksZeroProduceClosesTheConnection: a produce whose body
// does not decode is never answered when it said acks=0, nor when its
// acks cannot be read (a body cut before them, a version we do not
// speak): the host closes the connection instead, as Kafka closes it on
// an acks=0 produce it refuses. An answer would be one the client never
// asked for, which it cannot match to a request; the closed connection is
// the one signal both kinds of client understand (one that did want an
// answer sees a retriable network error and resends).
func TestUndecodableAcksZeroProduceClosesTheConnection(t *testing.T) {
	c := clustertest.Start(t, clustertest.Options{Brokers: 1})
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 1, 1)
	addr := c.Broker(1).Host.Addr().String()
	acks0 := produceRequest(t, tp, wire.AcksNone, "lost")
	acks0.CorrelationID = 8
	whole := encode(t, acks0)
	for _, tc := range []struct {
		name    string
		payload []byte
	}{
		{"acks=0, partitions cut short", whole[:len(whole)-3]},
		{"cut before its acks", append(header(wire.APIProduce, 0, 8), 0)},
		{"a version we do not speak", append(header(wire.APIProduce, 3, 8), 0, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := dial(t, addr)
			defer cl.close()
			cl.keys[8] = wire.APIProduce
			cl.rawFrame(tc.payload)
			cl.expectClosed()
		})
	}
	if _, leo := c.HW(1, tp); leo != 0 {
		t.Fatalf("log end %d after undecodable produces, want 0", leo)
	}
}

// TestAClosingConnectionAnswersWhatCameBefore: when a request makes the
// broker close the connection (a refused acks=0 produce, or a produce it
// cannot decode that said acks=0), the requests read before it are
// answered first, in order — Kafka's broker handles one request of a
// connection at a time, so when it closes one no answer is pending — and
// no request read after it is handled. Closing at once dropped the answer
// of an acks=1 produce already appended, whose client then resends it: a
// duplicate.
func TestAClosingConnectionAnswersWhatCameBefore(t *testing.T) {
	for _, tc := range []struct {
		name  string
		close func(t *testing.T) []byte // the frame that closes the connection
	}{
		{"refused acks=0 produce", func(t *testing.T) []byte {
			m := produceRequest(t, replica.TopicPartition{Topic: "nosuch"}, wire.AcksNone, "x")
			m.CorrelationID = 7
			return frameOf(t, m)
		}},
		{"undecodable acks=0 produce", func(t *testing.T) []byte {
			m := produceRequest(t, replica.TopicPartition{Topic: "corr"}, wire.AcksNone, "x")
			m.CorrelationID = 7
			f := frameOf(t, m)
			f = f[:len(f)-3] // its records cut short
			binary.BigEndian.PutUint32(f, uint32(len(f)-4))
			return f
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc := dialCorr(t)
			park := cc.fetch(5, 1, 2000) // parks at the log end, answered by the produce
			written := produceRequest(t, cc.tp, wire.AcksLeader, "written")
			written.CorrelationID = 6
			after := produceRequest(t, cc.tp, wire.AcksLeader, "after")
			after.CorrelationID = 8
			var all []byte
			all = append(all, frameOf(t, park)...)
			all = append(all, frameOf(t, written)...)
			all = append(all, tc.close(t)...)
			all = append(all, frameOf(t, after)...)
			if _, err := cc.nc.Write(all); err != nil { // one write: all read before any answer
				t.Fatal(err)
			}
			cc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
			for _, want := range []struct {
				key  wire.APIKey
				corr int32
			}{{wire.APIFetch, 5}, {wire.APIProduce, 6}} {
				payload, err := wire.ReadFrame(cc.nc, nil, 0)
				if err != nil {
					t.Fatalf("the answer to %v %d: %v", want.key, want.corr, err)
				}
				m, err := wire.DecodeResponse(payload)
				if err != nil || m.APIKey() != want.key || m.Correlation() != want.corr {
					t.Fatalf("got %v %d (%v), want the answer to %v %d", m.APIKey(), m.Correlation(), err, want.key, want.corr)
				}
				if p, ok := m.(*wire.ProduceResponse); ok && (p.Partitions[0].ErrorCode != wire.CodeNone || p.Partitions[0].BaseOffset != 1) {
					t.Fatalf("the acks=1 produce: %+v", p.Partitions[0])
				}
			}
			if payload, err := wire.ReadFrame(cc.nc, nil, 0); err == nil {
				m, _ := wire.DecodeResponse(payload)
				t.Fatalf("an answer after the closing request: %v %d", m.APIKey(), m.Correlation())
			} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatalf("the connection stayed open: %v", err)
				}
			}
			// The request after the closing one was never handled: the
			// log ends after "written".
			cc2 := redial(t, cc)
			cc2.send(cc2.fetch(9, 2, 0))
			cc2.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
			payload, err := wire.ReadFrame(cc2.nc, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			m, err := wire.DecodeResponse(payload)
			if err != nil {
				t.Fatal(err)
			}
			f := m.(*wire.FetchResponse).Partitions[0]
			if f.HighWatermark != 2 || len(f.Records) != 0 {
				t.Fatalf("after the close the log has HW %d and %d bytes past offset 2: the request read after the closing one was handled", f.HighWatermark, len(f.Records))
			}
		})
	}
}

// redial is a new connection to cc's broker; it closes with the test.
func redial(t *testing.T, cc *corrConn) *corrConn {
	t.Helper()
	nc, err := net.Dial("tcp", cc.nc.RemoteAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &corrConn{t: t, tp: cc.tp, nc: nc}
}
