package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// AppendInfo describes what an append wrote, computed in the same pass
// that verified the batches.
type AppendInfo struct {
	// FirstOffset is the base offset of the first batch appended: the LEO
	// before the append for a leader; for a follower, the first fetched
	// batch's base (offsets between the old LEO and it are covered by an
	// empty batch the follower wrote itself, see AppendAsFollower).
	FirstOffset uint64
	// NextOffset is the LEO after the append.
	NextOffset uint64
	// Records and Batches count the records and batches appended (an
	// empty gap-covering batch is not counted).
	Records, Batches int
	// Bytes is the number of bytes written, a gap-covering batch included.
	Bytes int
	// LastEpoch is the partitionLeaderEpoch of the last batch, -1 when
	// nothing was appended.
	LastEpoch int32
	// MaxTimestamp is the largest MaxTimestamp of the batches, -1 when
	// nothing was appended.
	MaxTimestamp int64
	// Duplicate is true when AppendAsLeader recognised the batch as a
	// retry of one of its producer's last ProducerBatchesRetained batches
	// (same producer id, epoch and sequence range) and wrote nothing:
	// FirstOffset and NextOffset are then the original batch's, as Kafka
	// answers a duplicate with the original offsets, and the counts are 0.
	Duplicate bool
}

// AppendAsLeader appends one or more whole batches as the partition leader
// does with a producer's request, and describes what it appended.
//
// Every batch is validated first, in one pass that also checks its CRC
// (validateLeaderBatch, Kafka's LogValidator: framing, size at most
// Options.MaxBatchBytes (ErrBatchTooLarge), CRC, a producer-legal header
// (ErrInvalidRecord), a codec with a registered Decompressor
// (ErrUnsupportedCompression) whose records inflate to at most
// Options.MaxInflation times MaxBatchBytes, and records that decode
// (ErrInvalidRecord, or the codec's *CorruptError with Pos relative to
// batches[0])). A compressed batch is decompressed to check its records
// and stored as sent, compressed. Only then are the batches stamped IN PLACE in the
// caller's slice: baseOffset consecutively from EndOffset,
// partitionLeaderEpoch to leaderEpoch (neither is covered by the CRC, so
// the producer's checksum stays), and maxTimestamp to the largest record
// timestamp if the producer wrote another (then the CRC is recomputed, as
// Kafka does). The stored bytes are exactly what the caller's slice then
// holds. An epoch newer than the cache's latest is assigned at the first
// offset, and the leader-epoch checkpoint written, before any byte.
//
// A batch with a producer id (an idempotent producer's) must be the only
// batch of its append (ErrInvalidRecord: Kafka's producers send one batch
// per partition per request), and is checked against the producer's state
// before anything is written (see "Producer state" in the package doc): a
// stale producer epoch is ErrInvalidProducerEpoch, a sequence that does not
// follow ErrOutOfOrderSequence, and a retry of one of its last batches is
// not written again but answered with the original's offsets
// (AppendInfo.Duplicate, no error).
//
// On any error before the write the log is unchanged, and on a
// validation error the slice is unchanged too. A multi-batch append is
// all-or-nothing for errors, but not for crashes: a crash can keep a
// prefix of its batches (recovery keeps whole batches only). A
// leaderEpoch below the cache's latest is ErrInvalidArgument; offsets that
// would take the LEO past MaxInt64 are ErrBadOffset.
//
// An empty slice appends nothing. In eager-HW mode the HW moves to the new
// LEO.
func (l *Log) AppendAsLeader(batches []byte, leaderEpoch int32) (AppendInfo, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	first := l.endOffset()
	info := AppendInfo{FirstOffset: first, NextOffset: first, LastEpoch: -1, MaxTimestamp: noTimestamp}
	if err := l.usable(); err != nil {
		return info, err
	}
	if len(batches) == 0 {
		return info, nil
	}
	if int64(len(batches)) > MaxSegmentBytes {
		return info, fmt.Errorf("log: append of %d bytes exceeds %d: %w", len(batches), MaxSegmentBytes, ErrInvalidArgument)
	}
	latest, haveLatest := l.epochs.LatestEpoch()
	if leaderEpoch < 0 || (haveLatest && leaderEpoch < latest) {
		return info, fmt.Errorf("log: leader append at epoch %d, the log is at epoch %d: %w", leaderEpoch, latest, ErrInvalidArgument)
	}
	next, maxTs := first, int64(noTimestamp)
	l.maxTimestamps = l.maxTimestamps[:0]
	var idem producerBatch   // the idempotent batch, if any
	var entry *producerEntry // its producer's state, if known
	idempotent := false
	for pos := 0; pos < len(batches); {
		h, err := validateLeaderBatchInflating(batches[pos:], l.opts.MaxBatchBytes, l.opts.maxInflatedBytes())
		if err != nil {
			return info, rebaseAppendError(err, pos)
		}
		// The LEO after it must fit int64 too: it goes on the wire.
		if next+uint64(h.LastOffsetDelta) >= math.MaxInt64 {
			return info, fmt.Errorf("log: batch at byte %d would take the log end past offset %d: %w", pos, int64(math.MaxInt64), ErrBadOffset)
		}
		if h.ProducerID >= 0 {
			h.BaseOffset = next // where it will be written
			idem, idempotent = producerBatchOf(&h)
		}
		next += uint64(h.LastOffsetDelta) + 1
		maxTs = max(maxTs, h.MaxTimestamp)
		l.maxTimestamps = append(l.maxTimestamps, h.MaxTimestamp)
		info.Records += int(h.RecordCount)
		info.Batches++
		pos += h.Size()
	}
	if idempotent {
		refused := AppendInfo{FirstOffset: first, NextOffset: first, LastEpoch: -1, MaxTimestamp: noTimestamp}
		if info.Batches > 1 {
			return refused, fmt.Errorf("log: an idempotent producer's batch must be alone in its append, this one has %d batches: %w", info.Batches, ErrInvalidRecord)
		}
		e, dup, err := l.producers.check(&idem)
		if err != nil {
			return refused, err
		}
		entry = e
		if dup != nil {
			return AppendInfo{FirstOffset: dup.FirstOffset, NextOffset: dup.LastOffset + 1, LastEpoch: -1, MaxTimestamp: noTimestamp, Duplicate: true}, nil
		}
	}
	seg, err := l.segmentForAppend(first, next, len(batches))
	if err != nil {
		return info, err
	}
	if !haveLatest || leaderEpoch > latest {
		if err := l.assignEpochs(leaderEpoch, first); err != nil {
			return info, err
		}
	}
	// Validated above, so none of the setters can fail; stamp only now
	// that the append is going ahead.
	off := first
	for pos, i := 0, 0; pos < len(batches); i++ {
		b, _ := peekBatch(batches[pos:])
		SetBaseOffset(batches[pos:], off)
		SetPartitionLeaderEpoch(batches[pos:], leaderEpoch)
		setLeaderMaxTimestamp(batches[pos:], l.maxTimestamps[i])
		off += b.next - b.base
		pos += b.size
	}
	if err := l.write(seg, nil, batches, next); err != nil {
		return info, err
	}
	switch {
	case entry != nil:
		entry.add(idem.epoch, idem.meta)
		l.producersGen++
	case idempotent:
		l.producers.apply(&idem)
		l.producersGen++
	}
	info.NextOffset, info.Bytes, info.LastEpoch, info.MaxTimestamp = next, len(batches), leaderEpoch, maxTs
	return info, nil
}

