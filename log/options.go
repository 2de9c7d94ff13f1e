package log

import (
	"fmt"
	"math"
)

// SyncPolicy says when appended bytes are forced to stable storage. It is the
// whole durability story: the segment files are the only copy of the data,
// and the index is rebuilt from them on Open, so only segment bytes (and the
// directory entries naming them) are ever fsynced.
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
)

// Options configures a Log. The zero value is valid and means Kafka's
// defaults with SyncNever.
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
	return o, nil
}
