package wire

// BrokerHeartbeatRequest keeps a broker's session with the controller alive
// and tells it how far the broker has applied the metadata log.
type BrokerHeartbeatRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// BrokerID is the sender's id.
	BrokerID int32
	// BrokerEpoch is the epoch its registration returned. Never below
	// NoBrokerEpoch.
	BrokerEpoch int64
	// MetadataOffset is the end of the metadata the broker has applied: the
	// offset of the next metadata record it will apply. A fenced broker is
	// unfenced once it has applied its own registration record.
	MetadataOffset uint64
	// WantShutDown asks for a controlled shutdown.
	WantShutDown bool
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a BrokerEpoch below NoBrokerEpoch (ErrInvalidValue) or a
// MetadataOffset above math.MaxInt64 (ErrOffsetOverflow).
func (m BrokerHeartbeatRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "BrokerHeartbeatRequest"
	if err := checkBrokerEpoch(name, "BrokerEpoch", m.BrokerEpoch); err != nil {
		return dst, err
	}
	off, err := checkOffset(name, "MetadataOffset", m.MetadataOffset)
	if err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+4+8+8+1)
	dst = appendHeader(dst, APIBrokerHeartbeat, m.CorrelationID)
	dst = appendInt32(dst, m.BrokerID)
	dst = appendInt64(dst, m.BrokerEpoch)
	dst = appendInt64(dst, off)
	return appendBool(dst, m.WantShutDown), nil
}

// DecodeBrokerHeartbeatRequest decodes a BrokerHeartbeatRequest payload.
// Errors match ErrMalformed and name the field.
func DecodeBrokerHeartbeatRequest(payload []byte) (BrokerHeartbeatRequest, error) {
	d := decoder{msg: "BrokerHeartbeatRequest", buf: payload}
	m := BrokerHeartbeatRequest{
		CorrelationID:  d.header(APIBrokerHeartbeat),
		BrokerID:       d.int32("BrokerID"),
		BrokerEpoch:    d.brokerEpoch("BrokerEpoch"),
		MetadataOffset: d.offset("MetadataOffset"),
		WantShutDown:   d.boolean("WantShutDown"),
	}
	if err := d.finish(); err != nil {
		return BrokerHeartbeatRequest{}, err
	}
	return m, nil
}

// BrokerHeartbeatResponse answers a BrokerHeartbeatRequest.
type BrokerHeartbeatResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// IsFenced says the broker may not lead or be added to an ISR yet.
	IsFenced bool
	// ShouldShutDown grants a requested shutdown: the broker leads nothing
	// and may stop.
	ShouldShutDown bool
	// MetadataEndOffset is the end of the controller's metadata log.
	MetadataEndOffset uint64
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a MetadataEndOffset above math.MaxInt64 (ErrOffsetOverflow).
func (m BrokerHeartbeatResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "BrokerHeartbeatResponse"
	end, err := checkOffset(name, "MetadataEndOffset", m.MetadataEndOffset)
	if err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+1+1+8)
	dst = appendHeader(dst, APIBrokerHeartbeat, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendBool(dst, m.IsFenced)
	dst = appendBool(dst, m.ShouldShutDown)
	return appendInt64(dst, end), nil
}

// DecodeBrokerHeartbeatResponse decodes a BrokerHeartbeatResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeBrokerHeartbeatResponse(payload []byte) (BrokerHeartbeatResponse, error) {
	d := decoder{msg: "BrokerHeartbeatResponse", buf: payload}
	m := BrokerHeartbeatResponse{
		CorrelationID:     d.header(APIBrokerHeartbeat),
		ErrorCode:         ErrorCode(d.int16("ErrorCode")),
		IsFenced:          d.boolean("IsFenced"),
		ShouldShutDown:    d.boolean("ShouldShutDown"),
		MetadataEndOffset: d.offset("MetadataEndOffset"),
	}
	if err := d.finish(); err != nil {
		return BrokerHeartbeatResponse{}, err
	}
	return m, nil
}
