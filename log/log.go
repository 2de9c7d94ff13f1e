package log

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// Log is one partition's replica of the log: a directory of segments, the
// log start offset, the log end offset (LEO) and the high watermark (HW).
//
// All methods are safe for concurrent use. Mutations (appends, truncation,
// retention, compaction, HW moves, Close) are serialized; Read and the
// getters run concurrently with them and with each other, and a Read never
// sees a partly written batch.
type Log struct {
	dir  string
	opts Options // normalized

	// writeMu serializes mutations. The writer holding it may read the
	// fields under mu without taking mu, because only a writeMu holder
	// changes them.
	writeMu sync.Mutex
	// ckMu serializes checkpoint writes, so they land in the order they
	// read the HW.
	ckMu sync.Mutex

	// mu guards the fields below. Readers hold RLock for a whole Read, so
	// no segment they use is truncated, deleted or closed under them.
	mu sync.RWMutex
	// segments is sorted by base offset and never empty while open; the
	// last one is the active segment, the only one appends go to.
	segments []*segment
	// hw is the high watermark: offsets below it are committed.
	// Invariant: StartOffset <= hw <= LEO (retention never deletes at or
	// above it, truncation lowers it with the LEO).
	hw uint64
	// eagerHW makes every append move hw to the new LEO (one replica).
	eagerHW bool
	closed  bool

	// Writer scratch, guarded by writeMu, reused so appends do not allocate.
	headerScratch []byte       // BatchHeaderSize bytes for reading stored headers
	newEntries    []indexEntry // index entries of the append in progress
	entryBytes    []byte       // their encoding
}

// Open opens the partition log in dir, creating the directory (and an empty
// first segment) if missing. It recovers the files as a crash may have left
// them (see recoverSegments in recover.go: the valid prefix of every segment
// survives, indexes are rebuilt if wrong) and loads the high watermark from
// the checkpoint file:
//
//   - no checkpoint file: HW is 0 (raised to StartOffset if the log starts
//     later), i.e. nothing is known to be committed;
//   - an empty or garbled checkpoint: Open fails with an error wrapping
//     ErrBadCheckpoint, rather than guess;
//   - a checkpoint above the recovered LEO: HW is clamped to the LEO. The
//     records it covered were torn off by the crash (possible with
//     SyncNever), and a HW may never exceed what the log holds.
//
// The log starts in eager-HW mode; see StopEagerHighWatermark.
func Open(dir string, opts Options) (*Log, error) {
	opts, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("log: open: %w", err)
	}
	segs, err := recoverSegments(dir, opts)
	if err != nil {
		return nil, err
	}
	l := &Log{
		dir:           dir,
		opts:          opts,
		segments:      segs,
		eagerHW:       true,
		headerScratch: make([]byte, BatchHeaderSize),
	}
	cp, _, err := readCheckpoint(dir)
	if err != nil {
		l.closeFiles()
		return nil, err
	}
	l.hw = min(max(cp, l.startOffset()), l.endOffset())
	return l, nil
}

// active returns the segment appends go to. Callers hold mu or writeMu.
func (l *Log) active() *segment { return l.segments[len(l.segments)-1] }

// startOffset and endOffset read the offsets; callers hold mu or writeMu.
func (l *Log) startOffset() uint64 { return l.segments[0].base }
func (l *Log) endOffset() uint64   { return l.active().next }

// segmentFor returns the index of the segment that would hold off: the last
// one whose base offset is <= off (0 if off is below every base). Callers
// hold mu or writeMu.
func (l *Log) segmentFor(off uint64) int {
	lo, hi := 0, len(l.segments) // segments[:lo] have base <= off
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if l.segments[mid].base <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return max(lo-1, 0)
}

// Dir returns the partition directory the log was opened in.
func (l *Log) Dir() string { return l.dir }

// StartOffset returns the log start offset: the first offset the log can
// still serve. It is the base offset of the oldest segment, and rises only
// when retention deletes segments.
func (l *Log) StartOffset() uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.startOffset()
}

// EndOffset returns the log end offset (LEO): the offset the next appended
// record will get, one past the last record held. An empty log starting at 0
// has LEO 0.
func (l *Log) EndOffset() uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.endOffset()
}

// HighWatermark returns the high watermark, an exclusive bound: records at
// offsets below it are committed, and IsolationHighWatermark reads stop
// before it. It never exceeds EndOffset.
func (l *Log) HighWatermark() uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.hw
}

// StopEagerHighWatermark switches off eager-HW mode. In eager mode (the
// default) every append moves the HW to the new LEO, which is exactly
// Kafka's rule when the replica set is just this log: the HW is the smallest
// LEO among in-sync replicas. With a second replica that stops being true,
// and the HW must come from the replication layer instead; after this call
// only SetHighWatermark raises it and only truncation lowers it.
func (l *Log) StopEagerHighWatermark() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.eagerHW = false
}

// EagerHighWatermark reports whether eager-HW mode is on.
func (l *Log) EagerHighWatermark() bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.eagerHW
}

// SetHighWatermark moves the HW to hw. It returns an error wrapping
// ErrHighWatermarkBeyondEnd if hw > EndOffset and ErrHighWatermarkBackwards
// if hw is below the current HW, leaving the HW unchanged; hw equal to the
// current HW is a no-op. The new value is in memory only until
// CheckpointHighWatermark or Close.
func (l *Log) SetHighWatermark(hw uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if leo := l.endOffset(); hw > leo {
		return fmt.Errorf("log: high watermark %d beyond log end %d: %w", hw, leo, ErrHighWatermarkBeyondEnd)
	}
	if hw < l.hw {
		return fmt.Errorf("log: high watermark %d below current %d: %w", hw, l.hw, ErrHighWatermarkBackwards)
	}
	l.hw = hw
	return nil
}

// CheckpointHighWatermark writes the current HW to the checkpoint file in the
// partition directory, atomically (temporary file, fsync, rename, fsync of
// the directory): after a crash the file holds this value or an older one,
// never a torn one.
func (l *Log) CheckpointHighWatermark() error {
	l.ckMu.Lock()
	defer l.ckMu.Unlock()
	l.mu.RLock()
	hw, closed := l.hw, l.closed
	l.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	return writeCheckpoint(l.dir, hw)
}

// Flush fsyncs every segment written since its last fsync, and the
// directory, so everything appended so far survives power loss. With
// SyncEveryAppend there is nothing left to do. Index files are not synced:
// they are derived data that Open checks and rebuilds.
func (l *Log) Flush() error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if l.closed {
		return ErrClosed
	}
	return l.flushLocked()
}

// flushLocked is Flush for a caller holding writeMu.
func (l *Log) flushLocked() error {
	synced := false
	for _, s := range l.segments {
		if !s.unsynced {
			continue
		}
		if err := s.log.Sync(); err != nil {
			return fmt.Errorf("log: flush: %w", err)
		}
		s.unsynced = false
		synced = true
	}
	if synced {
		return syncDir(l.dir)
	}
	return nil
}

// Close checkpoints the HW and closes the files. It does not fsync segments
// beyond what the SyncPolicy already did (call Flush first for that). Every
// later call of a method that needs the files, including Close, returns
// ErrClosed; the getters keep returning the last values.
func (l *Log) Close() error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.ckMu.Lock()
	defer l.ckMu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	l.closed = true
	return errors.Join(writeCheckpoint(l.dir, l.hw), l.closeFiles())
}

// closeFiles closes every segment's files, reporting the first error.
func (l *Log) closeFiles() error {
	var errs []error
	for _, s := range l.segments {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}