// AppendAsFollower appends batches copied from the leader, keeping the
// leader's offsets and epochs byte for byte, and describes what it
// appended. Every batch is verified once (framing and CRC-32C; a failure
// is the codec's *CorruptError with Pos relative to batches[0]), and the
// same pass counts the records and collects the epochs.
//
// Kafka's follower rule: the first batch must not start below EndOffset
// (ErrNotAtLogEnd); each next one must start where the previous ended
// (ErrNotAtLogEnd); epochs must not go below the epoch of the log's last
// batch, nor decrease within the append (ErrNotAtLogEnd: the logs
// diverged), nor be negative (ErrInvalidBatch). A first batch that starts
// above EndOffset (the leader's log has a gap, as an old compacted leader's
// may) is preceded in this log by an empty batch covering [EndOffset, its
// base), with the epoch of the batch after it, so that the follower's log
// stays provably contiguous; a gap of more than 2^31 offsets is
// ErrInvalidArgument. A last offset of MaxInt64 (the LEO would not fit
// int64) is ErrBadOffset.
//
// New epochs are assigned in the cache, and the leader-epoch checkpoint
// written, before the batch bytes: after any crash every batch's epoch is
// in the checkpoint. The producer state takes the batches' producer
// fields as they are, without the leader's sequence checks (Kafka does not
// validate a replicated append). On any error before the write the log is
// unchanged. An
// empty slice (a fetch that returned nothing) is a no-op. In eager-HW mode
// the HW moves to the new LEO.
func (l *Log) AppendAsFollower(batches []byte) (AppendInfo, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	first := l.endOffset()
	info := AppendInfo{FirstOffset: first, NextOffset: first, LastEpoch: -1, MaxTimestamp: noTimestamp}
	if err := l.usable(); err != nil {
		return info, err
	}
	if len(batches) == 0 {
		return info, nil
	}
	if int64(len(batches)) > MaxSegmentBytes-BatchHeaderSize {
		return info, fmt.Errorf("log: append of %d bytes exceeds %d: %w", len(batches), MaxSegmentBytes-BatchHeaderSize, ErrInvalidArgument)
	}
	prevEpoch := l.lastBatchEpoch()
	// The cache's latest entry, which a batch either continues (same
	// epoch, from a later offset) or replaces (Kafka's assign: an entry the
	// leader added at the LEO for an epoch that never appended).
	latest, haveLatest := l.epochs.LatestEpoch()
	latestStart, _ := l.epochs.StartOffsetOf(latest)
	l.assignments = l.assignments[:0]
	l.producerBatch = l.producerBatch[:0]
	next, maxTs := first, int64(noTimestamp)
	var firstEpoch int32
	for pos := 0; pos < len(batches); {
		h, err := VerifyBatch(batches[pos:])
		if err != nil {
			return info, rebaseAppendError(err, pos)
		}
		e := h.PartitionLeaderEpoch
		switch {
		case pos == 0 && h.BaseOffset < next:
			return info, fmt.Errorf("log: batch at byte 0 starts at offset %d, below the log end offset %d: %w", h.BaseOffset, next, ErrNotAtLogEnd)
		case pos > 0 && h.BaseOffset != next:
			return info, fmt.Errorf("log: batch at byte %d starts at offset %d, the previous batch ended at %d: %w", pos, h.BaseOffset, next, ErrNotAtLogEnd)
		case e < 0:
			return info, fmt.Errorf("log: batch at byte %d has leader epoch %d: %w", pos, e, ErrInvalidBatch)
		case e < prevEpoch:
			return info, fmt.Errorf("log: batch at byte %d has leader epoch %d, older than %d before it: %w", pos, e, prevEpoch, ErrNotAtLogEnd)
		case h.LastOffset() == math.MaxInt64:
			return info, fmt.Errorf("log: batch at byte %d would take the log end past offset %d: %w", pos, int64(math.MaxInt64), ErrBadOffset)
		}
		if pos == 0 {
			info.FirstOffset, firstEpoch = h.BaseOffset, e
		}
		start := h.BaseOffset
		if pos == 0 {
			start = next // the gap-covering batch, if any, starts the epoch
		}
		if !haveLatest || e != latest || start < latestStart {
			l.assignments = append(l.assignments, epochStart{e, start})
			latest, latestStart, haveLatest = e, start, true
		}
		prevEpoch = e
		next = h.NextOffset()
		maxTs = max(maxTs, h.MaxTimestamp)
		if b, ok := producerBatchOf(&h); ok {
			l.producerBatch = append(l.producerBatch, b)
		}
		info.Records += int(h.RecordCount)
		info.Batches++
		pos += h.Size()
	}
	var filler []byte
	if gap := info.FirstOffset - first; gap > 0 {
		if gap-1 > math.MaxInt32 {
			return info, fmt.Errorf("log: the leader's log jumps from %d to %d, more than one empty batch can cover: %w", first, info.FirstOffset, ErrInvalidArgument)
		}
		l.filler = appendEmptyBatch(l.filler[:0], first, int32(gap-1), firstEpoch, noTimestamp, noTimestamp)
		filler = l.filler
	}
	seg, err := l.segmentForAppend(first, next, len(filler)+len(batches))
	if err != nil {
		return info, err
	}
	if len(l.assignments) > 0 {
		if err := l.assignEpochs(-1, 0); err != nil {
			return info, err
		}
	}
	if err := l.write(seg, filler, batches, next); err != nil {
		return info, err
	}
	for i := range l.producerBatch {
		l.producers.apply(&l.producerBatch[i])
	}
	if len(l.producerBatch) > 0 {
		l.producersGen++
	}
	info.NextOffset, info.Bytes, info.LastEpoch, info.MaxTimestamp = next, len(filler)+len(batches), prevEpoch, maxTs
	return info, nil
}

