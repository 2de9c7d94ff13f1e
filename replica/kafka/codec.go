package kafka

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Config configures a Codec.
type Config struct {
	// ClusterID is what Metadata answers as the cluster id; empty means
	// DefaultClusterID.
	ClusterID string
	// AutoCreateTopics is Kafka's auto.create.topics.enable: a Metadata
	// request naming a topic that does not exist, with
	// AllowAutoTopicCreation (always at v0-v3), creates it through the
	// controller with DefaultPartitions and DefaultReplicationFactor.
	// Kafka's default is true; kaenlog's is off.
	AutoCreateTopics bool
	// DefaultPartitions is Kafka's num.partitions: the partitions of an
	// auto-created topic and of a CreateTopics with NumPartitions -1; 0
	// means 1, Kafka's default.
	DefaultPartitions int32
	// DefaultReplicationFactor is Kafka's default.replication.factor: the
	// replication factor of an auto-created topic and of a CreateTopics
	// with ReplicationFactor -1; 0 means 1, Kafka's default. As in Kafka,
	// it is not capped at the live brokers: a factor above them is
	// refused (INVALID_REPLICATION_FACTOR).
	DefaultReplicationFactor int16
}

func (c *Codec) defaultPartitions() int32 {
	if c.cfg.DefaultPartitions <= 0 {
		return 1
	}
	return c.cfg.DefaultPartitions
}

func (c *Codec) defaultReplicationFactor() int16 {
	if c.cfg.DefaultReplicationFactor <= 0 {
		return 1
	}
	return c.cfg.DefaultReplicationFactor
}

// DefaultClusterID is the cluster id Metadata answers when Config.ClusterID
// is empty.
const DefaultClusterID = "kaenlog"

// maxRequestBytes bounds every request but a produce before kmsg decodes
// it: kmsg allocates an array's elements (tens of bytes each) from a count
// it checks only against the bytes left, so a frame of MaxFrameSize bytes
// of counts could make it allocate many times that. Produce requests,
// whose size is their records, are bounded by the host's MaxFrameSize
// alone.
const maxRequestBytes = 1 << 20

// Codec is a broker's Kafka listener: a server.Codec that decodes Kafka's
// requests into the wire requests the broker serves and encodes the
// broker's answers as Kafka's responses, in the version each request came
// with. Serve it with the broker's host (server.Config.Listeners). See the
// package documentation for the APIs and versions.
type Codec struct {
	b   *replica.Broker
	cfg Config
}

// NewCodec returns the Kafka codec of broker b. Its Frame reads b's
// metadata image, under the host's node lock (server.Codec's contract).
func NewCodec(b *replica.Broker, cfg Config) *Codec {
	if cfg.ClusterID == "" {
		cfg.ClusterID = DefaultClusterID
	}
	return &Codec{b: b, cfg: cfg}
}

var _ server.Codec = (*Codec)(nil)

// request is what the codec keeps of a request until its response is
// framed (server.Request.State).
type request struct {
	key, version int16
	corr         int32
	flexible     bool
	// api is the request's handler (apis), nil for an unknown key.
	api *api
	// kreq is the decoded Kafka request.
	kreq kmsg.Request
	// local is the answer the codec gives without the broker, if any.
	local kmsg.Response
	// listTimestamps are the timestamps a ListOffsets request asked, by
	// partition in request order: some are answered at Frame, as is each
	// partition listDuplicated marks (named more than once).
	listTimestamps []int64
	listDuplicated []bool
	// clientID is the header's client id, aliasing the payload: valid in
	// the API's decode only.
	clientID []byte
}

// errLocal sends a request to Refuse, which gives the answer the codec
// made for it (request.local).
var errLocal = errors.New("kafka: answered by the listener")

// errClose is a request Kafka closes the connection on.
type errClose struct{ reason string }

func (e errClose) Error() string { return "kafka: " + e.reason }

func closeOn(format string, args ...any) error { return errClose{fmt.Sprintf(format, args...)} }

