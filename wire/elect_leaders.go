package wire

// ElectLeadersRequest asks the controller to elect a leader for one
// partition: a clean election, or an unclean one when Unclean is set.
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
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a Topic longer than 32767 bytes (ErrFrameTooLarge).
func (m ElectLeadersRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "ElectLeadersRequest"
	if err := checkString(name, "Topic", m.Topic); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+encodedString(m.Topic)+4+1)
	dst = appendHeader(dst, APIElectLeaders, m.CorrelationID)
	dst = appendString(dst, m.Topic)
	dst = appendInt32(dst, m.Partition)
	return appendBool(dst, m.Unclean), nil
}

// DecodeElectLeadersRequest decodes an ElectLeadersRequest payload. Errors
// match ErrMalformed and name the field.
func DecodeElectLeadersRequest(payload []byte) (ElectLeadersRequest, error) {
	d := decoder{msg: "ElectLeadersRequest", buf: payload}
	m := ElectLeadersRequest{
		CorrelationID: d.header(APIElectLeaders),
		Topic:         d.str("Topic"),
		Partition:     d.int32("Partition"),
		Unclean:       d.boolean("Unclean"),
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