// epochStart is an epoch a follower append assigns.
type epochStart struct {
	epoch int32
	start uint64
}

// lastBatchEpoch returns the epoch of the log's last batch (the cache entry
// covering LEO-1), or -1 for an empty log. The caller holds writeMu.
func (l *Log) lastBatchEpoch() int32 {
	leo := l.endOffset()
	if leo == l.start {
		return -1
	}
	if e, ok := l.epochs.EpochForOffset(leo - 1); ok {
		return e
	}
	return -1
}

// assignEpochs assigns (e, start) (e >= 0), or the pending follower
// assignments (e < 0), in a copy of the cache, writes the leader-epoch
// checkpoint, and only then adopts the copy: after a crash the checkpoint
// holds the epoch of every batch on disk. The caller holds writeMu.
func (l *Log) assignEpochs(e int32, start uint64) error {
	c := l.epochs.Clone()
	pending := l.assignments
	if e >= 0 {
		pending = []epochStart{{e, start}}
	}
	for _, a := range pending {
		if err := c.Assign(a.epoch, a.start); err != nil {
			return fmt.Errorf("log: %w: %w", ErrInvalidArgument, err)
		}
	}
	if err := l.writeEpochCheckpoint(c); err != nil {
		return err
	}
	l.mu.Lock()
	l.epochs = c
	l.mu.Unlock()
	return nil
}

