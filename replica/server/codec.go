package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// codec is the one seam between a listener's bytes and the node: it turns
// the payload of an inbound frame into a request (a wire value the node
// understands) and the node's response into a frame. Everything else — the
// connection's order, its muting, routing, the node lock — is the host's
// and the same for every codec. Frames are int32-length-prefixed in
// kaenlog's protocol and in Kafka's alike, so reading them (wire.ReadFrame
// with its bound) stays outside the codec.
//
// kaenlogCodec speaks kaenlog's own protocol (package wire). A listener
// speaking Kafka's protocol is a second codec, an exported [Codec] served
// through Config.Listeners (listener.go): it decodes Kafka's request
// headers and bodies into the same wire structs (their fields follow
// Kafka's JSON schemas for that purpose), remembers per slot the version a
// request came with ([Request].State), and encodes the response in that
// version.
type codec interface {
	// decodeRequest decodes the request in s.buf. Produce and fetch
	// requests, the hot path, decode into s's own values, which the node
	// may keep until it answers; other requests are decoded afresh.
	decodeRequest(s *slot) (wire.Message, error)
	// refuse returns the response to a request that did not decode, as
	// Kafka answers it (every field empty but the error), or false when
	// not even its header is readable, or for a produce that said acks=0
	// or whose acks are unreadable: then the connection closes.
	refuse(s *slot, err error) (wire.Message, bool)
	// answered reports whether m gets a response at all: not an acks=0
	// produce.
	answered(m wire.Message) bool
	// frameResponse appends the response m to the request of s, framed,
	// to pieces for one vectored write: its fixed bytes encoded into
	// scratch, its records (a fetch response's) by reference, not copied.
	frameResponse(pieces net.Buffers, scratch []byte, s *slot, m wire.Message) (net.Buffers, []byte, error)
}

// kaenlogCodec is the codec of kaenlog's protocol (package wire).
type kaenlogCodec struct{}

func (kaenlogCodec) decodeRequest(s *slot) (wire.Message, error) {
	key, _, err := wire.PeekHeader(s.buf)
	if err != nil {
		return nil, err
	}
	switch key {
	case wire.APIProduce:
		if err := wire.DecodeProduceRequestInto(s.buf, &s.produce); err != nil {
			return nil, err
		}
		return &s.produce, nil
	case wire.APIFetch:
		if err := wire.DecodeFetchRequestInto(s.buf, &s.fetch); err != nil {
			return nil, err
		}
		return &s.fetch, nil
	}
	m, err := wire.DecodeRequest(s.buf)
	if err != nil {
		return nil, err
	}
	if g, ok := groupRequest(m); ok {
		return g, nil // groups.go
	}
	return m, nil
}

func (kaenlogCodec) refuse(s *slot, err error) (wire.Message, bool) {
	payload := s.buf
	key, corr, herr := wire.PeekHeader(payload)
	if herr != nil && !errors.Is(herr, wire.ErrUnsupportedVersion) {
		return nil, false // truncated header or unknown API: nothing to answer with
	}
	if key == wire.APIProduce {
		// An acks=0 produce is never answered; a refused one closes the
		// connection, Kafka's only news to such a client. A produce whose
		// acks cannot be read is closed on too: an answer the client did
		// not ask for breaks its connection anyway, while a client that
		// did ask takes the closed connection for a retriable network
		// error and resends — and Kafka closes on every request it cannot
		// parse.
		if acks, err := wire.PeekProduceAcks(payload); err != nil || acks == wire.AcksNone {
			return nil, false
		}
	}
	code := wire.CodeOf(err)
	if code == wire.CodeNone || code == wire.CodeUnknownServerError {
		code = wire.CodeInvalidRequest
	}
	return errorResponse(key, corr, code)
}

// errorResponse is the response to a request of kind key that could not be
// served at all: the top-level error code where the message has one, and
// no partitions where it does not (Produce, ListOffsets,
// OffsetsForLeaderEpoch: Kafka answers each partition named, which an
// undecodable request does not tell).
func errorResponse(key wire.APIKey, corr int32, code wire.ErrorCode) (wire.Message, bool) {
	switch key {
	case wire.APIProduce:
		return &wire.ProduceResponse{CorrelationID: corr}, true
	case wire.APIFetch:
		return &wire.FetchResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APIListOffsets:
		return &wire.ListOffsetsResponse{CorrelationID: corr}, true
	case wire.APIOffsetsForLeaderEpoch:
		return &wire.OffsetsForLeaderEpochResponse{CorrelationID: corr}, true
	case wire.APIMetadata:
		return &wire.MetadataResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APICreateTopics:
		return &wire.CreateTopicsResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APIDeleteTopics:
		return &wire.DeleteTopicsResponse{CorrelationID: corr}, true
	case wire.APIIncrementalAlterConfigs:
		return &wire.IncrementalAlterConfigsResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APICreatePartitions:
		return &wire.CreatePartitionsResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APIAlterPartitionReassignments:
		return &wire.AlterPartitionReassignmentsResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APIListPartitionReassignments:
		return &wire.ListPartitionReassignmentsResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APIElectLeaders:
		return &wire.ElectLeadersResponse{CorrelationID: corr, ErrorCode: code, Leader: wire.NoLeader, LeaderEpoch: -1}, true
	case wire.APIAlterPartition:
		return &wire.AlterPartitionResponse{CorrelationID: corr, ErrorCode: code, Leader: wire.NoLeader, LeaderEpoch: -1, PartitionEpoch: -1}, true
	case wire.APIBrokerRegistration:
		return &wire.BrokerRegistrationResponse{CorrelationID: corr, ErrorCode: code, BrokerEpoch: wire.NoBrokerEpoch}, true
	case wire.APIBrokerHeartbeat:
		return &wire.BrokerHeartbeatResponse{CorrelationID: corr, ErrorCode: code, IsFenced: true}, true
	case wire.APIInitProducerID:
		return &wire.InitProducerIDResponse{CorrelationID: corr, ErrorCode: code, ProducerID: -1, ProducerEpoch: -1}, true
	}
	return groupErrorResponse(key, corr, code)
}

