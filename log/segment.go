package log

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/kaenlog/kaenlog/log/vfs"
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
// Invariants, for the bytes [0, size) of the log file, once verified is set:
//   - they are whole batches that passed VerifyBatch, the first starting at
//     base and each next one where the previous one ended (base offset ==
//     the previous NextOffset), with epochs that agree with the log's
//     leader-epoch cache;
//   - next is the NextOffset of the last batch, or base when there is none,
//     and equals the next segment's base for every segment but the last;
//   - entries are exactly the ones indexEntryDue picks for these batches.
//
// A segment Open did not read (below the recovery point, or after a clean
// shutdown) is not verified: next is known (the next segment's base, or the
// log end for the last one), size may be -1 (unknown), entries and
// maxTimestamp are not loaded (except the active segment's entries, read
// from its index file so appends can continue it). It is verified in full
// the first time anything reads it (Log.verify).
//
// The mutable fields are written only by the writer (holding Log.writeMu),
// and only while also holding Log.mu once the segment is in Log.segments;
// readers read them under Log.mu.RLock, and only after verified. The one
// exception is verification itself, which sets size, maxTimestamp and
// entries under Log.fileMu before setting verified, and which for the
// active segment only the writer does (the writer reads the active
// segment's fields without Log.mu). Bytes past size may exist in the file
// mid-append; nobody reads them.
type segment struct {
	base uint64 // offset in the file name: the first batch starts exactly here
	dir  string // partition directory; with base it names the files (see path)

	size         int64  // bytes of whole batches; -1 while unknown
	next         uint64 // offset after the last batch
	maxTimestamp int64  // largest MaxTimestamp of its batches; noTimestamp when empty
	// maxTimestampOffset is the last offset of the first batch whose
	// MaxTimestamp is maxTimestamp (Kafka's offsetOfMaxTimestampSoFar).
	maxTimestampOffset uint64
	entries            []indexEntry // in-memory copy of the index
	times              []timeEntry  // in-memory copy of the time index
	unsynced           bool         // log bytes written or cut since the last fsync (writer only)
	indexDirty         bool         // index file written since its last fsync (writer only)
	// indexPending counts the last entries not yet in the index file
	// (writer only): appends add them in memory, writeIndexTail writes
	// them. Everything that sets entries from the file or writes the
	// whole file leaves it 0. timePending is the same for the time index.
	indexPending, timePending int
	recent                    *recentRing // the last batches appended, for reads at the log end; nil until one is
	// prealloc is where the blocks preallocate reserved past size end,
	// noPrealloc is set when the file cannot have any (writer only).
	prealloc   int64
	noPrealloc bool

	verified atomic.Bool

	// Files, guarded by Log.fileMu. log is nil while closed; the active
	// segment's log and indexes are always open, the others' log is opened
	// on use and kept in an LRU list, their indexes are opened only to be
	// rewritten or fsynced.
	log, index, timeIndex vfs.File
	pins                  int  // users of log right now: not evictable
	writerPin             bool // rolled before its last fsync: kept open until Flush syncs it
	lruPrev, lruNext      *segment
	inLRU                 bool
}

// segmentName returns the file name of the segment with the given base
// offset and suffix, e.g. "00000000000000000042.log".
func segmentName(base uint64, suffix string) string {
	return fmt.Sprintf("%020d%s", base, suffix)
}

// parseSegmentName returns the base offset of a file named like a segment
// log file. Names that are not exactly 20 digits plus ".log", or whose offset
// does not fit int64, are not segments.
func parseSegmentName(name string) (uint64, bool) { return parseStem(name, segmentSuffix) }

// parseStem is parseSegmentName for any suffix (".index", ".timeindex").
func parseStem(name, suffix string) (uint64, bool) {
	digits, ok := strings.CutSuffix(name, suffix)
	if !ok || len(digits) != 20 {
		return 0, false
	}
	// 20 digits overflow uint64 only from 18446744073709551616 on, so
	// the first digit is checked against int64 on its own.
	var base uint64
	for i := 0; i < len(digits); i++ {
		c := digits[i] - '0'
		if c > 9 {
			return 0, false
		}
		if i == 0 && c > 0 {
			return 0, false // >= 10^19 > MaxInt64
		}
		base = base*10 + uint64(c)
	}
	return base, base <= math.MaxInt64
}

// newSegment returns the in-memory state of a segment whose files exist
// (or are about to): unverified, size unknown, next = base.
func newSegment(dir string, base uint64) *segment {
	return &segment{base: base, dir: dir, size: -1, next: base, maxTimestamp: noTimestamp}
}

// path returns the path of the segment's file with the given suffix.
func (s *segment) path(suffix string) string {
	return filepath.Join(s.dir, segmentName(s.base, suffix))
}

// name returns the segment's log file name, for errors and reports.
func (s *segment) name() string { return segmentName(s.base, segmentSuffix) }

