package log

import "errors"

// Storage sentinel errors. Every error the segmented storage returns for a
// condition the caller can act on wraps one of these (or, for corrupt input,
// a codec *CorruptError), so errors.Is tells them apart. I/O failures from
// the operating system are returned wrapped as they are.
var (
	// ErrOffsetOutOfRange is returned by Read when from is below StartOffset
	// or above EndOffset, and by TruncateTo when offset is below StartOffset.
	// A fetcher answers it by resetting its position (Kafka's
	// OFFSET_OUT_OF_RANGE); it never means the log is damaged.
	ErrOffsetOutOfRange = errors.New("log: offset out of range")

	// ErrNotAtLogEnd is returned by AppendAsFollower when the first batch
	// does not start at EndOffset, or a batch does not start where the
	// previous one ended. A follower that gets it has diverged from its
	// leader and must truncate before fetching again. The log is unchanged.
	ErrNotAtLogEnd = errors.New("log: batches do not continue the log end")

	// ErrClosed is returned by every method that needs the files once Close
	// has been called, and by a second Close.
	ErrClosed = errors.New("log: closed")

	// ErrHighWatermarkBackwards is returned by SetHighWatermark for a value
	// below the current high watermark: outside truncation the committed
	// prefix only grows. The high watermark is unchanged.
	ErrHighWatermarkBackwards = errors.New("log: high watermark cannot move backwards")

	// ErrHighWatermarkBeyondEnd is returned by SetHighWatermark for a value
	// above EndOffset: nothing can be committed that the log does not hold.
	// The high watermark is unchanged.
	ErrHighWatermarkBeyondEnd = errors.New("log: high watermark beyond log end")

	// ErrBadCheckpoint is returned (wrapped, with the file name) by Open when
	// the high-watermark checkpoint file exists but is empty or not exactly a
	// version line "0" followed by one offset that fits int64. Open refuses
	// to guess a committed offset; delete the file to start from 0.
	ErrBadCheckpoint = errors.New("log: bad high-watermark checkpoint")

	// ErrInvalidBatch is returned by AppendAsLeader for a well-formed batch
	// that a producer may not send (Kafka's InvalidRecordException): no
	// records, a record count that differs from its offset range
	// (lastOffsetDelta+1), or a control batch. The log is unchanged.
	ErrInvalidBatch = errors.New("log: invalid batch for a leader append")

	// ErrInvalidArgument is returned for arguments outside their documented
	// range: negative or too large Options fields, an unknown SyncPolicy or
	// Isolation, or one append too large for a single segment (more than
	// MaxSegmentBytes bytes, or offsets spanning more than a segment's
	// 32-bit relative offsets). Nothing is changed.
	ErrInvalidArgument = errors.New("log: invalid argument")
)
