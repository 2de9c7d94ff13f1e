package wire

// Acks values a producer may send. acks changes when the leader answers,
// never what it writes.
const (
	// AcksAll (-1) answers once every ISR member has the records, i.e. once
	// the high watermark passes them, and refuses up front with
	// CodeNotEnoughReplicas when the ISR is below min.insync.replicas.
	AcksAll int16 = -1
	// AcksNone (0) expects no answer at all.
	AcksNone int16 = 0
	// AcksLeader (1) answers as soon as the leader has appended.
	AcksLeader int16 = 1
)

// ProduceRequest asks a leader to append record batches to one or more of
// its partitions.
type ProduceRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Acks is AcksAll, AcksLeader or AcksNone. Any int16 decodes, as in
	// Kafka; the broker answers others with CodeInvalidRequiredAcks.
	Acks int16
	// TimeoutMs bounds how long an AcksAll request waits for commit.
	// Never negative.
	TimeoutMs int32
	// Partitions lists the partitions written to, with their records.
	// Empty decodes as nil (DecodeProduceRequestInto keeps the
	// destination's emptied slice).
	Partitions []ProducePartition
}

// ProducePartition is one partition of a ProduceRequest.
type ProducePartition struct {
	// Topic is the partition's topic, a valid Kafka topic name (see
	// ValidateTopic).
	Topic string
	// Partition is the partition's index within Topic. Never negative.
	Partition int32
	// Records holds raw record batches, not decoded by this package.
	// After decoding it aliases the payload (zero copy, capacity clipped),
	// valid only while the payload's buffer is. Empty decodes as nil.
	Records []byte
}

func (p *ProducePartition) topicName() string { return p.Topic }

// ProduceResponse answers a ProduceRequest (unless its Acks was AcksNone:
// then nothing answers it).
type ProduceResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// Partitions answers the request's partitions. Empty decodes as nil.
	Partitions []ProducePartitionResponse
}

// ProducePartitionResponse is one partition of a ProduceResponse.
type ProducePartitionResponse struct {
	// Topic is the partition's topic, a valid Kafka topic name.
	Topic string
	// Partition is the partition's index within Topic. Never negative.
	Partition int32
	// ErrorCode is CodeNone on success. Any int16 decodes (see ErrorCode).
	ErrorCode ErrorCode
	// BaseOffset is the offset the leader gave the first appended record.
	// Meaningful only when HasBaseOffset; ignored by AppendTo otherwise, and
	// zero after decoding.
	BaseOffset uint64
	// HasBaseOffset is false when nothing was appended (a refused write,
	// e.g. CodeNotEnoughReplicas); -1 on the wire. It is independent of
	// ErrorCode: CodeNotEnoughReplicasAfterAppend comes with an offset,
	// because the records were written.
	HasBaseOffset bool
	// LogStartOffset is the partition's log start offset when the leader
	// answered.
	LogStartOffset uint64
}

func (p *ProducePartitionResponse) topicName() string { return p.Topic }

// Encoded sizes (see fetch.go's): fixed parts, and each partition without
// its topic's bytes (and records).
const (
	produceRequestFixedSize   = headerSize + 2 + 4 + 4
	producePartitionFixedSize = 2 + 4 + 4
	produceResponseFixedSize  = headerSize + 4
	producePartitionRespFixed = 2 + 4 + 2 + 8 + 8
)

// AppendTo appends the encoded request to dst, copying each partition's
// Records once (AppendFrameBuffers frames it without the copy). It
// refuses, with dst returned unchanged, exactly the values
// DecodeProduceRequest would refuse: a negative TimeoutMs
// (ErrNegativeTimeout), and in a partition an invalid Topic
// (ErrInvalidTopic), a negative Partition (ErrInvalidPartition) or Records
// longer than math.MaxInt32 (ErrFrameTooLarge).
func (m ProduceRequest) AppendTo(dst []byte) ([]byte, error) {
	return m.appendTo(dst, nil)
}

