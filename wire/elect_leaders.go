package wire

import "fmt"

// ElectLeadersRequest asks the controller to elect a leader for one
// partition: a clean election, an unclean one when Unclean is set, or a
// preferred one when Preferred is set (never both).
//
// The election kind is one byte on the wire: 0 clean, 1 unclean (so a
// request from before Preferred existed decodes the same), 2 preferred.
type ElectLeadersRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Topic names the partition's topic.
	Topic string
	// Partition is the partition index within Topic.
	Partition int32
	// Unclean allows electing a replica outside the ISR and ELR, which may
	// lose committed records (Kafka's ElectionType UNCLEAN).
	Unclean bool
	// Preferred asks for the partition's preferred replica, the first of
	// its assignment, to lead (Kafka's ElectionType PREFERRED).
	Preferred bool
}

// The election kinds' byte on the wire.
const (
	electionClean     = 0
	electionUnclean   = 1
	electionPreferred = 2
)

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a Topic longer than 32767 bytes (ErrFrameTooLarge) and
// Unclean with Preferred (ErrInvalidValue).
func (m ElectLeadersRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "ElectLeadersRequest"
	if err := checkString(name, "Topic", m.Topic); err != nil {
		return dst, err
	}
	kind := byte(electionClean)
	switch {
	case m.Unclean && m.Preferred:
		return dst, fieldError(ErrInvalidValue, name, "Preferred", " with Unclean: an election is one or the other")
	case m.Unclean:
		kind = electionUnclean
	case m.Preferred:
		kind = electionPreferred
	}
	dst = grow(dst, headerSize+encodedString(m.Topic)+4+1)
	dst = appendHeader(dst, APIElectLeaders, m.CorrelationID)
	dst = appendString(dst, m.Topic)
	dst = appendInt32(dst, m.Partition)
	return append(dst, kind), nil
}

// DecodeElectLeadersRequest decodes an ElectLeadersRequest payload. Errors
// match ErrMalformed and name the field.
func DecodeElectLeadersRequest(payload []byte) (ElectLeadersRequest, error) {
	d := decoder{msg: "ElectLeadersRequest", buf: payload}
	m := ElectLeadersRequest{
		CorrelationID: d.header(APIElectLeaders),
		Topic:         d.str("Topic"),
		Partition:     d.int32("Partition"),
	}
	if b := d.take("Election", 1); b != nil {
		switch b[0] {
		case electionClean:
		case electionUnclean:
			m.Unclean = true
		case electionPreferred:
			m.Preferred = true
		default:
			d.fail(ErrInvalidValue, "Election", fmt.Sprintf(" = %d, want 0, 1 or 2", b[0]))
		}
	}
	if err := d.finish(); err != nil {
		return ElectLeadersRequest{}, err
	}
	return m, nil
}

// ElectLeadersResponse answers an ElectLeadersRequest.
type ElectLeadersResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// Leader is the partition's leader after the request, or NoLeader.
	Leader int32
	// LeaderEpoch is the partition's leader epoch after the request, or
	// NoEpoch in a refusal. Never below NoEpoch.
	LeaderEpoch int32
	// DataMayBeLost is set when this request elected a leader uncleanly:
	// records committed before the election may be gone.
	DataMayBeLost bool
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a LeaderEpoch below NoEpoch (ErrInvalidEpoch).
func (m ElectLeadersResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "ElectLeadersResponse"
	if err := checkEpoch(name, "LeaderEpoch", m.LeaderEpoch, NoEpoch); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+4+4+1)
	dst = appendHeader(dst, APIElectLeaders, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, m.Leader)
	dst = appendInt32(dst, m.LeaderEpoch)
	return appendBool(dst, m.DataMayBeLost), nil
}

// DecodeElectLeadersResponse decodes an ElectLeadersResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeElectLeadersResponse(payload []byte) (ElectLeadersResponse, error) {
	d := decoder{msg: "ElectLeadersResponse", buf: payload}
	m := ElectLeadersResponse{
		CorrelationID: d.header(APIElectLeaders),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		Leader:        d.int32("Leader"),
		LeaderEpoch:   d.epoch("LeaderEpoch"),
		DataMayBeLost: d.boolean("DataMayBeLost"),
	}
	if err := d.finish(); err != nil {
		return ElectLeadersResponse{}, err
	}
	return m, nil
}
