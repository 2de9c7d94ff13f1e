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
// HW, so nothing uncommitted is forgotten. StartOffset rises to the base
// offset of the oldest remaining segment; a Read below it then gets
// ErrOffsetOutOfRange. Deletion is oldest first, so a crash part-way leaves
// a shorter but contiguous log.
func (l *Log) DeleteRetainedSegments(p RetentionPolicy, nowMs int64) (deleted int, err error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if l.closed {
		return 0, ErrClosed
	}
	var total int64
	for _, s := range l.segments {
		total += s.size
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
		bySize := p.RetentionBytes > 0 && total-s.size >= p.RetentionBytes
		byTime := s.maxTimestamp < cutoff
		if !bySize && !byTime {
			break
		}
		total -= s.size
	}
	if n == 0 {
		return 0, nil
	}

	l.mu.Lock()
	for deleted < n {
		if err = l.segments[0].remove(); err != nil {
			break
		}
		l.segments[0] = nil
		l.segments = l.segments[1:]
		deleted++
	}
	l.mu.Unlock()
	if err != nil {
		return deleted, fmt.Errorf("log: retention: %w", err)
	}
	if l.opts.Sync == SyncEveryAppend {
		return deleted, syncDir(l.dir)
	}
	return deleted, nil
}
