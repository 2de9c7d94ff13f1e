package log

import (
	"errors"
	"fmt"
)

// TruncateTo removes every record at and above offset, as a follower does
// when it finds its log diverged from the leader's. A batch that holds offset
// is removed whole, so afterwards the LEO is that batch's base offset (more
// precisely, the end of the last batch kept, which differs only if offset
// fell in a gap left by compaction). Segments entirely above offset are
// deleted, newest first, and the one holding it is cut, index included;
// under SyncEveryAppend the cut is fsynced before TruncateTo returns. If the
// HW was above the new LEO it is lowered to it and checkpointed at once, so
// that a restart cannot resurrect it over records appended later.
//
// offset >= EndOffset is a no-op; offset < StartOffset is
// ErrOffsetOutOfRange (truncating below the log start would empty a log
// whose older records retention already forgot).
func (l *Log) TruncateTo(offset uint64) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if l.closed {
		return ErrClosed
	}
	start, leo := l.startOffset(), l.endOffset()
	if offset >= leo {
		return nil
	}
	if offset < start {
		return fmt.Errorf("log: truncate to offset %d below log start %d: %w", offset, start, ErrOffsetOutOfRange)
	}
	si := l.segmentFor(offset)
	seg := l.segments[si]
	pos, _, newLEO, _, err := seg.locate(offset, l.headerScratch, true)
	if err != nil {
		return err
	}

	l.mu.Lock()
	err = l.truncateLocked(si, pos, newLEO)
	hwLowered := l.hw > l.endOffset()
	if hwLowered {
		l.hw = l.endOffset()
	}
	l.mu.Unlock()
	if err != nil {
		if hwLowered {
			// Even a truncation that stopped halfway lowered the HW: the
			// checkpoint must not keep the old one, or a later crash would
			// bring it back over records appended after this.
			l.ckMu.Lock()
			defer l.ckMu.Unlock()
			return errors.Join(err, writeCheckpoint(l.dir, l.HighWatermark()))
		}
		return err
	}
	// The cut (and any removed segment) is a change Flush must make durable.
	seg.unsynced = true
	if l.opts.Sync == SyncEveryAppend {
		if err := seg.log.Sync(); err != nil {
			return fmt.Errorf("log: truncate: fsync: %w", err)
		}
		if err := syncDir(l.dir); err != nil {
			return err
		}
	}
	if hwLowered {
		l.ckMu.Lock()
		defer l.ckMu.Unlock()
		return writeCheckpoint(l.dir, l.HighWatermark())
	}
	return nil
}

// truncateLocked deletes the segments after si, newest first, and cuts
// segment si at pos, setting its LEO to next. The in-memory state follows
// each step that succeeded, so on error it still matches the files. The
// caller holds writeMu and mu.
func (l *Log) truncateLocked(si int, pos int64, next uint64) error {
	for len(l.segments) > si+1 {
		last := l.segments[len(l.segments)-1]
		if err := last.remove(); err != nil {
			return err
		}
		l.segments = l.segments[:len(l.segments)-1]
	}
	s := l.segments[si]
	if pos == s.size {
		return nil
	}
	keep := s.floorEntryBefore(pos)
	if err := s.log.Truncate(pos); err != nil {
		return fmt.Errorf("log: truncate: %w", err)
	}
	if err := s.index.Truncate(int64(keep) * indexEntrySize); err != nil {
		return fmt.Errorf("log: truncate: index: %w", err)
	}
	s.size, s.next, s.entries = pos, next, s.entries[:keep]
	if pos == 0 {
		s.maxTimestamp = noTimestamp
	}
	// Otherwise maxTimestamp may still count removed batches until the
	// next Open recomputes it. That only ever delays time retention of
	// this segment; it never deletes anything early.
	return nil
}

// floorEntryBefore returns how many index entries point below pos: the ones
// that survive cutting the segment at pos.
func (s *segment) floorEntryBefore(pos int64) int {
	n := len(s.entries)
	for n > 0 && int64(s.entries[n-1].pos) >= pos {
		n--
	}
	return n
}
