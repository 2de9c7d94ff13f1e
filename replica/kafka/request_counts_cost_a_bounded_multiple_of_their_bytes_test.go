package kafka_test

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// memCodec is the Kafka codec of a broker on an in-memory file system
// that is no cluster's member: enough to decode requests.
func memCodec(t *testing.T) *kafka.Codec {
	t.Helper()
	b, err := replica.OpenBroker(replica.BrokerConfig{ID: 1, Dir: "/b", IncarnationID: [16]byte{1},
		Replica: replica.Options{Log: log.Options{FS: vfs.NewMem()}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return kafka.NewCodec(b, kafka.Config{})
}

// countFrameBytes is the size of each request countRequests builds: just
// under the listener's 1 MiB bound for requests other than a produce.
const countFrameBytes = 1<<20 - 64

// maxDecodeAmplification bounds what decoding one request may allocate,
// as a multiple of its bytes. kmsg allocates every element an array's
// count announces (tens of bytes each) and a map entry per unknown tagged
// field, checking a count only against a minimum of one or two bytes per
// element; a count filling the frame made a Fetch allocate 32 times its
// size and a ListOffsets 12 times, on every connection at once, whatever
// the host's MaxHeldBytes says. Bounded to 1<<16 elements, the worst is
// a Metadata v11 naming 58,000 topics by id, which is answered
// INVALID_REQUEST topic by topic: 6.7 times its size, 8.5 under -race.
const maxDecodeAmplification = 10

// countRequests are requests of countFrameBytes that announce as many
// elements, or distinct tagged fields, as kmsg's checks let their bytes
// claim, and then end.
func countRequests() []struct {
	name    string
	payload []byte
} {
	frame := func(key, version int16, flexible bool, body func(left int) []byte) []byte {
		b := binary.BigEndian.AppendUint16(nil, uint16(key))
		b = binary.BigEndian.AppendUint16(b, uint16(version))
		b = binary.BigEndian.AppendUint32(b, 7)
		b = binary.BigEndian.AppendUint16(b, 0xffff)
		if flexible {
			b = append(b, 0)
		}
		b = append(b, body(countFrameBytes-len(b))...)
		return append(b, make([]byte, countFrameBytes-len(b))...)
	}
	compactCount := func(b []byte, n int) []byte { return binary.AppendUvarint(b, uint64(n+1)) }
	count32 := func(b []byte, n int) []byte { return binary.BigEndian.AppendUint32(b, uint32(n)) }
	// distinctTags is a tag count and then as many distinct empty tagged
	// fields as fit in left bytes, from tag 8 on (above the tags kmsg
	// knows, whose empty values would not decode).
	distinctTags := func(b []byte, left int) []byte {
		var tags []byte
		n := 0
		for len(tags)+4 < left-5 {
			tags = binary.AppendUvarint(tags, uint64(8+n))
			tags = append(tags, 0)
			n++
		}
		return append(binary.AppendUvarint(b, uint64(n)), tags...)
	}
	fetchHead := make([]byte, 4*4+1+4+4) // ReplicaID .. SessionEpoch
	return []struct {
		name    string
		payload []byte
	}{
		{"Fetch v12 topics", frame(1, 12, true, func(left int) []byte {
			return compactCount(fetchHead, (left-len(fetchHead)-5)/2)
		})},
		{"Fetch v11 topics", frame(1, 11, false, func(left int) []byte {
			return count32(fetchHead, (left-len(fetchHead)-4)/2)
		})},
		{"ListOffsets v10 topics", frame(2, 10, true, func(left int) []byte {
			return compactCount(make([]byte, 4+1), (left-5-5)/4)
		})},
		{"Metadata v11 topics", frame(3, 11, true, func(left int) []byte {
			return compactCount(nil, (left-5)/18)
		})},
		{"ApiVersions v3 tagged fields", frame(18, 3, true, func(left int) []byte {
			return distinctTags([]byte{2, 'a', 2, '1'}, left-4)
		})},
		{"Fetch v12 tagged fields", frame(1, 12, true, func(left int) []byte {
			b := compactCount(fetchHead, 0) // no topics
			b = compactCount(b, 0)          // no forgotten topics
			b = append(b, 1)                // an empty rack id
			return distinctTags(b, left-len(b))
		})},
	}
}

// TestARequestsCountsCostABoundedMultipleOfItsBytes: decoding a request
// of 1 MiB whose array counts or tagged fields claim all its bytes
// allocates at most maxDecodeAmplification times its size, and it is
// refused (it does not decode).
func TestARequestsCountsCostABoundedMultipleOfItsBytes(t *testing.T) {
	codec := memCodec(t)
	for _, tc := range countRequests() {
		r := &server.Request{Produce: new(wire.ProduceRequest), Fetch: new(wire.FetchRequest)}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := codec.Decode(tc.payload, r)
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes allocated for a %d-byte request (x%.1f): %v", tc.name, allocated, len(tc.payload),
			float64(allocated)/float64(len(tc.payload)), err)
		if allocated > maxDecodeAmplification*uint64(len(tc.payload)) {
			t.Errorf("%s: decoding allocated %d bytes, over %d times the request's %d", tc.name, allocated, maxDecodeAmplification, len(tc.payload))
		}
		if err == nil {
			t.Errorf("%s: decoded", tc.name)
		}
	}
}
