package log

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"

	"github.com/kaenlog/kaenlog/epoch"
)

// TruncateTo removes every record at and above offset, as a follower does
// when it finds its log diverged from the leader's. A batch that holds offset
// is removed whole, so afterwards the LEO is that batch's base offset (the
// end of the last batch kept). A batch with no records that compaction left
// over a range of offsets is a batch like any other: truncating into its
// range removes it whole, so the LEO may go back well below offset (no
// record is lost by that, since the batch held none). Segments entirely above
// offset are deleted, newest first, and the one holding it is cut, index
// included; under SyncEveryAppend the cut is fsynced before TruncateTo
// returns. Leader-epoch entries starting at or after the new LEO go with the
// records.
//
// Before any file is cut, the recovery-point checkpoint (and the HW and
// its checkpoint, if the HW was above the new LEO) is lowered to the new
// LEO, so that neither a restart nor a crash midway can bring a committed
// or flushed claim back over records appended later.
//
// offset >= EndOffset truncates nothing but still drops epoch entries at
// the LEO (a leader's entry for an epoch that never appended, as Kafka
// does); offset < StartOffset is ErrOffsetOutOfRange. If the batch holding
// offset begins below StartOffset, the log is emptied and starts at
// StartOffset (TruncateFullyAndStartAt).
func (l *Log) TruncateTo(offset uint64) error {
	l.flushMu.Lock() // see flushMu
	defer l.flushMu.Unlock()
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.newGeneration()
	if err := l.usable(); err != nil {
		return err
	}
	start, leo := l.start, l.endOffset()
	if offset >= leo {
		return l.truncateEpochs(leo)
	}
	if offset < start {
		return fmt.Errorf("log: truncate to offset %d below log start %d: %w", offset, start, ErrOffsetOutOfRange)
	}
	si := l.segmentFor(offset)
	seg := l.segments[si]
	if err := l.verify(seg); err != nil {
		return err
	}
	var pos int64
	var newLEO uint64
	err := l.withFile(seg, func() (err error) {
		pos, _, newLEO, _, err = seg.locate(offset, l.headerScratch, true)
		return err
	})
	if err != nil {
		return l.fail(err)
	}
	if newLEO < start {
		return l.truncateFully(start)
	}

	if err := l.lowerRecoveryPoint(newLEO); err != nil {
		return err
	}
	// SetHighWatermark takes mu, not writeMu: read and lower the HW under
	// mu.
	l.mu.Lock()
	lowered := l.hw > newLEO
	if lowered {
		l.hw = newLEO
	}
	l.mu.Unlock()
	if lowered {
		l.ckMu.Lock()
		err := l.checkpointHW(newLEO)
		l.ckMu.Unlock()
		if err != nil {
			return err
		}
	}
	removed := len(l.segments) > si+1
	if err := l.truncateSegments(si, pos, newLEO); err != nil {
		return err
	}
	// Producer-state snapshots past the new LEO describe batches that are
	// gone: deleted durably (with the cut, below) before anything can be
	// appended over them.
	snapsRemoved, err := l.removeSnapshotsOutside(0, newLEO)
	if err != nil {
		return err
	}
	if removed || snapsRemoved {
		l.dirChanged()
	}
	// The cut is made durable now, whatever the SyncPolicy: if a crash
	// undid it after appends had rolled a new segment at the new LEO (and
	// something synced the directory), the old segment would come back
	// overlapping the new one.
	if seg.unsynced {
		if err := seg.log.Sync(); err != nil {
			return l.fail(fmt.Errorf("log: truncate: fsync: %w", err))
		}
		seg.unsynced = false
	}
	if l.dirDirty {
		if err := l.fs.SyncDir(l.dir); err != nil {
			return l.fail(fmt.Errorf("log: truncate: %w", err))
		}
		l.dirDirty = false
	}
	if err := l.truncateEpochs(newLEO); err != nil {
		return err
	}
	if err := l.truncateProducers(newLEO); err != nil {
		return err
	}
	// The cut may have taken the durable snapshot with it; once the log's
	// history below what recovery keeps is gone, the batches alone no
	// longer rebuild the state.
	if floor := l.recoveryFloor(l.start); floor > 0 {
		return l.keepProducersPast(floor)
	}
	return nil
}

// recoveryFloor is where a recovery of this log with start as its log
// start would begin to rebuild producer state: the base of the segment
// holding start, since recovery deletes the segments wholly below it — or
// start itself once it may have reached the recovered log end (every
// segment is then a leftover): at or past the log end, or past the
// recovery point, since a power cut may take the log back to it. The
// caller holds writeMu.
func (l *Log) recoveryFloor(start uint64) uint64 {
	if start >= min(l.endOffset(), l.recoveryPoint) && start > l.segments[0].base {
		return start
	}
	return l.segments[l.segmentFor(start)].base
}

