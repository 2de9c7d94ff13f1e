package wire

// CreateTopicsRequest asks the controller to create one topic.
type CreateTopicsRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Name is the topic's name.
	Name string
	// Partitions is the number of partitions. With an Assignment it must
	// be 0 or len(Assignment).
	Partitions int32
	// ReplicationFactor is the number of replicas per partition. With an
	// Assignment it must be 0 or the length of every replica list.
	ReplicationFactor int16
	// MinISR is the topic's min.insync.replicas, or 0 for the controller's
	// default.
	MinISR int32
	// UncleanLeaderElection is the topic's unclean.leader.election.enable.
	UncleanLeaderElection bool
	// Assignment optionally gives each partition's replica list
	// explicitly, in preference order; nil lets the controller place them.
	// Empty decodes as nil, as does each empty replica list.
	Assignment [][]int32
	// ValidateOnly asks the controller to check the request as it would
	// create the topic, and answer so, without creating it (Kafka's
	// CreateTopics validateOnly).
	ValidateOnly bool
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a Name longer than 32767 bytes (ErrFrameTooLarge).
func (m CreateTopicsRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "CreateTopicsRequest"
	if err := checkString(name, "Name", m.Name); err != nil {
		return dst, err
	}
	if err := checkCount(name, "Assignment", len(m.Assignment)); err != nil {
		return dst, err
	}
	size := headerSize + encodedString(m.Name) + 4 + 2 + 4 + 1 + 4 + 1
	for _, replicas := range m.Assignment {
		if err := checkCount(name, "Assignment.Replicas", len(replicas)); err != nil {
			return dst, err
		}
		size += 4 + 4*len(replicas)
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APICreateTopics, m.CorrelationID)
	dst = appendString(dst, m.Name)
	dst = appendInt32(dst, m.Partitions)
	dst = appendInt16(dst, m.ReplicationFactor)
	dst = appendInt32(dst, m.MinISR)
	dst = appendBool(dst, m.UncleanLeaderElection)
	dst = appendInt32(dst, int32(len(m.Assignment)))
	for _, replicas := range m.Assignment {
		dst = appendInt32s(dst, replicas)
	}
	return appendBool(dst, m.ValidateOnly), nil
}

// DecodeCreateTopicsRequest decodes a CreateTopicsRequest payload. Errors
// match ErrMalformed and name the field.
func DecodeCreateTopicsRequest(payload []byte) (CreateTopicsRequest, error) {
	d := decoder{msg: "CreateTopicsRequest", buf: payload}
	var m CreateTopicsRequest
	m.CorrelationID = d.header(APICreateTopics)
	m.Name = d.str("Name")
	m.Partitions = d.int32("Partitions")
	m.ReplicationFactor = d.int16("ReplicationFactor")
	m.MinISR = d.int32("MinISR")
	m.UncleanLeaderElection = d.boolean("UncleanLeaderElection")
	if n := d.count("Assignment", 4); n > 0 {
		m.Assignment = make([][]int32, n)
		for i := range m.Assignment {
			m.Assignment[i] = d.int32s("Assignment.Replicas")
		}
	}
	m.ValidateOnly = d.boolean("ValidateOnly")
	if err := d.finish(); err != nil {
		return CreateTopicsRequest{}, err
	}
	return m, nil
}

// CreateTopicsResponse answers a CreateTopicsRequest.
type CreateTopicsResponse struct {
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
func (m CreateTopicsResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "CreateTopicsResponse"
	if err := checkString(name, "ErrorMessage", m.ErrorMessage); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+encodedString(m.ErrorMessage))
	dst = appendHeader(dst, APICreateTopics, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	return appendString(dst, m.ErrorMessage), nil
}

// DecodeCreateTopicsResponse decodes a CreateTopicsResponse payload. Errors
// match ErrMalformed and name the field.
func DecodeCreateTopicsResponse(payload []byte) (CreateTopicsResponse, error) {
	d := decoder{msg: "CreateTopicsResponse", buf: payload}
	m := CreateTopicsResponse{
		CorrelationID: d.header(APICreateTopics),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		ErrorMessage:  d.str("ErrorMessage"),
	}
	if err := d.finish(); err != nil {
		return CreateTopicsResponse{}, err
	}
	return m, nil
}

// APIKey returns APICreateTopics.
func (CreateTopicsRequest) APIKey() APIKey { return APICreateTopics }

// Correlation returns m.CorrelationID.
func (m CreateTopicsRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APICreateTopics.
func (CreateTopicsResponse) APIKey() APIKey { return APICreateTopics }

// Correlation returns m.CorrelationID.
func (m CreateTopicsResponse) Correlation() int32 { return m.CorrelationID }
