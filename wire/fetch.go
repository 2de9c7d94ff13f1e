package wire

import (
	"fmt"
	"slices"
)

// FetchRequest asks a leader for records from one partition. Followers and
// consumers send the same request; ReplicaID alone tells them apart (see
// IsolationOf). A follower's FetchOffset is its log end offset, which is how
// the leader learns how far the follower has got.
type FetchRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// ReplicaID is the follower's broker id (>= 0), or ConsumerReplicaID
	// (-1) for a consumer. Any int32 decodes; meaning is IsolationOf's.
	ReplicaID int32
	// FetchOffset is the first offset wanted.
	FetchOffset uint64
	// CurrentLeaderEpoch is the epoch the sender believes current, for
	// fencing, or NoEpoch to skip the check. Never below NoEpoch.
	CurrentLeaderEpoch int32
	// LastFetchedEpoch is the epoch of the last record the follower holds,
	// or NoEpoch when it holds none. Never below NoEpoch.
	LastFetchedEpoch int32
	// MaxBytes bounds the records returned. Never negative.
	MaxBytes int32
}

// fetchRequestSize is the encoded size of every FetchRequest.
const fetchRequestSize = headerSize + 4 + 8 + 4 + 4 + 4

// AppendTo appends the encoded request to dst. It refuses, with dst
// returned unchanged, exactly the values DecodeFetchRequest would refuse:
// FetchOffset above math.MaxInt64 (ErrOffsetOverflow), an epoch below
// NoEpoch (ErrInvalidEpoch), a negative MaxBytes (ErrNegativeLength).
func (m FetchRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "FetchRequest"
	offset, err := checkOffset(name, "FetchOffset", m.FetchOffset)
	if err != nil {
		return dst, err
	}
	if err := checkEpoch(name, "CurrentLeaderEpoch", m.CurrentLeaderEpoch, NoEpoch); err != nil {
		return dst, err
	}
	if err := checkEpoch(name, "LastFetchedEpoch", m.LastFetchedEpoch, NoEpoch); err != nil {
		return dst, err
	}
	if m.MaxBytes < 0 {
		return dst, fieldError(ErrNegativeLength, name, "MaxBytes", fmt.Sprintf(" = %d", m.MaxBytes))
	}
	dst = slices.Grow(dst, fetchRequestSize)
	dst = appendHeader(dst, APIFetch, m.CorrelationID)
	dst = appendInt32(dst, m.ReplicaID)
	dst = appendInt64(dst, offset)
	dst = appendInt32(dst, m.CurrentLeaderEpoch)
	dst = appendInt32(dst, m.LastFetchedEpoch)
	return appendInt32(dst, m.MaxBytes), nil
}

// DecodeFetchRequest decodes a FetchRequest payload (without its frame).
// Errors match ErrMalformed and say which field failed: ErrTruncated,
// ErrTrailingBytes, ErrWrongAPIKey, ErrUnsupportedVersion,
// ErrNegativeOffset, ErrInvalidEpoch, ErrNegativeLength.
func DecodeFetchRequest(payload []byte) (FetchRequest, error) {
	d := decoder{msg: "FetchRequest", buf: payload}
	m := FetchRequest{
		CorrelationID:      d.header(APIFetch),
		ReplicaID:          d.int32("ReplicaID"),
		FetchOffset:        d.offset("FetchOffset"),
		CurrentLeaderEpoch: d.epoch("CurrentLeaderEpoch"),
		LastFetchedEpoch:   d.epoch("LastFetchedEpoch"),
		MaxBytes:           d.int32("MaxBytes"),
	}
	if d.err == nil && m.MaxBytes < 0 {
		d.fail(ErrNegativeLength, "MaxBytes", fmt.Sprintf(" = %d", m.MaxBytes))
	}
	if err := d.finish(); err != nil {
		return FetchRequest{}, err
	}
	return m, nil
}