// truncateProducers makes the producer state what the batches below leo
// build, as if the cut batches had never been appended: a producer whose
// last batch lies at or past leo gets its state from the log (the newest
// producer-state snapshot at or below leo, then the batch headers after
// it, as Kafka's truncateAndReload does), or is forgotten if the log has
// none of its batches left; every other producer is untouched. The caller
// holds writeMu.
func (l *Log) truncateProducers(leo uint64) error {
	affected := false
	for _, e := range l.producers {
		if e.last().LastOffset >= leo {
			affected = true
			break
		}
	}
	if !affected {
		return nil
	}
	m, _, _, _, _, err := l.producerStateAt(leo)
	if err != nil {
		return err
	}
	for id, e := range l.producers {
		if e.last().LastOffset < leo {
			continue
		}
		if rebuilt, ok := m[id]; ok {
			l.producers[id] = rebuilt
		} else {
			delete(l.producers, id)
		}
	}
	l.producersGen++
	return nil
}

// truncateEpochs drops the epoch entries starting at or after leo, writing
// the checkpoint if that changes anything. The caller holds writeMu.
func (l *Log) truncateEpochs(leo uint64) error {
	latest, ok := l.epochs.LatestEpoch()
	if !ok {
		return nil
	}
	if start, _ := l.epochs.StartOffsetOf(latest); start < leo {
		return nil
	}
	c := l.epochs.Clone()
	c.TruncateFromEnd(leo)
	return l.adoptEpochs(c)
}

// adoptEpochs writes c to the leader-epoch checkpoint and makes it the
// cache. The caller holds writeMu.
func (l *Log) adoptEpochs(c *epoch.Cache) error {
	if err := l.writeEpochCheckpoint(c); err != nil {
		return err
	}
	l.mu.Lock()
	l.epochs = c
	l.mu.Unlock()
	return nil
}

