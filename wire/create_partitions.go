package wire

// CreatePartitionsRequest asks the controller to add partitions to one
// topic, up to Count in all (Kafka's CreatePartitions).
type CreatePartitionsRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Topic names the topic.
	Topic string
	// Count is the number of partitions the topic is to have, the new
	// ones included: more than it has.
	Count int32
	// Assignment optionally gives each new partition's replica list, in
	// preference order, one list per partition added; nil lets the
	// controller place them. Empty decodes as nil, as does each empty
	// replica list.
	Assignment [][]int32
	// ValidateOnly asks the controller to check the request as it would
	// add the partitions, and answer so, without adding them.
	ValidateOnly bool
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a Topic longer than 32767 bytes (ErrFrameTooLarge) or more
// lists or replicas than a count holds.
func (m CreatePartitionsRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "CreatePartitionsRequest"
	if err := checkString(name, "Topic", m.Topic); err != nil {
		return dst, err
	}
	if err := checkCount(name, "Assignment", len(m.Assignment)); err != nil {
		return dst, err
	}
	size := headerSize + encodedString(m.Topic) + 4 + 4 + 1
	for _, replicas := range m.Assignment {
		if err := checkCount(name, "Assignment.Replicas", len(replicas)); err != nil {
			return dst, err
		}
		size += 4 + 4*len(replicas)
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APICreatePartitions, m.CorrelationID)
	dst = appendString(dst, m.Topic)
	dst = appendInt32(dst, m.Count)
	dst = appendInt32(dst, int32(len(m.Assignment)))
	for _, replicas := range m.Assignment {
		dst = appendInt32s(dst, replicas)
	}
	return appendBool(dst, m.ValidateOnly), nil
}

// DecodeCreatePartitionsRequest decodes a CreatePartitionsRequest payload.
// Errors match ErrMalformed and name the field.
func DecodeCreatePartitionsRequest(payload []byte) (CreatePartitionsRequest, error) {
	d := decoder{msg: "CreatePartitionsRequest", buf: payload}
	var m CreatePartitionsRequest
	m.CorrelationID = d.header(APICreatePartitions)
	m.Topic = d.str("Topic")
	m.Count = d.int32("Count")
	if n := d.count("Assignment", 4); n > 0 {
		m.Assignment = make([][]int32, n)
		for i := range m.Assignment {
			m.Assignment[i] = d.int32s("Assignment.Replicas")
		}
	}
	m.ValidateOnly = d.boolean("ValidateOnly")
	if err := d.finish(); err != nil {
		return CreatePartitionsRequest{}, err
	}
	return m, nil
}

// CreatePartitionsResponse answers a CreatePartitionsRequest.
type CreatePartitionsResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// ErrorMessage says why, in English, when ErrorCode is not CodeNone;
	// empty otherwise.
	ErrorMessage string
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, an ErrorMessage longer than 32767 bytes (ErrFrameTooLarge).
func (m CreatePartitionsResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "CreatePartitionsResponse"
	if err := checkString(name, "ErrorMessage", m.ErrorMessage); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+encodedString(m.ErrorMessage))
	dst = appendHeader(dst, APICreatePartitions, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	return appendString(dst, m.ErrorMessage), nil
}

// DecodeCreatePartitionsResponse decodes a CreatePartitionsResponse
// payload. Errors match ErrMalformed and name the field.
func DecodeCreatePartitionsResponse(payload []byte) (CreatePartitionsResponse, error) {
	d := decoder{msg: "CreatePartitionsResponse", buf: payload}
	m := CreatePartitionsResponse{
		CorrelationID: d.header(APICreatePartitions),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		ErrorMessage:  d.str("ErrorMessage"),
	}
	if err := d.finish(); err != nil {
		return CreatePartitionsResponse{}, err
	}
	return m, nil
}

// APIKey returns APICreatePartitions.
func (CreatePartitionsRequest) APIKey() APIKey { return APICreatePartitions }

// Correlation returns the request's CorrelationID.
func (m CreatePartitionsRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APICreatePartitions.
func (CreatePartitionsResponse) APIKey() APIKey { return APICreatePartitions }

// Correlation returns the response's CorrelationID.
func (m CreatePartitionsResponse) Correlation() int32 { return m.CorrelationID }
