package wire

import "slices"

// OffsetsForLeaderEpochRequest asks the leader where a leader epoch ended,
// so a follower can truncate to the leader's answer instead of to its own
// high watermark (KIP-101), converging on the largest common epoch (KIP-279).
type OffsetsForLeaderEpochRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// ReplicaID is the asking follower's broker id. Any int32 decodes.
	ReplicaID int32
	// CurrentLeaderEpoch is the epoch the sender believes current, for
	// fencing, or NoEpoch to skip the check. Never below NoEpoch.
	CurrentLeaderEpoch int32
	// LeaderEpoch is the epoch asked about. NoEpoch is allowed (the answer
	// is then "not found"); nothing below it is.
	LeaderEpoch int32
}

// offsetsForLeaderEpochRequestSize is the encoded size of every request.
const offsetsForLeaderEpochRequestSize = headerSize + 4 + 4 + 4

// AppendTo appends the encoded request to dst. It refuses an epoch below
// NoEpoch with ErrInvalidEpoch, returning dst unchanged.
func (m OffsetsForLeaderEpochRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "OffsetsForLeaderEpochRequest"
	if err := checkEpoch(name, "CurrentLeaderEpoch", m.CurrentLeaderEpoch, NoEpoch); err != nil {
		return dst, err
	}
	if err := checkEpoch(name, "LeaderEpoch", m.LeaderEpoch, NoEpoch); err != nil {
		return dst, err
	}
	dst = slices.Grow(dst, offsetsForLeaderEpochRequestSize)
	dst = appendHeader(dst, APIOffsetsForLeaderEpoch, m.CorrelationID)
	dst = appendInt32(dst, m.ReplicaID)
	dst = appendInt32(dst, m.CurrentLeaderEpoch)
	return appendInt32(dst, m.LeaderEpoch), nil
}

// DecodeOffsetsForLeaderEpochRequest decodes a request payload (without its
// frame). Errors match ErrMalformed and say which field failed:
// ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey, ErrUnsupportedVersion,
// ErrInvalidEpoch.
func DecodeOffsetsForLeaderEpochRequest(payload []byte) (OffsetsForLeaderEpochRequest, error) {
	d := decoder{msg: "OffsetsForLeaderEpochRequest", buf: payload}
	m := OffsetsForLeaderEpochRequest{
		CorrelationID:      d.header(APIOffsetsForLeaderEpoch),
		ReplicaID:          d.int32("ReplicaID"),
		CurrentLeaderEpoch: d.epoch("CurrentLeaderEpoch"),
		LeaderEpoch:        d.epoch("LeaderEpoch"),
	}
	if err := d.finish(); err != nil {
		return OffsetsForLeaderEpochRequest{}, err
	}
	return m, nil
}

// OffsetsForLeaderEpochResponse answers with the largest epoch not greater
// than the one asked about and the offset where it ended, or Found == false
// when the leader has no such epoch. Kafka writes "not found" as (-1, -1);
// here that pair exists only on the wire.
type OffsetsForLeaderEpochResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes (see ErrorCode).
	ErrorCode ErrorCode
	// Epoch is the epoch found (>= 0). Zero and ignored unless Found.
	Epoch int32
	// EndOffset is where Epoch ended (exclusive). Zero and ignored unless
	// Found.
	EndOffset uint64
	// Found reports whether Epoch and EndOffset hold an answer.
	Found bool
}

// offsetsForLeaderEpochResponseSize is the encoded size of every response.
const offsetsForLeaderEpochResponseSize = headerSize + 2 + 4 + 8

// AppendTo appends the encoded response to dst, writing (-1, -1) when
// Found is false. When Found it refuses, with dst returned unchanged, a
// negative Epoch (ErrInvalidEpoch) or an EndOffset above math.MaxInt64
// (ErrOffsetOverflow).
func (m OffsetsForLeaderEpochResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "OffsetsForLeaderEpochResponse"
	epoch, end := NoEpoch, int64(-1)
	if m.Found {
		if err := checkEpoch(name, "Epoch", m.Epoch, 0); err != nil {
			return dst, err
		}
		var err error
		if end, err = checkOffset(name, "EndOffset", m.EndOffset); err != nil {
			return dst, err
		}
		epoch = m.Epoch
	}
	dst = slices.Grow(dst, offsetsForLeaderEpochResponseSize)
	dst = appendHeader(dst, APIOffsetsForLeaderEpoch, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, epoch)
	return appendInt64(dst, end), nil
}

// DecodeOffsetsForLeaderEpochResponse decodes a response payload (without
// its frame). (-1, -1) decodes as Found == false with zero Epoch and
// EndOffset; any other negative half is malformed. An ErrorCode this
// package does not know is kept, not refused. Errors match ErrMalformed and
// say which field failed: ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey,
// ErrUnsupportedVersion, ErrInvalidEpoch, ErrNegativeOffset.
func DecodeOffsetsForLeaderEpochResponse(payload []byte) (OffsetsForLeaderEpochResponse, error) {
	d := decoder{msg: "OffsetsForLeaderEpochResponse", buf: payload}
	var m OffsetsForLeaderEpochResponse
	m.CorrelationID = d.header(APIOffsetsForLeaderEpoch)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	m.Epoch, m.EndOffset, m.Found = d.epochEndOffset("Epoch", "EndOffset")
	if err := d.finish(); err != nil {
		return OffsetsForLeaderEpochResponse{}, err
	}
	return m, nil
}
