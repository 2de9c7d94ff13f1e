package wire

// ConsumerReplicaID is the ReplicaID a consumer sends. Kafka's
// FetchRequest.json gives ReplicaId this default: "-1 if this request is
// from a consumer". A follower sends its broker id (>= 0); Kafka treats any
// negative id as a consumer, reading only to the high watermark, and so
// should a broker built on this package.
const ConsumerReplicaID int32 = -1

// FetchRequest asks a leader for records from one or more of its
// partitions. Followers and consumers send the same request; ReplicaID
// alone tells them apart. A follower's fetcher batches every partition it
// follows from one leader into one request, and each partition's
// FetchOffset is the follower's log end offset there, which is how the
// leader learns how far the follower has got.
type FetchRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// ReplicaID is the follower's broker id (>= 0), or ConsumerReplicaID
	// for a consumer. Any int32 decodes.
	ReplicaID int32
	// ReplicaEpoch is the follower's broker epoch (KIP-903), so a leader
	// can ignore fetches from a follower process that has since restarted,
	// or NoBrokerEpoch when there is none (consumers). Never below
	// NoBrokerEpoch.
	ReplicaEpoch int64
	// MaxWaitMs is how long the leader may park the fetch waiting for
	// MinBytes of records (0 = answer now). Never negative.
	MaxWaitMs int32
	// MinBytes asks the leader to answer as soon as this many record bytes
	// are ready, all partitions together. Never negative.
	MinBytes int32
	// MaxBytes bounds the response's records, all partitions together.
	// Never negative.
	MaxBytes int32
	// Partitions lists the partitions fetched from. Empty decodes as nil
	// (DecodeFetchRequestInto keeps the destination's emptied slice).
	Partitions []FetchPartition
}

// FetchPartition is one partition of a FetchRequest.
type FetchPartition struct {
	// Topic is the partition's topic, a valid Kafka topic name (see
	// ValidateTopic).
	Topic string
	// Partition is the partition's index within Topic. Never negative.
	Partition int32
	// CurrentLeaderEpoch is the leader epoch the sender believes current,
	// for fencing (KIP-320), or NoEpoch to skip the check. Never below
	// NoEpoch.
	CurrentLeaderEpoch int32
	// FetchOffset is the first offset wanted: for a follower, its log end
	// offset.
	FetchOffset uint64
	// LastFetchedEpoch is the epoch of the last record the follower holds,
	// or NoEpoch when it holds none. The leader checks it against its own
	// epoch cache and answers with a DivergingEpoch when the logs differ
	// (KIP-595). Never below NoEpoch.
	LastFetchedEpoch int32
	// LogStartOffset is the follower's log start offset. Meaningful only
	// when HasLogStartOffset; ignored by AppendTo otherwise, and zero after
	// decoding.
	LogStartOffset uint64
	// HasLogStartOffset says whether LogStartOffset is set. Consumers do
	// not set it. On the wire "not set" is -1, Kafka's default.
	HasLogStartOffset bool
	// MaxBytes bounds this partition's records. Never negative.
	MaxBytes int32
}

func (p *FetchPartition) topicName() string { return p.Topic }

// Encoded sizes: fixed parts, and each partition without its topic's bytes.
// A partition's size without its topic is also what a decoder multiplies a
// count by to bound it against the bytes left: the smallest an element
// could be, counting an (invalid) empty topic, so that an empty topic is
// reported as ErrInvalidTopic rather than as a truncation.
const (
	fetchRequestFixedSize   = headerSize + 4 + 8 + 4 + 4 + 4 + 4
	fetchPartitionFixedSize = 2 + 4 + 4 + 8 + 4 + 8 + 4
	fetchResponseFixedSize  = headerSize + 2 + 4
	fetchPartitionRespFixed = 2 + 4 + 2 + 8 + 8 + 4 + 8 + 4 + 4 + 4
)

