package kafka_test

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawConn is a connection to a Kafka listener that writes any bytes.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

// frame writes payload with its length prefix.
func (c *rawConn) frame(payload []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(binary.BigEndian.AppendUint32(nil, uint32(len(payload)))); err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.nc.Write(payload); err != nil {
		c.t.Fatal(err)
	}
}

// request frames a kmsg request at version v with correlation id corr
// (request header v1, or v2 for a flexible version).
func (c *rawConn) request(req kmsg.Request, v int16, corr int32) {
	c.t.Helper()
	req.SetVersion(v)
	b := binary.BigEndian.AppendUint16(nil, uint16(req.Key()))
	b = binary.BigEndian.AppendUint16(b, uint16(v))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = binary.BigEndian.AppendUint16(b, 4)
	b = append(b, "test"...)
	if req.IsFlexible() {
		b = append(b, 0)
	}
	c.frame(req.AppendTo(b))
}

// response reads one response frame and returns its correlation id and
// the rest.
func (c *rawConn) response() (int32, []byte) {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(clusterWait))
	payload, err := wire.ReadFrame(c.br, nil, 0)
	if err != nil {
		c.t.Fatal(err)
	}
	return int32(binary.BigEndian.Uint32(payload)), payload[4:]
}

// expectClosed reads until the listener closes the connection.
func (c *rawConn) expectClosed() {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(clusterWait))
	_, err := wire.ReadFrame(c.br, nil, 0)
	if err == nil {
		c.t.Fatal("got a response where the connection should close")
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, syscall.ECONNRESET) {
		c.t.Fatalf("want the connection closed, got %v", err)
	}
}

// apiVersions asks for the listener's versions at v and decodes them.
func apiVersions(t *testing.T, addr string, v int16) *kmsg.ApiVersionsResponse {
	t.Helper()
	c := dialRaw(t, addr)
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kaenlog-test", "1.0"
	c.request(req, v, 5)
	corr, body := c.response()
	resp := kmsg.NewPtrApiVersionsResponse()
	// A response to a version the listener does not speak is v0.
	resp.SetVersion(v)
	if v > 4 {
		resp.SetVersion(0)
	}
	if err := resp.ReadFrom(body); err != nil || corr != 5 {
		t.Fatalf("ApiVersions v%d: correlation %d, %v", v, corr, err)
	}
	return resp
}

// TestBadInputGetsAnAnswerOrAClosedConnectionNeverACrash: what Kafka's
// broker answers or closes on, the listener answers or closes on, and the
// broker serves on: an unknown key (the 12-byte frame with key 999 that
// crashes kfake), a truncated header, an unsupported version, a body that
// does not decode; ApiVersions of a newer version gets KIP-511's v0
// answer; Produce v0-v2 is advertised and refused with UNSUPPORTED_VERSION.
func TestBadInputGetsAnAnswerOrAClosedConnectionNeverACrash(t *testing.T) {
	c := startCluster(t, 1)
	c.createTopic("bad", 1, 1, 1)
	addr := c.seeds()[0]
	for _, tc := range []struct {
		name    string
		payload []byte
	}{
		{"key 999", []byte{0x03, 0xe7, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}},
		{"truncated header", []byte{0, 3, 0}},
		{"empty frame", nil},
		{"Metadata v99", []byte{0, 3, 0, 99, 0, 0, 0, 1, 0xff, 0xff}},
		{"Metadata v1 cut short", []byte{0, 3, 0, 1, 0, 0, 0, 1, 0xff, 0xff, 0, 0, 0, 5}},
		{"a client id longer than the frame", []byte{0, 3, 0, 1, 0, 0, 0, 1, 0x10, 0}},
		// kmsg v1.14.0 looped 2^32 times on the tag count (the fuzz target's find).
		{"InitProducerID v4 with a huge tag count", []byte("\x00\x16\x00\x04\x00\x00\x00\a\xff\x00\x00\x00\x00\xff\x00\x01\xff\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xeb\xff\x00")},
		{"a produce announcing 2^31 topics", []byte{0, 0, 0, 7, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 1, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff}},
		// v9: request header v2, a null TransactionalID, acks, timeout, a compact count of 2^31-1.
		{"a flexible produce announcing 2^31 topics", []byte{0, 0, 0, 9, 0, 0, 0, 1, 0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x07}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := dialRaw(t, addr)
			rc.frame(tc.payload)
			rc.expectClosed()
		})
	}
	// KIP-511: v0, UNSUPPORTED_VERSION, and key 18's range alone; the
	// header has no tagged fields (the body parses at v0 right after the
	// correlation id).
	down := apiVersions(t, addr, 99)
	if down.ErrorCode != 35 || len(down.ApiKeys) != 1 || down.ApiKeys[0].ApiKey != 18 || down.ApiKeys[0].MinVersion != 0 || down.ApiKeys[0].MaxVersion != 4 {
		t.Fatalf("ApiVersions v99: %+v", down)
	}
	full := apiVersions(t, addr, 4)
	ranges := map[int16][2]int16{}
	for _, k := range full.ApiKeys {
		ranges[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
	}
	if full.ErrorCode != 0 || ranges[0] != [2]int16{0, 12} || ranges[1] != [2]int16{4, 12} || ranges[18] != [2]int16{0, 4} || len(ranges) < 6 {
		t.Fatalf("ApiVersions v4: %v", ranges)
	}
	// Produce v2: advertised, refused per partition.
	rc := dialRaw(t, addr)
	prod := kmsg.NewPtrProduceRequest()
	prod.Acks, prod.TimeoutMillis = 1, 1000
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = "bad"
	pp := kmsg.NewProduceRequestTopicPartition()
	pt.Partitions = append(pt.Partitions, pp)
	prod.Topics = append(prod.Topics, pt)
	rc.request(prod, 2, 9)
	corr, body := rc.response()
	presp := kmsg.NewPtrProduceResponse()
	presp.SetVersion(2)
	if err := presp.ReadFrom(body); err != nil || corr != 9 || len(presp.Topics) != 1 || presp.Topics[0].Partitions[0].ErrorCode != 35 {
		t.Fatalf("Produce v2: correlation %d, %+v, %v", corr, presp, err)
	}
	// The broker still serves, on the same connection too.
	rc.request(kmsg.NewPtrMetadataRequest(), 8, 10)
	if corr, _ := rc.response(); corr != 10 {
		t.Fatalf("Metadata after the bad input: correlation %d", corr)
	}
}
