package log

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/kaenlog/kaenlog/epoch"
	"github.com/kaenlog/kaenlog/log/vfs"
)

// Log is one partition's replica of the log: a directory of segments, the
// log start offset, the log end offset (LEO), the high watermark (HW) and
// the leader-epoch cache that describes the batches.
//
// All methods are safe for concurrent use. Mutations (appends, truncation,
// retention, compaction, HW moves, Flush, Close) are serialized; Read and
// the getters run concurrently with them and with each other, and a Read
// never sees a partly written batch.
type Log struct {
	dir  string
	fs   vfs.FS
	opts Options // normalized
	lock io.Closer

	// writeMu serializes mutations. The writer holding it may read the
	// fields under mu without taking mu, because only a writeMu holder
	// changes them.
	writeMu sync.Mutex
	// ckMu serializes writes of the high-watermark checkpoint, so they land
	// in the order they read the HW.
	ckMu sync.Mutex
	// flushMu is held by FlushRolled for its whole run, fsyncs included,
	// and taken before writeMu by every path that deletes, cuts, replaces
	// or closes segment files (truncation, retention, compaction, Close,
	// Abandon): the files FlushRolled fsyncs without writeMu stay in place.
	// Appends and Flush do not take it.
	flushMu sync.Mutex

	// mu guards the fields below. Readers hold RLock for a whole Read, so
	// no segment they use is truncated or deleted under them.
	mu sync.RWMutex
	// segments is sorted by base offset and never empty while open; the
	// last one is the active segment, the only one appends go to.
	// segments[k].next == segments[k+1].base: the log has no holes.
	segments []*segment
	// start is the log start offset: max(first segment's base, the
	// checkpointed log start). Reads below it are out of range.
	start uint64
	// hw is the high watermark. Invariant: start <= hw <= LEO.
	hw uint64
	// epochs is the leader-epoch cache. It is replaced, never changed in
	// place, so a reader holding the old pointer keeps a consistent view.
	// Every entry starts below the LEO except, at most, one a leader
	// assigned at the LEO before its first append.
	epochs *epoch.Cache
	// eagerHW makes every append move hw to the new LEO (one replica).
	eagerHW bool
	closed  bool

	// Durability bookkeeping, writer only (writeMu).
	recoveryPoint uint64 // every offset below it is on disk: segments and their names
	dirDirty      bool   // directory entries changed since the last SyncDir
	dirGen        uint64 // counts changes of directory entries (dirChanged)
	// rollSnap is the snapshot the last roll wrote, at the new segment's
	// base, and the producer state it holds: FlushRolled makes it durable.
	rollSnap snapshotMark
	// rolledUnflushed is whether the recovery point is below the active
	// segment's base: rolled segments wait for an fsync (FlushRolled).
	// Written under writeMu, read by anyone.
	rolledUnflushed atomic.Bool
	// What the checkpoint files hold, so unchanged ones are not rewritten:
	// writer only, except hwOnDisk (ckMu).
	rpOnDisk, startOnDisk, hwOnDisk onDisk
	epochsOnDisk                    *epoch.Cache // the cache whose entries the file holds

	// failed holds the first failure; once set the log refuses everything.
	failed atomic.Pointer[failure]
	// gen is the log's generation (Generation): a new one at every
	// change of its batches other than an append, its failure and Close.
	gen atomic.Uint64

	// fileMu guards the segments' file handles, the LRU list of open
	// segment files, and verification of unverified segments.
	fileMu           sync.Mutex
	lruHead, lruTail *segment
	lruLen           int
	writerPinned     int // segments with writerPin
	verifyBuf        []byte

	report RecoveryReport // what Open found; read-only after Open

	// Producer state (producer_state.go), writer only (writeMu): every
	// idempotent producer's epoch and last batches, as the log's batches
	// build it.
	producers    producerMap
	producersGen uint64 // bumped at every change of producers
	// snapshots are the offsets of the producer-state snapshot files in
	// the directory, ascending; snapDurable is the newest one written with
	// an fsync, and the state it holds.
	snapshots   []uint64
	snapDurable snapshotMark

	// Writer scratch, guarded by writeMu, reused so appends do not allocate.
	headerScratch []byte          // BatchHeaderSize bytes for reading stored headers
	newEntries    []indexEntry    // index entries of the append in progress
	newTimes      []timeEntry     // time index entries of the append in progress
	entryBytes    []byte          // their encoding
	filler        []byte          // an empty batch a follower writes over a gap
	maxTimestamps []int64         // per batch of a leader append, from validation
	assignments   []epochStart    // epochs a follower append assigns
	producerBatch []producerBatch // producer batches of a follower append
}

