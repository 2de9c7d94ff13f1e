package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/kaenlog/kaenlog/log/vfs"
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
// Offsets never move and never vanish: a rewritten batch keeps its
// baseOffset, every record its offsetDelta, and the batch its
// lastOffsetDelta (only the CRC is recomputed). A maximal run of
// consecutive batches of a segment whose records all vanish is replaced by
// one empty batch covering the run's offsets (appendEmptyBatch: the epoch
// of the run's last batch, the run's timestamps), so the log stays provably
// contiguous and readers and followers see the empty batch where the
// records were. Batches this package cannot read record by record
// (compressed, control, or with undecodable records) are kept as they are.
// Segments Open did not read are verified first.
//
// It is crash-safe: each changed segment is written to "<name>.log.cleaned"
// and fsynced, then renamed over the original, then its rebuilt index and
// time index are renamed over the old ones, and the directory is fsynced. A crash before
// the rename leaves the original (Open deletes the .cleaned file); a crash
// after it leaves the compacted segment, whose index and time index Open
// rebuilds if they are stale. Both hold the same offsets. Readers are blocked only during the
// renames. A failed write puts the log in the failed state.
func (l *Log) Compact() (removedRecords int, err error) {
	l.flushMu.Lock() // see flushMu
	defer l.flushMu.Unlock()
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.newGeneration()
	if err := l.usable(); err != nil {
		return 0, err
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
	for _, s := range segs {
		if err := l.verify(s); err != nil {
			return 0, err
		}
	}

	// Pass 1: the offset of the latest record of every key, compressed
	// batches included (kept whole below, their keys still supersede
	// older records).
	latest := make(map[string]uint64)
	var buf []byte
	var keys Batch
	for _, s := range segs {
		err := l.withFile(s, func() (err error) {
			buf, err = s.forEachBatch(buf, func(batch []byte) error {
				b, ok := decodeKeys(batch, &keys, l.opts.maxInflatedBytes())
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
			return err
		})
		if err != nil {
			return 0, l.fail(err)
		}
	}

	// Pass 2: rewrite the segments that lose records.
	for _, s := range segs {
		var n int
		err := l.withFile(s, func() (err error) {
			n, buf, err = l.compactSegment(s, latest, buf)
			return err
		})
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
	attrs := storedAttributes(batch)
	if attrs&(AttrCompressionMask|AttrControl) != 0 {
		return Batch{}, false
	}
	b, _, err := DecodeBatch(batch)
	return b, err == nil
}

// decodeKeys decodes a stored batch for compaction's first pass, which
// reads its keys only: compressed batches too, decompressed into b's
// buffer (reused), when their codec has a decompressor here. ok is false
// for control batches and batches that do not decode.
func decodeKeys(batch []byte, b *Batch, maxInflated int) (*Batch, bool) {
	attrs := storedAttributes(batch)
	if attrs&AttrCompressionMask == 0 {
		d, ok := decodeCompactable(batch)
		return &d, ok
	}
	if attrs&AttrControl != 0 {
		return nil, false
	}
	_, err := b.decodeAt(batch, 0, maxInflated)
	return b, err == nil
}

// emptyRun is a run of consecutive batches whose records all vanished,
// which compaction replaces with one empty batch.
type emptyRun struct {
	active        bool
	base, next    uint64
	epoch         int32
	baseTs, maxTs int64
}

// superseded reports whether record r of batch b has been superseded.
func superseded(latest map[string]uint64, b *Batch, r *Record) bool {
	return r.Key != nil && latest[string(r.Key)] != b.BaseOffset+uint64(r.OffsetDelta)
}

// compactSegment rewrites s (verified, its file pinned) without the records
// latest says are superseded, and swaps the result in. It returns how many
// records it removed; a segment that loses nothing is left untouched (a
// first read finds out, so that no file is written for it).
func (l *Log) compactSegment(s *segment, latest map[string]uint64, buf []byte) (removed int, _ []byte, err error) {
	buf, err = s.forEachBatch(buf, func(batch []byte) error {
		if b, ok := decodeCompactable(batch); ok {
			for i := range b.Records {
				if superseded(latest, &b, &b.Records[i]) {
					removed++
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, buf, l.fail(err)
	}
	if removed == 0 {
		return 0, buf, nil
	}

	logPath, indexPath, timePath := s.path(segmentSuffix), s.path(indexSuffix), s.path(timeIndexSuffix)
	cleanedPath, indexCleanedPath, timeCleanedPath := logPath+cleanedSuffix, indexPath+cleanedSuffix, timePath+cleanedSuffix
	f, err := l.fs.OpenFile(cleanedPath, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, buf, l.fail(fmt.Errorf("log: compact: %w", err))
	}
	ns := segment{base: s.base, next: s.base}
	nm := noMaxTime
	var out, enc []byte
	var written int64
	var run emptyRun
	// add appends one batch of the new segment; out is written to the file
	// in chunks.
	add := func(batch []byte) error {
		sb, _ := peekBatch(batch)
		nm.observe(sb.maxTimestamp, sb.next-1, sb.records)
		if indexEntryDue(ns.entries, ns.size, l.opts.IndexIntervalBytes) {
			ns.entries = append(ns.entries, indexEntry{rel: uint32(sb.base - ns.base), pos: uint32(ns.size)})
			if e, ok := timeEntryFor(nm, lastTs(ns.times), ns.base, ns.size); ok {
				ns.times = append(ns.times, e)
			}
		}
		out = append(out, batch...)
		ns.size += int64(len(batch))
		ns.next = sb.next
		if len(out) >= recoverChunkBytes {
			if _, err := f.WriteAt(out, written); err != nil {
				return err
			}
			written += int64(len(out))
			out = out[:0]
		}
		return nil
	}
	flushRun := func() error {
		if !run.active {
			return nil
		}
		run.active = false
		enc = appendEmptyBatch(enc[:0], run.base, int32(run.next-run.base-1), run.epoch, run.baseTs, run.maxTs)
		return add(enc)
	}
	buf, err = s.forEachBatch(buf, func(batch []byte) error {
		h, _ := ReadBatchHeader(batch) // verified: cannot fail
		b, ok := decodeCompactable(batch)
		if !ok {
			if err := flushRun(); err != nil {
				return err
			}
			return add(batch)
		}
		kept := b.Records[:0]
		for i := range b.Records {
			if !superseded(latest, &b, &b.Records[i]) {
				kept = append(kept, b.Records[i])
			}
		}
		if len(kept) == 0 {
			if run.active && h.NextOffset()-run.base-1 > math.MaxInt32 {
				if err := flushRun(); err != nil { // one empty batch spans at most 2^31 offsets
					return err
				}
			}
			if !run.active {
				run = emptyRun{active: true, base: h.BaseOffset, baseTs: h.BaseTimestamp, maxTs: h.MaxTimestamp}
			}
			run.next, run.epoch, run.maxTs = h.NextOffset(), h.PartitionLeaderEpoch, max(run.maxTs, h.MaxTimestamp)
			return nil
		}
		if err := flushRun(); err != nil {
			return err
		}
		if len(kept) == len(b.Records) {
			return add(batch)
		}
		b.Records = kept
		// The batch's largest timestamp is its kept records' (Kafka's
		// cleaner rebuilds it so too): lookups by time and the time index
		// trust it.
		b.MaxTimestamp = b.BaseTimestamp + kept[0].TimestampDelta
		for i := range kept {
			b.MaxTimestamp = max(b.MaxTimestamp, b.BaseTimestamp+kept[i].TimestampDelta)
		}
		var encErr error
		if enc, encErr = AppendBatch(enc[:0], &b); encErr != nil {
			return fmt.Errorf("log: compact: re-encode batch at offset %d: %w", b.BaseOffset, encErr)
		}
		keepLastOffsetDelta(enc, batch)
		return add(enc)
	})
	if err == nil {
		err = flushRun()
	}
	if err == nil && len(out) > 0 {
		_, err = f.WriteAt(out, written)
	}
	if err == nil && ns.next != s.next {
		err = fmt.Errorf("%s would end at %d, not %d", s.name(), ns.next, s.next)
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = writeCleaned(l.fs, indexCleanedPath, appendIndexEntries(nil, ns.entries))
	}
	if err == nil {
		err = writeCleaned(l.fs, timeCleanedPath, appendTimeEntries(nil, ns.times))
	}
	if err != nil {
		f.Close()
		return 0, buf, l.fail(fmt.Errorf("log: compact: %w", err))
	}

	// The rename of the log file is the commit point.
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.fs.Rename(cleanedPath, logPath); err != nil {
		f.Close()
		return 0, buf, l.fail(fmt.Errorf("log: compact: %w", err))
	}
	l.fileMu.Lock()
	old := s.log
	s.log = f
	l.fileMu.Unlock()
	old.Close()
	s.size, s.next, s.entries, s.times = ns.size, ns.next, ns.entries, ns.times
	s.maxTimestamp, s.maxTimestampOffset = nm.ts, nm.off
	s.recent = nil // its positions were the old file's
	s.unsynced = false
	l.unpinWriter(s) // the new file is synced: no fsync waits for the old descriptor
	if err := l.fs.Rename(indexCleanedPath, indexPath); err != nil {
		// The data is compacted; the stale index file is rebuilt by Open.
		return removed, buf, l.fail(fmt.Errorf("log: compact: install index: %w", err))
	}
	if err := l.fs.Rename(timeCleanedPath, timePath); err != nil {
		return removed, buf, l.fail(fmt.Errorf("log: compact: install time index: %w", err))
	}
	if err := l.fs.SyncDir(l.dir); err != nil {
		return removed, buf, l.fail(fmt.Errorf("log: compact: %w", err))
	}
	return removed, buf, nil
}

// writeCleaned writes data to a new file at path (a compacted index) and
// fsyncs it.
func writeCleaned(fsys vfs.FS, path string, data []byte) error {
	f, err := fsys.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err = f.WriteAt(data, 0); err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// keepLastOffsetDelta gives the re-encoded batch out the lastOffsetDelta of
// the original batch orig (AppendBatch derives it from the last surviving
// record) and recomputes out's CRC, so the batch still spans the same
// offsets. Kafka's cleaner does the same, so that a batch's offset range,
// and with it the segment's end, survive compaction.
func keepLastOffsetDelta(out, orig []byte) {
	origDelta := storedLastOffsetDelta(orig)
	if storedLastOffsetDelta(out) == origDelta {
		return
	}
	binary.BigEndian.PutUint32(out[posLastOffsetDelta:], origDelta)
	binary.BigEndian.PutUint32(out[posCRC:], ChecksumCRC32C(out[posAttributes:]))
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
