package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// A producer-state snapshot holds the state of every producer as of an
// offset: the state the batches below that offset build. It is named by
// the offset, zero-padded to 20 digits like a segment, with Kafka's suffix:
// 00000000000000004127.snapshot. Its content (big-endian, see doc.go):
//
//	offset width field
//	     0     2 version       1
//	     2     4 crc           CRC-32C of bytes [6, end)
//	     6     8 offset        the offset in the file name
//	    14     4 producers     how many follow
//	    18     - producers, by ascending producer id, each:
//	             8 producerId    >= 0
//	             2 epoch         >= 0
//	             1 batches       1 to 5, oldest first, each 32 bytes:
//	               4 firstSeq      >= 0
//	               4 lastSeq       firstSeq + lastOffset - firstOffset, wrapping at MaxInt32
//	               8 firstOffset   above the previous batch's lastOffset
//	               8 lastOffset    >= firstOffset, below the snapshot's offset
//	               8 maxTimestamp
//
// Kafka's snapshot keeps one batch per producer (the last); this one keeps
// all five, so that after a restart a retry of any of a producer's last
// five batches is still recognised as a duplicate.
const (
	producerSnapshotSuffix  = ".snapshot"
	producerSnapshotVersion = 1
	// producerSnapshotHeader is the size of the fields before the first
	// producer; producerEntryMin the smallest producer (one batch), and
	// producerBatchSize one batch's size.
	producerSnapshotHeader = 18
	producerEntryHeader    = 8 + 2 + 1
	producerBatchSize      = 32
	producerEntryMin       = producerEntryHeader + producerBatchSize
	// producerSnapshotLimit bounds the snapshot file Open reads: about 1.4
	// million producers with five batches each.
	producerSnapshotLimit = 256 << 20
	// maxProducerSnapshots is how many snapshot files the log keeps: the
	// durable one at the recovery point and the newest ones taken at
	// segment rolls. Kafka keeps one per segment; kaenlog keeps a few, so
	// that a directory of 5,000 segments does not list 5,000 more files on
	// every Open. A truncation below the oldest one rebuilds the state from
	// the log's first batch.
	maxProducerSnapshots = 3
)

// errBadProducerSnapshot is the cause when a snapshot file does not decode.
// It never reaches a caller of Open: a damaged snapshot is ignored and the
// state rebuilt from the log.
var errBadProducerSnapshot = errors.New("log: damaged producer-state snapshot")

// producerSnapshotName returns the file name of the snapshot at off.
func producerSnapshotName(off uint64) string { return segmentName(off, producerSnapshotSuffix) }

// appendProducerSnapshot encodes the state m as of offset off onto dst.
func appendProducerSnapshot(dst []byte, off uint64, m producerMap) []byte {
	start := len(dst)
	dst = binary.BigEndian.AppendUint16(dst, producerSnapshotVersion)
	dst = binary.BigEndian.AppendUint32(dst, 0) // CRC, below
	dst = binary.BigEndian.AppendUint64(dst, off)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(m)))
	for _, id := range m.sortedIDs() {
		e := m[id]
		dst = binary.BigEndian.AppendUint64(dst, uint64(id))
		dst = binary.BigEndian.AppendUint16(dst, uint16(e.epoch))
		dst = append(dst, e.n)
		for i := range int(e.n) {
			b := e.at(i)
			dst = binary.BigEndian.AppendUint32(dst, uint32(b.FirstSeq))
			dst = binary.BigEndian.AppendUint32(dst, uint32(b.LastSeq))
			dst = binary.BigEndian.AppendUint64(dst, b.FirstOffset)
			dst = binary.BigEndian.AppendUint64(dst, b.LastOffset)
			dst = binary.BigEndian.AppendUint64(dst, uint64(b.MaxTimestamp))
		}
	}
	b := dst[start:]
	binary.BigEndian.PutUint32(b[2:], ChecksumCRC32C(b[6:]))
	return dst
}

