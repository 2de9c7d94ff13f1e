package wire

// InitProducerIDRequest asks the controller for a producer id, as an
// idempotent producer does before its first produce (Kafka's
// InitProducerId, without a transactional id: kaenlog has no
// transactions).
type InitProducerIDRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// TransactionTimeoutMs is Kafka's field, ignored without transactions;
	// producers send -1. Any int32 decodes.
	TransactionTimeoutMs int32
	// ProducerID is the producer's current id, or NoProducerID (a new
	// producer). Never below NoProducerID.
	ProducerID int64
	// ProducerEpoch is the producer's current epoch, or NoProducerEpoch.
	// Never below NoProducerEpoch.
	ProducerEpoch int16
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a ProducerID or ProducerEpoch below -1 (ErrInvalidValue).
func (m InitProducerIDRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "InitProducerIDRequest"
	if err := checkProducer(name, m.ProducerID, m.ProducerEpoch); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+4+8+2)
	dst = appendHeader(dst, APIInitProducerID, m.CorrelationID)
	dst = appendInt32(dst, m.TransactionTimeoutMs)
	dst = appendInt64(dst, m.ProducerID)
	return appendInt16(dst, m.ProducerEpoch), nil
}

// DecodeInitProducerIDRequest decodes an InitProducerIDRequest payload.
// Errors match ErrMalformed and name the field.
func DecodeInitProducerIDRequest(payload []byte) (InitProducerIDRequest, error) {
	d := decoder{msg: "InitProducerIDRequest", buf: payload}
	m := InitProducerIDRequest{
		CorrelationID:        d.header(APIInitProducerID),
		TransactionTimeoutMs: d.int32("TransactionTimeoutMs"),
		ProducerID:           d.producerID("ProducerID"),
		ProducerEpoch:        d.producerEpoch("ProducerEpoch"),
	}
	if err := d.finish(); err != nil {
		return InitProducerIDRequest{}, err
	}
	return m, nil
}

// InitProducerIDResponse answers an InitProducerIDRequest.
type InitProducerIDResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// ProducerID is the id the producer must write its batches with, or
	// NoProducerID in a refusal. Never below NoProducerID.
	ProducerID int64
	// ProducerEpoch is the epoch to write them with, or NoProducerEpoch in
	// a refusal. Never below NoProducerEpoch.
	ProducerEpoch int16
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a ProducerID or ProducerEpoch below -1 (ErrInvalidValue).
func (m InitProducerIDResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "InitProducerIDResponse"
	if err := checkProducer(name, m.ProducerID, m.ProducerEpoch); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+8+2)
	dst = appendHeader(dst, APIInitProducerID, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt64(dst, m.ProducerID)
	return appendInt16(dst, m.ProducerEpoch), nil
}

// DecodeInitProducerIDResponse decodes an InitProducerIDResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeInitProducerIDResponse(payload []byte) (InitProducerIDResponse, error) {
	d := decoder{msg: "InitProducerIDResponse", buf: payload}
	m := InitProducerIDResponse{
		CorrelationID: d.header(APIInitProducerID),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		ProducerID:    d.producerID("ProducerID"),
		ProducerEpoch: d.producerEpoch("ProducerEpoch"),
	}
	if err := d.finish(); err != nil {
		return InitProducerIDResponse{}, err
	}
	return m, nil
}
