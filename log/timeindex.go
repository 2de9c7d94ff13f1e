package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// timeIndexSuffix names a segment's time index file (Kafka's TimeIndex).
const timeIndexSuffix = ".timeindex"

// timeEntrySize is the size of one time index entry on disk: an int64
// timestamp, then a uint32 offset relative to the segment base, both
// big-endian, as in Kafka's TimeIndex.
const timeEntrySize = 12

// timeEntry says that the segment's largest timestamp up to the batch
// holding offset segment.base + rel is ts, and that this batch is the first
// of the segment to reach it: every batch before it has a smaller
// MaxTimestamp. rel is the batch's last offset (Kafka's offset of the max
// timestamp for a v2 batch). at, in memory only, is the byte position of
// the batch whose append added the entry (the one its offset index entry
// names), so that a truncation keeps exactly the entries a rebuild would.
type timeEntry struct {
	ts  int64
	rel uint32
	at  uint32
}

// maxTime is a segment's largest batch MaxTimestamp so far and the last
// offset of the first batch that reached it (Kafka's LogSegment
// maxTimestampAndOffsetSoFar); ts is noTimestamp while no batch had a
// timestamp above it.
type maxTime struct {
	ts  int64
	off uint64
}

// noMaxTime is the maxTime of an empty segment.
var noMaxTime = maxTime{ts: noTimestamp}

// observe takes one batch, in log order: Kafka's strict ">", so the
// offset stays the first batch's when later ones repeat the maximum. A
// batch without records (compaction's over emptied batches, or a
// follower's over a gap) holds no record with a timestamp: it does not
// count, so the maximum is always some record's timestamp.
func (m *maxTime) observe(batchMaxTs int64, lastOffset uint64, records int32) {
	if records > 0 && batchMaxTs > m.ts {
		m.ts, m.off = batchMaxTs, lastOffset
	}
}

// lastTs returns the timestamp of the last entry, noTimestamp if none.
func lastTs(times []timeEntry) int64 {
	if len(times) == 0 {
		return noTimestamp
	}
	return times[len(times)-1].ts
}

// timeEntryFor returns the time index entry a batch that gets an offset
// index entry at byte at adds, given the segment's maximum including that
// batch and the timestamp of the last entry so far: one exactly when the
// maximum grew past it (Kafka's TimeIndex.maybeAppend, called where the
// offset index gets an entry). Entries are thus a pure function of the
// batches, like the offset index's, and Open can check the file byte for
// byte.
func timeEntryFor(m maxTime, last int64, base uint64, at int64) (timeEntry, bool) {
	if m.ts <= last {
		return timeEntry{}, false
	}
	return timeEntry{ts: m.ts, rel: uint32(m.off - base), at: uint32(at)}, true
}

