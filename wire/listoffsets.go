package wire

import "fmt"

// Timestamp selectors a ListOffsets partition may ask for instead of a
// timestamp: Kafka's ListOffsetsRequest.LATEST_TIMESTAMP,
// EARLIEST_TIMESTAMP and MAX_TIMESTAMP (KIP-734). Any timestamp >= 0 asks
// for the first record whose timestamp is at least it. Other negative
// values are malformed.
const (
	LatestTimestamp   int64 = -1 // the log end offset (the high watermark for consumers)
	EarliestTimestamp int64 = -2 // the log start offset
	MaxTimestamp      int64 = -3 // the first record with the largest timestamp
)

// ListOffsetsRequest asks a leader where its partitions' logs start or
// end: where a consumer without a committed position starts reading, or
// where a follower whose fetch offset fell out of range resets to.
type ListOffsetsRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// ReplicaID is ConsumerReplicaID (-1) for a consumer, whose
	// LatestTimestamp is then the high watermark, or a follower's broker
	// id, whose LatestTimestamp is the log end offset. Any int32 decodes.
	ReplicaID int32
	// Partitions lists the partitions asked about. Empty decodes as nil.
	Partitions []ListOffsetsPartition
}

// ListOffsetsPartition is one partition of a ListOffsetsRequest.
type ListOffsetsPartition struct {
	// Topic is the partition's topic, a valid Kafka topic name (see
	// ValidateTopic).
	Topic string
	// Partition is the partition's index within Topic. Never negative.
	Partition int32
	// CurrentLeaderEpoch is the epoch the sender believes current, for
	// fencing, or NoEpoch to skip the check. Never below NoEpoch.
	CurrentLeaderEpoch int32
	// Timestamp is LatestTimestamp, EarliestTimestamp, MaxTimestamp, or a
	// timestamp >= 0 (milliseconds) to look up; nothing else encodes or
	// decodes.
	Timestamp int64
}

func (p *ListOffsetsPartition) topicName() string { return p.Topic }

// ListOffsetsResponse answers a ListOffsetsRequest, partition by
// partition.
type ListOffsetsResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// Partitions answers the request's partitions. Empty decodes as nil.
	Partitions []ListOffsetsPartitionResponse
}

// ListOffsetsPartitionResponse is one partition's answer.
type ListOffsetsPartitionResponse struct {
	// Topic is the partition's topic, a valid Kafka topic name.
	Topic string
	// Partition is the partition's index within Topic. Never negative.
	Partition int32
	// ErrorCode is CodeNone on success. Any int16 decodes (see ErrorCode).
	ErrorCode ErrorCode
	// Offset is the offset asked for. Meaningful only when Found; ignored
	// by AppendTo otherwise, and zero after decoding.
	Offset uint64
	// Timestamp is the timestamp of the record at Offset for a lookup by
	// time or MaxTimestamp, and -1 (Kafka's NO_TIMESTAMP) for
	// LatestTimestamp and EarliestTimestamp. Meaningful only when Found;
	// -1 after decoding otherwise.
	Timestamp int64
	// Found reports whether Offset holds an answer: false in a refusal, and
	// for a lookup by time that found no record (Kafka answers offset -1
	// and timestamp -1 with no error).
	Found bool
	// LeaderEpoch is the leader's epoch when it answered, or NoEpoch in a
	// refusal. Never below NoEpoch.
	LeaderEpoch int32
}

func (p *ListOffsetsPartitionResponse) topicName() string { return p.Topic }

// Encoded sizes (see fetch.go's): fixed parts, and each partition without
// its topic's bytes.
const (
	listOffsetsRequestFixedSize  = headerSize + 4 + 4
	listOffsetsPartitionSize     = 2 + 4 + 4 + 8
	listOffsetsResponseFixedSize = headerSize + 4
	listOffsetsPartitionRespSize = 2 + 4 + 2 + 8 + 8 + 4
)

// validTimestamp reports whether t is one a ListOffsets partition may ask
// for.
func validTimestamp(t int64) bool { return t >= MaxTimestamp }

// AppendTo appends the encoded request to dst. It refuses, with dst
// returned unchanged, exactly the values DecodeListOffsetsRequest would
// refuse: in a partition an invalid Topic (ErrInvalidTopic), a negative
// Partition (ErrInvalidPartition), an epoch below NoEpoch
// (ErrInvalidEpoch), or a Timestamp below MaxTimestamp (ErrInvalidValue).
func (m ListOffsetsRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "ListOffsetsRequest"}
	c.count("Partitions", len(m.Partitions))
	size := listOffsetsRequestFixedSize
	for i := range m.Partitions {
		p := &m.Partitions[i]
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		c.epoch("Partitions.CurrentLeaderEpoch", p.CurrentLeaderEpoch, NoEpoch)
		if !validTimestamp(p.Timestamp) {
			c.fail(ErrInvalidValue, "Partitions.Timestamp", fmt.Sprintf(" = %d, want a timestamp >= 0, -1 (latest), -2 (earliest) or -3 (max)", p.Timestamp))
		}
		if c.err != nil {
			return dst, c.err
		}
		size += listOffsetsPartitionSize + len(p.Topic)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIListOffsets, m.CorrelationID)
	dst = appendInt32(dst, m.ReplicaID)
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for i := range m.Partitions {
		p := &m.Partitions[i]
		dst = appendTopic(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendInt32(dst, p.CurrentLeaderEpoch)
		dst = appendInt64(dst, p.Timestamp)
	}
	return dst, nil
}

