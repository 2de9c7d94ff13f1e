package log

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// Read appends to dst whole stored batches, byte for byte as they were
// appended, and returns the extended slice. It starts with the batch that
// holds offset from (so the first batch may begin before from, as in Kafka;
// after compaction, it may be an empty batch covering from) and continues across
// segments with consecutive batches while they fit in maxBytes in total. The
// first batch is returned even if it alone exceeds maxBytes, so a reader
// always makes progress (Kafka's minOneMessage).
//
// The read is bounded by the LEO with IsolationLogEnd (followers) or by the
// HW with IsolationHighWatermark (consumers): only batches whose last offset
// is below the bound are returned. A batch the HW falls inside is held back
// whole until the HW passes its end, as in Kafka (whose HW position is the
// start of that batch), because a consumer must never see an uncommitted
// record; the LEO is always a batch end, so followers lose nothing by it.
// from below StartOffset or above EndOffset is ErrOffsetOutOfRange; from at
// or past the bound (but within the log) returns dst unchanged and no error:
// there is nothing to read yet.
//
// maxBytes is clamped to Options.MaxReadBytes, so a read never grows dst by
// more than that bound plus one batch (for batches a leader accepted, at
// most Options.MaxBatchBytes).
//
// Bytes are copied from the files with pread straight into dst; nothing is
// decoded or re-encoded, and Read does not allocate when dst has capacity
// for the result (plus one batch header, used as scratch). A read from
// where a recent append began finds its first batch without a header read,
// one near the log end with one (the active segment remembers where its
// recent appends began). The first read of a
// segment Open did not verify verifies it in full; damage there is a
// *CorruptError (matching ErrCorrupt) and puts the log in the failed state,
// never wrong bytes. A failed log's reads return ErrLogFailed.
func (l *Log) Read(dst []byte, from uint64, maxBytes int, iso Isolation) ([]byte, error) {
	if iso != IsolationLogEnd && iso != IsolationHighWatermark {
		return dst, fmt.Errorf("log: read with %v: %w", iso, ErrInvalidArgument)
	}
	for {
		out, needActive, err := l.read(dst, from, maxBytes, iso)
		if !needActive {
			return out, err
		}
		// The active segment is unverified (the first read after a clean
		// shutdown): only the writer may verify it.
		l.writeMu.Lock()
		err = l.usable()
		if err == nil {
			err = l.verify(l.active())
		}
		l.writeMu.Unlock()
		if err != nil {
			return dst, err
		}
	}
}

// read is Read under mu. needActive reports that it must first verify the
// active segment, which it cannot do holding mu; dst is then unchanged.
func (l *Log) read(dst []byte, from uint64, maxBytes int, iso Isolation) (_ []byte, needActive bool, err error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if err := l.usable(); err != nil {
		return dst, false, err
	}
	start, leo := l.start, l.endOffset()
	if from < start || from > leo {
		return dst, false, fmt.Errorf("log: read from offset %d, log holds [%d, %d): %w", from, start, leo, ErrOffsetOutOfRange)
	}
	bound := leo
	if iso == IsolationHighWatermark {
		bound = l.hw
	}
	if from >= bound {
		return dst, false, nil
	}

	// A negative budget is 0 (the first batch only); clamping it here keeps
	// the per-segment remainder below from wrapping around near MinInt.
	maxBytes = min(max(maxBytes, 0), l.opts.MaxReadBytes)
	origLen := len(dst)
	if cap(dst)-len(dst) < BatchHeaderSize {
		dst = slices.Grow(dst, BatchHeaderSize)
	}
	si := l.segmentFor(from)
	var pos int64
	for first := true; si < len(l.segments); si, pos, first = si+1, 0, false {
		s := l.segments[si]
		if !s.verified.Load() {
			if si == len(l.segments)-1 {
				return dst[:origLen], true, nil
			}
			if err := l.verify(s); err != nil {
				return dst[:origLen], false, err
			}
		}
		if err := l.acquire(s); err != nil {
			return dst[:origLen], false, err
		}
		if first {
			// A fetch from where a recent append began (a follower's next
			// fetch) needs no header read to find its batch.
			var found bool
			if pos, found = s.recent.start(from); !found {
				pos, _, _, found, err = s.locate(from, dst[len(dst):len(dst)+BatchHeaderSize], false)
			}
			if err == nil && !found {
				// from is past this segment's batches: the next one.
				l.release(s)
				continue
			}
		}
		var more bool
		if err == nil {
			dst, more, err = s.readBatches(dst, pos, bound, maxBytes-(len(dst)-origLen), len(dst) == origLen)
		}
		l.release(s)
		if err != nil {
			return dst[:origLen], false, l.fail(err)
		}
		if !more {
			break
		}
	}
	return dst, false, nil
}

