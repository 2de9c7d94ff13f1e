package wire

// BrokerRegistrationRequest is a broker process introducing itself to the
// controller at start-up. A new IncarnationID gets a new broker epoch; the
// same one again (a retry) gets the same epoch back.
type BrokerRegistrationRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// BrokerID is the broker's configured id. Any int32 decodes; the
	// controller refuses negative ids.
	BrokerID int32
	// IncarnationID is random per process start, chosen by the broker.
	IncarnationID [16]byte
	// PreviousBrokerEpoch is the broker epoch of the previous process if it
	// shut down cleanly, or NoBrokerEpoch if it did not (KIP-966). Never
	// below NoBrokerEpoch.
	PreviousBrokerEpoch int64
	// LostData says the broker's log recovery cut flushed data: it must be
	// treated as an unclean shutdown whatever PreviousBrokerEpoch says.
	LostData bool
	// Endpoint is where other brokers reach this one (host:port).
	Endpoint string
	// ClusterID is the cluster id stamped in the broker's data directory,
	// or empty while the broker has not learned one: the controller
	// refuses a registration naming another cluster than its own
	// (CodeInconsistentClusterID), as Kafka's does.
	ClusterID string
	// KafkaEndpoint is where Kafka clients reach this broker (host:port,
	// its Kafka listener's advertised address), or empty when it has
	// none. It is the last field and is encoded only when set, so a
	// registration without it is byte for byte what it was before the
	// field existed; an empty string written out is refused as trailing
	// bytes (one encoding per value).
	KafkaEndpoint string
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a PreviousBrokerEpoch below NoBrokerEpoch (ErrInvalidValue) or
// an Endpoint, ClusterID or KafkaEndpoint longer than 32767 bytes
// (ErrFrameTooLarge).
func (m BrokerRegistrationRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "BrokerRegistrationRequest"
	if err := checkBrokerEpoch(name, "PreviousBrokerEpoch", m.PreviousBrokerEpoch); err != nil {
		return dst, err
	}
	if err := checkString(name, "Endpoint", m.Endpoint); err != nil {
		return dst, err
	}
	if err := checkString(name, "ClusterID", m.ClusterID); err != nil {
		return dst, err
	}
	if err := checkString(name, "KafkaEndpoint", m.KafkaEndpoint); err != nil {
		return dst, err
	}
	size := headerSize + 4 + 16 + 8 + 1 + encodedString(m.Endpoint) + encodedString(m.ClusterID)
	if m.KafkaEndpoint != "" {
		size += encodedString(m.KafkaEndpoint)
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIBrokerRegistration, m.CorrelationID)
	dst = appendInt32(dst, m.BrokerID)
	dst = append(dst, m.IncarnationID[:]...)
	dst = appendInt64(dst, m.PreviousBrokerEpoch)
	dst = appendBool(dst, m.LostData)
	dst = appendString(dst, m.Endpoint)
	dst = appendString(dst, m.ClusterID)
	if m.KafkaEndpoint != "" {
		dst = appendString(dst, m.KafkaEndpoint)
	}
	return dst, nil
}

// DecodeBrokerRegistrationRequest decodes a BrokerRegistrationRequest
// payload (without its frame). Errors match ErrMalformed and name the field.
func DecodeBrokerRegistrationRequest(payload []byte) (BrokerRegistrationRequest, error) {
	d := decoder{msg: "BrokerRegistrationRequest", buf: payload}
	m := BrokerRegistrationRequest{
		CorrelationID:       d.header(APIBrokerRegistration),
		BrokerID:            d.int32("BrokerID"),
		IncarnationID:       d.uuid("IncarnationID"),
		PreviousBrokerEpoch: d.brokerEpoch("PreviousBrokerEpoch"),
		LostData:            d.boolean("LostData"),
		Endpoint:            d.str("Endpoint"),
		ClusterID:           d.str("ClusterID"),
	}
	m.KafkaEndpoint = d.trailingStr("KafkaEndpoint")
	if err := d.finish(); err != nil {
		return BrokerRegistrationRequest{}, err
	}
	return m, nil
}

// BrokerRegistrationResponse answers a BrokerRegistrationRequest.
type BrokerRegistrationResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// BrokerEpoch is the epoch the broker must send in every later request,
	// or NoBrokerEpoch when the registration was refused.
	BrokerEpoch int64
	// ClusterID is the controller's cluster id (empty if it has none): a
	// broker that did not know it yet stamps it in its data directory.
	ClusterID string
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a BrokerEpoch below NoBrokerEpoch (ErrInvalidValue) or a
// ClusterID longer than 32767 bytes (ErrFrameTooLarge).
func (m BrokerRegistrationResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "BrokerRegistrationResponse"
	if err := checkBrokerEpoch(name, "BrokerEpoch", m.BrokerEpoch); err != nil {
		return dst, err
	}
	if err := checkString(name, "ClusterID", m.ClusterID); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+8+encodedString(m.ClusterID))
	dst = appendHeader(dst, APIBrokerRegistration, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt64(dst, m.BrokerEpoch)
	return appendString(dst, m.ClusterID), nil
}

// DecodeBrokerRegistrationResponse decodes a BrokerRegistrationResponse
// payload. Errors match ErrMalformed and name the field.
func DecodeBrokerRegistrationResponse(payload []byte) (BrokerRegistrationResponse, error) {
	d := decoder{msg: "BrokerRegistrationResponse", buf: payload}
	m := BrokerRegistrationResponse{
		CorrelationID: d.header(APIBrokerRegistration),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		BrokerEpoch:   d.brokerEpoch("BrokerEpoch"),
		ClusterID:     d.str("ClusterID"),
	}
	if err := d.finish(); err != nil {
		return BrokerRegistrationResponse{}, err
	}
	return m, nil
}