// decodeProducerSnapshot decodes a snapshot file. Every count is checked
// against the bytes left before anything is allocated for it, every field
// against its range, and nothing may follow the last producer; so the
// encoding is canonical (appendProducerSnapshot of the result gives the
// same bytes). Errors wrap errBadProducerSnapshot.
func decodeProducerSnapshot(data []byte) (off uint64, m producerMap, err error) {
	bad := func(format string, args ...any) (uint64, producerMap, error) {
		return 0, nil, fmt.Errorf("%w: %s", errBadProducerSnapshot, fmt.Sprintf(format, args...))
	}
	if len(data) < producerSnapshotHeader {
		return bad("%d bytes, fewer than the %d-byte header", len(data), producerSnapshotHeader)
	}
	if v := binary.BigEndian.Uint16(data); v != producerSnapshotVersion {
		return bad("version %d, want %d", v, producerSnapshotVersion)
	}
	if want, got := binary.BigEndian.Uint32(data[2:]), ChecksumCRC32C(data[6:]); want != got {
		return bad("crc %08x, computed %08x", want, got)
	}
	off = binary.BigEndian.Uint64(data[6:])
	if off > math.MaxInt64 {
		return bad("offset %d does not fit int64", off)
	}
	n := binary.BigEndian.Uint32(data[14:])
	rest := data[producerSnapshotHeader:]
	if uint64(n) > uint64(len(rest)/producerEntryMin) {
		return bad("%d producers in %d bytes", n, len(rest))
	}
	m = make(producerMap, n)
	slab := make([]producerEntry, n) // one allocation for every producer
	prevID := int64(-1)
	for k := range n {
		if len(rest) < producerEntryMin {
			return bad("producer cut short")
		}
		id := int64(binary.BigEndian.Uint64(rest))
		epoch := int16(binary.BigEndian.Uint16(rest[8:]))
		nb := int(rest[10])
		rest = rest[producerEntryHeader:]
		switch {
		case id <= prevID:
			return bad("producer id %d after %d", id, prevID)
		case epoch < 0:
			return bad("producer %d has epoch %d", id, epoch)
		case nb < 1 || nb > ProducerBatchesRetained:
			return bad("producer %d has %d batches", id, nb)
		case len(rest) < nb*producerBatchSize:
			return bad("producer %d: %d batches cut short", id, nb)
		}
		e := &slab[k]
		e.epoch = epoch
		for i := range nb {
			b := BatchMetadata{
				FirstSeq:     int32(binary.BigEndian.Uint32(rest)),
				LastSeq:      int32(binary.BigEndian.Uint32(rest[4:])),
				FirstOffset:  binary.BigEndian.Uint64(rest[8:]),
				LastOffset:   binary.BigEndian.Uint64(rest[16:]),
				MaxTimestamp: int64(binary.BigEndian.Uint64(rest[24:])),
			}
			rest = rest[producerBatchSize:]
			switch {
			case b.FirstSeq < 0 || b.LastOffset < b.FirstOffset || b.LastOffset-b.FirstOffset > math.MaxInt32:
				return bad("producer %d batch %d: sequence %d, offsets [%d, %d]", id, i, b.FirstSeq, b.FirstOffset, b.LastOffset)
			case b.LastSeq != incrementSequence(b.FirstSeq, int32(b.LastOffset-b.FirstOffset)):
				return bad("producer %d batch %d: sequences [%d, %d] over offsets [%d, %d]", id, i, b.FirstSeq, b.LastSeq, b.FirstOffset, b.LastOffset)
			case b.LastOffset >= off:
				return bad("producer %d batch %d ends at offset %d, not below the snapshot's %d", id, i, b.LastOffset, off)
			case i > 0 && b.FirstOffset <= e.last().LastOffset:
				return bad("producer %d batch %d starts at offset %d, not after %d", id, i, b.FirstOffset, e.last().LastOffset)
			}
			e.add(epoch, b)
		}
		m[id] = e
		prevID = id
	}
	if len(rest) != 0 {
		return bad("%d bytes after the last producer", len(rest))
	}
	return off, m, nil
}