// FetchResponse answers a FetchRequest. It carries the records and, as
// important for a follower, the leader's high watermark: that is how a
// follower learns what is committed, one round trip after it got the records.
type FetchResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes (see ErrorCode).
	ErrorCode ErrorCode
	// HighWatermark is the leader's high watermark when it answered.
	HighWatermark uint64
	// LogStartOffset is the leader's first offset still held.
	LogStartOffset uint64
	// DivergingEpoch is the largest epoch (and its end offset) after which
	// the follower's log, per its LastFetchedEpoch and FetchOffset, diverges
	// from the leader's. Meaningful only when HasDivergingEpoch; ignored by
	// AppendTo otherwise, and zero after decoding.
	DivergingEpoch EpochEndOffset
	// HasDivergingEpoch says whether DivergingEpoch is set. On the wire
	// "not set" is (-1, -1), the default in Kafka's FetchResponse.json.
	HasDivergingEpoch bool
	// Records holds raw record batches, not decoded by this package.
	// After DecodeFetchResponse it aliases the payload (zero copy, capacity
	// clipped so appending to it cannot overwrite the payload): it is valid
	// only while the payload's buffer is, e.g. until the next ReadFrame
	// into the same buffer. Copy it to keep it longer. Empty decodes as nil.
	Records []byte
}

// fetchResponseFixedSize is the encoded size of a FetchResponse without
// its Records bytes.
const fetchResponseFixedSize = headerSize + 2 + 8 + 8 + 4 + 8 + 4

// AppendTo appends the encoded response to dst, copying Records once. It
// refuses, with dst returned unchanged, exactly the values
// DecodeFetchResponse would refuse: an offset above math.MaxInt64
// (ErrOffsetOverflow), a set DivergingEpoch with a negative Epoch
// (ErrInvalidEpoch), Records longer than math.MaxInt32 (ErrFrameTooLarge).
func (m FetchResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "FetchResponse"
	hw, err := checkOffset(name, "HighWatermark", m.HighWatermark)
	if err != nil {
		return dst, err
	}
	logStart, err := checkOffset(name, "LogStartOffset", m.LogStartOffset)
	if err != nil {
		return dst, err
	}
	divEpoch, divEnd := NoEpoch, int64(-1)
	if m.HasDivergingEpoch {
		if err := checkEpoch(name, "DivergingEpoch.Epoch", m.DivergingEpoch.Epoch, 0); err != nil {
			return dst, err
		}
		divEpoch = m.DivergingEpoch.Epoch
		if divEnd, err = checkOffset(name, "DivergingEpoch.EndOffset", m.DivergingEpoch.EndOffset); err != nil {
			return dst, err
		}
	}
	if err := checkRecords(name, "Records", m.Records); err != nil {
		return dst, err
	}
	dst = slices.Grow(dst, fetchResponseFixedSize+len(m.Records))
	dst = appendHeader(dst, APIFetch, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt64(dst, hw)
	dst = appendInt64(dst, logStart)
	dst = appendInt32(dst, divEpoch)
	dst = appendInt64(dst, divEnd)
	return appendRecords(dst, m.Records), nil
}

// DecodeFetchResponse decodes a FetchResponse payload (without its frame)
// without copying or allocating: Records aliases payload. A DivergingEpoch
// of (-1, -1) decodes as HasDivergingEpoch == false; any other negative
// half is malformed. An ErrorCode this package does not know is kept, not
// refused. Errors match ErrMalformed and say which field failed:
// ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey, ErrUnsupportedVersion,
// ErrNegativeOffset, ErrInvalidEpoch, ErrNegativeLength.
func DecodeFetchResponse(payload []byte) (FetchResponse, error) {
	d := decoder{msg: "FetchResponse", buf: payload}
	var m FetchResponse
	m.CorrelationID = d.header(APIFetch)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	m.HighWatermark = d.offset("HighWatermark")
	m.LogStartOffset = d.offset("LogStartOffset")
	m.DivergingEpoch.Epoch, m.DivergingEpoch.EndOffset, m.HasDivergingEpoch =
		d.epochEndOffset("DivergingEpoch.Epoch", "DivergingEpoch.EndOffset")
	m.Records = d.records()
	if err := d.finish(); err != nil {
		return FetchResponse{}, err
	}
	return m, nil
}
