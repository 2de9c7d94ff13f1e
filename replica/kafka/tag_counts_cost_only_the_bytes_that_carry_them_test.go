package kafka_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// tagDecodeLimit is how long the decoding of one request claiming 2^32-1
// tagged fields may take. kmsg v1.14.0 looped once per claimed field
// whatever bytes were left: 2^24 iterations took 1.4 s on a loaded 2-core
// machine, so 2^32-1 take about six minutes; v1.15.1 stops at the end of
// the input (17 µs). The limit is generous for a loaded machine and
// still 70 times below v1.14.0's time.
const tagDecodeLimit = 5 * time.Second

// hugeTagCount is 2^32-1 as a uvarint: the largest count kmsg reads.
var hugeTagCount = []byte{0xff, 0xff, 0xff, 0xff, 0x0f}

// flexHeader is a request header v2 of key and version: correlation id 7,
// a null client id, then the header's tagged fields (tags).
func flexHeader(key, version int16, tags ...byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, 7)
	b = binary.BigEndian.AppendUint16(b, 0xffff)
	if len(tags) == 0 {
		tags = []byte{0}
	}
	return append(b, tags...)
}

// hugeTagRequests are flexible requests each claiming 2^32-1 tagged
// fields somewhere and ending there.
func hugeTagRequests() []struct {
	name    string
	payload []byte
} {
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	return []struct {
		name    string
		payload []byte
	}{
		{"in the request header (Metadata v11)", flexHeader(3, 11, hugeTagCount...)},
		// ClientSoftwareName "a", ClientSoftwareVersion "1", then the body's tags.
		{"in ApiVersions v3's body", cat(flexHeader(18, 3), []byte{2, 'a', 2, '1'}, hugeTagCount)},
		// A null TransactionalID, the timeout, ProducerID and ProducerEpoch, then the tags.
		{"in InitProducerID v4's body", cat(flexHeader(22, 4), make([]byte, 1+4+8+2), hugeTagCount)},
		// One topic: a zero id, the name "x", then the topic's tags.
		{"in a Metadata v11 topic", cat(flexHeader(3, 11), []byte{2}, make([]byte, 16), []byte{2, 'x'}, hugeTagCount)},
		// A null TransactionalID, acks, timeout, no topics, then the tags.
		{"in Produce v9's body", cat(flexHeader(0, 9), []byte{0, 0, 1, 0, 0, 3, 0xe8, 1}, hugeTagCount)},
	}
}

// TestATagCountOfTwoToThe32IsReadNoFurtherThanTheBytesLeft: a flexible
// request whose tagged-field count claims 2^32-1 fields, in the request
// header or in a body, is refused at once — its decoding returns within
// tagDecodeLimit, which kmsg v1.14.0 would have spent many times over —
// and over a socket the listener closes the connection and goes on
// serving.
func TestATagCountOfTwoToThe32IsReadNoFurtherThanTheBytesLeft(t *testing.T) {
	codec := memCodec(t)
	for _, tc := range hugeTagRequests() {
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			r := &server.Request{Produce: new(wire.ProduceRequest), Fetch: new(wire.FetchRequest)}
			_, err := codec.Decode(tc.payload, r)
			done <- err
		}()
		select {
		case err := <-done:
			t.Logf("%s: refused in %v: %v", tc.name, time.Since(start), err)
			if err == nil {
				t.Errorf("%s: decoded", tc.name)
			}
		case <-time.After(tagDecodeLimit):
			// The goroutine is left looping: the test binary ends with the failure.
			t.Fatalf("%s: still decoding after %v: the tag count is read past the end of the input", tc.name, tagDecodeLimit)
		}
	}

	c := startCluster(t, 1)
	addr := c.seeds()[0]
	for _, tc := range hugeTagRequests() {
		rc := dialRaw(t, addr)
		rc.frame(tc.payload)
		rc.expectClosed()
	}
	rc := dialRaw(t, addr)
	rc.request(kmsg.NewPtrMetadataRequest(), 11, 3)
	if corr, _ := rc.response(); corr != 3 {
		t.Fatalf("Metadata after the refused requests: correlation %d", corr)
	}
}
