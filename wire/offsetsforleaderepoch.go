package wire

// OffsetsForLeaderEpochRequest asks a leader where leader epochs ended, so
// a follower can truncate to the leader's answer instead of to its own
// high watermark (KIP-101), converging on the largest common epoch
// (KIP-279). One request asks about every partition the follower follows
// from that leader.
type OffsetsForLeaderEpochRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// ReplicaID is the asking follower's broker id. Any int32 decodes.
	ReplicaID int32
	// Partitions lists the partitions asked about. Empty decodes as nil.
	Partitions []OffsetsForLeaderEpochPartition
}

// OffsetsForLeaderEpochPartition is one partition of an
// OffsetsForLeaderEpochRequest.
type OffsetsForLeaderEpochPartition struct {
	// Topic is the partition's topic, a valid Kafka topic name (see
	// ValidateTopic).
	Topic string
	// Partition is the partition's index within Topic. Never negative.
	Partition int32
	// CurrentLeaderEpoch is the epoch the sender believes current, for
	// fencing, or NoEpoch to skip the check. Never below NoEpoch.
	CurrentLeaderEpoch int32
	// LeaderEpoch is the epoch asked about. NoEpoch is allowed (the answer
	// is then "not found"); nothing below it is.
	LeaderEpoch int32
}

func (p *OffsetsForLeaderEpochPartition) topicName() string { return p.Topic }

// OffsetsForLeaderEpochResponse answers an OffsetsForLeaderEpochRequest,
// partition by partition.
type OffsetsForLeaderEpochResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// Partitions answers the request's partitions. Empty decodes as nil.
	Partitions []OffsetsForLeaderEpochPartitionResponse
}

// OffsetsForLeaderEpochPartitionResponse is one partition's answer: the
// largest epoch not greater than the one asked about and the offset where
// it ended, or Found == false when the leader has no such epoch. Kafka
// writes "not found" as (-1, -1); here that pair exists only on the wire.
type OffsetsForLeaderEpochPartitionResponse struct {
	// Topic is the partition's topic, a valid Kafka topic name.
	Topic string
	// Partition is the partition's index within Topic. Never negative.
	Partition int32
	// ErrorCode is CodeNone on success. Any int16 decodes (see ErrorCode).
	ErrorCode ErrorCode
	// EpochEndOffset is the epoch found (>= 0) and where it ended.
	// Meaningful only when Found; ignored by AppendTo otherwise, and zero
	// after decoding.
	EpochEndOffset
	// Found reports whether EpochEndOffset holds an answer.
	Found bool
}

func (p *OffsetsForLeaderEpochPartitionResponse) topicName() string { return p.Topic }

// Encoded sizes (see fetch.go's): fixed parts, and each partition without
// its topic's bytes.
const (
	offsetsForLeaderEpochRequestFixedSize  = headerSize + 4 + 4
	offsetsForLeaderEpochPartitionSize     = 2 + 4 + 4 + 4
	offsetsForLeaderEpochResponseFixedSize = headerSize + 4
	offsetsForLeaderEpochPartitionRespSize = 2 + 4 + 2 + 4 + 8
)

// AppendTo appends the encoded request to dst. It refuses, with dst
// returned unchanged, exactly the values DecodeOffsetsForLeaderEpochRequest
// would refuse: in a partition an invalid Topic (ErrInvalidTopic), a
// negative Partition (ErrInvalidPartition) or an epoch below NoEpoch
// (ErrInvalidEpoch).
func (m OffsetsForLeaderEpochRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "OffsetsForLeaderEpochRequest"}
	c.count("Partitions", len(m.Partitions))
	size := offsetsForLeaderEpochRequestFixedSize
	for i := range m.Partitions {
		p := &m.Partitions[i]
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		c.epoch("Partitions.CurrentLeaderEpoch", p.CurrentLeaderEpoch, NoEpoch)
		c.epoch("Partitions.LeaderEpoch", p.LeaderEpoch, NoEpoch)
		if c.err != nil {
			return dst, c.err
		}
		size += offsetsForLeaderEpochPartitionSize + len(p.Topic)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIOffsetsForLeaderEpoch, m.CorrelationID)
	dst = appendInt32(dst, m.ReplicaID)
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for i := range m.Partitions {
		p := &m.Partitions[i]
		dst = appendTopic(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendInt32(dst, p.CurrentLeaderEpoch)
		dst = appendInt32(dst, p.LeaderEpoch)
	}
	return dst, nil
}