// truncateSegments deletes the segments after si, newest first, and cuts
// segment si at pos, setting its LEO to next; it becomes the active
// segment. The caller holds writeMu.
func (l *Log) truncateSegments(si int, pos int64, next uint64) error {
	for len(l.segments) > si+1 {
		last := l.segments[len(l.segments)-1]
		l.mu.Lock()
		l.segments = l.segments[:len(l.segments)-1]
		l.mu.Unlock()
		if err := l.removeSegment(last); err != nil {
			return err
		}
	}
	s := l.segments[si]
	if err := l.makeActive(s); err != nil {
		return err
	}
	if pos == s.size {
		return nil
	}
	keep, keepTimes := s.floorEntryBefore(pos), s.floorTimeBefore(pos)
	// The maximum over the batches kept: from the last kept time entry
	// and the headers after the last kept index entry (the segment was
	// verified, its file is open).
	m, err := s.maxTimeBefore(pos, keep, keepTimes, l.headerScratch)
	if err != nil {
		return l.fail(fmt.Errorf("log: truncate: %w", err))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := s.log.Truncate(pos); err != nil {
		return l.fail(fmt.Errorf("log: truncate: %w", err))
	}
	// The files hold the entries but the pending ones; the kept pending
	// ones stay pending.
	written := min(keep, len(s.entries)-s.indexPending)
	if err := s.index.Truncate(int64(written) * indexEntrySize); err != nil {
		return l.fail(fmt.Errorf("log: truncate: index: %w", err))
	}
	writtenTimes := min(keepTimes, len(s.times)-s.timePending)
	if err := s.timeIndex.Truncate(int64(writtenTimes) * timeEntrySize); err != nil {
		return l.fail(fmt.Errorf("log: truncate: time index: %w", err))
	}
	s.size, s.next, s.entries, s.indexPending = pos, next, s.entries[:keep], keep-written
	s.times, s.timePending = s.times[:keepTimes], keepTimes-writtenTimes
	s.maxTimestamp, s.maxTimestampOffset = m.ts, m.off
	s.prealloc = 0 // the cut freed the reserved blocks too
	// TruncateTo lowered the HW already; a SetHighWatermark since may
	// have raised it up to the old LEO.
	l.hw = min(l.hw, next)
	s.unsynced, s.indexDirty = true, true
	s.recent.cut(pos)
	return nil
}

// makeActive makes s (now the last segment) the active one: off the LRU
// list, its log and index files open. The caller holds writeMu.
func (l *Log) makeActive(s *segment) error {
	l.fileMu.Lock()
	defer l.fileMu.Unlock()
	if s.inLRU {
		l.lruRemove(s)
	}
	if s.writerPin {
		s.writerPin = false
		s.pins--
		l.writerPinned--
	}
	if err := l.openLocked(s); err != nil {
		return err
	}
	if s.index == nil {
		f, err := l.fs.OpenFile(s.path(indexSuffix), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return l.fail(fmt.Errorf("log: open index: %w", err))
		}
		s.index = f
	}
	if s.timeIndex == nil {
		f, err := l.fs.OpenFile(s.path(timeIndexSuffix), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return l.fail(fmt.Errorf("log: open time index: %w", err))
		}
		s.timeIndex = f
	}
	return nil
}

// removeSegment deletes s's files and closes them. The log file goes first:
// once it is gone the segment is gone (Open deletes an index without a
// log). The segment is no longer in l.segments. The caller holds writeMu.
func (l *Log) removeSegment(s *segment) error {
	l.fileMu.Lock()
	cerr := l.closeSegmentFilesLocked(s)
	l.fileMu.Unlock()
	if err := l.fs.Remove(s.path(segmentSuffix)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return l.fail(fmt.Errorf("log: delete segment: %w", err))
	}
	if err := l.fs.Remove(s.path(indexSuffix)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return l.fail(fmt.Errorf("log: delete index: %w", err))
	}
	if err := removeTimeIndex(l.fs, s); err != nil {
		return l.fail(fmt.Errorf("log: delete time index: %w", err))
	}
	if cerr != nil {
		return l.fail(fmt.Errorf("log: delete segment: %w", cerr))
	}
	return nil
}

// floorEntryBefore returns how many index entries point below pos: the ones
// that survive cutting the segment at pos.
func (s *segment) floorEntryBefore(pos int64) int {
	n := len(s.entries)
	for n > 0 && int64(s.entries[n-1].pos) >= pos {
		n--
	}
	return n
}

// TruncateFullyAndStartAt empties the log and restarts it at offset off, as
// a follower does when its fetch offset is below its leader's log start
// (Kafka's truncateFullyAndStartAt): afterwards StartOffset, EndOffset and
// HighWatermark are all off and the epoch cache is empty. The new log start
// is checkpointed first, so that a crash midway leaves segments below it
// that Open deletes as leftovers rather than a log with a hole; the
// recovery point, HW and epoch checkpoints follow, then every segment is
// deleted, newest first, and an empty one created at off. A crash midway
// with off below the old LEO can leave the old segments at and above off
// in place; Open keeps them (they were this replica's log), and the epoch
// protocol truncates them like any divergent tail.
func (l *Log) TruncateFullyAndStartAt(off uint64) error {
	l.flushMu.Lock() // see flushMu
	defer l.flushMu.Unlock()
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.newGeneration()
	if err := l.usable(); err != nil {
		return err
	}
	if off > math.MaxInt64 {
		return fmt.Errorf("log: start offset %d does not fit int64: %w", off, ErrInvalidArgument)
	}
	return l.truncateFully(off)
}

// truncateFully is TruncateFullyAndStartAt for a caller holding writeMu.
func (l *Log) truncateFully(off uint64) error {
	if err := l.lowerRecoveryPoint(off); err != nil {
		return err
	}
	if err := l.checkpointStart(off); err != nil {
		return err
	}
	l.ckMu.Lock()
	err := l.checkpointHW(off)
	l.ckMu.Unlock()
	if err != nil {
		return err
	}
	if err := l.adoptEpochs(epoch.New()); err != nil {
		return err
	}
	// No producer state survives (Kafka's truncateFullyAndStartAt), nor
	// any snapshot of it; the directory sync below makes that durable.
	if _, err := l.removeSnapshotsOutside(math.MaxUint64, 0); err != nil {
		return err
	}
	l.producers = producerMap{}
	l.producersGen++
	for len(l.segments) > 0 {
		last := l.segments[len(l.segments)-1]
		if len(l.segments) == 1 {
			// Readers may not see an empty segment list: swap in the new
			// segment before the last old one goes.
			break
		}
		l.mu.Lock()
		l.segments = l.segments[:len(l.segments)-1]
		l.mu.Unlock()
		if err := l.removeSegment(last); err != nil {
			return err
		}
	}
	old := l.segments[0]
	var s *segment
	if old.base != off {
		var err error
		if s, err = createSegmentFiles(l.fs, l.dir, off); err != nil {
			return l.fail(err)
		}
	}
	l.mu.Lock()
	if s != nil {
		l.segments = []*segment{s}
	}
	l.start, l.hw = off, off
	l.mu.Unlock()
	if s != nil {
		if err := l.removeSegment(old); err != nil {
			return err
		}
	} else {
		// The only segment already starts at off: empty it.
		if err := l.truncateSegments(0, 0, off); err != nil {
			return err
		}
		if err := l.verify(old); err != nil {
			return err
		}
	}
	if err := l.fs.SyncDir(l.dir); err != nil {
		return l.fail(fmt.Errorf("log: truncate fully: %w", err))
	}
	l.dirDirty = false
	active := l.active()
	if l.opts.Sync == SyncEveryAppend || active.unsynced {
		if err := active.log.Sync(); err != nil {
			return l.fail(fmt.Errorf("log: truncate fully: %w", err))
		}
		active.unsynced = false
	}
	l.recoveryPoint = off
	return l.writeRecoveryPoint()
}

// IncrementStartOffset raises the log start offset to off, as retention,
// a DeleteRecords request, or a follower copying its leader's log start
// (clamped to its own HW) does. It never moves the start backwards (a
// lower or equal off is a no-op) and never above the HW
// (ErrOffsetOutOfRange). The new start is checkpointed first; then the
// epoch cache forgets what lies below it and segments wholly below it are
// deleted, oldest first. Reads below the new start are ErrOffsetOutOfRange.
func (l *Log) IncrementStartOffset(off uint64) error {
	l.flushMu.Lock() // see flushMu
	defer l.flushMu.Unlock()
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.newGeneration()
	if err := l.usable(); err != nil {
		return err
	}
	if off <= l.start {
		return nil
	}
	if hw := l.HighWatermark(); off > hw {
		return fmt.Errorf("log: log start %d above the high watermark %d: %w", off, hw, ErrOffsetOutOfRange)
	}
	n := 0
	for n < len(l.segments)-1 && l.segments[n].next <= off {
		n++
	}
	return l.advanceStart(off, n)
}

// advanceStart checkpoints the log start off, truncates the epoch cache
// from it, and deletes the first n segments (all wholly below off), oldest
// first. The caller holds writeMu.
func (l *Log) advanceStart(off uint64, n int) error {
	if floor := l.recoveryFloor(max(off, l.start)); n > 0 || floor > l.segments[0].base {
		if err := l.keepProducersPast(floor); err != nil {
			return err
		}
	}
	if off > l.start {
		if err := l.checkpointStart(off); err != nil {
			return err
		}
		c := l.epochs.Clone()
		if err := c.TruncateFromStart(off); err != nil {
			return fmt.Errorf("log: %w: %w", ErrInvalidArgument, err)
		}
		if !equalEntries(c, l.epochs) {
			if err := l.adoptEpochs(c); err != nil {
				return err
			}
		}
		l.mu.Lock()
		l.start = off
		l.mu.Unlock()
	}
	for range n {
		s := l.segments[0]
		l.mu.Lock()
		l.segments[0] = nil
		l.segments = l.segments[1:]
		l.mu.Unlock()
		if err := l.removeSegment(s); err != nil {
			return err
		}
		l.dirChanged()
	}
	if n > 0 {
		// Producer-state snapshots go with their segments; the producers'
		// state stays, as in Kafka, until it expires.
		if _, err := l.removeSnapshotsOutside(l.segments[0].base, math.MaxUint64); err != nil {
			return err
		}
	}
	if n > 0 && l.opts.Sync == SyncEveryAppend {
		if err := l.fs.SyncDir(l.dir); err != nil {
			return l.fail(fmt.Errorf("log: delete segments: %w", err))
		}
		l.dirDirty = false
	}
	return nil
}

// keepProducersPast makes sure that, once the segments below base are
// gone (and the snapshots below base with them) or a truncation took the
// durable snapshot, a crash still finds a
// durable producer-state snapshot at or below the recovery point and at or
// past base: recovery loads the newest such snapshot and replays the log
// from it, and without one it would replay from base only and forget every
// producer whose batches were deleted — Kafka keeps them until they
// expire, and a retry of theirs would be appended twice. When the durable
// snapshot is below base (or there is none), the log is flushed, as Flush
// does: the recovery point moves to the LEO with a snapshot of the state
// there. Retention deletes a segment rarely, a truncation is rarer: the
// fsync is their price. The caller holds writeMu.
func (l *Log) keepProducersPast(base uint64) error {
	d := l.snapDurable
	if d.ok && d.off >= base && d.off <= l.recoveryPoint && l.hasSnapshot(d.off) {
		return nil
	}
	if err := l.syncSegments(); err != nil {
		return err
	}
	return l.writeRecoveryPoint()
}

// equalEntries reports whether two caches hold the same entries.
func equalEntries(a, b *epoch.Cache) bool {
	x, y := a.Entries(), b.Entries()
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}
