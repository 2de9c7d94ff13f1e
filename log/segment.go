package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File name suffixes of a segment. A segment is named by its base offset,
// zero-padded to 20 digits (Kafka's naming), so a directory listing sorts in
// offset order.
const (
	segmentSuffix = ".log"
	indexSuffix   = ".index"
	// cleanedSuffix marks a compacted copy not yet swapped in; Open deletes
	// such files because the original is still intact.
	cleanedSuffix = ".cleaned"
	// noTimestamp is a segment's largest timestamp while it has no batches
	// (Kafka's RecordBatch.NO_TIMESTAMP).
	noTimestamp = -1
)

// segment is one file of batches plus its sparse index.
//
// Invariants, for the bytes [0, size) of the log file:
//   - they are whole batches that passed VerifyBatch when appended or
//     recovered, with base offsets >= base and strictly increasing
//     (each batch's base offset >= the previous batch's NextOffset);
//   - next is the NextOffset of the last batch, or base when there is none;
//   - entries are exactly the ones indexEntryDue picks for these batches.
//
// The mutable fields are written only by the writer (holding Log.writeMu),
// and only while also holding Log.mu once the segment is in Log.segments;
// readers read them under Log.mu.RLock. Bytes past size may exist in the file
// mid-append; nobody reads them.
type segment struct {
	base  uint64   // offset in the file name; a lower bound of its batches' offsets
	dir   string   // partition directory; with base it names the files (see path)
	log   *os.File // the batches, exactly as on the wire
	index *os.File // indexEntrySize-byte entries; derived data, rebuilt by Open

	size         int64        // bytes of whole batches
	next         uint64       // offset after the last batch; base when empty
	maxTimestamp int64        // largest MaxTimestamp of its batches; noTimestamp when empty
	entries      []indexEntry // in-memory copy of the index file
	unsynced     bool         // written since the last fsync (writer only)
}

// segmentName returns the file name of the segment with the given base
// offset and suffix, e.g. "00000000000000000042.log".
func segmentName(base uint64, suffix string) string {
	return fmt.Sprintf("%020d%s", base, suffix)
}

// parseSegmentName returns the base offset of a file named like a segment
// log file. Names that are not exactly 20 digits plus ".log", or whose offset
// does not fit int64, are not segments.
func parseSegmentName(name string) (uint64, bool) {
	digits, ok := strings.CutSuffix(name, segmentSuffix)
	if !ok || len(digits) != 20 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	base, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return uint64(base), true
}

// openSegmentFiles opens (creating, and with truncate emptying) the log and
// index files of the segment with the given base offset.
func openSegmentFiles(dir string, base uint64, truncate bool) (*segment, error) {
	flag := os.O_RDWR | os.O_CREATE
	if truncate {
		flag |= os.O_TRUNC
	}
	lf, err := os.OpenFile(filepath.Join(dir, segmentName(base, segmentSuffix)), flag, 0o644)
	if err != nil {
		return nil, fmt.Errorf("log: open segment: %w", err)
	}
	xf, err := os.OpenFile(filepath.Join(dir, segmentName(base, indexSuffix)), flag, 0o644)
	if err != nil {
		lf.Close()
		return nil, fmt.Errorf("log: open index: %w", err)
	}
	return &segment{base: base, dir: dir, log: lf, index: xf, next: base, maxTimestamp: noTimestamp}, nil
}

// path returns the path of the segment's file with the given suffix. It is
// derived from dir and base, never from the open files' names: compaction
// swaps in files opened as "<name>.cleaned" and renamed, so their Name is
// stale.
func (s *segment) path(suffix string) string {
	return filepath.Join(s.dir, segmentName(s.base, suffix))
}

// close closes both files, reporting the first error.
func (s *segment) close() error {
	return errors.Join(s.log.Close(), s.index.Close())
}

// remove deletes the segment's files and closes them. The log file goes
// first: once it is gone the segment is gone, whatever happens to the index
// (Open deletes an index without a log).
func (s *segment) remove() error {
	if err := os.Remove(s.path(segmentSuffix)); err != nil {
		return fmt.Errorf("log: delete segment: %w", err)
	}
	os.Remove(s.path(indexSuffix)) // an orphan index is harmless; Open deletes it
	s.close()
	return nil
}

// readFull reads exactly len(p) bytes at pos of the log file. Callers only
// ask for bytes below size, so a short read means the file was changed
// behind the log's back.
func (s *segment) readFull(p []byte, pos int64) error {
	n, err := s.log.ReadAt(p, pos)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("log: read %s at %d: %w", segmentName(s.base, segmentSuffix), pos, err)
}

// storedBatch is what the log needs from the header of a batch it already
// verified: where it ends and which offsets it holds.
type storedBatch struct {
	base         uint64 // BaseOffset
	next         uint64 // NextOffset
	size         int    // total bytes
	maxTimestamp int64  // MaxTimestamp
}

// peekBatch reads the fields of a stored batch from its first
// BatchHeaderSize bytes without checking the CRC: stored batches were
// verified when they entered the log. It still refuses a size below the
// header (the file was changed behind the log's back) rather than loop.
func peekBatch(hdr []byte) (storedBatch, error) {
	size := BatchLogOverhead + int(int32(binary.BigEndian.Uint32(hdr[8:12])))
	if size < BatchHeaderSize {
		return storedBatch{}, &CorruptError{Pos: 8, Err: ErrBadLength}
	}
	base := binary.BigEndian.Uint64(hdr[0:8])
	delta := uint64(binary.BigEndian.Uint32(hdr[23:27]))
	return storedBatch{
		base:         base,
		next:         base + delta + 1,
		size:         size,
		maxTimestamp: int64(binary.BigEndian.Uint64(hdr[35:43])),
	}, nil
}

// batchAt reads the header of the stored batch at pos into scratch (which
// must hold BatchHeaderSize bytes) and returns it.
func (s *segment) batchAt(pos int64, scratch []byte) (storedBatch, error) {
	hdr := scratch[:BatchHeaderSize]
	if err := s.readFull(hdr, pos); err != nil {
		return storedBatch{}, err
	}
	b, err := peekBatch(hdr)
	if err != nil || pos+int64(b.size) > s.size {
		return storedBatch{}, fmt.Errorf("log: stored batch at %d of %s: %w", pos, segmentName(s.base, segmentSuffix), ErrBadLength)
	}
	return b, nil
}

// locate finds the first batch whose last offset is >= off: the batch that
// holds off, or (if off fell in a gap left by compaction) the one after it.
// It starts at the index entry at or below off and reads batch headers
// forward, so it touches at most about one index interval of headers. With
// wantPrev it starts one entry earlier, so that prevNext is the NextOffset of
// the batch before the found one (the segment base if there is none), which
// truncation needs. found is false when every batch ends before off; pos is
// then size and prevNext is next.
func (s *segment) locate(off uint64, scratch []byte, wantPrev bool) (pos int64, b storedBatch, prevNext uint64, found bool, err error) {
	i := s.floorEntry(off)
	if wantPrev {
		// The batch at entry i-1 ends before entry i's base <= off, so the
		// scan reads at least one batch before the one it finds.
		i--
	}
	prevNext = s.base
	if i >= 0 {
		pos = int64(s.entries[i].pos)
	}
	for pos < s.size {
		b, err = s.batchAt(pos, scratch)
		if err != nil {
			return 0, storedBatch{}, 0, false, err
		}
		if b.next > off {
			return pos, b, prevNext, true, nil
		}
		prevNext = b.next
		pos += int64(b.size)
	}
	return s.size, storedBatch{}, s.next, false, nil
}