// DecodeOffsetsForLeaderEpochRequest decodes a request payload (without
// its frame), allocating the Partitions slice and one string per distinct
// topic. Errors match ErrMalformed and name the field (with the
// partition's index): ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey,
// ErrUnsupportedVersion, ErrNegativeLength, ErrInvalidTopic,
// ErrInvalidPartition, ErrInvalidEpoch.
func DecodeOffsetsForLeaderEpochRequest(payload []byte) (OffsetsForLeaderEpochRequest, error) {
	d := decoder{msg: "OffsetsForLeaderEpochRequest", buf: payload}
	var m OffsetsForLeaderEpochRequest
	m.CorrelationID = d.header(APIOffsetsForLeaderEpoch)
	m.ReplicaID = d.int32("ReplicaID")
	n := d.count("Partitions", offsetsForLeaderEpochPartitionSize)
	m.Partitions = reuse[OffsetsForLeaderEpochPartition](nil, n)
	cache := newTopicCache(0)
	for i := 0; i < n && d.err == nil; i++ {
		d.elem = i + 1
		m.Partitions[i] = OffsetsForLeaderEpochPartition{
			Topic:              readTopic(&d, &cache, "Partitions.Topic", m.Partitions, i),
			Partition:          d.partition("Partitions.Partition"),
			CurrentLeaderEpoch: d.epoch("Partitions.CurrentLeaderEpoch"),
			LeaderEpoch:        d.epoch("Partitions.LeaderEpoch"),
		}
	}
	d.elem = 0
	if err := d.finish(); err != nil {
		return OffsetsForLeaderEpochRequest{}, err
	}
	return m, nil
}

// AppendTo appends the encoded response to dst, writing (-1, -1) for a
// partition whose Found is false. It refuses, with dst returned unchanged,
// exactly the values DecodeOffsetsForLeaderEpochResponse would refuse: in
// a partition an invalid Topic (ErrInvalidTopic), a negative Partition
// (ErrInvalidPartition), and when Found a negative Epoch (ErrInvalidEpoch)
// or an EndOffset above math.MaxInt64 (ErrOffsetOverflow).
func (m OffsetsForLeaderEpochResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "OffsetsForLeaderEpochResponse"}
	c.count("Partitions", len(m.Partitions))
	size := offsetsForLeaderEpochResponseFixedSize
	for i := range m.Partitions {
		p := &m.Partitions[i]
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		if p.Found {
			c.epochEndOffset("Partitions.Epoch", "Partitions.EndOffset", p.EpochEndOffset)
		}
		if c.err != nil {
			return dst, c.err
		}
		size += offsetsForLeaderEpochPartitionRespSize + len(p.Topic)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIOffsetsForLeaderEpoch, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for i := range m.Partitions {
		p := &m.Partitions[i]
		dst = appendTopic(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendInt16(dst, int16(p.ErrorCode))
		if p.Found {
			dst = appendInt32(dst, p.Epoch)
			dst = appendInt64(dst, int64(p.EndOffset))
		} else {
			dst = appendInt32(dst, NoEpoch)
			dst = appendInt64(dst, -1)
		}
	}
	return dst, nil
}

// DecodeOffsetsForLeaderEpochResponse decodes a response payload (without
// its frame), allocating the Partitions slice and one string per distinct
// topic. (-1, -1) decodes as Found == false with a zero EpochEndOffset;
// any other negative half is malformed. An ErrorCode this package does not
// know is kept, not refused. Errors match ErrMalformed and name the field
// (with the partition's index): ErrTruncated, ErrTrailingBytes,
// ErrWrongAPIKey, ErrUnsupportedVersion, ErrNegativeLength,
// ErrInvalidTopic, ErrInvalidPartition, ErrInvalidEpoch, ErrNegativeOffset.
func DecodeOffsetsForLeaderEpochResponse(payload []byte) (OffsetsForLeaderEpochResponse, error) {
	d := decoder{msg: "OffsetsForLeaderEpochResponse", buf: payload}
	var m OffsetsForLeaderEpochResponse
	m.CorrelationID = d.header(APIOffsetsForLeaderEpoch)
	n := d.count("Partitions", offsetsForLeaderEpochPartitionRespSize)
	m.Partitions = reuse[OffsetsForLeaderEpochPartitionResponse](nil, n)
	cache := newTopicCache(0)
	for i := 0; i < n && d.err == nil; i++ {
		d.elem = i + 1
		p := OffsetsForLeaderEpochPartitionResponse{
			Topic:     readTopic(&d, &cache, "Partitions.Topic", m.Partitions, i),
			Partition: d.partition("Partitions.Partition"),
			ErrorCode: ErrorCode(d.int16("Partitions.ErrorCode")),
		}
		p.Epoch, p.EndOffset, p.Found = d.epochEndOffset("Partitions.Epoch", "Partitions.EndOffset")
		m.Partitions[i] = p
	}
	d.elem = 0
	if err := d.finish(); err != nil {
		return OffsetsForLeaderEpochResponse{}, err
	}
	return m, nil
}