// appendEmptyBatch appends a batch with no records covering offsets
// [base, base+lastDelta]: 61 bytes, recordCount 0, attributes 0, producer
// fields -1, the given epoch and timestamps, and a valid CRC. Compaction
// writes one in place of a run of batches whose records all vanished, and
// a follower over a gap in its leader's log.
func appendEmptyBatch(dst []byte, base uint64, lastDelta int32, epoch int32, baseTs, maxTs int64) []byte {
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, base)
	dst = binary.BigEndian.AppendUint32(dst, minBatchLength)
	dst = binary.BigEndian.AppendUint32(dst, uint32(epoch))
	dst = append(dst, Magic)
	dst = binary.BigEndian.AppendUint32(dst, 0) // CRC, below
	dst = binary.BigEndian.AppendUint16(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(lastDelta))
	dst = binary.BigEndian.AppendUint64(dst, uint64(baseTs))
	dst = binary.BigEndian.AppendUint64(dst, uint64(maxTs))
	dst = binary.BigEndian.AppendUint64(dst, math.MaxUint64) // producerId -1
	dst = binary.BigEndian.AppendUint16(dst, math.MaxUint16) // producerEpoch -1
	dst = binary.BigEndian.AppendUint32(dst, math.MaxUint32) // baseSequence -1
	dst = binary.BigEndian.AppendUint32(dst, 0)              // recordCount
	b := dst[start:]
	binary.BigEndian.PutUint32(b[posCRC:], ChecksumCRC32C(b[posAttributes:]))
	return dst
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
// segments. The caller holds writeMu.
func (l *Log) segmentForAppend(first, next uint64, n int) (*segment, error) {
	// Checked before rolling, so a refused append leaves no new segment
	// behind: wherever the append lands (the active segment or a new one
	// based at first), it is indexable iff its span from first is.
	if next-1-first > math.MaxUint32 {
		return nil, fmt.Errorf("log: append spans offsets [%d, %d), more than a segment can index: %w", first, next, ErrInvalidArgument)
	}
	seg := l.active()
	if seg.size == 0 || (seg.size+int64(n) <= l.opts.SegmentBytes && next-1-seg.base <= math.MaxUint32) {
		return seg, nil
	}
	// The old active segment's index file gets its last entries before it
	// is closed below, and its preallocated blocks go.
	if err := l.writeIndexTail(seg); err != nil {
		return nil, err
	}
	if err := l.trimPrealloc(seg); err != nil {
		return nil, err
	}
	// The active segment's log file joins the LRU list; if it has writes
	// to fsync it stays pinned until Flush (writerPin). Make room for it
	// first, so that at most MaxOpenSegments older segment files are open
	// besides the new active one.
	l.fileMu.Lock()
	if seg.unsynced {
		seg.writerPin = true
		seg.pins++
		l.writerPinned++
	}
	l.fileMu.Unlock()
	if err := l.syncOldestRolled(); err != nil {
		return nil, err
	}
	l.fileMu.Lock()
	l.evictTo(l.opts.MaxOpenSegments - 1)
	l.fileMu.Unlock()
	// The producer state as of the new segment's base, as Kafka snapshots
	// it at every roll: a truncation into the new segment then replays
	// that segment only.
	if err := l.writeRollSnapshot(first); err != nil {
		return nil, err
	}
	s, err := createSegmentFiles(l.fs, l.dir, first)
	if err != nil {
		return nil, l.fail(err)
	}
	l.dirChanged()
	if l.opts.Sync == SyncEveryAppend {
		// The new file's name must be durable before data in it is.
		if err := l.fs.SyncDir(l.dir); err != nil {
			s.log.Close()
			s.index.Close()
			s.timeIndex.Close()
			return nil, l.fail(fmt.Errorf("log: roll: %w", err))
		}
		l.dirDirty = false
	}
	l.mu.Lock()
	l.fileMu.Lock()
	// The old active segment's index is complete; Close fsyncs it if it
	// was written.
	var err2 error
	if seg.index != nil {
		err2 = seg.index.Close()
		seg.index = nil
	}
	if seg.timeIndex != nil {
		err2 = errors.Join(err2, seg.timeIndex.Close())
		seg.timeIndex = nil
	}
	l.lruPush(seg)
	l.segments = append(l.segments, s)
	l.fileMu.Unlock()
	l.mu.Unlock()
	l.rolledUnflushed.Store(l.recoveryPoint < s.base)
	if err2 != nil {
		return nil, l.fail(fmt.Errorf("log: roll: %w", err2))
	}
	return s, nil
}

