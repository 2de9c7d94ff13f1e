package log

import (
	"fmt"
	"math"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// SyncPolicy says when appended bytes are forced to stable storage.
type SyncPolicy uint8

const (
	// SyncNever leaves flushing to the operating system: an append is in
	// the page cache when it returns, so it survives a process crash
	// (kill -9) but not a power loss or kernel panic. Flush forces it out.
	SyncNever SyncPolicy = iota
	// SyncEveryAppend fsyncs the segment (and, when a new segment is
	// created, the directory) before an append returns: an acknowledged
	// append survives power loss, at the cost of one fsync per append.
	SyncEveryAppend
)

// String returns "SyncNever", "SyncEveryAppend" or "SyncPolicy(n)".
func (p SyncPolicy) String() string {
	switch p {
	case SyncNever:
		return "SyncNever"
	case SyncEveryAppend:
		return "SyncEveryAppend"
	}
	return fmt.Sprintf("SyncPolicy(%d)", uint8(p))
}

const (
	// DefaultSegmentBytes is the segment size used when
	// Options.SegmentBytes is 0: 1 GiB, Kafka's segment.bytes default.
	DefaultSegmentBytes int64 = 1 << 30
	// MaxSegmentBytes is the largest Options.SegmentBytes, and the largest
	// single append. Index entries store file positions as uint32, and
	// Kafka's segment.bytes is an int32 too.
	MaxSegmentBytes int64 = math.MaxInt32
	// DefaultIndexIntervalBytes is the index spacing used when
	// Options.IndexIntervalBytes is 0: 4096, Kafka's index.interval.bytes.
	DefaultIndexIntervalBytes = 4096
	// DefaultMaxBatchBytes is Options.MaxBatchBytes when 0: 1048588,
	// Kafka's message.max.bytes default.
	DefaultMaxBatchBytes = 1048588
	// DefaultMaxReadBytes is Options.MaxReadBytes when 0: 64 MiB, below the
	// wire's 100 MiB frame limit with room for a first batch of
	// MaxBatchBytes and the response's own fields.
	DefaultMaxReadBytes = 64 << 20
	// DefaultMaxOpenSegments is Options.MaxOpenSegments when 0.
	DefaultMaxOpenSegments = 128
)

// Options configures a Log. The zero value is valid and means Kafka's
// defaults with SyncNever on the real file system.
type Options struct {
	// SegmentBytes is the size at which the active segment is rolled: an
	// append that would take a non-empty active segment past it goes into a
	// new segment instead (one append is never split). 0 means
	// DefaultSegmentBytes; it must not exceed MaxSegmentBytes.
	SegmentBytes int64
	// IndexIntervalBytes is the spacing of the sparse offset index: a batch
	// gets an entry when it starts at least this many bytes after the
	// previous entry (or the segment start), so locating an offset reads at
	// most about this many bytes of batch headers. 0 means
	// DefaultIndexIntervalBytes.
	IndexIntervalBytes int
	// Sync is the durability policy; see SyncPolicy.
	Sync SyncPolicy
	// MaxBatchBytes is the largest batch AppendAsLeader accepts (Kafka's
	// message.max.bytes); a larger one is ErrBatchTooLarge. Followers keep
	// whatever their leader accepted. 0 means DefaultMaxBatchBytes.
	MaxBatchBytes int
	// MaxInflation bounds what a compressed batch's records may inflate
	// to when the leader decompresses them to validate them, and when the
	// log decompresses a stored batch (a lookup by time): at most
	// MaxInflation times MaxBatchBytes bytes, else the batch is refused as
	// a decompression bomb (ErrInflationLimit, Kafka's CORRUPT_MESSAGE).
	// The bound holds while decompressing. 0 means DefaultMaxInflation
	// (16); the product must fit an int32 length.
	MaxInflation int
	// MaxReadBytes clamps Read's maxBytes, so that no request can make a
	// read allocate more than this plus one batch. 0 means
	// DefaultMaxReadBytes.
	MaxReadBytes int
	// MaxOpenSegments bounds how many segment files other than the active
	// one are open at once; older segments are opened when read and closed
	// least recently used first (readers using more segments at the same
	// moment can exceed it briefly). 0 means DefaultMaxOpenSegments.
	MaxOpenSegments int
	// Repair lets Open cut damage it finds below the recovery point (data
	// that was flushed) instead of refusing with
	// ErrDamageBelowRecoveryPoint, and ignore damaged checkpoint files
	// instead of refusing with ErrBadCheckpoint. Recovery then reports
	// LostFlushedData, so the replica layer can tell the controller.
	Repair bool
	// ProducerIDExpirationMs is how long a producer's state outlives its
	// last batch's timestamp before RemoveExpiredProducers forgets it
	// (Kafka's producer.id.expiration.ms). 0 means
	// DefaultProducerIDExpirationMs; it must not be negative.
	ProducerIDExpirationMs int64
	// FS is the file system; nil means vfs.OS().
	FS vfs.FS
}

// normalize fills in defaults and rejects values outside their range with
// ErrInvalidArgument.
func (o Options) normalize() (Options, error) {
	if o.SegmentBytes == 0 {
		o.SegmentBytes = DefaultSegmentBytes
	}
	if o.SegmentBytes < 0 || o.SegmentBytes > MaxSegmentBytes {
		return o, fmt.Errorf("log: SegmentBytes %d not in [1, %d]: %w", o.SegmentBytes, MaxSegmentBytes, ErrInvalidArgument)
	}
	if o.IndexIntervalBytes == 0 {
		o.IndexIntervalBytes = DefaultIndexIntervalBytes
	}
	if o.IndexIntervalBytes < 0 || int64(o.IndexIntervalBytes) > MaxSegmentBytes {
		return o, fmt.Errorf("log: IndexIntervalBytes %d not in [1, %d]: %w", o.IndexIntervalBytes, MaxSegmentBytes, ErrInvalidArgument)
	}
	if o.Sync != SyncNever && o.Sync != SyncEveryAppend {
		return o, fmt.Errorf("log: unknown %v: %w", o.Sync, ErrInvalidArgument)
	}
	if o.MaxBatchBytes == 0 {
		o.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if o.MaxBatchBytes < BatchHeaderSize || int64(o.MaxBatchBytes) > MaxSegmentBytes {
		return o, fmt.Errorf("log: MaxBatchBytes %d not in [%d, %d]: %w", o.MaxBatchBytes, BatchHeaderSize, MaxSegmentBytes, ErrInvalidArgument)
	}
	if o.MaxInflation == 0 {
		o.MaxInflation = DefaultMaxInflation
	}
	if o.MaxInflation < 1 || int64(o.MaxInflation)*int64(o.MaxBatchBytes) > math.MaxInt32 {
		return o, fmt.Errorf("log: MaxInflation %d not in [1, %d] for MaxBatchBytes %d: %w",
			o.MaxInflation, math.MaxInt32/o.MaxBatchBytes, o.MaxBatchBytes, ErrInvalidArgument)
	}
	if o.MaxReadBytes == 0 {
		o.MaxReadBytes = DefaultMaxReadBytes
	}
	if o.MaxReadBytes < 0 || int64(o.MaxReadBytes) > MaxSegmentBytes {
		return o, fmt.Errorf("log: MaxReadBytes %d not in [1, %d]: %w", o.MaxReadBytes, MaxSegmentBytes, ErrInvalidArgument)
	}
	if o.MaxOpenSegments == 0 {
		o.MaxOpenSegments = DefaultMaxOpenSegments
	}
	if o.MaxOpenSegments < 0 {
		return o, fmt.Errorf("log: MaxOpenSegments %d is negative: %w", o.MaxOpenSegments, ErrInvalidArgument)
	}
	if o.ProducerIDExpirationMs == 0 {
		o.ProducerIDExpirationMs = DefaultProducerIDExpirationMs
	}
	if o.ProducerIDExpirationMs < 0 {
		return o, fmt.Errorf("log: ProducerIDExpirationMs %d is negative: %w", o.ProducerIDExpirationMs, ErrInvalidArgument)
	}
	if o.FS == nil {
		o.FS = vfs.OS()
	}
	return o, nil
}

// maxInflatedBytes is what a compressed batch's records may inflate to.
func (o *Options) maxInflatedBytes() int { return o.MaxInflation * o.MaxBatchBytes }