// Decode reads the request header (key, version, correlation id, client
// id, and the tagged fields of a flexible version) and hands the body to
// the API's decoder. An unknown key, a version outside the advertised
// range (but for ApiVersions, KIP-511), a truncated header or a body that
// does not decode closes the connection, as Kafka's broker closes it.
func (c *Codec) Decode(payload []byte, r *server.Request) (wire.Message, error) {
	st, _ := r.State.(*request)
	if st == nil {
		st = new(request)
		r.State = st
	}
	*st = request{}
	if len(payload) < 8 {
		return nil, closeOn("a request header of %d bytes", len(payload))
	}
	st.key = int16(binary.BigEndian.Uint16(payload))
	st.version = int16(binary.BigEndian.Uint16(payload[2:]))
	st.corr = int32(binary.BigEndian.Uint32(payload[4:]))
	st.api = apiFor(st.key)
	if st.api == nil {
		return nil, closeOn("unknown API key %d", st.key)
	}
	kreq := kmsg.RequestForKey(st.key)
	if kreq == nil { // every key in apis is kmsg's; checked anyway
		return nil, closeOn("API key %d unknown to kmsg", st.key)
	}
	if st.version < st.api.min || st.version > st.api.max {
		if st.key == apiVersionsKey {
			// KIP-511: answered at v0 with UNSUPPORTED_VERSION and this
			// key's range, so the client retries at a version it has.
			st.version, st.flexible = 0, false
			st.local = unsupportedAPIVersions()
			return nil, errLocal
		}
		return nil, closeOn("%s v%d: supported are v%d-v%d", st.api.name, st.version, st.api.min, st.api.max)
	}
	kreq.SetVersion(st.version)
	st.flexible = kreq.IsFlexible()
	st.kreq = kreq
	if n := len(payload); n >= 10 {
		if k := int(int16(binary.BigEndian.Uint16(payload[8:]))); k > 0 && k <= n-10 {
			st.clientID = payload[10 : 10+k]
		}
	}
	body, err := skipHeaderRest(payload[8:], st.flexible)
	if err != nil {
		return nil, err
	}
	if st.key != produceKey && len(body) > maxRequestBytes {
		return nil, closeOn("a %s request of %d bytes, over %d", st.api.name, len(body), maxRequestBytes)
	}
	if err := checkCounts(body, st.api.shape(st.version, st.flexible), st.flexible); err != nil {
		return nil, err
	}
	if err := kreq.ReadFrom(body); err != nil {
		return nil, closeOn("%s v%d: %v", st.api.name, st.version, err)
	}
	return st.api.decode(c, st, r)
}

// maxRequestElements bounds the array elements and tagged fields of one
// request (the broker answers at most 1<<16 partitions): kmsg allocates
// every element an array's count announces, tens of bytes each, and a map
// entry per unknown tagged field, checking a count only against one or two
// bytes per element, so that a count filling a 1 MiB frame made a Fetch
// allocate 32 MiB. With this bound a request's elements cost a few MiB at
// most.
const maxRequestElements = 1 << 16

// A shape is a request body's layout as checkCounts walks it, built per
// version by each API's file (api.shape).
type shape []field

// field is one field of a shape: fixed-size bytes, a (nullable) string
// or bytes, an array of elements of a shape, or a flexible struct's
// tagged fields.
type field struct {
	fixed int
	str   bool
	bytes bool
	array shape
	tags  bool
}

// fixedBytes, str, bytesField and array build shapes; tagsIf is the
// tagged fields that end every struct of a flexible version.
func fixedBytes(n int) field    { return field{fixed: n} }
func array(elem ...field) field { return field{array: elem} }

func tagsIf(flexible bool) []field {
	if flexible {
		return []field{{tags: true}}
	}
	return nil
}

var (
	str        = field{str: true}
	bytesField = field{bytes: true}
)

