package log

import "fmt"

// SetSegmentBytes changes the size at which the active segment rolls
// (Options.SegmentBytes), as a topic's segment.bytes changed at run time
// does in Kafka: the next append that would take a non-empty active
// segment past n goes into a new segment. Segments already written keep
// their size. n outside [1, MaxSegmentBytes] is ErrInvalidArgument, the
// log unchanged.
func (l *Log) SetSegmentBytes(n int64) error {
	if n < 1 || n > MaxSegmentBytes {
		return fmt.Errorf("log: SegmentBytes %d not in [1, %d]: %w", n, MaxSegmentBytes, ErrInvalidArgument)
	}
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.opts.SegmentBytes = n
	return nil
}

// SegmentBytes returns the size at which the active segment rolls.
func (l *Log) SegmentBytes() int64 {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	return l.opts.SegmentBytes
}