// AppendTo appends the encoded request to dst. It refuses, with dst
// returned unchanged, exactly the values DecodeFetchRequest would refuse:
// a ReplicaEpoch below NoBrokerEpoch (ErrInvalidValue), a negative
// MaxWaitMs (ErrNegativeTimeout), a negative MinBytes or MaxBytes
// (ErrNegativeLength), and in a partition an invalid Topic
// (ErrInvalidTopic), a negative Partition (ErrInvalidPartition), an epoch
// below NoEpoch (ErrInvalidEpoch), an offset above math.MaxInt64
// (ErrOffsetOverflow) or a negative MaxBytes (ErrNegativeLength).
func (m FetchRequest) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "FetchRequest"}
	c.brokerEpoch("ReplicaEpoch", m.ReplicaEpoch)
	c.nonNegative("MaxWaitMs", m.MaxWaitMs, ErrNegativeTimeout)
	c.nonNegative("MinBytes", m.MinBytes, ErrNegativeLength)
	c.nonNegative("MaxBytes", m.MaxBytes, ErrNegativeLength)
	c.count("Partitions", len(m.Partitions))
	size := fetchRequestFixedSize
	for i := range m.Partitions {
		p := &m.Partitions[i]
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		c.epoch("Partitions.CurrentLeaderEpoch", p.CurrentLeaderEpoch, NoEpoch)
		c.offset("Partitions.FetchOffset", p.FetchOffset)
		c.epoch("Partitions.LastFetchedEpoch", p.LastFetchedEpoch, NoEpoch)
		if p.HasLogStartOffset {
			c.offset("Partitions.LogStartOffset", p.LogStartOffset)
		}
		c.nonNegative("Partitions.MaxBytes", p.MaxBytes, ErrNegativeLength)
		if c.err != nil {
			return dst, c.err
		}
		size += fetchPartitionFixedSize + len(p.Topic)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIFetch, m.CorrelationID)
	dst = appendInt32(dst, m.ReplicaID)
	dst = appendInt64(dst, m.ReplicaEpoch)
	dst = appendInt32(dst, m.MaxWaitMs)
	dst = appendInt32(dst, m.MinBytes)
	dst = appendInt32(dst, m.MaxBytes)
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for i := range m.Partitions {
		p := &m.Partitions[i]
		dst = appendTopic(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendInt32(dst, p.CurrentLeaderEpoch)
		dst = appendInt64(dst, int64(p.FetchOffset))
		dst = appendInt32(dst, p.LastFetchedEpoch)
		dst = appendInt64(dst, wireOrNone(p.LogStartOffset, p.HasLogStartOffset))
		dst = appendInt32(dst, p.MaxBytes)
	}
	return dst, nil
}

// DecodeFetchRequest decodes a FetchRequest payload (without its frame).
// A partition's LogStartOffset of -1 decodes as HasLogStartOffset ==
// false; any other negative offset is malformed. Errors match ErrMalformed
// and name the field (with the partition's index): ErrTruncated,
// ErrTrailingBytes, ErrWrongAPIKey, ErrUnsupportedVersion, ErrInvalidValue,
// ErrNegativeTimeout, ErrNegativeLength, ErrInvalidTopic,
// ErrInvalidPartition, ErrInvalidEpoch, ErrNegativeOffset.
//
// It allocates the Partitions slice and one string per distinct topic. A
// broker decoding a steady stream of fetches uses DecodeFetchRequestInto.
func DecodeFetchRequest(payload []byte) (FetchRequest, error) {
	var m FetchRequest
	if err := DecodeFetchRequestInto(payload, &m); err != nil {
		return FetchRequest{}, err
	}
	return m, nil
}