// minBytes is the fewest bytes an element of s takes on the wire (at
// least one).
func (s shape) minBytes(flexible bool) int {
	n := 0
	for _, f := range s {
		switch {
		case flexible && (f.array != nil || f.str || f.bytes) || f.tags:
			n++ // a uvarint count or length
		case f.array != nil || f.bytes:
			n += 4
		case f.str:
			n += 2
		default:
			n += f.fixed
		}
	}
	return max(n, 1)
}

// checkCounts walks a request body by its shape before kmsg decodes it,
// refusing an array or tag count over what the bytes left could hold or
// over maxRequestElements in all, so that a frame of counts cannot make
// the decoder allocate many times its size. A flexible version has
// compact (uvarint) lengths.
func checkCounts(b []byte, s shape, flexible bool) error {
	w := counter{b: b, flexible: flexible}
	if !w.walk(s) {
		return closeOn("a request whose counts its bytes cannot hold")
	}
	return nil
}

// counter is checkCounts' position in the body and its element count.
type counter struct {
	b        []byte
	flexible bool
	total    int
}

// length reads a length: int16 or int32 (size bytes), or a compact
// uvarint of length+1; negative is null.
func (w *counter) length(size int) (int, bool) {
	if w.flexible {
		n, k := binary.Uvarint(w.b)
		if k <= 0 || n > math.MaxInt32 {
			return 0, false
		}
		w.b = w.b[k:]
		return int(n) - 1, true
	}
	if len(w.b) < size {
		return 0, false
	}
	var n int
	if size == 2 {
		n = int(int16(binary.BigEndian.Uint16(w.b)))
	} else {
		n = int(int32(binary.BigEndian.Uint32(w.b)))
	}
	w.b = w.b[size:]
	return n, true
}

func (w *counter) walk(s shape) bool {
	for _, f := range s {
		switch {
		case f.array != nil:
			n, ok := w.length(4)
			if !ok || n > len(w.b)/f.array.minBytes(w.flexible) {
				return false
			}
			if w.total += max(n, 0); w.total > maxRequestElements {
				return false
			}
			for range n {
				if !w.walk(f.array) {
					return false
				}
			}
		case f.str, f.bytes:
			size := 2
			if f.bytes {
				size = 4
			}
			n, ok := w.length(size)
			if !ok || n > len(w.b) {
				return false
			}
			w.b = w.b[max(n, 0):]
		case f.tags:
			n, k := binary.Uvarint(w.b)
			if k <= 0 || n > uint64(len(w.b)-k)/2 {
				return false
			}
			w.b = w.b[k:]
			if w.total += int(n); w.total > maxRequestElements {
				return false
			}
			for range n {
				if _, k := binary.Uvarint(w.b); k <= 0 {
					return false
				}
				w.b = w.b[k:]
				size, k := binary.Uvarint(w.b)
				if k <= 0 || size > uint64(len(w.b)-k) {
					return false
				}
				w.b = w.b[k+int(size):]
			}
		default:
			if len(w.b) < f.fixed {
				return false
			}
			w.b = w.b[f.fixed:]
		}
	}
	return true
}

// skipHeaderRest skips the client id (a nullable int16-length string) and,
// in a flexible version's header, the tagged fields, returning the body.
func skipHeaderRest(b []byte, flexible bool) ([]byte, error) {
	if len(b) < 2 {
		return nil, closeOn("a request header cut in its client id")
	}
	n := int(int16(binary.BigEndian.Uint16(b)))
	b = b[2:]
	if n > 0 {
		if n > len(b) {
			return nil, closeOn("a client id of %d bytes in %d", n, len(b))
		}
		b = b[n:]
	}
	if !flexible {
		return b, nil
	}
	tags, k := binary.Uvarint(b)
	if k <= 0 || tags > uint64(len(b)) {
		return nil, closeOn("unreadable tagged fields in the request header")
	}
	b = b[k:]
	for range tags {
		if _, k = binary.Uvarint(b); k <= 0 {
			return nil, closeOn("unreadable tagged fields in the request header")
		}
		b = b[k:]
		size, k := binary.Uvarint(b)
		if k <= 0 || size > uint64(len(b)-k) {
			return nil, closeOn("unreadable tagged fields in the request header")
		}
		b = b[k+int(size):]
	}
	return b, nil
}