// readBatches appends to dst the whole batches of s from pos on whose last
// offsets are below bound and that fit in budget bytes, except that with
// first set the first batch is appended whatever its size. more reports
// that the segment ran out before the bound or the budget did, so the read
// may continue in the next segment. The caller holds Log.mu.
func (s *segment) readBatches(dst []byte, pos int64, bound uint64, budget int, first bool) (_ []byte, more bool, err error) {
	limit := s.size
	if bound < s.next {
		// No batch with a base offset below bound starts at or after the
		// first index entry at or above bound: don't read past it.
		if p, ok := s.ceilPos(bound); ok {
			limit = p
		}
	}
	if pos >= limit {
		return dst, pos == s.size, nil
	}
	want := min(int64(max(budget, 0)), limit-pos)
	if first {
		want = max(want, min(BatchHeaderSize, limit-pos))
	}
	if want < BatchHeaderSize {
		return dst, false, nil // no room for another batch
	}
	n := int(want)
	at := len(dst)
	dst = slices.Grow(dst, n)[:at+n]
	if err := s.readFull(dst[at:], pos); err != nil {
		return dst[:at], false, err
	}
	// Keep the whole batches below the bound; the rest of the chunk is
	// dropped (reading it was one pread either way). This walk is the
	// per-batch cost of a read, so it reads the fields it needs directly,
	// and the offsets only when the bound can cut.
	checkBound := bound < s.next
	p := 0
	if skip, ok := s.skipPoint(pos, pos+int64(n), bound); ok {
		// Every batch before an index entry inside the chunk is whole and
		// below the bound: walk only from the last such entry.
		p = int(skip - pos)
	}
	for p+BatchHeaderSize <= n {
		hdr := dst[at+p : at+p+BatchHeaderSize]
		size := int(storedSize(hdr))
		if size < BatchHeaderSize {
			return dst[:at], false, fmt.Errorf("log: stored batch at %d of %s: %w", pos+int64(p), segmentName(s.base, segmentSuffix), ErrBadLength)
		}
		// The batch ends at or past the bound (its base + lastOffsetDelta
		// + 1 > bound); written so it cannot overflow.
		if base := storedBaseOffset(hdr); checkBound && (base >= bound || uint64(storedLastOffsetDelta(hdr)) >= bound-base) {
			return dst[:at+p], false, nil
		}
		if p+size > n {
			if first && p == 0 {
				// A first batch larger than the budget is returned whole.
				dst = slices.Grow(dst[:at+n], size-n)[:at+size]
				if err := s.readFull(dst[at+n:], pos+int64(n)); err != nil {
					return dst[:at], false, err
				}
				return dst, false, nil
			}
			return dst[:at+p], false, nil
		}
		p += size
	}
	// Either the chunk ended on a batch boundary (at limit, or where the
	// budget ran out) or a partial header is left (the budget ran out).
	// Only a chunk that consumed the whole segment lets the read go on.
	return dst[:at+p], p == n && pos+int64(p) == s.size, nil
}

// skipPoint returns the position of the last index entry e with
// lo < e.pos <= hi and an offset <= bound, if any. Entries are batch
// boundaries, and every batch before e has a base offset below e's, so a
// reader that has the bytes [lo, hi) can take all of [lo, e.pos) unexamined.
func (s *segment) skipPoint(lo, hi int64, bound uint64) (int64, bool) {
	i := s.floorEntry(bound)
	// Entries are sorted by position too: step down to the last one <= hi.
	j, k := 0, i+1 // entries[:j] have pos <= hi, entries[k:] do not
	for j < k {
		mid := int(uint(j+k) >> 1)
		if int64(s.entries[mid].pos) <= hi {
			j = mid + 1
		} else {
			k = mid
		}
	}
	if j == 0 || int64(s.entries[j-1].pos) <= lo {
		return 0, false
	}
	return int64(s.entries[j-1].pos), true
}

// generations hands out log generations, unique within the process.
var generations atomic.Uint64

// newGeneration gives the log a new generation.
func (l *Log) newGeneration() { l.gen.Store(generations.Add(1)) }

// Generation returns the log's generation: a value that changes whenever
// batches the log holds may change or go other than by an append
// (truncation, compaction, retention, a new log start), and when the log
// fails or closes; appends keep it. No two logs of a process ever share
// one. Read right after an append, it vouches for that append's bytes:
// see ReadsAppended.
func (l *Log) Generation() uint64 { return l.gen.Load() }

// ReadsAppended reports whether Read(dst, from, maxBytes, IsolationLogEnd)
// would return exactly batches, the caller's slice of an append made at
// generation gen (Generation, read right after it): AppendAsLeader stamps
// its slice in place, so that it holds the stored bytes. That is so when
// the log is still usable and at generation gen (only appends since, so
// those bytes are still the log's), from is where the append began,
// maxBytes, clamped as Read clamps it, takes all of batches (or they are a
// single batch, which Read returns whole), and the log either ends with
// them or the batch after them does not fit in maxBytes too. A leader then
// sends those bytes to a follower instead of reading them back from the
// file, as Kafka's leader serves a follower near the log end from the page
// cache. It answers false (read instead) when it cannot tell cheaply: the
// batch after them must be one of the active segment's recent appends.
//
// The caller must not have changed batches since the append, and an
// append AppendInfo.Duplicate describes wrote nothing, so its slice is
// never the log's.
func (l *Log) ReadsAppended(batches []byte, gen, from uint64, maxBytes int) bool {
	if len(batches) < BatchHeaderSize || l.gen.Load() != gen {
		return false
	}
	// The batches' own framing: where they end, and whether they are one.
	var end uint64
	n := 0
	for pos := 0; pos < len(batches); n++ {
		if len(batches)-pos < BatchHeaderSize {
			return false
		}
		b, err := peekBatch(batches[pos:])
		if err != nil || (n == 0 && b.base != from) || (n > 0 && b.base != end) {
			return false
		}
		end, pos = b.next, pos+b.size
		if pos > len(batches) {
			return false
		}
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.usable() != nil || l.gen.Load() != gen || from < l.start || end > l.endOffset() {
		return false
	}
	maxBytes = min(max(maxBytes, 0), l.opts.MaxReadBytes)
	if len(batches) > maxBytes && n > 1 {
		return false // Read stops inside them
	}
	if end == l.endOffset() {
		return true
	}
	// Read goes on with the next batch if it fits.
	s := l.active()
	size, ok := s.recent.size(end, s.size)
	return ok && len(batches)+size > maxBytes
}
