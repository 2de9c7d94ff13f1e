package wire

// ListPartitionReassignmentsRequest asks the controller for the
// reassignments in flight of some topics, or of all.
type ListPartitionReassignmentsRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Topics are the topics asked about; empty (decoded as nil) asks about
	// every topic (Kafka's null topics).
	Topics []string
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a topic longer than 32767 bytes (ErrFrameTooLarge).
func (m ListPartitionReassignmentsRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "ListPartitionReassignmentsRequest"
	if err := checkCount(name, "Topics", len(m.Topics)); err != nil {
		return dst, err
	}
	size := headerSize + 4
	for _, t := range m.Topics {
		if err := checkString(name, "Topics", t); err != nil {
			return dst, err
		}
		size += encodedString(t)
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIListPartitionReassignments, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.Topics)))
	for _, t := range m.Topics {
		dst = appendString(dst, t)
	}
	return dst, nil
}

// DecodeListPartitionReassignmentsRequest decodes a
// ListPartitionReassignmentsRequest payload. Errors match ErrMalformed
// and name the field.
func DecodeListPartitionReassignmentsRequest(payload []byte) (ListPartitionReassignmentsRequest, error) {
	d := decoder{msg: "ListPartitionReassignmentsRequest", buf: payload}
	m := ListPartitionReassignmentsRequest{CorrelationID: d.header(APIListPartitionReassignments)}
	if n := d.count("Topics", 2); n > 0 {
		m.Topics = make([]string, n)
		for i := range m.Topics {
			m.Topics[i] = d.str("Topics")
		}
	}
	if err := d.finish(); err != nil {
		return ListPartitionReassignmentsRequest{}, err
	}
	return m, nil
}

// OngoingReassignment is one partition's reassignment in flight.
type OngoingReassignment struct {
	// Topic and Partition name the partition.
	Topic string
	// Partition is the partition index within Topic.
	Partition int32
	// Replicas is the partition's assignment now: the target's replicas
	// first, then those being removed.
	Replicas []int32
	// AddingReplicas are the target's replicas not yet replicas before.
	AddingReplicas []int32
	// RemovingReplicas leave once every added replica is in the ISR.
	RemovingReplicas []int32
}

// ListPartitionReassignmentsResponse answers a
// ListPartitionReassignmentsRequest, partitions in topic then index order.
type ListPartitionReassignmentsResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// Reassignments are the partitions being reassigned.
	Reassignments []OngoingReassignment
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a Topic longer than 32767 bytes (ErrFrameTooLarge).
func (m ListPartitionReassignmentsResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "ListPartitionReassignmentsResponse"
	if err := checkCount(name, "Reassignments", len(m.Reassignments)); err != nil {
		return dst, err
	}
	size := headerSize + 2 + 4
	for _, r := range m.Reassignments {
		if err := checkString(name, "Reassignments.Topic", r.Topic); err != nil {
			return dst, err
		}
		for _, l := range [][]int32{r.Replicas, r.AddingReplicas, r.RemovingReplicas} {
			if err := checkCount(name, "Reassignments.Replicas", len(l)); err != nil {
				return dst, err
			}
			size += 4 + 4*len(l)
		}
		size += encodedString(r.Topic) + 4
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIListPartitionReassignments, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, int32(len(m.Reassignments)))
	for _, r := range m.Reassignments {
		dst = appendString(dst, r.Topic)
		dst = appendInt32(dst, r.Partition)
		dst = appendInt32s(dst, r.Replicas)
		dst = appendInt32s(dst, r.AddingReplicas)
		dst = appendInt32s(dst, r.RemovingReplicas)
	}
	return dst, nil
}

// DecodeListPartitionReassignmentsResponse decodes a
// ListPartitionReassignmentsResponse payload. Errors match ErrMalformed
// and name the field.
func DecodeListPartitionReassignmentsResponse(payload []byte) (ListPartitionReassignmentsResponse, error) {
	d := decoder{msg: "ListPartitionReassignmentsResponse", buf: payload}
	m := ListPartitionReassignmentsResponse{
		CorrelationID: d.header(APIListPartitionReassignments),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
	}
	// An element is at least a string length, a partition and three counts.
	if n := d.count("Reassignments", 2+4+3*4); n > 0 {
		m.Reassignments = make([]OngoingReassignment, n)
		for i := range m.Reassignments {
			d.elem = i + 1
			r := &m.Reassignments[i]
			r.Topic = d.str("Reassignments.Topic")
			r.Partition = d.int32("Reassignments.Partition")
			r.Replicas = d.int32s("Reassignments.Replicas")
			r.AddingReplicas = d.int32s("Reassignments.AddingReplicas")
			r.RemovingReplicas = d.int32s("Reassignments.RemovingReplicas")
		}
		d.elem = 0
	}
	if err := d.finish(); err != nil {
		return ListPartitionReassignmentsResponse{}, err
	}
	return m, nil
}

// APIKey returns APIListPartitionReassignments.
func (ListPartitionReassignmentsRequest) APIKey() APIKey { return APIListPartitionReassignments }

// Correlation returns the request's CorrelationID.
func (m ListPartitionReassignmentsRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIListPartitionReassignments.
func (ListPartitionReassignmentsResponse) APIKey() APIKey { return APIListPartitionReassignments }

// Correlation returns the response's CorrelationID.
func (m ListPartitionReassignmentsResponse) Correlation() int32 { return m.CorrelationID }
