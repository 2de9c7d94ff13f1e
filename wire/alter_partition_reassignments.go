package wire

// AlterPartitionReassignmentsRequest asks the controller to move one
// partition's replicas to Replicas (KIP-455), or to cancel the
// reassignment in flight.
type AlterPartitionReassignmentsRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Topic names the partition's topic.
	Topic string
	// Partition is the partition index within Topic.
	Partition int32
	// Replicas is the target assignment, in preference order; its length
	// is the new replication factor. Empty with Cancel.
	Replicas []int32
	// Cancel reverts the reassignment in flight (Kafka's null target).
	Cancel bool
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a Topic longer than 32767 bytes (ErrFrameTooLarge) and Cancel
// with Replicas (ErrInvalidValue).
func (m AlterPartitionReassignmentsRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "AlterPartitionReassignmentsRequest"
	if err := checkString(name, "Topic", m.Topic); err != nil {
		return dst, err
	}
	if err := checkCount(name, "Replicas", len(m.Replicas)); err != nil {
		return dst, err
	}
	if m.Cancel && len(m.Replicas) > 0 {
		return dst, fieldError(ErrInvalidValue, name, "Cancel", " with Replicas: a cancellation has no target")
	}
	dst = grow(dst, headerSize+encodedString(m.Topic)+4+4+4*len(m.Replicas)+1)
	dst = appendHeader(dst, APIAlterPartitionReassignments, m.CorrelationID)
	dst = appendString(dst, m.Topic)
	dst = appendInt32(dst, m.Partition)
	dst = appendInt32s(dst, m.Replicas)
	return appendBool(dst, m.Cancel), nil
}

// DecodeAlterPartitionReassignmentsRequest decodes an
// AlterPartitionReassignmentsRequest payload. Errors match ErrMalformed
// and name the field.
func DecodeAlterPartitionReassignmentsRequest(payload []byte) (AlterPartitionReassignmentsRequest, error) {
	d := decoder{msg: "AlterPartitionReassignmentsRequest", buf: payload}
	m := AlterPartitionReassignmentsRequest{
		CorrelationID: d.header(APIAlterPartitionReassignments),
		Topic:         d.str("Topic"),
		Partition:     d.int32("Partition"),
		Replicas:      d.int32s("Replicas"),
		Cancel:        d.boolean("Cancel"),
	}
	if d.err == nil && m.Cancel && len(m.Replicas) > 0 {
		d.fail(ErrInvalidValue, "Cancel", " with Replicas: a cancellation has no target")
	}
	if err := d.finish(); err != nil {
		return AlterPartitionReassignmentsRequest{}, err
	}
	return m, nil
}

// AlterPartitionReassignmentsResponse answers an
// AlterPartitionReassignmentsRequest: the reassignment is started (or
// cancelled), not done.
type AlterPartitionReassignmentsResponse struct {
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
func (m AlterPartitionReassignmentsResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "AlterPartitionReassignmentsResponse"
	if err := checkString(name, "ErrorMessage", m.ErrorMessage); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+encodedString(m.ErrorMessage))
	dst = appendHeader(dst, APIAlterPartitionReassignments, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	return appendString(dst, m.ErrorMessage), nil
}

// DecodeAlterPartitionReassignmentsResponse decodes an
// AlterPartitionReassignmentsResponse payload. Errors match ErrMalformed
// and name the field.
func DecodeAlterPartitionReassignmentsResponse(payload []byte) (AlterPartitionReassignmentsResponse, error) {
	d := decoder{msg: "AlterPartitionReassignmentsResponse", buf: payload}
	m := AlterPartitionReassignmentsResponse{
		CorrelationID: d.header(APIAlterPartitionReassignments),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		ErrorMessage:  d.str("ErrorMessage"),
	}
	if err := d.finish(); err != nil {
		return AlterPartitionReassignmentsResponse{}, err
	}
	return m, nil
}

// APIKey returns APIAlterPartitionReassignments.
func (AlterPartitionReassignmentsRequest) APIKey() APIKey { return APIAlterPartitionReassignments }

// Correlation returns the request's CorrelationID.
func (m AlterPartitionReassignmentsRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIAlterPartitionReassignments.
func (AlterPartitionReassignmentsResponse) APIKey() APIKey { return APIAlterPartitionReassignments }

// Correlation returns the response's CorrelationID.
func (m AlterPartitionReassignmentsResponse) Correlation() int32 { return m.CorrelationID }