// syncOldestRolled fsyncs rolled segments that still wait for a Flush, as
// long as there are more of them than Options.MaxOpenSegments: each keeps
// its file open (so that its fsync goes through the descriptor its writes
// did, and a writeback error cannot be lost with a closed file), and the
// number of open files stays bounded. The recovery point does not move:
// only Flush moves it. The caller holds writeMu.
func (l *Log) syncOldestRolled() error {
	for _, s := range l.segments {
		l.fileMu.Lock()
		over := l.writerPinned > l.opts.MaxOpenSegments
		l.fileMu.Unlock()
		if !over {
			return nil
		}
		if !s.writerPin {
			continue
		}
		if err := s.log.Sync(); err != nil {
			return l.fail(fmt.Errorf("log: roll: fsync %s: %w", s.name(), err))
		}
		s.unsynced = false
		l.unpinWriter(s)
	}
	return nil
}

// write appends verified batches ending at offset next to seg (the active
// segment), after filler (an empty batch covering a gap, or nil), adds
// their index entries in memory (writeIndexTail writes them to the index
// file later), fsyncs under SyncEveryAppend, and only then
// publishes the new size, LEO and (in eager mode) HW to readers. Any
// failure puts the log in the failed state: the bytes past the published
// size are never read, and the next Open cuts them. The caller holds
// writeMu.
func (l *Log) write(seg *segment, filler, batches []byte, next uint64) error {
	// Index entries for the new batches, decided exactly as recovery would.
	l.newEntries, l.newTimes = l.newEntries[:0], l.newTimes[:0]
	at := seg.size
	m, lastT := seg.maxTime(), lastTs(seg.times)
	for _, part := range [2][]byte{filler, batches} {
		for pos := 0; pos < len(part); {
			b, _ := peekBatch(part[pos:])
			prev := seg.entries
			if len(l.newEntries) > 0 {
				prev = l.newEntries
			}
			m.observe(b.maxTimestamp, b.next-1, b.records)
			if indexEntryDue(prev, at, l.opts.IndexIntervalBytes) {
				l.newEntries = append(l.newEntries, indexEntry{rel: uint32(b.base - seg.base), pos: uint32(at)})
				if e, ok := timeEntryFor(m, lastT, seg.base, at); ok {
					l.newTimes = append(l.newTimes, e)
					lastT = e.ts
				}
			}
			pos += b.size
			at += int64(b.size)
		}
	}
	if at > seg.prealloc {
		l.preallocate(seg, at)
	}
	if len(filler) > 0 {
		if _, err := seg.log.WriteAt(filler, seg.size); err != nil {
			return l.fail(fmt.Errorf("log: append: %w", err))
		}
	}
	if _, err := seg.log.WriteAt(batches, seg.size+int64(len(filler))); err != nil {
		return l.fail(fmt.Errorf("log: append: %w", err))
	}
	if l.opts.Sync == SyncEveryAppend {
		if err := seg.log.Sync(); err != nil {
			return l.fail(fmt.Errorf("log: append: fsync: %w", err))
		}
	} else {
		seg.unsynced = true
	}

	l.mu.Lock()
	if seg.recent == nil {
		seg.recent = new(recentRing)
	}
	pos := seg.size
	for _, part := range [2][]byte{filler, batches} {
		for p := 0; p < len(part); {
			b, _ := peekBatch(part[p:])
			seg.recent.add(b.base, pos)
			p += b.size
			pos += int64(b.size)
		}
	}
	seg.size = at
	seg.next = next
	seg.maxTimestamp, seg.maxTimestampOffset = m.ts, m.off
	seg.entries = append(seg.entries, l.newEntries...)
	seg.indexPending += len(l.newEntries)
	seg.times = append(seg.times, l.newTimes...)
	seg.timePending += len(l.newTimes)
	if l.eagerHW {
		l.hw = next
	}
	l.mu.Unlock()
	if l.opts.Sync == SyncEveryAppend && !l.dirDirty {
		l.recoveryPoint = next
	}
	return nil
}

