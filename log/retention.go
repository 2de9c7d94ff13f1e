package log

import (
	"fmt"
	"math"
)

// RetentionPolicy bounds how much of the log DeleteRetainedSegments keeps.
// A bound <= 0 is disabled; with both disabled nothing is ever deleted.
type RetentionPolicy struct {
	// RetentionMs deletes a segment once its largest timestamp (the largest
	// MaxTimestamp of its batches) is more than RetentionMs before nowMs
	// (Kafka's retention.ms).
	RetentionMs int64
	// RetentionBytes deletes the oldest segment while the log would still
	// hold at least RetentionBytes without it (Kafka's retention.bytes: the
	// log is never cut below this size, so it can exceed it by less than
	// one segment).
	RetentionBytes int64
}

// DeleteRetainedSegments deletes whole segments, oldest first, while the
// oldest one breaches either bound of p, and returns how many it deleted.
// Time is an argument, not a clock read: nowMs is milliseconds since the
// epoch as the caller sees it.
//
// It stops at the first segment that breaches neither bound, and never
// deletes the active segment or a segment holding any offset at or above the
// HW, so nothing uncommitted is forgotten. The log start rises to the base
// offset of the oldest remaining segment and is checkpointed before any
// file goes (so a crash, even one that brings deleted files back, cannot
// move it back); a Read below it then gets ErrOffsetOutOfRange. Retention
// by time verifies a segment Open did not read before trusting its
// timestamps.
func (l *Log) DeleteRetainedSegments(p RetentionPolicy, nowMs int64) (deleted int, err error) {
	l.flushMu.Lock() // see flushMu
	defer l.flushMu.Unlock()
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.newGeneration()
	if err := l.usable(); err != nil {
		return 0, err
	}
	var total int64
	if p.RetentionBytes > 0 {
		for _, s := range l.segments {
			size, err := l.sizeOf(s)
			if err != nil {
				return 0, err
			}
			total += size
		}
	}
	// Timestamps below cutoff are expired; computed without overflow.
	cutoff := int64(math.MinInt64)
	if p.RetentionMs > 0 && nowMs >= math.MinInt64+p.RetentionMs {
		cutoff = nowMs - p.RetentionMs
	}
	// SetHighWatermark may raise the HW meanwhile; a stale value only keeps
	// more.
	hw := l.HighWatermark()
	n := 0
	for ; n < len(l.segments)-1; n++ {
		s := l.segments[n]
		if s.next > hw {
			break
		}
		var size int64
		if p.RetentionBytes > 0 {
			size, _ = l.sizeOf(s) // known: summed above
		}
		bySize := p.RetentionBytes > 0 && total-size >= p.RetentionBytes
		byTime := false
		if !bySize && cutoff != math.MinInt64 {
			if err := l.verify(s); err != nil {
				return 0, err
			}
			byTime = s.maxTimestamp < cutoff
		}
		if !bySize && !byTime {
			break
		}
		total -= size
	}
	if n == 0 {
		return 0, nil
	}
	before := len(l.segments)
	err = l.advanceStart(max(l.start, l.segments[n].base), n)
	if err != nil {
		return before - len(l.segments), fmt.Errorf("log: retention: %w", err)
	}
	return n, nil
}

// sizeOf returns s's size in bytes, opening its file to learn it if no one
// has yet (a segment Open trusted without reading). The caller holds
// writeMu.
func (l *Log) sizeOf(s *segment) (int64, error) {
	l.fileMu.Lock()
	defer l.fileMu.Unlock()
	if s.size >= 0 {
		return s.size, nil
	}
	if err := l.openLocked(s); err != nil {
		return 0, err
	}
	size, err := s.log.Size()
	l.evictLocked()
	if err != nil {
		return 0, l.fail(fmt.Errorf("log: stat %s: %w", s.name(), err))
	}
	s.size = size
	return size, nil
}