func (kaenlogCodec) answered(m wire.Message) bool {
	if p, ok := m.(*wire.ProduceRequest); ok {
		return p.Acks != wire.AcksNone
	}
	return true
}

func (kaenlogCodec) frameResponse(pieces net.Buffers, scratch []byte, _ *slot, m wire.Message) (net.Buffers, []byte, error) {
	if g, ok := m.(*replica.GroupResponse); ok {
		w, err := groupResponse(g)
		if err != nil {
			return pieces, scratch, err
		}
		m = w
	}
	return wire.AppendFrameBuffers(pieces, scratch, m)
}

// appendFrame appends m as one frame — length prefix, then payload — to
// dst, encoding it in place: no copy of the payload beyond the one the
// encoding is.
func appendFrame(dst []byte, m wire.Message) ([]byte, error) {
	start := len(dst)
	out, err := m.AppendTo(append(dst, 0, 0, 0, 0))
	if err != nil {
		return dst, err
	}
	n := len(out) - start - 4
	if n > math.MaxInt32 {
		return dst, fmt.Errorf("%w: a %v payload of %d bytes", wire.ErrFrameTooLarge, m.APIKey(), n)
	}
	binary.BigEndian.PutUint32(out[start:], uint32(n))
	return out, nil
}

// decodeResponse decodes the response in l.buf as the answer to a request
// of kind key, on an outbound connection (kaenlog's protocol: peers speak
// it to each other). Fetch and produce responses decode into l's own
// values, reused from response to response: the node is done with one
// when Receive returns.
func decodeResponse(key wire.APIKey, l *link) (wire.Message, error) {
	var (
		m   wire.Message
		err error
	)
	switch key {
	case wire.APIFetch:
		err, m = wire.DecodeFetchResponseInto(l.buf, &l.fetch), &l.fetch
	case wire.APIProduce:
		err, m = wire.DecodeProduceResponseInto(l.buf, &l.prod), &l.prod
	case wire.APIListOffsets:
		m, err = decodeAs(l.buf, wire.DecodeListOffsetsResponse)
	case wire.APIOffsetsForLeaderEpoch:
		m, err = decodeAs(l.buf, wire.DecodeOffsetsForLeaderEpochResponse)
	case wire.APIMetadata:
		m, err = decodeAs(l.buf, wire.DecodeMetadataResponse)
	case wire.APICreateTopics:
		m, err = decodeAs(l.buf, wire.DecodeCreateTopicsResponse)
	case wire.APIDeleteTopics:
		m, err = decodeAs(l.buf, wire.DecodeDeleteTopicsResponse)
	case wire.APIIncrementalAlterConfigs:
		m, err = decodeAs(l.buf, wire.DecodeIncrementalAlterConfigsResponse)
	case wire.APICreatePartitions:
		m, err = decodeAs(l.buf, wire.DecodeCreatePartitionsResponse)
	case wire.APIAlterPartitionReassignments:
		m, err = decodeAs(l.buf, wire.DecodeAlterPartitionReassignmentsResponse)
	case wire.APIListPartitionReassignments:
		m, err = decodeAs(l.buf, wire.DecodeListPartitionReassignmentsResponse)
	case wire.APIElectLeaders:
		m, err = decodeAs(l.buf, wire.DecodeElectLeadersResponse)
	case wire.APIAlterPartition:
		m, err = decodeAs(l.buf, wire.DecodeAlterPartitionResponse)
	case wire.APIBrokerRegistration:
		m, err = decodeAs(l.buf, wire.DecodeBrokerRegistrationResponse)
	case wire.APIBrokerHeartbeat:
		m, err = decodeAs(l.buf, wire.DecodeBrokerHeartbeatResponse)
	case wire.APIInitProducerID:
		m, err = decodeAs(l.buf, wire.DecodeInitProducerIDResponse)
	default:
		m, err = wire.DecodeResponse(l.buf)
		if err == nil && m.APIKey() != key {
			err = fmt.Errorf("%w: a %v response to a %v request", wire.ErrWrongAPIKey, m.APIKey(), key)
		}
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// decodeAs runs decode and returns a pointer to its result.
func decodeAs[M any, P interface {
	*M
	wire.Message
}](payload []byte, decode func([]byte) (M, error)) (wire.Message, error) {
	m, err := decode(payload)
	if err != nil {
		return nil, err
	}
	return P(&m), nil
}