// createSegmentFiles creates (emptying if they exist) the log, index and
// time index files of a new segment and opens them: the files of a new active segment.
func createSegmentFiles(fsys vfs.FS, dir string, base uint64) (*segment, error) {
	s := newSegment(dir, base)
	lf, err := fsys.OpenFile(s.path(segmentSuffix), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("log: create segment: %w", err)
	}
	xf, err := fsys.OpenFile(s.path(indexSuffix), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		lf.Close()
		return nil, fmt.Errorf("log: create index: %w", err)
	}
	tf, err := fsys.OpenFile(s.path(timeIndexSuffix), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		lf.Close()
		xf.Close()
		return nil, fmt.Errorf("log: create time index: %w", err)
	}
	s.log, s.index, s.timeIndex, s.size = lf, xf, tf, 0
	s.verified.Store(true)
	return s, nil
}

// readFull reads exactly len(p) bytes at pos of the log file, which must be
// open. Callers only ask for bytes below size, so a short read means the
// file was changed behind the log's back.
func (s *segment) readFull(p []byte, pos int64) error {
	n, err := s.log.ReadAt(p, pos)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("log: read %s at %d: %w", s.name(), pos, err)
}

// storedBatch is what the log needs from the header of a batch it already
// verified: where it ends and which offsets it holds.
type storedBatch struct {
	base         uint64 // BaseOffset
	next         uint64 // NextOffset
	size         int    // total bytes
	maxTimestamp int64  // MaxTimestamp
	records      int32  // RecordCount
}

// peekBatch reads the fields of a stored batch from its first
// BatchHeaderSize bytes without checking the CRC: stored batches were
// verified when they entered the log or when the segment was verified. It
// still refuses a size below the header (the file was changed behind the
// log's back) rather than loop.
func peekBatch(hdr []byte) (storedBatch, error) {
	size := int(storedSize(hdr))
	if size < BatchHeaderSize {
		return storedBatch{}, &CorruptError{Pos: posBatchLength, Err: ErrBadLength}
	}
	base := storedBaseOffset(hdr)
	return storedBatch{
		base:         base,
		next:         base + uint64(storedLastOffsetDelta(hdr)) + 1,
		size:         size,
		maxTimestamp: int64(binary.BigEndian.Uint64(hdr[posMaxTimestamp:])),
		records:      int32(binary.BigEndian.Uint32(hdr[posRecordCount:])),
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
		return storedBatch{}, fmt.Errorf("log: stored batch at %d of %s: %w", pos, s.name(), ErrBadLength)
	}
	return b, nil
}

// locate finds the batch holding off (the first batch whose last offset is
// >= off). It starts at the index entry at or below off, or at a recently
// appended batch at or below off when that is closer (a fetch at the log
// end then costs one header read), and reads batch headers forward, so it
// touches at most about one index interval of headers. With wantPrev it
// starts one entry earlier, so that prevNext is the NextOffset of the batch
// before the found one (the segment base if there is none), which
// truncation needs. found is false when every batch ends before off; pos is
// then size and prevNext is next. The segment is verified and its log file
// open.
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
	if !wantPrev && s.recent != nil {
		if rpos, ok := s.recent.floor(off); ok && rpos > pos {
			pos = rpos
		}
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

// recentRing remembers the positions of the last recentSize batches
// appended to a segment. A follower fetches from the offset its previous
// fetch ended at, which is where a recent append began, so a read at or
// near the log end finds its first batch without walking headers.
type recentRing struct {
	off [recentSize]uint64
	pos [recentSize]int64
	n   int // valid entries, the newest at (head-1) mod recentSize
	hd  int
}

const recentSize = 16

// add records that the batch with base offset off starts at pos.
func (r *recentRing) add(off uint64, pos int64) {
	r.off[r.hd], r.pos[r.hd] = off, pos
	r.hd = (r.hd + 1) % recentSize
	r.n = min(r.n+1, recentSize)
}

// floor returns the position of the newest recorded batch whose base
// offset is <= off.
func (r *recentRing) floor(off uint64) (int64, bool) {
	for k := 1; k <= r.n; k++ {
		i := (r.hd - k + recentSize) % recentSize
		if r.off[i] <= off {
			return r.pos[i], true
		}
	}
	return 0, false
}

// start returns the position of the recorded batch whose base offset is
// off. r may be nil.
func (r *recentRing) start(off uint64) (int64, bool) {
	for k := 1; r != nil && k <= r.n; k++ {
		i := (r.hd - k + recentSize) % recentSize
		if r.off[i] == off {
			return r.pos[i], true
		}
		if r.off[i] < off {
			break
		}
	}
	return 0, false
}

// size returns the size of the recorded batch whose base offset is off,
// in a segment of end bytes: up to the next recorded batch, or to end for
// the newest. r may be nil.
func (r *recentRing) size(off uint64, end int64) (int, bool) {
	for k := 1; r != nil && k <= r.n; k++ {
		i := (r.hd - k + recentSize) % recentSize
		if r.off[i] == off {
			if k > 1 {
				end = r.pos[(i+1)%recentSize]
			}
			return int(end - r.pos[i]), true
		}
		if r.off[i] < off {
			break
		}
	}
	return 0, false
}

// cut forgets batches at or past pos (a truncation).
func (r *recentRing) cut(pos int64) {
	for r != nil && r.n > 0 {
		i := (r.hd - 1 + recentSize) % recentSize
		if r.pos[i] < pos {
			return
		}
		r.hd, r.n = i, r.n-1
	}
}