// appendTo is AppendTo, or with s the AppendFrameBuffers encoding (see
// beginFrame).
func (m *ProduceRequest) appendTo(dst []byte, s *segmenter) ([]byte, error) {
	c := checker{msg: "ProduceRequest"}
	c.nonNegative("TimeoutMs", m.TimeoutMs, ErrNegativeTimeout)
	c.count("Partitions", len(m.Partitions))
	fixed, records := produceRequestFixedSize, 0
	for i := range m.Partitions {
		p := &m.Partitions[i]
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		c.records("Partitions.Records", p.Records)
		if c.err != nil {
			return dst, c.err
		}
		fixed += producePartitionFixedSize + len(p.Topic)
		records += len(p.Records)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst, err := beginFrame(dst, s, fixed, records)
	if err != nil {
		return dst, err
	}
	dst = appendHeader(dst, APIProduce, m.CorrelationID)
	dst = appendInt16(dst, m.Acks)
	dst = appendInt32(dst, m.TimeoutMs)
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for i := range m.Partitions {
		p := &m.Partitions[i]
		dst = appendTopic(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendRecordsField(dst, p.Records, s)
	}
	if s != nil {
		s.flush(dst)
	}
	return dst, nil
}

// DecodeProduceRequest decodes a ProduceRequest payload (without its frame)
// without copying records: each partition's Records aliases payload.
// Errors match ErrMalformed and name the field (with the partition's
// index): ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey,
// ErrUnsupportedVersion, ErrNegativeTimeout, ErrNegativeLength,
// ErrInvalidTopic, ErrInvalidPartition.
//
// It allocates the Partitions slice and one string per distinct topic. A
// broker decoding a steady stream of produces uses
// DecodeProduceRequestInto.
func DecodeProduceRequest(payload []byte) (ProduceRequest, error) {
	var m ProduceRequest
	if err := DecodeProduceRequestInto(payload, &m); err != nil {
		return ProduceRequest{}, err
	}
	return m, nil
}

// PeekProduceAcks reads the Acks of a ProduceRequest payload without
// decoding the rest, so that a server can tell whether a produce whose
// body does not decode expected an answer at all. It fails as
// DecodeProduceRequest fails on a header it refuses (ErrWrongAPIKey,
// ErrUnsupportedVersion, ErrTruncated) and with ErrTruncated when the
// payload ends before Acks.
func PeekProduceAcks(payload []byte) (int16, error) {
	d := decoder{msg: "ProduceRequest", buf: payload}
	d.header(APIProduce)
	acks := d.int16("Acks")
	return acks, d.err
}

// DecodeProduceRequestInto is DecodeProduceRequest decoding into *m,
// reusing m.Partitions' array and topic strings as DecodeFetchRequestInto
// does, so once m is warm a producer's requests decode without allocating.
// Records alias payload; the Records of array elements beyond the new
// length are cleared. On error *m is zero but for the emptied Partitions
// slice, whose array is kept.
func DecodeProduceRequestInto(payload []byte, m *ProduceRequest) error {
	d := decoder{msg: "ProduceRequest", buf: payload}
	corr := d.header(APIProduce)
	acks := d.int16("Acks")
	timeout := d.nonNegative32("TimeoutMs", ErrNegativeTimeout)
	n := d.count("Partitions", producePartitionFixedSize)
	old := len(m.Partitions)
	ps := reuse(m.Partitions, n)
	cache := newTopicCache(old)
	for i := 0; i < n && d.err == nil; i++ {
		d.elem = i + 1
		topic := readTopic(&d, &cache, "Partitions.Topic", ps, i)
		ps[i] = ProducePartition{
			Topic:     topic,
			Partition: d.partition("Partitions.Partition"),
			Records:   d.records("Partitions.Records"),
		}
	}
	d.elem = 0
	if err := d.finish(); err != nil {
		clearProduceRecords(ps[:max(old, n)])
		*m = ProduceRequest{Partitions: ps[:0]}
		return err
	}
	if old > n {
		clearProduceRecords(ps[n:old])
	}
	*m = ProduceRequest{CorrelationID: corr, Acks: acks, TimeoutMs: timeout, Partitions: ps}
	return nil
}

// clearProduceRecords is clearFetchRecords for ProducePartition.
func clearProduceRecords(ps []ProducePartition) {
	for i := range ps {
		ps[i].Records = nil
	}
}

// AppendTo appends the encoded response to dst, writing -1 for a
// partition whose HasBaseOffset is false. It refuses, with dst returned
// unchanged, exactly the values DecodeProduceResponse would refuse: in a
// partition an invalid Topic (ErrInvalidTopic), a negative Partition
// (ErrInvalidPartition), or an offset above math.MaxInt64
// (ErrOffsetOverflow).
func (m ProduceResponse) AppendTo(dst []byte) ([]byte, error) {
	c := checker{msg: "ProduceResponse"}
	c.count("Partitions", len(m.Partitions))
	size := produceResponseFixedSize
	for i := range m.Partitions {
		p := &m.Partitions[i]
		c.elem = i + 1
		c.topic("Partitions.Topic", p.Topic)
		c.partition("Partitions.Partition", p.Partition)
		if p.HasBaseOffset {
			c.offset("Partitions.BaseOffset", p.BaseOffset)
		}
		c.offset("Partitions.LogStartOffset", p.LogStartOffset)
		if c.err != nil {
			return dst, c.err
		}
		size += producePartitionRespFixed + len(p.Topic)
	}
	if c.err != nil {
		return dst, c.err
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIProduce, m.CorrelationID)
	dst = appendInt32(dst, int32(len(m.Partitions)))
	for i := range m.Partitions {
		p := &m.Partitions[i]
		dst = appendTopic(dst, p.Topic)
		dst = appendInt32(dst, p.Partition)
		dst = appendInt16(dst, int16(p.ErrorCode))
		dst = appendInt64(dst, wireOrNone(p.BaseOffset, p.HasBaseOffset))
		dst = appendInt64(dst, int64(p.LogStartOffset))
	}
	return dst, nil
}

// DecodeProduceResponse decodes a ProduceResponse payload (without its
// frame). A BaseOffset of -1 decodes as HasBaseOffset == false; any other
// negative offset is malformed. An ErrorCode this package does not know is
// kept, not refused. Errors match ErrMalformed and name the field (with
// the partition's index): ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey,
// ErrUnsupportedVersion, ErrNegativeLength, ErrInvalidTopic,
// ErrInvalidPartition, ErrNegativeOffset.
func DecodeProduceResponse(payload []byte) (ProduceResponse, error) {
	var m ProduceResponse
	if err := DecodeProduceResponseInto(payload, &m); err != nil {
		return ProduceResponse{}, err
	}
	return m, nil
}

// DecodeProduceResponseInto is DecodeProduceResponse decoding into *m,
// reusing m.Partitions' array and topic strings as DecodeFetchRequestInto
// does: a producer's hot path. On error *m is zero but for the emptied
// Partitions slice, whose array is kept.
func DecodeProduceResponseInto(payload []byte, m *ProduceResponse) error {
	d := decoder{msg: "ProduceResponse", buf: payload}
	corr := d.header(APIProduce)
	n := d.count("Partitions", producePartitionRespFixed)
	old := len(m.Partitions)
	ps := reuse(m.Partitions, n)
	cache := newTopicCache(old)
	for i := 0; i < n && d.err == nil; i++ {
		d.elem = i + 1
		topic := readTopic(&d, &cache, "Partitions.Topic", ps, i)
		p := ProducePartitionResponse{
			Topic:     topic,
			Partition: d.partition("Partitions.Partition"),
			ErrorCode: ErrorCode(d.int16("Partitions.ErrorCode")),
		}
		p.BaseOffset, p.HasBaseOffset = d.optionalOffset("Partitions.BaseOffset")
		p.LogStartOffset = d.offset("Partitions.LogStartOffset")
		ps[i] = p
	}
	d.elem = 0
	if err := d.finish(); err != nil {
		*m = ProduceResponse{Partitions: ps[:0]}
		return err
	}
	*m = ProduceResponse{CorrelationID: corr, Partitions: ps}
	return nil
}
