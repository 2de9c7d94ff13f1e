package log

import (
	"errors"
	"fmt"
	"math"
)

// AppendAsLeader appends one or more whole batches as the partition leader
// does with a producer's request, and returns the offset given to the first
// record.
//
// Every batch is verified first (VerifyBatch: framing and CRC-32C), and must
// be one a producer may send (at least one record, recordCount equal to
// lastOffsetDelta+1, not a control batch; else ErrInvalidBatch). Only then
// are the batches stamped IN PLACE in the caller's slice: baseOffset is set
// consecutively from EndOffset, partitionLeaderEpoch to epoch. Neither field
// is covered by the CRC, so the producer's checksum stays valid and is never
// recomputed, and the stored bytes are exactly what the caller's slice now
// holds. On any error the log is unchanged; on a verification error the
// slice is unchanged too, and the error is the codec's *CorruptError with Pos
// relative to batches[0]. Offsets that would take the LEO past MaxInt64
// are ErrBadOffset.
//
// An empty slice appends nothing and returns (EndOffset, nil). In eager-HW
// mode the HW moves to the new LEO.
func (l *Log) AppendAsLeader(batches []byte, epoch int32) (base uint64, err error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if l.closed {
		return 0, ErrClosed
	}
	first := l.endOffset()
	if len(batches) == 0 {
		return first, nil
	}
	if int64(len(batches)) > MaxSegmentBytes {
		return 0, fmt.Errorf("log: append of %d bytes exceeds %d: %w", len(batches), MaxSegmentBytes, ErrInvalidArgument)
	}
	next, maxTs := first, int64(noTimestamp)
	for pos := 0; pos < len(batches); {
		h, err := VerifyBatch(batches[pos:])
		if err != nil {
			return 0, rebaseAppendError(err, pos)
		}
		switch {
		case h.RecordCount == 0:
			return 0, fmt.Errorf("log: batch at byte %d has no records: %w", pos, ErrInvalidBatch)
		case int64(h.RecordCount) != int64(h.LastOffsetDelta)+1:
			return 0, fmt.Errorf("log: batch at byte %d has %d records but offset range %d: %w",
				pos, h.RecordCount, int64(h.LastOffsetDelta)+1, ErrInvalidBatch)
		case h.Attributes&AttrControl != 0:
			return 0, fmt.Errorf("log: batch at byte %d is a control batch: %w", pos, ErrInvalidBatch)
		}
		// The LEO after it must fit int64 too: it goes on the wire.
		if next+uint64(h.LastOffsetDelta) >= math.MaxInt64 {
			return 0, fmt.Errorf("log: batch at byte %d would take the log end past offset %d: %w", pos, int64(math.MaxInt64), ErrBadOffset)
		}
		next += uint64(h.LastOffsetDelta) + 1
		maxTs = max(maxTs, h.MaxTimestamp)
		pos += h.Size()
	}
	seg, err := l.segmentForAppend(first, next, len(batches))
	if err != nil {
		return 0, err
	}
	// Verified above, so neither setter can fail; stamp only now that the
	// append is going ahead.
	off := first
	for pos := 0; pos < len(batches); {
		b, _ := peekBatch(batches[pos:])
		SetBaseOffset(batches[pos:], off)
		SetPartitionLeaderEpoch(batches[pos:], epoch)
		off += b.next - b.base
		pos += b.size
	}
	if err := l.write(seg, batches, next, maxTs); err != nil {
		return 0, err
	}
	return first, nil
}

// AppendAsFollower appends batches copied from the leader, keeping the
// leader's offsets and epochs byte for byte. Every batch is verified
// (framing and CRC-32C; a failure is the codec's *CorruptError with Pos
// relative to batches[0]); the first must start at EndOffset and each next
// one where the previous ended, else ErrNotAtLogEnd; a last offset of
// MaxInt64 (the LEO would not fit int64) is ErrBadOffset. On any error the
// log is unchanged. An empty slice (a fetch that returned nothing) is a no-op. In
// eager-HW mode the HW moves to the new LEO.
func (l *Log) AppendAsFollower(batches []byte) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if len(batches) == 0 {
		return nil
	}
	if int64(len(batches)) > MaxSegmentBytes {
		return fmt.Errorf("log: append of %d bytes exceeds %d: %w", len(batches), MaxSegmentBytes, ErrInvalidArgument)
	}
	first := l.endOffset()
	next, maxTs := first, int64(noTimestamp)
	for pos := 0; pos < len(batches); {
		h, err := VerifyBatch(batches[pos:])
		if err != nil {
			return rebaseAppendError(err, pos)
		}
		if h.BaseOffset != next {
			what := "log end offset"
			if pos > 0 {
				what = "end of the previous batch"
			}
			return fmt.Errorf("log: batch at byte %d starts at offset %d, %s is %d: %w", pos, h.BaseOffset, what, next, ErrNotAtLogEnd)
		}
		if h.LastOffset() == math.MaxInt64 {
			return fmt.Errorf("log: batch at byte %d would take the log end past offset %d: %w", pos, int64(math.MaxInt64), ErrBadOffset)
		}
		next = h.NextOffset()
		maxTs = max(maxTs, h.MaxTimestamp)
		pos += h.Size()
	}
	seg, err := l.segmentForAppend(first, next, len(batches))
	if err != nil {
		return err
	}
	return l.write(seg, batches, next, maxTs)
}