// onDisk is the value an offset checkpoint file holds, if known.
type onDisk struct {
	v  uint64
	ok bool
}

// holds reports whether the file is known to hold v.
func (d onDisk) holds(v uint64) bool { return d.ok && d.v == v }

// failure is the first failure of a Log.
type failure struct{ cause error }

// failedError is returned by a Log in the failed state. It wraps
// ErrLogFailed and the cause.
type failedError struct {
	cause error
	first bool // returned by the operation that failed
}

func (e *failedError) Error() string {
	if e.first {
		return e.cause.Error() + " (the log is failed until reopened)"
	}
	return "log: failed until reopened; first failure: " + e.cause.Error()
}

func (e *failedError) Unwrap() []error { return []error{ErrLogFailed, e.cause} }

// fail puts the log in the failed state with cause (unless it already is,
// in which case the first cause stays) and returns the error for the
// operation that hit it.
func (l *Log) fail(cause error) error {
	l.failed.CompareAndSwap(nil, &failure{cause: cause})
	l.newGeneration()
	return &failedError{cause: cause, first: true}
}

// usable returns ErrClosed after Close, the failed-state error after a
// failure, and nil otherwise. The caller holds mu (either way) or writeMu.
func (l *Log) usable() error {
	if l.closed {
		return ErrClosed
	}
	if f := l.failed.Load(); f != nil {
		return &failedError{cause: f.cause}
	}
	return nil
}

// Open opens the partition log in dir, creating the directory (and an empty
// first segment) if missing. It takes the directory lock (ErrLocked if
// another Log holds it), then recovers the files as a crash may have left
// them: see recover.go and the package doc. Recovery reports what it found
// and did.
//
// The log starts in eager-HW mode; see StopEagerHighWatermark.
func Open(dir string, opts Options) (*Log, error) {
	opts, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	if err := opts.FS.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("log: open %s: %w", dir, err)
	}
	lock, err := opts.FS.Lock(filepath.Join(dir, lockFileName))
	if err != nil {
		return nil, fmt.Errorf("log: open %s: %w", dir, err)
	}
	l := &Log{
		dir:           dir,
		fs:            opts.FS,
		opts:          opts,
		lock:          lock,
		eagerHW:       true,
		epochs:        epoch.New(),
		headerScratch: make([]byte, BatchHeaderSize),
		producers:     producerMap{},
	}
	if err := l.recover(); err != nil {
		return nil, errors.Join(err, l.closeFiles(), lock.Close())
	}
	l.newGeneration()
	return l, nil
}

// Recovery returns what Open found and did.
func (l *Log) Recovery() RecoveryReport { return l.report }

// active returns the segment appends go to. Callers hold mu or writeMu.
func (l *Log) active() *segment { return l.segments[len(l.segments)-1] }

// endOffset reads the LEO; callers hold mu or writeMu.
func (l *Log) endOffset() uint64 { return l.active().next }

// segmentFor returns the index of the segment that would hold off: the last
// one whose base offset is <= off (0 if off is below every base). Callers
// hold mu or writeMu.
func (l *Log) segmentFor(off uint64) int {
	lo, hi := 0, len(l.segments) // segments[:lo] have base <= off
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if l.segments[mid].base <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return max(lo-1, 0)
}

// Dir returns the partition directory the log was opened in.
func (l *Log) Dir() string { return l.dir }

// StartOffset returns the log start offset: the first offset the log can
// still serve. It is the larger of the oldest segment's base and the
// checkpointed log start, and only rises (retention, IncrementStartOffset,
// TruncateFullyAndStartAt).
func (l *Log) StartOffset() uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.start
}

// EndOffset returns the log end offset (LEO): the offset the next appended
// record will get, one past the last record held. An empty log starting at 0
// has LEO 0.
func (l *Log) EndOffset() uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.endOffset()
}

// HighWatermark returns the high watermark, an exclusive bound: records at
// offsets below it are committed, and IsolationHighWatermark reads stop
// before it. It never exceeds EndOffset.
func (l *Log) HighWatermark() uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.hw
}