// DecodeFetchRequestInto is DecodeFetchRequest decoding into *m, for a
// connection that decodes one request after another into the same value.
// It reuses m.Partitions' array when it is large enough and takes topic
// strings from what m held before whenever they are equal (see the
// package documentation's "Decoding without allocating"), so once m is
// warm a follower's fetches, which name the same partitions every time,
// decode without allocating. On error *m is zero but for the emptied
// Partitions slice, whose array is kept.
func DecodeFetchRequestInto(payload []byte, m *FetchRequest) error {
	d := decoder{msg: "FetchRequest", buf: payload}
	corr := d.header(APIFetch)
	replicaID := d.int32("ReplicaID")
	replicaEpoch := d.brokerEpoch("ReplicaEpoch")
	maxWait := d.nonNegative32("MaxWaitMs", ErrNegativeTimeout)
	minBytes := d.nonNegative32("MinBytes", ErrNegativeLength)
	maxBytes := d.nonNegative32("MaxBytes", ErrNegativeLength)
	n := d.count("Partitions", fetchPartitionFixedSize)
	old := len(m.Partitions)
	ps := reuse(m.Partitions, n)
	cache := newTopicCache(old)
	for i := 0; i < n && d.err == nil; i++ {
		d.elem = i + 1
		topic := readTopic(&d, &cache, "Partitions.Topic", ps, i)
		p := FetchPartition{
			Topic:              topic,
			Partition:          d.partition("Partitions.Partition"),
			CurrentLeaderEpoch: d.epoch("Partitions.CurrentLeaderEpoch"),
			FetchOffset:        d.offset("Partitions.FetchOffset"),
			LastFetchedEpoch:   d.epoch("Partitions.LastFetchedEpoch"),
		}
		p.LogStartOffset, p.HasLogStartOffset = d.optionalOffset("Partitions.LogStartOffset")
		p.MaxBytes = d.nonNegative32("Partitions.MaxBytes", ErrNegativeLength)
		ps[i] = p
	}
	d.elem = 0
	if err := d.finish(); err != nil {
		*m = FetchRequest{Partitions: ps[:0]}
		return err
	}
	*m = FetchRequest{
		CorrelationID: corr,
		ReplicaID:     replicaID,
		ReplicaEpoch:  replicaEpoch,
		MaxWaitMs:     maxWait,
		MinBytes:      minBytes,
		MaxBytes:      maxBytes,
		Partitions:    ps,
	}
	return nil
}

// FetchResponse answers a FetchRequest. It carries each partition's records
// and, as important for a follower, the leader's high watermark: that is
// how a follower learns what is committed, one round trip after it got the
// records.
type FetchResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is a request-level error (for example, the request did not
	// decode: CodeInvalidRequest), normally with no partitions; CodeNone
	// otherwise, each partition then carrying its own. Any int16 decodes,
	// with or without partitions: the pairing is the broker's to keep.
	ErrorCode ErrorCode
	// Partitions answers the request's partitions. Empty decodes as nil
	// (DecodeFetchResponseInto keeps the destination's emptied slice).
	Partitions []FetchPartitionResponse
}

// FetchPartitionResponse is one partition of a FetchResponse.
type FetchPartitionResponse struct {
	// Topic is the partition's topic, a valid Kafka topic name.
	Topic string
	// Partition is the partition's index within Topic. Never negative.
	Partition int32
	// ErrorCode is CodeNone on success. Any int16 decodes (see ErrorCode).
	ErrorCode ErrorCode
	// HighWatermark is the leader's high watermark when it answered.
	HighWatermark uint64
	// LogStartOffset is the leader's first offset still held.
	LogStartOffset uint64
	// DivergingEpoch is the largest epoch (and its end offset) at which the
	// follower's log, per its LastFetchedEpoch and FetchOffset, diverges
	// from the leader's (KIP-595): the follower truncates to it and fetches
	// again. Meaningful only when HasDivergingEpoch; ignored by AppendTo
	// otherwise, and zero after decoding.
	DivergingEpoch EpochEndOffset
	// HasDivergingEpoch says whether DivergingEpoch is set. On the wire
	// "not set" is (-1, -1), the default in Kafka's FetchResponse.json.
	HasDivergingEpoch bool
	// CurrentLeader is the partition's leader and epoch as the answering
	// broker knows them, so a sender refused with NOT_LEADER_OR_FOLLOWER
	// or FENCED_LEADER_EPOCH can go to the new leader without asking the
	// controller first (KIP-951). Meaningful only when HasCurrentLeader;
	// ignored by AppendTo otherwise, and zero after decoding.
	CurrentLeader LeaderAndEpoch
	// HasCurrentLeader says whether CurrentLeader is set: with a
	// NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH error, when the broker
	// knows. On the wire "not set" is (-1, -1), Kafka's default.
	HasCurrentLeader bool
	// Records holds raw record batches, not decoded by this package.
	// After decoding it aliases the payload (zero copy, capacity clipped
	// so appending to it cannot overwrite the payload): it is valid only
	// while the payload's buffer is, e.g. until the next ReadFrame into the
	// same buffer. Copy it to keep it longer. Empty decodes as nil.
	Records []byte
}