// rebaseAppendError makes the position of a codec error relative to the start
// of the whole append rather than of the batch that failed.
func rebaseAppendError(err error, by int) error {
	var ce *CorruptError
	if by == 0 || !errors.As(err, &ce) {
		return err
	}
	return &CorruptError{Pos: ce.Pos + by, Err: ce.Err}
}

// segmentForAppend returns the segment an append of n bytes holding offsets
// [first, next) goes to, rolling a new active segment at first when the
// current one is not empty and would grow past SegmentBytes or could not
// index the offsets relative to its base. One append is never split across
// segments, so it is all-or-nothing. The caller holds writeMu.
func (l *Log) segmentForAppend(first, next uint64, n int) (*segment, error) {
	// Checked before rolling, so a refused append leaves no new segment
	// behind: wherever the append lands (the active segment or a new one
	// based at first), it is indexable iff its span from first is.
	if next-1-first > math.MaxUint32 {
		return nil, fmt.Errorf("log: append spans offsets [%d, %d), more than a segment can index: %w", first, next, ErrInvalidArgument)
	}
	seg := l.active()
	if seg.size > 0 && (seg.size+int64(n) > l.opts.SegmentBytes || next-1-seg.base > math.MaxUint32) {
		s, err := openSegmentFiles(l.dir, first, true)
		if err != nil {
			return nil, err
		}
		if l.opts.Sync == SyncEveryAppend {
			// The new file's name must be durable before data in it is.
			if err := syncDir(l.dir); err != nil {
				s.close()
				return nil, err
			}
		}
		l.mu.Lock()
		l.segments = append(l.segments, s)
		l.mu.Unlock()
		seg = s
	}
	return seg, nil
}

// write appends verified batches ending at offset next to seg (the active
// segment), with their index entries, fsyncs under SyncEveryAppend, and only
// then publishes the new size, LEO and (in eager mode) HW to readers. If
// anything fails the file is cut back, so the log is unchanged. The caller
// holds writeMu.
func (l *Log) write(seg *segment, batches []byte, next uint64, maxTs int64) error {
	// Index entries for the new batches, decided exactly as recovery would.
	l.newEntries = l.newEntries[:0]
	for pos := 0; pos < len(batches); {
		b, _ := peekBatch(batches[pos:])
		at := seg.size + int64(pos)
		prev := seg.entries
		if len(l.newEntries) > 0 {
			prev = l.newEntries
		}
		if indexEntryDue(prev, at, l.opts.IndexIntervalBytes) {
			l.newEntries = append(l.newEntries, indexEntry{rel: uint32(b.base - seg.base), pos: uint32(at)})
		}
		pos += b.size
	}

	if _, err := seg.log.WriteAt(batches, seg.size); err != nil {
		seg.log.Truncate(seg.size)
		return fmt.Errorf("log: append: %w", err)
	}
	if len(l.newEntries) > 0 {
		l.entryBytes = appendIndexEntries(l.entryBytes[:0], l.newEntries)
		if _, err := seg.index.WriteAt(l.entryBytes, int64(len(seg.entries))*indexEntrySize); err != nil {
			seg.log.Truncate(seg.size)
			seg.index.Truncate(int64(len(seg.entries)) * indexEntrySize)
			return fmt.Errorf("log: append: index: %w", err)
		}
	}
	if l.opts.Sync == SyncEveryAppend {
		if err := seg.log.Sync(); err != nil {
			seg.log.Truncate(seg.size)
			seg.index.Truncate(int64(len(seg.entries)) * indexEntrySize)
			return fmt.Errorf("log: append: fsync: %w", err)
		}
	} else {
		seg.unsynced = true
	}

	l.mu.Lock()
	seg.size += int64(len(batches))
	seg.next = next
	seg.maxTimestamp = max(seg.maxTimestamp, maxTs)
	seg.entries = append(seg.entries, l.newEntries...)
	if l.eagerHW {
		l.hw = next
	}
	l.mu.Unlock()
	return nil
}