// StopEagerHighWatermark switches off eager-HW mode. In eager mode (the
// default) every append moves the HW to the new LEO, which is exactly
// Kafka's rule when the replica set is just this log: the HW is the smallest
// LEO among in-sync replicas. With a second replica that stops being true,
// and the HW must come from the replication layer instead; after this call
// only SetHighWatermark raises it and only truncation lowers it.
func (l *Log) StopEagerHighWatermark() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.eagerHW = false
}

// EagerHighWatermark reports whether eager-HW mode is on.
func (l *Log) EagerHighWatermark() bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.eagerHW
}

// SetHighWatermark moves the HW to hw. It returns an error wrapping
// ErrHighWatermarkBeyondEnd if hw > EndOffset and ErrHighWatermarkBackwards
// if hw is below the current HW, leaving the HW unchanged; hw equal to the
// current HW is a no-op. The new value is in memory only until
// CheckpointHighWatermark or Close.
func (l *Log) SetHighWatermark(hw uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	if leo := l.endOffset(); hw > leo {
		return fmt.Errorf("log: high watermark %d beyond log end %d: %w", hw, leo, ErrHighWatermarkBeyondEnd)
	}
	if hw < l.hw {
		return fmt.Errorf("log: high watermark %d below current %d: %w", hw, l.hw, ErrHighWatermarkBackwards)
	}
	l.hw = hw
	return nil
}

// CheckpointHighWatermark writes the current HW to its checkpoint file,
// atomically: after a crash the file holds this value or an older one,
// never a torn one.
func (l *Log) CheckpointHighWatermark() error {
	l.ckMu.Lock()
	defer l.ckMu.Unlock()
	l.mu.RLock()
	hw, err := l.hw, l.usable()
	l.mu.RUnlock()
	if err != nil {
		return err
	}
	return l.checkpointHW(hw)
}

// checkpointHW writes hw to the HW checkpoint unless it holds it. The
// caller holds ckMu.
func (l *Log) checkpointHW(hw uint64) error {
	if l.hwOnDisk.holds(hw) {
		return nil
	}
	if err := l.writeCheckpoints(checkpointFile{checkpointFileName, formatCheckpoint(hw)}); err != nil {
		return err
	}
	l.hwOnDisk = onDisk{hw, true}
	return nil
}

// checkpointStart writes the log start checkpoint. The caller holds
// writeMu.
func (l *Log) checkpointStart(off uint64) error {
	if l.startOnDisk.holds(off) {
		return nil
	}
	if err := l.writeCheckpoints(checkpointFile{logStartFileName, formatCheckpoint(off)}); err != nil {
		return err
	}
	l.startOnDisk = onDisk{off, true}
	return nil
}

// writeCheckpoints replaces checkpoint files (writeFilesAtomic), putting
// the log in the failed state if that fails.
func (l *Log) writeCheckpoints(files ...checkpointFile) error {
	if err := writeFilesAtomic(l.fs, l.dir, files...); err != nil {
		return l.fail(err)
	}
	return nil
}

// writeEpochCheckpoint writes c's entries to the leader-epoch checkpoint.
// The caller holds writeMu.
func (l *Log) writeEpochCheckpoint(c *epoch.Cache) error {
	if c == l.epochsOnDisk {
		return nil
	}
	if err := l.writeCheckpoints(checkpointFile{epochFileName, epoch.AppendCheckpoint(nil, c.Entries())}); err != nil {
		return err
	}
	l.epochsOnDisk = c
	return nil
}

// lowerRecoveryPoint makes sure the recovery-point checkpoint is at most
// off before the log shrinks below it (truncation): otherwise a crash
// right after would look like flushed data gone missing. The caller holds
// writeMu.
func (l *Log) lowerRecoveryPoint(off uint64) error {
	l.recoveryPoint = min(l.recoveryPoint, off)
	if !l.rpOnDisk.ok || l.rpOnDisk.v <= off {
		return nil
	}
	if err := l.writeCheckpoints(checkpointFile{recoveryPointFileName, formatCheckpoint(off)}); err != nil {
		return err
	}
	l.rpOnDisk = onDisk{off, true}
	return nil
}

