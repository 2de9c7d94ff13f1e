package wire

// DeleteTopicsRequest asks the controller to delete topics, by name, as
// Kafka's DeleteTopics does (kaenlog's topics have no ids on the wire).
// Each name is answered on its own; a name given twice is answered once
// per time it is given.
type DeleteTopicsRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Names are the topics to delete. Empty decodes as nil.
	Names []string
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a name longer than 32767 bytes (ErrFrameTooLarge).
func (m DeleteTopicsRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "DeleteTopicsRequest"
	if err := checkCount(name, "Names", len(m.Names)); err != nil {
		return dst, err
	}
	size := headerSize + 4
	for _, n := range m.Names {
		if err := checkString(name, "Names", n); err != nil {
			return dst, err
		}
		size += encodedString(n)
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIDeleteTopics, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.Names)))
	for _, n := range m.Names {
		dst = appendString(dst, n)
	}
	return dst, nil
}

// DecodeDeleteTopicsRequest decodes a DeleteTopicsRequest payload. Errors
// match ErrMalformed and name the field.
func DecodeDeleteTopicsRequest(payload []byte) (DeleteTopicsRequest, error) {
	d := decoder{msg: "DeleteTopicsRequest", buf: payload}
	var m DeleteTopicsRequest
	m.CorrelationID = d.header(APIDeleteTopics)
	if n := d.count("Names", 2); n > 0 {
		m.Names = make([]string, n)
		for i := range m.Names {
			m.Names[i] = d.str("Names")
		}
	}
	if err := d.finish(); err != nil {
		return DeleteTopicsRequest{}, err
	}
	return m, nil
}

// DeletedTopic is one name's answer in a DeleteTopicsResponse.
type DeletedTopic struct {
	// Name is the topic, as the request named it.
	Name string
	// ErrorCode is CodeNone once the deletion is in the metadata log,
	// CodeUnknownTopicOrPartition for a topic that does not exist,
	// CodeNotController from a failed controller. Any int16 decodes.
	ErrorCode ErrorCode
}

// DeleteTopicsResponse answers a DeleteTopicsRequest: one entry per name,
// in the request's order.
type DeleteTopicsResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// Topics are the answers. Empty decodes as nil.
	Topics []DeletedTopic
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a name longer than 32767 bytes (ErrFrameTooLarge).
func (m DeleteTopicsResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "DeleteTopicsResponse"
	if err := checkCount(name, "Topics", len(m.Topics)); err != nil {
		return dst, err
	}
	size := headerSize + 4
	for _, t := range m.Topics {
		if err := checkString(name, "Topics.Name", t.Name); err != nil {
			return dst, err
		}
		size += encodedString(t.Name) + 2
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIDeleteTopics, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.Topics)))
	for _, t := range m.Topics {
		dst = appendString(dst, t.Name)
		dst = appendInt16(dst, int16(t.ErrorCode))
	}
	return dst, nil
}

// DecodeDeleteTopicsResponse decodes a DeleteTopicsResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeDeleteTopicsResponse(payload []byte) (DeleteTopicsResponse, error) {
	d := decoder{msg: "DeleteTopicsResponse", buf: payload}
	var m DeleteTopicsResponse
	m.CorrelationID = d.header(APIDeleteTopics)
	if n := d.count("Topics", 2+2); n > 0 {
		m.Topics = make([]DeletedTopic, n)
		for i := range m.Topics {
			m.Topics[i] = DeletedTopic{Name: d.str("Topics.Name"), ErrorCode: ErrorCode(d.int16("Topics.ErrorCode"))}
		}
	}
	if err := d.finish(); err != nil {
		return DeleteTopicsResponse{}, err
	}
	return m, nil
}

// APIKey returns APIDeleteTopics.
func (DeleteTopicsRequest) APIKey() APIKey { return APIDeleteTopics }

// Correlation returns m.CorrelationID.
func (m DeleteTopicsRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIDeleteTopics.
func (DeleteTopicsResponse) APIKey() APIKey { return APIDeleteTopics }

// Correlation returns m.CorrelationID.
func (m DeleteTopicsResponse) Correlation() int32 { return m.CorrelationID }