// Refuse gives the answers the codec makes by itself (ApiVersions, a
// refused produce) and closes the connection on everything else that did
// not decode.
func (c *Codec) Refuse(payload []byte, r *server.Request, err error) (wire.Message, bool) {
	st, _ := r.State.(*request)
	if st == nil || !errors.Is(err, errLocal) || st.local == nil {
		return nil, false
	}
	return &server.Answer{Key: wire.APIKey(st.key), CorrelationID: st.corr}, true
}

// Answered reports whether m gets a response: not an acks=0 produce.
func (c *Codec) Answered(m wire.Message) bool {
	if p, ok := m.(*wire.ProduceRequest); ok {
		return p.Acks != wire.AcksNone
	}
	return true
}

// Frame encodes the broker's answer m (or the codec's own) as the Kafka
// response to r, in r's version: length, correlation id, the response
// header's tagged fields where the version is flexible (never for
// ApiVersions, whose response header stays v0 so that any client can read
// it), then the body.
func (c *Codec) Frame(pieces net.Buffers, scratch []byte, r *server.Request, m wire.Message) (net.Buffers, []byte, error) {
	st, _ := r.State.(*request)
	if st == nil || st.api == nil {
		return pieces, scratch, errors.New("kafka: a response to no request")
	}
	resp := st.local
	if _, ok := m.(*server.Answer); !ok {
		var err error
		if resp, err = st.api.encode(c, st, m); err != nil {
			return pieces, scratch, err
		}
	}
	resp.SetVersion(st.version)
	start := len(scratch)
	scratch = append(scratch, 0, 0, 0, 0)
	scratch = binary.BigEndian.AppendUint32(scratch, uint32(st.corr))
	if st.flexible && st.key != apiVersionsKey {
		scratch = append(scratch, 0) // no tagged fields
	}
	scratch = resp.AppendTo(scratch)
	n := len(scratch) - start - 4
	if n > math.MaxInt32 {
		return pieces, scratch[:start], fmt.Errorf("kafka: a %s response of %d bytes", st.api.name, n)
	}
	binary.BigEndian.PutUint32(scratch[start:], uint32(n))
	st.kreq, st.local = nil, nil // keep nothing of it past the write
	return append(pieces, scratch[start:]), scratch, nil
}

// kafkaCode is Kafka's number for kaenlog's code c, from wire's one error
// table; a code Kafka has no counterpart for is UNKNOWN_SERVER_ERROR (-1).
func kafkaCode(c wire.ErrorCode) int16 {
	if c == wire.CodeNone {
		return 0
	}
	var e *wire.Error
	if errors.As(c.Err(), &e) {
		if k, ok := e.KafkaCode(); ok {
			return k
		}
	}
	return -1
}

// errCode is Kafka's number for the error a coordinator answered (nil is
// 0).
func errCode(err error) int16 { return kafkaCode(wire.CodeOf(err)) }

// groupBody returns the body of the broker's answer to a group request.
func groupBody[T any](m wire.Message) (T, error) {
	var zero T
	g, ok := m.(*replica.GroupResponse)
	if !ok {
		return zero, fmt.Errorf("kafka: a %v answer to a group request", m.APIKey())
	}
	body, ok := g.Body.(T)
	if !ok {
		return zero, fmt.Errorf("kafka: a %T answer to a %v request", g.Body, g.Key)
	}
	return body, nil
}

// groupRequest wraps a group request's body for the broker.
func groupRequest(st *request, body any) *replica.GroupRequest {
	return &replica.GroupRequest{CorrelationID: st.corr, Body: body}
}

// strOr returns *s, or "" for a null string.
func strOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// offsetOrNone is a uint64 offset as Kafka's int64, -1 when absent.
func offsetOrNone(o uint64, ok bool) int64 {
	if !ok || o > math.MaxInt64 {
		return -1
	}
	return int64(o)
}