// writeRecoveryPoint writes the in-memory recovery point to its checkpoint
// if it differs, and with it (in the same atomic write) the producer-state
// snapshot at the recovery point when that is the LEO and the newest
// durable snapshot is not already this state there. The caller holds
// writeMu.
func (l *Log) writeRecoveryPoint() error {
	var files []checkpointFile
	snap, withSnap := checkpointFile{}, false
	if l.recoveryPoint == l.endOffset() {
		snap, withSnap = l.snapshotFile()
	}
	if withSnap {
		files = append(files, snap)
	}
	if !l.rpOnDisk.holds(l.recoveryPoint) {
		files = append(files, checkpointFile{recoveryPointFileName, formatCheckpoint(l.recoveryPoint)})
	}
	if len(files) == 0 {
		return nil
	}
	if err := l.writeCheckpoints(files...); err != nil {
		return err
	}
	l.rpOnDisk = onDisk{l.recoveryPoint, true}
	if withSnap {
		return l.snapshotWritten(l.recoveryPoint)
	}
	return nil
}

// CheckpointRecoveryPoint writes the recovery point (the offset below which
// everything is known to be on disk) to its checkpoint file, if it moved
// since the last write. Flush and Close write it too; the runtime calls
// this periodically under SyncEveryAppend, where appends advance the
// recovery point without writing it (that would double the fsyncs).
func (l *Log) CheckpointRecoveryPoint() error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	return l.writeRecoveryPoint()
}

// RecoveryPoint returns the offset below which every record is on disk
// (fsynced, with the directory entries naming its segments).
func (l *Log) RecoveryPoint() uint64 {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	return l.recoveryPoint
}

// Flush fsyncs every segment written since its last fsync, and the
// directory if segments were created or deleted, so that everything
// appended so far survives power loss; then it writes the recovery-point
// checkpoint. Index files are not synced here: they are derived data that
// Open checks and rebuilds.
func (l *Log) Flush() error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	if err := l.syncSegments(); err != nil {
		return err
	}
	return l.writeRecoveryPoint()
}

// syncSegments fsyncs the segments written since their last fsync and the
// directory if its entries changed, then moves the recovery point to the
// LEO. The caller holds writeMu.
func (l *Log) syncSegments() error {
	if err := l.writeIndexTail(l.active()); err != nil {
		return err
	}
	for _, s := range l.segments {
		if !s.unsynced {
			continue
		}
		// A segment is unsynced only after the writer wrote or cut it: it
		// is the active one, or was rolled with its file pinned open (see
		// writerPin) so that the fsync goes through the descriptor the
		// writes did.
		if err := l.withFile(s, func() error { return s.log.Sync() }); err != nil {
			return l.fail(fmt.Errorf("log: flush %s: %w", s.name(), err))
		}
		s.unsynced = false
		l.unpinWriter(s) // synced: its file may now be closed when unused
	}
	if l.dirDirty {
		if err := l.fs.SyncDir(l.dir); err != nil {
			return l.fail(fmt.Errorf("log: flush: sync directory: %w", err))
		}
		l.dirDirty = false
	}
	l.recoveryPoint = l.endOffset()
	l.rolledUnflushed.Store(false)
	return nil
}

// Close flushes the log and checkpoints it (segments, index files, the HW,
// the recovery point, the log start, the leader epochs, the producer
// state), writes the
// clean-shutdown marker last, closes the files and releases the directory
// lock. The next Open then trusts the directory without reading segments.
//
// If anything fails, Close still closes every file and releases the lock,
// and returns the error; without the marker, the next Open recovers as
// after a crash. On a full disk that means the HW checkpoint may not be
// written: the old one stands (with none, the HW is 0 after the restart,
// so retention frees nothing until the replica layer learns the HW again).
// Close of a failed log writes nothing and returns the failure.
//
// Every later call of a method that needs the files, including Close,
// returns ErrClosed; the getters keep returning the last values.
func (l *Log) Close() error {
	l.flushMu.Lock() // an in-flight FlushRolled finishes first
	defer l.flushMu.Unlock()
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.newGeneration()
	l.ckMu.Lock()
	defer l.ckMu.Unlock()
	if l.closed {
		return ErrClosed
	}
	err := l.usable()
	if err == nil {
		err = l.trimPrealloc(l.active())
	}
	if err == nil {
		err = l.checkpointAll()
	}
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	return errors.Join(err, l.closeFiles(), l.lock.Close())
}