func (p *FetchPartitionResponse) topicName() string { return p.Topic }

// AppendTo appends the encoded response to dst, copying each partition's
// Records once (AppendFrameBuffers frames it without the copy). It
// refuses, with dst returned unchanged, exactly the values
// DecodeFetchResponse would refuse: in a partition an invalid Topic
// (ErrInvalidTopic), a negative Partition (ErrInvalidPartition), an offset
// above math.MaxInt64 (ErrOffsetOverflow), a set DivergingEpoch with a
// negative Epoch (ErrInvalidEpoch), a set CurrentLeader with a negative
// LeaderID (ErrInvalidValue) or LeaderEpoch (ErrInvalidEpoch), and Records
// longer than math.MaxInt32 (ErrFrameTooLarge).
func (m FetchResponse) AppendTo(dst []byte) ([]byte, error) {
	return m.appendTo(dst, nil)
}

// appendTo is AppendTo, or with s the AppendFrameBuffers encoding (see
// beginFrame).
func (m *FetchResponse) appendTo(dst []byte, s *segmenter) ([]byte, error) {
	c := checker{msg: "FetchResponse"}
	c.count("Partitions", len(m.Partitions))
	fixed, records := fetchResponseFixedSize, 0
	for i := range m.Partitions {
		p := &m.Partitions[i]
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		c.offset("Partitions.HighWatermark", p.HighWatermark)
		c.offset("Partitions.LogStartOffset", p.LogStartOffset)
		if p.HasDivergingEpoch {
			c.epochEndOffset("Partitions.DivergingEpoch.Epoch", "Partitions.DivergingEpoch.EndOffset", p.DivergingEpoch)
		}
		if p.HasCurrentLeader {
			c.leaderAndEpoch("Partitions.CurrentLeader.LeaderID", "Partitions.CurrentLeader.LeaderEpoch", p.CurrentLeader)
		}
		c.records("Partitions.Records", p.Records)
		if c.err != nil {
			return dst, c.err
		}
		fixed += fetchPartitionRespFixed + len(p.Topic)
		records += len(p.Records)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst, err := beginFrame(dst, s, fixed, records)
	if err != nil {
		return dst, err
	}
	dst = appendHeader(dst, APIFetch, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for i := range m.Partitions {
		p := &m.Partitions[i]
		dst = appendTopic(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendInt16(dst, int16(p.ErrorCode))
		dst = appendInt64(dst, int64(p.HighWatermark))
		dst = appendInt64(dst, int64(p.LogStartOffset))
		if p.HasDivergingEpoch {
			dst = appendInt32(dst, p.DivergingEpoch.Epoch)
			dst = appendInt64(dst, int64(p.DivergingEpoch.EndOffset))
		} else {
			dst = appendInt32(dst, NoEpoch)
			dst = appendInt64(dst, -1)
		}
		if p.HasCurrentLeader {
			dst = appendInt32(dst, p.CurrentLeader.LeaderID)
			dst = appendInt32(dst, p.CurrentLeader.LeaderEpoch)
		} else {
			dst = appendInt32(dst, NoLeader)
			dst = appendInt32(dst, NoEpoch)
		}
		dst = appendRecordsField(dst, p.Records, s)
	}
	if s != nil {
		s.flush(dst)
	}
	return dst, nil
}

// DecodeFetchResponse decodes a FetchResponse payload (without its frame)
// without copying records: each partition's Records aliases payload. A
// DivergingEpoch or CurrentLeader of (-1, -1) decodes as its Has flag
// false; any other negative half is malformed. An ErrorCode this package
// does not know is kept, not refused. Errors match ErrMalformed and name
// the field (with the partition's index): ErrTruncated, ErrTrailingBytes,
// ErrWrongAPIKey, ErrUnsupportedVersion, ErrNegativeLength,
// ErrInvalidTopic, ErrInvalidPartition, ErrNegativeOffset,
// ErrInvalidEpoch, ErrInvalidValue.
//
// It allocates the Partitions slice and one string per distinct topic. A
// follower decoding a steady stream of responses uses
// DecodeFetchResponseInto.
func DecodeFetchResponse(payload []byte) (FetchResponse, error) {
	var m FetchResponse
	if err := DecodeFetchResponseInto(payload, &m); err != nil {
		return FetchResponse{}, err
	}
	return m, nil
}

// DecodeFetchResponseInto is DecodeFetchResponse decoding into *m, reusing
// m.Partitions' array and topic strings as DecodeFetchRequestInto does.
// Records alias payload. The Records of array elements beyond the new
// length are cleared, so m never keeps an earlier payload alive. On error
// *m is zero but for the emptied Partitions slice, whose array is kept.
func DecodeFetchResponseInto(payload []byte, m *FetchResponse) error {
	d := decoder{msg: "FetchResponse", buf: payload}
	corr := d.header(APIFetch)
	code := ErrorCode(d.int16("ErrorCode"))
	n := d.count("Partitions", fetchPartitionRespFixed)
	old := len(m.Partitions)
	ps := reuse(m.Partitions, n)
	cache := newTopicCache(old)
	for i := 0; i < n && d.err == nil; i++ {
		d.elem = i + 1
		topic := readTopic(&d, &cache, "Partitions.Topic", ps, i)
		p := FetchPartitionResponse{
			Topic:          topic,
			Partition:      d.partition("Partitions.Partition"),
			ErrorCode:      ErrorCode(d.int16("Partitions.ErrorCode")),
			HighWatermark:  d.offset("Partitions.HighWatermark"),
			LogStartOffset: d.offset("Partitions.LogStartOffset"),
		}
		p.DivergingEpoch.Epoch, p.DivergingEpoch.EndOffset, p.HasDivergingEpoch =
			d.epochEndOffset("Partitions.DivergingEpoch.Epoch", "Partitions.DivergingEpoch.EndOffset")
		p.CurrentLeader, p.HasCurrentLeader = d.leaderAndEpoch("Partitions.CurrentLeader.LeaderID", "Partitions.CurrentLeader.LeaderEpoch")
		p.Records = d.records("Partitions.Records")
		ps[i] = p
	}
	d.elem = 0
	if err := d.finish(); err != nil {
		clearFetchRecords(ps[:max(old, n)])
		*m = FetchResponse{Partitions: ps[:0]}
		return err
	}
	if old > n {
		clearFetchRecords(ps[n:old])
	}
	*m = FetchResponse{CorrelationID: corr, ErrorCode: code, Partitions: ps}
	return nil
}

// clearFetchRecords drops the Records of elements no longer in use, so an
// array kept for reuse does not keep old payloads alive. Topics stay: they
// are readTopic's cache.
func clearFetchRecords(ps []FetchPartitionResponse) {
	for i := range ps {
		ps[i].Records = nil
	}
}