// loadProducerSnapshot reads and decodes the snapshot at off. A file that
// is missing, too large, damaged or names another offset is an error
// wrapping errBadProducerSnapshot; a failed read is an I/O error.
func (l *Log) loadProducerSnapshot(off uint64) (producerMap, error) {
	name := producerSnapshotName(off)
	data, found, err := readFile(l.fs, l.dir, name, producerSnapshotLimit)
	switch {
	case errors.Is(err, ErrBadCheckpoint): // too large
		return nil, fmt.Errorf("%w: %s: %w", errBadProducerSnapshot, name, err)
	case err != nil:
		return nil, err
	case !found:
		return nil, fmt.Errorf("%w: %s is missing", errBadProducerSnapshot, name)
	}
	got, m, err := decodeProducerSnapshot(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if got != off {
		return nil, fmt.Errorf("%w: %s holds the state at offset %d", errBadProducerSnapshot, name, got)
	}
	return m, nil
}

// snapshotFile is the snapshot of the current producer state at the LEO,
// for writeFilesAtomic, unless the newest durable snapshot already is
// that. The caller holds writeMu.
func (l *Log) snapshotFile() (checkpointFile, bool) {
	leo := l.endOffset()
	if l.snapDurable.ok && l.snapDurable.off == leo && l.snapDurable.gen == l.producersGen && l.hasSnapshot(leo) {
		return checkpointFile{}, false
	}
	return checkpointFile{producerSnapshotName(leo), appendProducerSnapshot(nil, leo, l.producers)}, true
}

// snapshotWritten records that the snapshot at off, holding the current
// state, is durable, and prunes the others (pruneSnapshots). The caller
// holds writeMu.
func (l *Log) snapshotWritten(off uint64) error {
	l.addSnapshot(off)
	l.snapDurable = snapshotMark{off: off, gen: l.producersGen, ok: true}
	return l.pruneSnapshots()
}

// pruneSnapshots deletes the snapshots below the durable one that are not
// at a segment's base (the previous recovery points'), then the oldest
// ones, never the durable one, until maxProducerSnapshots are left. The
// deletions need no directory sync: a snapshot that comes back after a
// crash still holds the state of the batches below it. The caller holds
// writeMu.
func (l *Log) pruneSnapshots() error {
	for _, s := range slices.Clone(l.snapshots) {
		if !l.snapDurable.ok || s >= l.snapDurable.off {
			break
		}
		if !l.isSegmentBase(s) {
			if err := l.removeSnapshot(s); err != nil {
				return err
			}
		}
	}
	for i := 0; len(l.snapshots) > maxProducerSnapshots && i < len(l.snapshots); {
		if s := l.snapshots[i]; l.snapDurable.ok && s == l.snapDurable.off {
			i++
			continue
		}
		if err := l.removeSnapshot(l.snapshots[i]); err != nil {
			return err
		}
	}
	return nil
}

// snapshotMark names the newest durable snapshot and the state it holds.
type snapshotMark struct {
	off, gen uint64
	ok       bool
}

// writeRollSnapshot writes the snapshot at a new segment's base (the LEO,
// before the append that rolls), as Kafka takes one at every roll, so that
// a truncation into the segment needs to replay only that segment. It is
// written to a temporary file and renamed but not fsynced, which would
// stall the append: FlushRolled fsyncs it later, with the segments below
// it, and a copy that a crash tears fails its CRC and is ignored. An
// existing snapshot at that offset is kept (it may be a durable one); the
// oldest are pruned. The caller holds writeMu.
func (l *Log) writeRollSnapshot(off uint64) error {
	if l.hasSnapshot(off) {
		l.rollSnap = snapshotMark{}
		return nil
	}
	name := producerSnapshotName(off)
	path := filepath.Join(l.dir, name)
	f, err := l.fs.OpenFile(path+checkpointTempSuffix, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return l.fail(fmt.Errorf("log: write %s: %w", name, err))
	}
	_, err = f.WriteAt(appendProducerSnapshot(nil, off, l.producers), 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = l.fs.Rename(path+checkpointTempSuffix, path)
	}
	if err != nil {
		return l.fail(fmt.Errorf("log: write %s: %w", name, err))
	}
	l.addSnapshot(off)
	l.rollSnap = snapshotMark{off: off, gen: l.producersGen, ok: true}
	return l.pruneSnapshots()
}

// hasSnapshot reports whether a snapshot file at off is known to exist.
func (l *Log) hasSnapshot(off uint64) bool {
	_, ok := slices.BinarySearch(l.snapshots, off)
	return ok
}

// addSnapshot records a snapshot file at off.
func (l *Log) addSnapshot(off uint64) {
	if i, ok := slices.BinarySearch(l.snapshots, off); !ok {
		l.snapshots = slices.Insert(l.snapshots, i, off)
	}
}

// removeSnapshot deletes the snapshot at off (one already gone is fine);
// a failure fails the log. The deletion is durable with the next SyncDir.
func (l *Log) removeSnapshot(off uint64) error {
	if i, ok := slices.BinarySearch(l.snapshots, off); ok {
		l.snapshots = slices.Delete(l.snapshots, i, i+1)
	}
	if l.snapDurable.ok && l.snapDurable.off == off {
		l.snapDurable = snapshotMark{}
	}
	err := l.fs.Remove(filepath.Join(l.dir, producerSnapshotName(off)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return l.fail(fmt.Errorf("log: delete %s: %w", producerSnapshotName(off), err))
	}
	return nil
}

// removeSnapshotsOutside deletes the snapshots below lo and above hi, and
// reports whether it deleted any.
func (l *Log) removeSnapshotsOutside(lo, hi uint64) (bool, error) {
	removed := false
	for _, s := range slices.Clone(l.snapshots) {
		if s < lo || s > hi {
			if err := l.removeSnapshot(s); err != nil {
				return removed, err
			}
			removed = true
		}
	}
	return removed, nil
}

// isSegmentBase reports whether a segment starts at off.
func (l *Log) isSegmentBase(off uint64) bool { return l.segments[l.segmentFor(off)].base == off }

// producerStateAt computes the state the batches below upTo build, from
// the newest snapshot at or below upTo (and not below the first segment)
// that loads, replaying the batch headers from there; without one, from
// the first segment. Snapshots that do not load are deleted and named in
// ignored. It returns the snapshot used (ok false for none) and how many
// producer batches it replayed. The caller holds writeMu, or is Open.
func (l *Log) producerStateAt(upTo uint64) (m producerMap, snap uint64, ok bool, replayed int, ignored []string, err error) {
	floor := l.segments[0].base
	from := floor
	for i := len(l.snapshots) - 1; i >= 0 && m == nil; i-- {
		s := l.snapshots[i]
		if s > upTo || s < floor {
			continue
		}
		loaded, err := l.loadProducerSnapshot(s)
		if errors.Is(err, errBadProducerSnapshot) {
			ignored = append(ignored, err.Error())
			if err := l.removeSnapshot(s); err != nil {
				return nil, 0, false, 0, ignored, err
			}
			continue
		}
		if err != nil {
			return nil, 0, false, 0, ignored, l.fail(fmt.Errorf("log: %w", err))
		}
		m, from, snap, ok = loaded, s, s, true
	}
	if m == nil {
		m = producerMap{}
	}
	replayed, err = l.replayProducerHeaders(m, from, upTo)
	return m, snap, ok, replayed, ignored, err
}

// replayProducerHeaders applies to m the producer batches whose base
// offset lies in [from, to), reading only batch headers, segment by
// segment. Batches are trusted as the rest of the log is (recovery or a
// later lazy verification vouches for them), but their framing is checked:
// a header that does not continue the previous batch makes the segment be
// verified in full, which fails the log with the damage it finds. The
// caller holds writeMu, or is Open.
func (l *Log) replayProducerHeaders(m producerMap, from, to uint64) (int, error) {
	if from >= to {
		return 0, nil
	}
	replayed := 0
	var buf []byte
	for i := l.segmentFor(from); i < len(l.segments) && l.segments[i].base < to; i++ {
		s := l.segments[i]
		var n int
		var bad bool
		err := l.withFile(s, func() (err error) {
			size := s.size
			if size < 0 {
				if size, err = s.log.Size(); err != nil {
					return err
				}
			}
			pos, next := int64(0), s.base
			if s.verified.Load() {
				if k := s.floorEntry(from); k >= 0 {
					pos, next = int64(s.entries[k].pos), s.base+uint64(s.entries[k].rel)
				}
			}
			n, bad, buf, err = walkProducerHeaders(s.log, size, pos, next, s.next, from, to, m, buf)
			return err
		})
		if err != nil {
			return replayed, l.fail(fmt.Errorf("log: producer state: %w", err))
		}
		replayed += n
		if bad {
			if err := l.verify(s); err != nil {
				return replayed, err
			}
			return replayed, l.fail(fmt.Errorf("log: producer state: batch headers of %s do not continue each other: %w", s.name(), ErrCorrupt))
		}
	}
	return replayed, nil
}

// walkProducerHeaders reads the batch headers of a segment file f of size
// bytes from byte pos, where a batch starting at offset next must begin,
// up to the file's end (where offset end must be reached) or offset to,
// and applies to m the producer batches whose base lies in [from, to). It
// reads in chunks, so a segment of small batches costs few reads, and
// after a large batch only the next header. bad reports framing that does
// not hold together.
func walkProducerHeaders(f interface {
	ReadAt([]byte, int64) (int, error)
}, size, pos int64, next, end, from, to uint64, m producerMap, buf []byte) (applied int, bad bool, _ []byte, err error) {
	const chunk = 64 << 10
	if cap(buf) < chunk {
		buf = make([]byte, chunk)
	}
	buf = buf[:cap(buf)]
	var bufStart, bufLen int64 = 0, 0
	last := 0 // the size of the previous batch
	for pos < size && next < to {
		if size-pos < BatchHeaderSize {
			return applied, true, buf, nil
		}
		if pos < bufStart || pos+BatchHeaderSize > bufStart+bufLen {
			n := min(int64(len(buf)), size-pos)
			if last > chunk/16 {
				n = BatchHeaderSize // large batches: read their headers only
			}
			k, err := f.ReadAt(buf[:n], pos)
			if int64(k) != n {
				if err == nil {
					err = fmt.Errorf("short read")
				}
				return applied, false, buf, fmt.Errorf("read at %d: %w", pos, err)
			}
			bufStart, bufLen = pos, n
		}
		hdr := buf[pos-bufStart : pos-bufStart+BatchHeaderSize]
		h, ok := storedHeader(hdr)
		if !ok || h.BaseOffset != next || pos+int64(h.Size()) > size {
			return applied, true, buf, nil
		}
		if h.BaseOffset >= from {
			if b, ok := producerBatchOf(&h); ok {
				m.apply(&b)
				applied++
			}
		}
		pos += int64(h.Size())
		next, last = h.NextOffset(), h.Size()
	}
	if next < to && next != end {
		return applied, true, buf, nil
	}
	return applied, false, buf, nil
}

// storedHeader decodes the header of a stored batch from its first
// BatchHeaderSize bytes (no CRC: the batch is trusted as the log is),
// refusing framing that cannot be right.
func storedHeader(hdr []byte) (BatchHeader, bool) {
	h := BatchHeader{
		BatchLength:     int32(binary.BigEndian.Uint32(hdr[posBatchLength:])),
		Magic:           int8(hdr[posMagic]),
		Attributes:      int16(binary.BigEndian.Uint16(hdr[posAttributes:])),
		LastOffsetDelta: int32(binary.BigEndian.Uint32(hdr[posLastOffsetDelta:])),
		MaxTimestamp:    int64(binary.BigEndian.Uint64(hdr[posMaxTimestamp:])),
		ProducerID:      int64(binary.BigEndian.Uint64(hdr[posProducerID:])),
		ProducerEpoch:   int16(binary.BigEndian.Uint16(hdr[posProducerEpoch:])),
		BaseSequence:    int32(binary.BigEndian.Uint32(hdr[posBaseSequence:])),
	}
	base := int64(binary.BigEndian.Uint64(hdr[posBaseOffset:]))
	if h.Magic != Magic || h.BatchLength < minBatchLength || base < 0 || h.LastOffsetDelta < 0 ||
		base > math.MaxInt64-int64(h.LastOffsetDelta)-1 {
		return BatchHeader{}, false
	}
	h.BaseOffset = uint64(base)
	return h, true
}