// checkpointAll is Close's durable part: everything on disk, then the
// marker. The caller holds writeMu and ckMu.
func (l *Log) checkpointAll() error {
	if err := l.syncSegments(); err != nil {
		return err
	}
	for _, s := range l.segments {
		l.fileMu.Lock() // a reader verifying s may set it
		dirty := s.indexDirty
		l.fileMu.Unlock()
		if !dirty {
			continue
		}
		if err := l.syncIndexes(s); err != nil {
			return l.fail(fmt.Errorf("log: close: %w", err))
		}
		s.indexDirty = false
	}
	rec := shutdownRecord{start: l.start, end: l.endOffset(), activeMax: l.active().maxTime(), segments: make([]segmentRecord, len(l.segments))}
	l.fileMu.Lock() // verification of unverified segments sets their size
	for i, s := range l.segments {
		rec.segments[i] = segmentRecord{base: s.base, size: s.size}
	}
	l.fileMu.Unlock()
	// The checkpoints that changed, then (separately, so that it is
	// durable only after them) the marker. SetHighWatermark may run
	// meanwhile (it takes mu, not writeMu); the checkpoint holds what was
	// read here, as any checkpoint does.
	hw := l.HighWatermark()
	var files []checkpointFile
	// The producer state at the LEO (the recovery point, after the sync
	// above): the next Open loads it instead of reading any batch.
	snap, withSnap := l.snapshotFile()
	if withSnap {
		files = append(files, snap)
	}
	if !l.rpOnDisk.holds(l.recoveryPoint) {
		files = append(files, checkpointFile{recoveryPointFileName, formatCheckpoint(l.recoveryPoint)})
	}
	if !l.hwOnDisk.holds(hw) {
		files = append(files, checkpointFile{checkpointFileName, formatCheckpoint(hw)})
	}
	if !l.startOnDisk.holds(l.start) {
		files = append(files, checkpointFile{logStartFileName, formatCheckpoint(l.start)})
	}
	if l.epochs != l.epochsOnDisk {
		files = append(files, checkpointFile{epochFileName, epoch.AppendCheckpoint(nil, l.epochs.Entries())})
	}
	if len(files) > 0 {
		if err := l.writeCheckpoints(files...); err != nil {
			return err
		}
	}
	l.rpOnDisk, l.hwOnDisk, l.startOnDisk, l.epochsOnDisk = onDisk{l.recoveryPoint, true}, onDisk{hw, true}, onDisk{l.start, true}, l.epochs
	if withSnap {
		if err := l.snapshotWritten(l.recoveryPoint); err != nil {
			return err
		}
	}
	return l.writeCheckpoints(checkpointFile{cleanShutdownFileName, appendShutdownRecord(nil, rec)})
}

// closeFiles closes every segment's files, reporting the first error.
func (l *Log) closeFiles() error {
	l.fileMu.Lock()
	defer l.fileMu.Unlock()
	var errs []error
	for _, s := range l.segments {
		errs = append(errs, l.closeSegmentFilesLocked(s))
	}
	return errors.Join(errs...)
}

// closeSegmentFilesLocked closes s's open files and takes it off the LRU
// list. The caller holds fileMu.
func (l *Log) closeSegmentFilesLocked(s *segment) error {
	var errs []error
	if s.inLRU {
		l.lruRemove(s)
	}
	if s.writerPin {
		s.writerPin = false
		s.pins--
		l.writerPinned--
	}
	if s.log != nil {
		errs = append(errs, s.log.Close())
		s.log = nil
	}
	if s.index != nil {
		errs = append(errs, s.index.Close())
		s.index = nil
	}
	if s.timeIndex != nil {
		errs = append(errs, s.timeIndex.Close())
		s.timeIndex = nil
	}
	return errors.Join(errs...)
}

// unpinWriter releases the pin a roll put on an unsynced segment, now
// synced. The caller holds writeMu.
func (l *Log) unpinWriter(s *segment) {
	l.fileMu.Lock()
	defer l.fileMu.Unlock()
	if s.writerPin {
		s.writerPin = false
		s.pins--
		l.writerPinned--
		l.evictLocked()
	}
}