// floorTime returns the index of the last entry whose timestamp is <= ts,
// or -1 if none is (Kafka's TimeIndex.lookup, whose answer is then the
// segment base).
func floorTime(times []timeEntry, ts int64) int {
	lo, hi := 0, len(times) // times[:lo] are <= ts
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if times[mid].ts <= ts {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// appendTimeEntries encodes entries onto dst in the on-disk format.
func appendTimeEntries(dst []byte, entries []timeEntry) []byte {
	for _, e := range entries {
		dst = binary.BigEndian.AppendUint64(dst, uint64(e.ts))
		dst = binary.BigEndian.AppendUint32(dst, e.rel)
	}
	return dst
}

// errTimeIndex says why a time index file is not plausible.
var errTimeIndex = errors.New("log: implausible time index")

// decodeTimeIndex decodes the bytes of a time index file of a segment with
// the given base offset whose offsets end below next, and checks what a
// file can be checked for without the batches: whole entries, timestamps
// strictly increasing and above noTimestamp, offsets non-decreasing and
// inside the segment. maxEntries bounds the count (the segment's batches
// can have no more entries than offset index entries), checked before
// anything is allocated. The positions (at) are not in the file: they are
// left 0, so entries decoded here serve only to continue the file; reads
// use the entries rebuilt when the segment is verified.
func decodeTimeIndex(data []byte, base, next uint64, maxEntries int64) ([]timeEntry, error) {
	if len(data)%timeEntrySize != 0 {
		return nil, fmt.Errorf("%w: %d bytes are not whole entries", errTimeIndex, len(data))
	}
	n := int64(len(data) / timeEntrySize)
	if n > maxEntries {
		return nil, fmt.Errorf("%w: %d entries, the segment can have %d", errTimeIndex, n, maxEntries)
	}
	span := next - base
	entries := make([]timeEntry, 0, n)
	for p := 0; p < len(data); p += timeEntrySize {
		e := timeEntry{ts: int64(binary.BigEndian.Uint64(data[p:])), rel: binary.BigEndian.Uint32(data[p+8:])}
		if uint64(e.rel) >= span {
			return nil, fmt.Errorf("%w: entry %d: offset %d outside the segment", errTimeIndex, len(entries), uint64(e.rel)+base)
		}
		if e.ts <= lastTs(entries) {
			return nil, fmt.Errorf("%w: entry %d: timestamp %d not above %d", errTimeIndex, len(entries), e.ts, lastTs(entries))
		}
		if k := len(entries); k > 0 && e.rel < entries[k-1].rel {
			return nil, fmt.Errorf("%w: entry %d: offset goes back", errTimeIndex, len(entries))
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// readTimeIndexEntries loads the time index file f of the active segment
// that a clean shutdown vouches for (base offset base, size bytes, offsets
// below next), so that appends can continue it. ok is false if the file is
// implausible (decodeTimeIndex) or its last entry disagrees with the
// segment's maximum that the marker recorded. The size is bounded before
// anything is read.
func readTimeIndexEntries(f vfs.File, base uint64, size int64, next uint64, m maxTime) (entries []timeEntry, ok bool, err error) {
	n, err := f.Size()
	if err != nil {
		return nil, false, err
	}
	maxEntries := size/BatchHeaderSize + 1
	if n%timeEntrySize != 0 || n/timeEntrySize > maxEntries {
		return nil, false, nil
	}
	data := make([]byte, n)
	if k, err := f.ReadAt(data, 0); int64(k) != n {
		return nil, false, fmt.Errorf("log: read time index: %w", err)
	}
	entries, derr := decodeTimeIndex(data, base, next, maxEntries)
	if derr != nil || lastTs(entries) > m.ts {
		return nil, false, nil
	}
	return entries, true, nil
}

// writeTimeIndexFile makes the time index file f hold exactly entries,
// rewriting it if the stored bytes differ. It reports whether it rewrote
// the file.
func writeTimeIndexFile(f vfs.File, entries []timeEntry) (bool, error) {
	return writeDerivedFile(f, appendTimeEntries(make([]byte, 0, len(entries)*timeEntrySize), entries), "time index")
}

// floorTimeBefore returns how many time entries were added by batches
// starting below pos: the ones that survive cutting the segment at pos.
func (s *segment) floorTimeBefore(pos int64) int {
	n := len(s.times)
	for n > 0 && int64(s.times[n-1].at) >= pos {
		n--
	}
	return n
}

// maxTimeBefore recomputes the segment's maximum over its batches below
// pos (a cut there), keeping the first keep index entries and time
// entries: the last kept time entry holds the maximum up to the last kept
// offset index entry's batch, so only the headers from there to pos are
// read, less than one index interval plus one batch. The segment is
// verified and its log file open.
func (s *segment) maxTimeBefore(pos int64, keepEntries, keepTimes int, scratch []byte) (maxTime, error) {
	m := noMaxTime
	if keepTimes > 0 {
		e := s.times[keepTimes-1]
		m = maxTime{ts: e.ts, off: s.base + uint64(e.rel)}
	}
	at := int64(0)
	if keepEntries > 0 {
		at = int64(s.entries[keepEntries-1].pos)
	}
	for at < pos {
		b, err := s.batchAt(at, scratch)
		if err != nil {
			return maxTime{}, err
		}
		m.observe(b.maxTimestamp, b.next-1, b.records)
		at += int64(b.size)
	}
	return m, nil
}

// TimestampOffset is where a lookup by time found a record: its offset and
// timestamp, and the leader epoch of its batch, as Kafka's ListOffsets
// answers (TimestampAndOffset).
type TimestampOffset struct {
	Offset      uint64 // the record's offset
	Timestamp   int64  // the record's timestamp (ms)
	LeaderEpoch int32  // the leader epoch of the record's batch
}

// OffsetForTimestamp returns the first record, in offset order, whose
// timestamp is at least ts: Kafka's ListOffsets by timestamp
// (UnifiedLog.fetchOffsetByTimestamp). It finds the first segment whose
// largest timestamp is at least ts, the time index entry of that segment at
// or below ts, and from the batch that entry names the first batch whose
// MaxTimestamp is at least ts; then the first record in it whose timestamp
// is (decompressing the batch if it is compressed). Records below
// StartOffset are not considered. found is false when no record qualifies.
//
// The whole log is searched, records above the high watermark included,
// as Kafka's log does; a broker that answers consumers drops an answer at
// or above the HW (Kafka's Partition.fetchOffsetForTimestamp). Segments
// Open did not verify are verified first, as for a read; damage is a
// *CorruptError and fails the log. A failed log returns ErrLogFailed.
func (l *Log) OffsetForTimestamp(ts int64) (to TimestampOffset, found bool, err error) {
	for {
		var needActive bool
		to, found, needActive, err = l.offsetForTimestamp(ts)
		if !needActive {
			return to, found, err
		}
		if err := l.verifyActive(); err != nil {
			return TimestampOffset{}, false, err
		}
	}
}

// verifyActive verifies the active segment, which only the writer may do.
func (l *Log) verifyActive() error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	return l.verify(l.active())
}

func (l *Log) offsetForTimestamp(ts int64) (to TimestampOffset, found, needActive bool, err error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if err := l.usable(); err != nil {
		return to, false, false, err
	}
	start := l.start
	for si := l.segmentFor(start); si < len(l.segments); si++ {
		s := l.segments[si]
		if !s.verified.Load() {
			if si == len(l.segments)-1 {
				return to, false, true, nil
			}
			if err := l.verify(s); err != nil {
				return to, false, false, err
			}
		}
		if s.maxTimestamp < ts || s.next <= start {
			continue
		}
		var pos int64
		if i := floorTime(s.times, ts); i >= 0 {
			off := max(s.base+uint64(s.times[i].rel), start)
			if j := s.floorEntry(off); j >= 0 {
				pos = int64(s.entries[j].pos)
			}
		} else if j := s.floorEntry(start); j >= 0 {
			pos = int64(s.entries[j].pos)
		}
		to, found, err = l.searchForTimestamp(s, pos, ts, start)
		if err != nil || found {
			return to, found, false, err
		}
		// Every record of batches with a large enough MaxTimestamp was
		// below the log start: the next segment may still hold one.
	}
	return to, false, false, nil
}

// searchForTimestamp reads s's batches from pos for the first one whose
// MaxTimestamp is at least ts and that ends at or past start, and returns
// its first record with a timestamp at least ts at or past start (Kafka's
// LogSegment.findOffsetByTimestamp and FileRecords.searchForTimestamp).
// The caller holds mu; s is verified.
func (l *Log) searchForTimestamp(s *segment, pos int64, ts int64, start uint64) (to TimestampOffset, found bool, err error) {
	if err := l.acquire(s); err != nil {
		return to, false, err
	}
	defer l.release(s)
	var hdr [BatchHeaderSize]byte
	for pos < s.size {
		b, err := s.batchAt(pos, hdr[:])
		if err != nil {
			return to, false, l.fail(err)
		}
		if b.maxTimestamp >= ts && b.next > start {
			to, found, err = l.recordForTimestamp(s, pos, b.size, ts, start)
			if err != nil || found {
				return to, found, err
			}
		}
		pos += int64(b.size)
	}
	return to, false, nil
}

// recordForTimestamp reads the batch of size bytes at pos of s and returns
// its first record at or past start whose timestamp is at least ts.
func (l *Log) recordForTimestamp(s *segment, pos int64, size int, ts int64, start uint64) (to TimestampOffset, found bool, err error) {
	buf := make([]byte, size)
	if err := s.readFull(buf, pos); err != nil {
		return to, false, l.fail(err)
	}
	var b Batch
	if _, err := b.decodeAt(buf, 0, l.opts.maxInflatedBytes()); err != nil {
		// The batch was verified when it entered the log; its records
		// decode unless its codec has no decompressor here (a follower's
		// copy of what its leader could decompress).
		return to, false, fmt.Errorf("log: look up timestamp %d in %s at byte %d: %w", ts, s.name(), pos, err)
	}
	for i := range b.Records {
		r := &b.Records[i]
		off := b.BaseOffset + uint64(r.OffsetDelta)
		rts := b.BaseTimestamp + r.TimestampDelta
		if b.Attributes&AttrLogAppendTime != 0 {
			rts = b.MaxTimestamp // Kafka: every record of such a batch has the batch's time
		}
		if rts >= ts && off >= start {
			return TimestampOffset{Offset: off, Timestamp: rts, LeaderEpoch: b.PartitionLeaderEpoch}, true, nil
		}
	}
	return to, false, nil
}

// OffsetOfMaxTimestamp returns the record with the largest timestamp in
// the log, the first one if several share it: Kafka's ListOffsets
// MAX_TIMESTAMP (-3, KIP-734). It takes the segment with the largest
// maximum (the first of equals), the first batch in it whose MaxTimestamp
// is that maximum, and the first record in that batch with that timestamp
// (Kafka 3.8's fix of KAFKA-16310: the record's offset, not the batch's).
// found is false for a log without records, or whose records all lie
// below StartOffset in their segment. As with OffsetForTimestamp, the
// whole log is searched and unverified segments are verified first, every
// one of them, since each segment's maximum is needed.
func (l *Log) OffsetOfMaxTimestamp() (to TimestampOffset, found bool, err error) {
	for {
		var needActive bool
		to, found, needActive, err = l.offsetOfMaxTimestamp()
		if !needActive {
			return to, found, err
		}
		if err := l.verifyActive(); err != nil {
			return TimestampOffset{}, false, err
		}
	}
}

func (l *Log) offsetOfMaxTimestamp() (to TimestampOffset, found, needActive bool, err error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if err := l.usable(); err != nil {
		return to, false, false, err
	}
	start := l.start
	var best *segment
	for si := l.segmentFor(start); si < len(l.segments); si++ {
		s := l.segments[si]
		if !s.verified.Load() {
			if si == len(l.segments)-1 {
				return to, false, true, nil
			}
			if err := l.verify(s); err != nil {
				return to, false, false, err
			}
		}
		if s.maxTimestamp != noTimestamp && (best == nil || s.maxTimestamp > best.maxTimestamp) {
			best = s
		}
	}
	if best == nil {
		return to, false, false, nil
	}
	// The batch holding best's maximum is the first batch to reach it:
	// search from the offset index entry at or below it.
	off := max(best.maxTimestampOffset, start)
	var pos int64
	if j := best.floorEntry(off); j >= 0 {
		pos = int64(best.entries[j].pos)
	}
	to, found, err = l.searchForTimestamp(best, pos, best.maxTimestamp, start)
	return to, found, false, err
}

// removeTimeIndex deletes s's time index file; a missing one is fine.
func removeTimeIndex(fsys vfs.FS, s *segment) error {
	if err := fsys.Remove(s.path(timeIndexSuffix)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// maxTime returns s's maximum so far.
func (s *segment) maxTime() maxTime { return maxTime{ts: s.maxTimestamp, off: s.maxTimestampOffset} }
