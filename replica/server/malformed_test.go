package server_test

import (
	"encoding/binary"
	"errors"
	"io"
	"syscall"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// rawFrame writes payload as one frame on cl's connection.
func (c *client) rawFrame(payload []byte) {
	c.t.Helper()
	frame, err := wire.AppendFrame(nil, payload)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.nc.Write(frame); err != nil {
		c.t.Fatal(err)
	}
}

// expectClosed reads until the host closes the connection; it fails on a
// frame.
func (c *client) expectClosed() {
	c.t.Helper()
	m, err := c.tryReceive(clustertest.WaitLimit)
	if err == nil {
		c.t.Fatalf("got a %v response where the connection should close", m.APIKey())
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !isReset(err) {
		c.t.Fatalf("want the connection closed, got %v", err)
	}
}

// encode returns m's payload.
func encode(t testing.TB, m wire.Message) []byte {
	t.Helper()
	b, err := m.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// isReset reports whether err is a connection reset: a host that closes a
// connection with unread bytes in it resets it.
func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

// header returns an 8-byte message header.
func header(key wire.APIKey, version int16, corr int32) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	return binary.BigEndian.AppendUint32(b, uint32(corr))
}

// TestMalformedFrames: a frame whose header is readable but whose body is
// not is answered as Kafka answers it — its API's response with
// INVALID_REQUEST (UNSUPPORTED_VERSION for another version), in its place
// in the order — and the connection stays up; a frame with no readable
// header, an unknown API key, or a request this node does not serve,
// closes the connection.
func TestMalformedFrames(t *testing.T) {
	c := clustertest.Start(t, clustertest.Options{Brokers: 1})
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 1, 1)
	addr := c.Broker(1).Host.Addr().String()

	t.Run("body", func(t *testing.T) {
		cl := dial(t, addr)
		defer cl.close()
		cl.keys[7], cl.keys[8], cl.keys[9] = wire.APIFetch, wire.APIProduce, wire.APIFetch
		cl.rawFrame(append(header(wire.APIFetch, 0, 7), 1, 2, 3)) // a fetch cut short
		prod := produceRequest(t, tp, wire.AcksLeader, "cut")
		prod.CorrelationID = 8
		cut := encode(t, prod)
		cl.rawFrame(cut[:len(cut)-3])            // an acks=1 produce cut short
		cl.rawFrame(header(wire.APIFetch, 3, 9)) // a version we do not speak
		fetch := cl.receive().(*wire.FetchResponse)
		if fetch.Correlation() != 7 || fetch.ErrorCode != wire.CodeInvalidRequest {
			t.Fatalf("answer to a malformed fetch: %+v", fetch)
		}
		if prod := cl.receive().(*wire.ProduceResponse); prod.Correlation() != 8 || len(prod.Partitions) != 0 {
			t.Fatalf("answer to a malformed produce: %+v", prod)
		}
		fetch = cl.receive().(*wire.FetchResponse)
		if fetch.Correlation() != 9 || fetch.ErrorCode != wire.CodeUnsupportedVersion {
			t.Fatalf("answer to a fetch of version 3: %+v", fetch)
		}
		cl.corr = 100
		resp := cl.call(produceRequest(t, tp, wire.AcksLeader, "still here")).(*wire.ProduceResponse)
		if resp.Partitions[0].ErrorCode != wire.CodeNone {
			t.Fatalf("produce after the malformed frames: %+v", resp)
		}
	})
	for _, tc := range []struct {
		name    string
		payload []byte
	}{
		{"short header", []byte{0, 1, 0}},
		{"empty frame", nil},
		{"unknown API key", header(99, 0, 1)},
		{"not a broker's request", encode(t, &wire.BrokerHeartbeatRequest{CorrelationID: 1, BrokerID: 1})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := dial(t, addr)
			defer cl.close()
			cl.rawFrame(tc.payload)
			cl.expectClosed()
		})
	}
}