// writeIndexTail writes the index and time index entries the appends to
// the active segment s added since the last call (indexPending,
// timePending) to its index files.
// An append keeps its entries in memory only, as Kafka's memory-mapped
// index does, so that it costs one system call, the pwrite of its
// batches; the file catches up at a roll, a Flush and Close. The index
// file is derived data: after a crash Open rebuilds the last segment's
// entries from its batches and rewrites the file if it lags (see
// checkIndex). The caller holds writeMu.
func (l *Log) writeIndexTail(s *segment) error {
	if s.indexPending > 0 {
		written := len(s.entries) - s.indexPending
		l.entryBytes = appendIndexEntries(l.entryBytes[:0], s.entries[written:])
		if _, err := s.index.WriteAt(l.entryBytes, int64(written)*indexEntrySize); err != nil {
			return l.fail(fmt.Errorf("log: write index: %w", err))
		}
		s.indexPending = 0
		s.indexDirty = true
	}
	if s.timePending > 0 {
		written := len(s.times) - s.timePending
		l.entryBytes = appendTimeEntries(l.entryBytes[:0], s.times[written:])
		if _, err := s.timeIndex.WriteAt(l.entryBytes, int64(written)*timeEntrySize); err != nil {
			return l.fail(fmt.Errorf("log: write time index: %w", err))
		}
		s.timePending = 0
		s.indexDirty = true
	}
	return nil
}

// preallocBytes is how far ahead of the writes preallocate reserves a
// segment's blocks.
const preallocBytes = 8 << 20

// preallocate reserves the blocks of the active segment s from where the
// last reservation ended up to preallocBytes past end (at most the segment
// size, at least end), without changing the file size, as Kafka's
// preallocate option does for a whole segment. On ext4 an append into
// reserved blocks skips the delayed-allocation bookkeeping of every page
// (replica/BENCHMARKS.md measures what it saves). The file size stays the bytes written,
// so nothing that reads or recovers a segment sees the reservation; a roll
// and Close give the unused blocks back (trimPrealloc), and after a crash
// the active segment keeps at most preallocBytes of them until it rolls.
// Preallocation is a hint: where the file system cannot (another vfs.FS,
// no support, no space) appends go on without it, and a full disk is
// reported by the write. The caller holds writeMu.
func (l *Log) preallocate(s *segment, end int64) {
	if s.noPrealloc {
		return
	}
	from := max(s.prealloc, s.size)
	to := max(end, min(end+preallocBytes, l.opts.SegmentBytes))
	if to <= from {
		return
	}
	p, ok := s.log.(vfs.Preallocator)
	if !ok || p.Preallocate(from, to-from) != nil {
		s.noPrealloc = true // until the next segment: the file system said no
		return
	}
	s.prealloc = to
}

// trimPrealloc gives back the blocks preallocate reserved past the end of
// s's batches: a truncation to the size it has, which ext4 takes as
// freeing the blocks past it. It writes no data, but a failed truncation
// fails the log like any other (package doc, "A failed write is never
// forgotten"). The caller holds writeMu.
func (l *Log) trimPrealloc(s *segment) error {
	if s.prealloc > s.size && s.log != nil {
		if err := s.log.Truncate(s.size); err != nil {
			return l.fail(fmt.Errorf("log: give back preallocated blocks of %s: %w", s.name(), err))
		}
	}
	s.prealloc = 0
	return nil
}
