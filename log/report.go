package log

import (
	"fmt"
	"strings"

	"github.com/kaenlog/kaenlog/epoch"
)

// RecoveryReport is what Open found and did. Log.Recovery returns it; its
// String prints one line per fact, for tests and the runtime's log.
type RecoveryReport struct {
	// Clean is true when Open trusted a clean-shutdown marker and verified
	// no segment.
	Clean bool
	// MarkerIgnored says why a clean-shutdown marker that was present was
	// not trusted ("" when there was none, or it was trusted).
	MarkerIgnored string
	// RecoveryPoint is the recovery point Open used: offsets below it had
	// been flushed, so damage there is not a torn write. HaveRecoveryPoint
	// is false when there was no checkpoint (then every segment is
	// verified, and every cut counts as a torn write).
	RecoveryPoint     uint64
	HaveRecoveryPoint bool // a recovery-point checkpoint was read
	// SegmentsVerified, BatchesVerified and BytesVerified count what Open
	// read and checked (batch framing, CRC, offsets, epochs, index).
	SegmentsVerified int
	BatchesVerified  int   // batches of the segments verified
	BytesVerified    int64 // bytes of those batches
	// Cuts lists every place Open stopped trusting the files and what it
	// removed from there on.
	Cuts []Cut
	// IndexesRebuilt names the index and time index files rewritten
	// because they did not match their segments (both are derived data).
	IndexesRebuilt []string
	// LeftoversDeleted names the files of interrupted operations Open
	// deleted: temporary checkpoints, compaction's ".cleaned" copies,
	// index files without a segment, and segments wholly below the log
	// start offset.
	LeftoversDeleted []string
	// CheckpointsIgnored names damaged checkpoint files Open ignored
	// because Options.Repair was set, with why, and where a path that was
	// not a regular file was moved aside.
	CheckpointsIgnored []string
	// EpochsRebuilt is true when the leader-epoch checkpoint was missing,
	// empty or ignored beside a non-empty log, and the epoch cache was
	// rebuilt from the epochs stamped in the batches.
	EpochsRebuilt bool
	// EpochsDropped lists checkpoint entries that started at or past the
	// recovered log end.
	EpochsDropped []epoch.Entry
	// HighWatermarkClamped is true when the high-watermark checkpoint
	// (HighWatermarkCheckpoint) was above the recovered log end: records
	// that were committed are no longer in this replica's log.
	HighWatermarkClamped    bool
	HighWatermarkCheckpoint uint64 // the value the checkpoint held
	// LostFlushedData is true when Open, with Options.Repair, cut data
	// below the recovery point: records that had been flushed are gone, and
	// the replica layer must tell the controller.
	LostFlushedData bool
	// ProducerSnapshot is the offset of the producer-state snapshot Open
	// started the producer state from; HaveProducerSnapshot is false when
	// it started from the log's first batch instead.
	ProducerSnapshot     uint64
	HaveProducerSnapshot bool // a producer-state snapshot was loaded
	// ProducerBatchesReplayed counts the producer batches past that
	// snapshot whose producer fields Open applied.
	ProducerBatchesReplayed int
	// ProducerStateRebuilt is true when the snapshot Open wanted (at the
	// log end after a clean shutdown, at the recovery point otherwise) was
	// missing, damaged or past the recovered log end, so the producer
	// state was rebuilt from an older snapshot, or the log's first batch,
	// by reading batch headers. It is never taken as "no producers".
	ProducerStateRebuilt bool
	// ProducerSnapshotsIgnored names the producer-state snapshot files
	// Open deleted because they did not load or lay past the recovered
	// log end, with why.
	ProducerSnapshotsIgnored []string
	// Producers is how many producers the producer state holds.
	Producers int
	// StartOffset, EndOffset and HighWatermark are the log's offsets after
	// recovery.
	StartOffset, EndOffset, HighWatermark uint64
}

// Cut is one place where Open stopped trusting the files: everything from
// there on was removed.
type Cut struct {
	// File is the segment file where trust ended, Pos the byte position in
	// it (the whole file when Pos is 0 and it was deleted).
	File string
	Pos  int64 // byte position in File
	// FirstOffset is the first offset no longer in the log.
	FirstOffset uint64
	// Batches and Bytes count what was removed: whole bytes, and the
	// batches whose headers could still be walked.
	Batches int
	Bytes   int64 // bytes removed
	// Reason is why: a *CorruptError matching ErrCorrupt and one cause
	// (ErrTruncated, ErrBadCRC, ErrHole, ErrEpochMismatch, ...).
	Reason error
	// BelowRecoveryPoint is true when FirstOffset was below the recovery
	// point: flushed data was damaged (possible only with Options.Repair).
	BelowRecoveryPoint bool
}

// String prints one line per fact of the report.
func (r RecoveryReport) String() string {
	var b strings.Builder
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	switch {
	case r.Clean:
		line("clean shutdown: no segment verified")
	case r.MarkerIgnored != "":
		line("clean-shutdown marker ignored (%s): recovering as after a crash", r.MarkerIgnored)
	default:
		line("unclean shutdown")
	}
	if r.HaveRecoveryPoint {
		line("recovery point %d", r.RecoveryPoint)
	} else if !r.Clean {
		line("no recovery point: every segment verified")
	}
	if !r.Clean {
		line("verified %d segments, %d batches, %d bytes", r.SegmentsVerified, r.BatchesVerified, r.BytesVerified)
	}
	for _, c := range r.Cuts {
		what := "torn write"
		if c.BelowRecoveryPoint {
			what = "DAMAGE BELOW THE RECOVERY POINT"
		}
		line("cut %s at byte %d (%s): offsets from %d dropped, %d batches, %d bytes: %v",
			c.File, c.Pos, what, c.FirstOffset, c.Batches, c.Bytes, c.Reason)
	}
	for _, name := range r.IndexesRebuilt {
		line("rebuilt index %s", name)
	}
	for _, name := range r.LeftoversDeleted {
		line("deleted leftover %s", name)
	}
	for _, what := range r.CheckpointsIgnored {
		line("ignored damaged checkpoint %s", what)
	}
	if r.EpochsRebuilt {
		line("leader-epoch cache rebuilt from the batches")
	}
	for _, e := range r.EpochsDropped {
		line("dropped leader-epoch entry (epoch %d, start %d) at or past the log end", e.Epoch, e.StartOffset)
	}
	if r.HighWatermarkClamped {
		line("high-watermark checkpoint %d above the recovered log end %d: committed records were lost locally",
			r.HighWatermarkCheckpoint, r.EndOffset)
	}
	if r.LostFlushedData {
		line("LOST FLUSHED DATA: repaired by cutting below the recovery point")
	}
	for _, what := range r.ProducerSnapshotsIgnored {
		line("ignored producer-state snapshot %s", what)
	}
	if r.ProducerStateRebuilt {
		line("producer state rebuilt from the batch headers: the snapshot it wanted was not usable")
	}
	from := "the first batch"
	if r.HaveProducerSnapshot {
		from = fmt.Sprintf("the snapshot at %d", r.ProducerSnapshot)
	}
	line("producer state: %d producers, from %s and %d producer batches after it", r.Producers, from, r.ProducerBatchesReplayed)
	line("log start %d, log end %d, high watermark %d", r.StartOffset, r.EndOffset, r.HighWatermark)
	return b.String()
}
