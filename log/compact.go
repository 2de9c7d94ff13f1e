package log

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// Compact removes every keyed record that a later record with the same key
// supersedes, Kafka's log compaction, and returns how many records it
// removed.
//
// Only closed segments wholly below the HW are compacted (and only records
// there decide what is superseded): the active segment is still being
// written, and records at or above the HW are not committed, so they may yet
// be truncated away and must not erase older committed values. Within that
// range it keeps, for each key, the record with the highest offset, and
// also keeps every record with a null key and every tombstone (a null value)
// that is the latest for its key. Tombstones are never removed, because this
// package has no delete-retention clock; consumers see them and drop the key.
//
// Surviving records keep their offsets exactly: a rewritten batch keeps its
// baseOffset, every record keeps its offsetDelta, and the batch keeps its
// lastOffsetDelta (and so its offset range; only the CRC is recomputed), so
// offsets never move and readers see gaps instead. A batch whose records
// all vanish is dropped. Batches this package cannot read record by record
// (compressed, control, or with undecodable records) are kept as they are.
//
// It is crash-safe: each changed segment is written to "<name>.log.cleaned"
// and fsynced, then renamed over the original, then its rebuilt index is
// renamed over the old one. A crash before the rename leaves the original
// (Open deletes the .cleaned file); a crash after it leaves the compacted
// segment, whose index Open rebuilds if it is stale. Readers are blocked
// only during the renames.
func (l *Log) Compact() (removedRecords int, err error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if l.closed {
		return 0, ErrClosed
	}
	// SetHighWatermark may raise the HW meanwhile; a stale value only
	// compacts less.
	hw := l.HighWatermark()
	k := 0
	for k < len(l.segments)-1 && l.segments[k].next <= hw {
		k++
	}
	segs := l.segments[:k:k]
	if k == 0 {
		return 0, nil
	}

	// Pass 1: the offset of the latest record of every key.
	latest := make(map[string]uint64)
	var buf []byte
	for _, s := range segs {
		buf, err = s.forEachBatch(buf, func(batch []byte) error {
			b, ok := decodeCompactable(batch)
			if !ok {
				return nil
			}
			for i := range b.Records {
				if key := b.Records[i].Key; key != nil {
					latest[string(key)] = b.BaseOffset + uint64(b.Records[i].OffsetDelta)
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}

	// Pass 2: rewrite the segments that lose records.
	for _, s := range segs {
		var n int
		n, buf, err = l.compactSegment(s, latest, buf)
		removedRecords += n
		if err != nil {
			return removedRecords, err
		}
	}
	return removedRecords, nil
}

// decodeCompactable decodes a stored batch for compaction. ok is false for
// batches kept verbatim: compressed or control batches, and any batch whose
// records do not decode.
func decodeCompactable(batch []byte) (Batch, bool) {
	attrs := int16(binary.BigEndian.Uint16(batch[21:23]))
	if attrs&(AttrCompressionMask|AttrControl) != 0 {
		return Batch{}, false
	}
	b, _, err := DecodeBatch(batch)
	return b, err == nil
}

// compactSegment rewrites s without the records latest says are
// superseded, and swaps the result in. It returns how many records it
// removed; a segment that loses nothing is left untouched.
func (l *Log) compactSegment(s *segment, latest map[string]uint64, buf []byte) (removed int, _ []byte, err error) {
	logPath, indexPath := s.path(segmentSuffix), s.path(indexSuffix)
	cleanedPath := logPath + cleanedSuffix
	f, err := os.OpenFile(cleanedPath, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, buf, fmt.Errorf("log: compact: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			f.Close()
			os.Remove(cleanedPath)
		}
	}()

	w := bufio.NewWriterSize(f, recoverChunkBytes)
	ns := segment{base: s.base, next: s.base, maxTimestamp: noTimestamp}
	var out []byte
	buf, err = s.forEachBatch(buf, func(batch []byte) error {
		keep := batch
		if b, ok := decodeCompactable(batch); ok {
			kept := b.Records[:0]
			for _, r := range b.Records {
				if r.Key == nil || latest[string(r.Key)] == b.BaseOffset+uint64(r.OffsetDelta) {
					kept = append(kept, r)
				}
			}
			removed += len(b.Records) - len(kept)
			if len(kept) == 0 {
				return nil
			}
			if len(kept) < len(b.Records) {
				b.Records = kept
				var encErr error
				if out, encErr = AppendBatch(out[:0], &b); encErr != nil {
					return fmt.Errorf("log: compact: re-encode batch at offset %d: %w", b.BaseOffset, encErr)
				}
				keepLastOffsetDelta(out, batch)
				keep = out
			}
		}
		sb, _ := peekBatch(keep)
		if indexEntryDue(ns.entries, ns.size, l.opts.IndexIntervalBytes) {
			ns.entries = append(ns.entries, indexEntry{rel: uint32(sb.base - ns.base), pos: uint32(ns.size)})
		}
		if _, err := w.Write(keep); err != nil {
			return fmt.Errorf("log: compact: %w", err)
		}
		ns.size += int64(len(keep))
		ns.next = sb.next
		ns.maxTimestamp = max(ns.maxTimestamp, sb.maxTimestamp)
		return nil
	})
	if err != nil || removed == 0 {
		return 0, buf, err
	}
	if err := w.Flush(); err != nil {
		return 0, buf, fmt.Errorf("log: compact: %w", err)
	}
	if err := f.Sync(); err != nil {
		return 0, buf, fmt.Errorf("log: compact: %w", err)
	}
	indexCleanedPath := indexPath + cleanedSuffix
	xf, err := os.OpenFile(indexCleanedPath, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, buf, fmt.Errorf("log: compact: %w", err)
	}
	if _, err := xf.Write(appendIndexEntries(nil, ns.entries)); err != nil {
		xf.Close()
		os.Remove(indexCleanedPath)
		return 0, buf, fmt.Errorf("log: compact: %w", err)
	}

	// The rename of the log file is the commit point.
	l.mu.Lock()
	if err := os.Rename(cleanedPath, logPath); err != nil {
		l.mu.Unlock()
		xf.Close()
		os.Remove(indexCleanedPath)
		return 0, buf, fmt.Errorf("log: compact: %w", err)
	}
	committed = true
	indexErr := os.Rename(indexCleanedPath, indexPath)
	oldLog, oldIndex := s.log, s.index
	s.log, s.index = f, xf
	s.size, s.next, s.maxTimestamp, s.entries = ns.size, ns.next, ns.maxTimestamp, ns.entries
	s.unsynced = false
	l.mu.Unlock()
	oldLog.Close()
	oldIndex.Close()
	if indexErr != nil {
		// The data is compacted; the stale index file is rebuilt by Open.
		return removed, buf, fmt.Errorf("log: compact: install index: %w", indexErr)
	}
	return removed, buf, syncDir(l.dir)
}

// keepLastOffsetDelta gives the re-encoded batch out the lastOffsetDelta of
// the original batch orig (AppendBatch derives it from the last surviving
// record) and recomputes out's CRC, so the batch still spans the same
// offsets. Kafka's cleaner does the same, so that a batch's offset range,
// and with it the segment's end, survive compaction.
func keepLastOffsetDelta(out, orig []byte) {
	origDelta := binary.BigEndian.Uint32(orig[23:27])
	if binary.BigEndian.Uint32(out[23:27]) == origDelta {
		return
	}
	binary.BigEndian.PutUint32(out[23:27], origDelta)
	binary.BigEndian.PutUint32(out[17:21], ChecksumCRC32C(out[21:]))
}

// forEachBatch calls fn with each stored batch of s in order. The slice
// passed to fn aliases buf and is valid only during the call. It reads the
// file in large chunks; buf is reused and the possibly grown one returned.
func (s *segment) forEachBatch(buf []byte, fn func(batch []byte) error) ([]byte, error) {
	var pos int64
	for pos < s.size {
		n := min(s.size-pos, recoverChunkBytes)
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		chunk := buf[:n]
		if err := s.readFull(chunk, pos); err != nil {
			return buf, err
		}
		p := 0
		for p+BatchHeaderSize <= len(chunk) {
			b, err := peekBatch(chunk[p:])
			if err != nil {
				return buf, err
			}
			if p+b.size > len(chunk) {
				if p > 0 {
					break // refill from this batch
				}
				// One batch larger than the chunk: read it whole.
				big := make([]byte, b.size)
				if err := s.readFull(big, pos); err != nil {
					return buf, err
				}
				chunk, buf = big, big
			}
			if err := fn(chunk[p : p+b.size]); err != nil {
				return buf, err
			}
			p += b.size
		}
		if p == 0 {
			return buf, errors.New("log: stored batch does not fit its segment")
		}
		pos += int64(p)
	}
	return buf, nil
}
