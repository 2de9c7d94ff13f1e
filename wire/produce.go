package wire

import (
	"fmt"
	"slices"
)

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

// ProduceRequest asks the leader to append record batches.
type ProduceRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Acks is AcksAll, AcksLeader or AcksNone. Any int16 decodes, as in
	// Kafka; the broker answers others with CodeInvalidRequiredAcks.
	Acks int16
	// TimeoutMs bounds how long an AcksAll request waits for commit.
	// Never negative.
	TimeoutMs int32
	// Records holds raw record batches, not decoded by this package.
	// After DecodeProduceRequest it aliases the payload (zero copy,
	// capacity clipped), valid only while the payload's buffer is. Empty
	// decodes as nil.
	Records []byte
}

// produceRequestFixedSize is the encoded size without the Records bytes.
const produceRequestFixedSize = headerSize + 2 + 4 + 4

// AppendTo appends the encoded request to dst, copying Records once. It
// refuses, with dst returned unchanged, a negative TimeoutMs
// (ErrNegativeTimeout) or Records longer than math.MaxInt32
// (ErrFrameTooLarge).
func (m ProduceRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "ProduceRequest"
	if m.TimeoutMs < 0 {
		return dst, fieldError(ErrNegativeTimeout, name, "TimeoutMs", fmt.Sprintf(" = %d", m.TimeoutMs))
	}
	if err := checkRecords(name, "Records", m.Records); err != nil {
		return dst, err
	}
	dst = slices.Grow(dst, produceRequestFixedSize+len(m.Records))
	dst = appendHeader(dst, APIProduce, m.CorrelationID)
	dst = appendInt16(dst, m.Acks)
	dst = appendInt32(dst, m.TimeoutMs)
	return appendRecords(dst, m.Records), nil
}

// DecodeProduceRequest decodes a ProduceRequest payload (without its frame)
// without copying: Records aliases payload. Errors match ErrMalformed and
// say which field failed: ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey,
// ErrUnsupportedVersion, ErrNegativeTimeout, ErrNegativeLength.
func DecodeProduceRequest(payload []byte) (ProduceRequest, error) {
	d := decoder{msg: "ProduceRequest", buf: payload}
	var m ProduceRequest
	m.CorrelationID = d.header(APIProduce)
	m.Acks = d.int16("Acks")
	m.TimeoutMs = d.int32("TimeoutMs")
	if d.err == nil && m.TimeoutMs < 0 {
		d.fail(ErrNegativeTimeout, "TimeoutMs", fmt.Sprintf(" = %d", m.TimeoutMs))
	}
	m.Records = d.records()
	if err := d.finish(); err != nil {
		return ProduceRequest{}, err
	}
	return m, nil
}

// ProduceResponse answers a ProduceRequest.
type ProduceResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes (see ErrorCode).
	ErrorCode ErrorCode
	// BaseOffset is the offset the leader gave the first appended record.
	// Zero and ignored unless HasBaseOffset.
	BaseOffset uint64
	// HasBaseOffset is false when nothing was appended (a refused write,
	// e.g. CodeNotEnoughReplicas); -1 on the wire. It is independent of
	// ErrorCode: CodeNotEnoughReplicasAfterAppend comes with an offset,
	// because the records were written.
	HasBaseOffset bool
}

// produceResponseSize is the encoded size of every ProduceResponse.
const produceResponseSize = headerSize + 2 + 8

// AppendTo appends the encoded response to dst, writing -1 when
// HasBaseOffset is false. It refuses a BaseOffset above math.MaxInt64 with
// ErrOffsetOverflow, returning dst unchanged.
func (m ProduceResponse) AppendTo(dst []byte) ([]byte, error) {
	base := int64(-1)
	if m.HasBaseOffset {
		var err error
		if base, err = checkOffset("ProduceResponse", "BaseOffset", m.BaseOffset); err != nil {
			return dst, err
		}
	}
	dst = slices.Grow(dst, produceResponseSize)
	dst = appendHeader(dst, APIProduce, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	return appendInt64(dst, base), nil
}

// DecodeProduceResponse decodes a ProduceResponse payload (without its
// frame). A BaseOffset of -1 decodes as HasBaseOffset == false; any other
// negative value is malformed. An ErrorCode this package does not know is
// kept, not refused. Errors match ErrMalformed and say which field failed:
// ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey, ErrUnsupportedVersion,
// ErrNegativeOffset.
func DecodeProduceResponse(payload []byte) (ProduceResponse, error) {
	d := decoder{msg: "ProduceResponse", buf: payload}
	var m ProduceResponse
	m.CorrelationID = d.header(APIProduce)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	if base := d.int64("BaseOffset"); d.err == nil && base != -1 {
		var err error
		if m.BaseOffset, err = FromWireI64(base); err != nil {
			d.fail(ErrNegativeOffset, "BaseOffset", fmt.Sprintf(" = %d; only -1 means none", base))
		}
		m.HasBaseOffset = true
	}
	if err := d.finish(); err != nil {
		return ProduceResponse{}, err
	}
	return m, nil
}