// withFile runs fn with s's log file open and pinned, opening it if it was
// closed (not the active segment). Callers hold mu or writeMu.
func (l *Log) withFile(s *segment, fn func() error) error {
	if err := l.acquire(s); err != nil {
		return err
	}
	defer l.release(s)
	return fn()
}

// withIndex runs fn with s's index file (suffix indexSuffix or
// timeIndexSuffix): the open one for the active segment, else one opened
// (created if missing) for the call.
func (l *Log) withIndex(s *segment, suffix string, fn func(vfs.File) error) error {
	l.fileMu.Lock()
	f := s.index
	if suffix == timeIndexSuffix {
		f = s.timeIndex
	}
	l.fileMu.Unlock()
	if f != nil {
		return fn(f)
	}
	f, err := l.fs.OpenFile(s.path(suffix), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	err = fn(f)
	return errors.Join(err, f.Close())
}

// syncIndexes fsyncs s's index and time index files.
func (l *Log) syncIndexes(s *segment) error {
	for _, suffix := range [2]string{indexSuffix, timeIndexSuffix} {
		if err := l.withIndex(s, suffix, func(f vfs.File) error { return f.Sync() }); err != nil {
			return fmt.Errorf("sync %s: %w", segmentName(s.base, suffix), err)
		}
	}
	return nil
}

// acquire opens s's log file if needed and pins it, so that it stays open
// until release. Opening a segment file that is not the active one puts it
// on the LRU list, and closes the least recently used unpinned files beyond
// Options.MaxOpenSegments. A failure to open puts the log in the failed
// state. Callers hold mu or writeMu, so s is not deleted meanwhile.
func (l *Log) acquire(s *segment) error {
	l.fileMu.Lock()
	defer l.fileMu.Unlock()
	if err := l.openLocked(s); err != nil {
		return err
	}
	s.pins++
	l.evictLocked()
	return nil
}

// release unpins s's log file.
func (l *Log) release(s *segment) {
	l.fileMu.Lock()
	s.pins--
	l.evictLocked()
	l.fileMu.Unlock()
}

// openLocked opens s's log file if it is closed, and marks it most
// recently used. It does not evict: the caller pins s first. The caller
// holds fileMu.
func (l *Log) openLocked(s *segment) error {
	if s.log != nil {
		if s.inLRU {
			l.lruRemove(s)
			l.lruPush(s)
		}
		return nil
	}
	active := s == l.segments[len(l.segments)-1]
	if !active {
		l.evictTo(l.opts.MaxOpenSegments - 1) // make room first: the bound holds at every moment
	}
	f, err := l.fs.OpenFile(s.path(segmentSuffix), os.O_RDWR, 0)
	if err != nil {
		return l.fail(fmt.Errorf("log: open segment: %w", err))
	}
	s.log = f
	if !active {
		l.lruPush(s)
	}
	return nil
}

// evictLocked closes unpinned LRU files beyond the bound, least recently
// used first. The caller holds fileMu.
func (l *Log) evictLocked() { l.evictTo(l.opts.MaxOpenSegments) }

// evictTo closes unpinned LRU files, least recently used first, until at
// most n are open (pinned ones stay, so a moment with many readers can
// exceed it). The caller holds fileMu.
func (l *Log) evictTo(n int) {
	for s := l.lruTail; s != nil && l.lruLen > n; {
		prev := s.lruPrev
		if s.pins == 0 {
			l.lruRemove(s)
			s.log.Close() // read-only use since it was rolled or verified; nothing to lose
			s.log = nil
		}
		s = prev
	}
}

// lruPush puts s at the head (most recently used) of the LRU list.
func (l *Log) lruPush(s *segment) {
	s.lruPrev, s.lruNext = nil, l.lruHead
	if l.lruHead != nil {
		l.lruHead.lruPrev = s
	}
	l.lruHead = s
	if l.lruTail == nil {
		l.lruTail = s
	}
	s.inLRU = true
	l.lruLen++
}

// lruRemove takes s off the LRU list.
func (l *Log) lruRemove(s *segment) {
	if s.lruPrev != nil {
		s.lruPrev.lruNext = s.lruNext
	} else {
		l.lruHead = s.lruNext
	}
	if s.lruNext != nil {
		s.lruNext.lruPrev = s.lruPrev
	} else {
		l.lruTail = s.lruPrev
	}
	s.lruPrev, s.lruNext, s.inLRU = nil, nil, false
	l.lruLen--
}