// DecodeListOffsetsRequest decodes a request payload (without its frame),
// allocating the Partitions slice and one string per distinct topic.
// Errors match ErrMalformed and name the field (with the partition's
// index): ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey,
// ErrUnsupportedVersion, ErrNegativeLength, ErrInvalidTopic,
// ErrInvalidPartition, ErrInvalidEpoch, ErrInvalidValue.
func DecodeListOffsetsRequest(payload []byte) (ListOffsetsRequest, error) {
	d := decoder{msg: "ListOffsetsRequest", buf: payload}
	var m ListOffsetsRequest
	m.CorrelationID = d.header(APIListOffsets)
	m.ReplicaID = d.int32("ReplicaID")
	n := d.count("Partitions", listOffsetsPartitionSize)
	m.Partitions = reuse[ListOffsetsPartition](nil, n)
	cache := newTopicCache(0)
	for i := 0; i < n && d.err == nil; i++ {
		d.elem = i + 1
		p := ListOffsetsPartition{
			Topic:              readTopic(&d, &cache, "Partitions.Topic", m.Partitions, i),
			Partition:          d.partition("Partitions.Partition"),
			CurrentLeaderEpoch: d.epoch("Partitions.CurrentLeaderEpoch"),
			Timestamp:          d.int64("Partitions.Timestamp"),
		}
		if d.err == nil && !validTimestamp(p.Timestamp) {
			d.fail(ErrInvalidValue, "Partitions.Timestamp", fmt.Sprintf(" = %d, want a timestamp >= 0, -1 (latest), -2 (earliest) or -3 (max)", p.Timestamp))
		}
		m.Partitions[i] = p
	}
	d.elem = 0
	if err := d.finish(); err != nil {
		return ListOffsetsRequest{}, err
	}
	return m, nil
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// returned unchanged, exactly the values DecodeListOffsetsResponse would
// refuse: in a partition an invalid Topic (ErrInvalidTopic), a negative
// Partition (ErrInvalidPartition), when Found an Offset above
// math.MaxInt64 (ErrOffsetOverflow), or a LeaderEpoch below NoEpoch
// (ErrInvalidEpoch). A partition whose Found is false encodes Kafka's
// (timestamp -1, offset -1).
func (m ListOffsetsResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "ListOffsetsResponse"}
	c.count("Partitions", len(m.Partitions))
	size := listOffsetsResponseFixedSize
	for i := range m.Partitions {
		p := &m.Partitions[i]
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		if p.Found {
			c.offset("Partitions.Offset", p.Offset)
		}
		c.epoch("Partitions.LeaderEpoch", p.LeaderEpoch, NoEpoch)
		if c.err != nil {
			return dst, c.err
		}
		size += listOffsetsPartitionRespSize + len(p.Topic)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIListOffsets, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for i := range m.Partitions {
		p := &m.Partitions[i]
		dst = appendTopic(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendInt16(dst, int16(p.ErrorCode))
		if p.Found {
			dst = appendInt64(dst, p.Timestamp)
			dst = appendInt64(dst, int64(p.Offset))
		} else {
			dst = appendInt64(dst, -1)
			dst = appendInt64(dst, -1)
		}
		dst = appendInt32(dst, p.LeaderEpoch)
	}
	return dst, nil
}

// DecodeListOffsetsResponse decodes a response payload (without its
// frame), allocating the Partitions slice and one string per distinct
// topic. An ErrorCode this package does not know is kept, not refused.
// Errors match ErrMalformed and name the field (with the partition's
// index): ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey,
// ErrUnsupportedVersion, ErrNegativeLength, ErrInvalidTopic,
// ErrInvalidPartition, ErrNegativeOffset, ErrInvalidEpoch.
func DecodeListOffsetsResponse(payload []byte) (ListOffsetsResponse, error) {
	d := decoder{msg: "ListOffsetsResponse", buf: payload}
	var m ListOffsetsResponse
	m.CorrelationID = d.header(APIListOffsets)
	n := d.count("Partitions", listOffsetsPartitionRespSize)
	m.Partitions = reuse[ListOffsetsPartitionResponse](nil, n)
	cache := newTopicCache(0)
	for i := 0; i < n && d.err == nil; i++ {
		d.elem = i + 1
		p := ListOffsetsPartitionResponse{
			Topic:     readTopic(&d, &cache, "Partitions.Topic", m.Partitions, i),
			Partition: d.partition("Partitions.Partition"),
			ErrorCode: ErrorCode(d.int16("Partitions.ErrorCode")),
			Timestamp: d.int64("Partitions.Timestamp"),
		}
		// (-1, -1) is "none"; a timestamp -1 beside an offset is Kafka's
		// answer to LATEST and EARLIEST.
		switch o := d.int64("Partitions.Offset"); {
		case d.err != nil, o == -1 && p.Timestamp == -1:
		case o < 0:
			d.fail(ErrNegativeOffset, "Partitions.Offset", fmt.Sprintf(" = %d with Timestamp = %d; only (-1, -1) means none", o, p.Timestamp))
		default:
			p.Offset, p.Found = uint64(o), true
		}
		p.LeaderEpoch = d.epoch("Partitions.LeaderEpoch")
		m.Partitions[i] = p
	}
	d.elem = 0
	if err := d.finish(); err != nil {
		return ListOffsetsResponse{}, err
	}
	return m, nil
}
