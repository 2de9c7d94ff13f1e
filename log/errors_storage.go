package log

import (
	"errors"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// Storage sentinel errors. Every error the segmented storage returns for a
// condition the caller can act on wraps one of these (or, for corrupt input,
// a codec *CorruptError), so errors.Is tells them apart. I/O failures from
// the file system are returned wrapped as they are, and also put the log in
// the failed state (ErrLogFailed).
var (
	// ErrOffsetOutOfRange is returned by Read when from is below StartOffset
	// or above EndOffset, by TruncateTo when offset is below StartOffset,
	// and by IncrementStartOffset above the high watermark. A fetcher
	// answers it by resetting its position (Kafka's OFFSET_OUT_OF_RANGE); it
	// never means the log is damaged.
	ErrOffsetOutOfRange = errors.New("log: offset out of range")

	// ErrNotAtLogEnd is returned by AppendAsFollower when the first batch
	// starts below EndOffset, when a batch does not start where the previous
	// one ended, or when a batch's leader epoch is older than the epoch of
	// the log's last batch. A follower that gets it has diverged from its
	// leader and must truncate before fetching again. The log is unchanged.
	ErrNotAtLogEnd = errors.New("log: batches do not continue the log end")

	// ErrClosed is returned by every method that needs the files once Close
	// has been called, and by a second Close.
	ErrClosed = errors.New("log: closed")

	// ErrLogFailed is wrapped, together with the first cause, by every
	// error of a Log after a write, fsync, truncation, rename, removal, read
	// or open in its directory failed, or after a lazily verified segment
	// turned out damaged. A failed log serves nothing and changes nothing,
	// ever again: after a failed fsync the kernel may hold bytes that never
	// reach the disk, so neither a retried fsync nor a read can be trusted.
	// Only a fresh Open, which verifies the files again, clears it.
	ErrLogFailed = errors.New("log: failed")

	// ErrLocked is wrapped by Open's error when another Log (in this
	// process or another) holds the directory. The error names the holder's
	// process id. It is vfs.ErrLocked.
	ErrLocked = vfs.ErrLocked

	// ErrHole is the cause in a *CorruptError when offsets are missing: a
	// segment whose batches end before the next segment's base (a deleted
	// or emptied segment, a stray empty segment file, a segment that lost
	// its tail while the next one survived), a batch that starts after the
	// end of the one before it, or flushed offsets whose segment files are
	// gone. Logs compacted before kaenlog kept compaction's gaps covered by
	// empty batches have such gaps too, and are treated the same way.
	ErrHole = errors.New("log: hole in the offsets")

	// ErrEpochMismatch is the cause in a *CorruptError when a batch's
	// partitionLeaderEpoch disagrees with the leader-epoch checkpoint, or
	// is older than the batch before it. The field is outside the CRC.
	ErrEpochMismatch = errors.New("log: batch epoch disagrees with the leader-epoch checkpoint")

	// ErrDamageBelowRecoveryPoint is wrapped by Open's error when it finds
	// damage in data that was flushed (below the recovery point): that is
	// not a torn write but lost data, so Open refuses rather than cut,
	// unless Options.Repair is set. The error also wraps a *CorruptError
	// naming the file and byte position.
	ErrDamageBelowRecoveryPoint = errors.New("log: damage below the recovery point")

	// ErrHighWatermarkBackwards is returned by SetHighWatermark for a value
	// below the current high watermark: outside truncation the committed
	// prefix only grows. The high watermark is unchanged.
	ErrHighWatermarkBackwards = errors.New("log: high watermark cannot move backwards")

	// ErrHighWatermarkBeyondEnd is returned by SetHighWatermark for a value
	// above EndOffset: nothing can be committed that the log does not hold.
	// The high watermark is unchanged.
	ErrHighWatermarkBeyondEnd = errors.New("log: high watermark beyond log end")

	// ErrBadCheckpoint is returned (wrapped, with the file name) by Open when
	// a checkpoint file (high watermark, recovery point, log start offset or
	// leader epochs) exists but is empty (the leader-epoch file may be empty)
	// or malformed. Open refuses to guess; with Options.Repair it ignores
	// the file instead and says so in the RecoveryReport.
	ErrBadCheckpoint = errors.New("log: bad checkpoint")

	// ErrInvalidBatch is returned by AppendAsFollower for a batch no leader
	// writes: one with a negative partitionLeaderEpoch. The log is
	// unchanged.
	ErrInvalidBatch = errors.New("log: invalid batch")

	// ErrInvalidArgument is returned for arguments outside their documented
	// range: negative or too large Options fields, an unknown SyncPolicy or
	// Isolation, one append too large for a single segment (more than
	// MaxSegmentBytes bytes, or offsets spanning more than a segment's
	// 32-bit relative offsets), or a leader epoch older than the log's.
	// Nothing is changed.
	ErrInvalidArgument = errors.New("log: invalid argument")
)
