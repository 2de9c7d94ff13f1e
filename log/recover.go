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
	"strings"

	"github.com/kaenlog/kaenlog/epoch"
	"github.com/kaenlog/kaenlog/log/vfs"
)

// recoverChunkBytes is how much of a segment verification reads per
// system call.
const recoverChunkBytes = 1 << 20

// epochCheck checks, batch by batch, the partitionLeaderEpoch field that
// the CRC does not cover: epochs never decrease and are never negative,
// and (check mode) each batch's epoch is the one the leader-epoch cache
// gives for the batch's last offset, or (rebuild mode) the cache is built
// from the batches, as Kafka's log loader assigns epochs to recovered
// batches. Batches wholly below start are not checked against the cache
// (its entries below the log start were folded into one).
//
// The last offset, not the base, is what a batch's epoch must match:
// compaction replaces a run of emptied batches with one empty batch
// carrying the epoch of the last batch of the run.
type epochCheck struct {
	entries []epoch.Entry // check mode
	rebuild *epoch.Cache  // rebuild mode when non-nil
	start   uint64
	j       int
	prev    int32
}

func newEpochCheck(entries []epoch.Entry, rebuild *epoch.Cache, start uint64) *epochCheck {
	return &epochCheck{entries: entries, rebuild: rebuild, start: start, prev: -1}
}

// ok checks one batch, in log order.
func (c *epochCheck) ok(h *BatchHeader) bool {
	e := h.PartitionLeaderEpoch
	if e < 0 || e < c.prev {
		return false
	}
	c.prev = e
	if c.rebuild != nil {
		if latest, ok := c.rebuild.LatestEpoch(); !ok || e > latest {
			return c.rebuild.Assign(e, h.BaseOffset) == nil
		}
		return true
	}
	last := h.LastOffset()
	if last < c.start {
		return true
	}
	for c.j+1 < len(c.entries) && c.entries[c.j+1].StartOffset <= last {
		c.j++
	}
	return len(c.entries) > 0 && c.entries[c.j].StartOffset <= last && c.entries[c.j].Epoch == e
}

// scanResult is what verifying a segment file found.
type scanResult struct {
	size    int64 // bytes of whole verified batches from the start
	next    uint64
	max     maxTime
	entries []indexEntry
	times   []timeEntry
	batches int
	// bad is why verification stopped trusting the file (nil when the
	// whole file verified and, with a wanted end, ended exactly there); the
	// bytes from bad.Pos on and the offsets from badOffset on are not
	// trusted.
	bad       *CorruptError
	badOffset uint64
}

// scanSegment verifies the batches of the segment file f (fileSize bytes,
// base offset base), batch by batch: framing and CRC (VerifyBatch); each
// batch starting exactly where the previous ended, the first at base; each
// indexable (relative offset and position within 32 bits); epochs as ec
// checks them; and, when haveWant, the last ending exactly at wantNext (the
// next segment's base: ErrHole if before, ErrBadOffset if after). It rebuilds the index
// and time index entries as it goes, and hands every batch it keeps to pr (if not nil),
// which replays the producer state. buf is a reusable read buffer; the
// possibly grown one is returned. The error is an I/O failure; damage is
// in the result.
func scanSegment(f vfs.File, name string, base uint64, fileSize int64, wantNext uint64, haveWant bool,
	interval int, ec *epochCheck, pr *producerReplay, buf []byte) (scanResult, []byte, error) {
	res := scanResult{next: base, max: noMaxTime}
	bad := func(pos int64, err error) {
		res.bad = &CorruptError{File: name, Pos: int(pos), Err: err}
		res.badOffset = res.next
	}
	var bufStart int64 // file position of buf[0]
	buf = buf[:0]
	// load makes file bytes [pos, pos+n) available in buf; the caller has
	// checked that the file holds them.
	load := func(pos, n int64) ([]byte, error) {
		if pos < bufStart || pos+n > bufStart+int64(len(buf)) {
			want := min(max(n, recoverChunkBytes), fileSize-pos)
			if int64(cap(buf)) < want {
				buf = make([]byte, want)
			}
			buf = buf[:want]
			read, err := f.ReadAt(buf, pos)
			if int64(read) != want {
				buf = buf[:0]
				if err == nil {
					err = fmt.Errorf("short read")
				}
				return nil, fmt.Errorf("log: read %s at %d: %w", name, pos, err)
			}
			bufStart = pos
		}
		return buf[pos-bufStart : pos-bufStart+n], nil
	}

	pos := int64(0)
	for pos < fileSize {
		remain := fileSize - pos
		if remain < BatchHeaderSize {
			bad(pos, ErrTruncated)
			break
		}
		hdr, err := load(pos, BatchHeaderSize)
		if err != nil {
			return res, buf, err
		}
		size := storedSize(hdr)
		if size < BatchHeaderSize {
			bad(pos+posBatchLength, ErrBadLength)
			break
		}
		if size > remain {
			bad(pos, ErrTruncated)
			break
		}
		b, err := load(pos, size)
		if err != nil {
			return res, buf, err
		}
		h, err := VerifyBatch(b)
		if err != nil {
			var ce *CorruptError
			if errors.As(err, &ce) {
				bad(pos+int64(ce.Pos), ce.Err)
			} else {
				bad(pos, err)
			}
			break
		}
		switch {
		case h.BaseOffset > res.next:
			bad(pos, ErrHole)
		case h.BaseOffset < res.next:
			bad(pos, ErrBadOffset)
		case h.BaseOffset-base > math.MaxUint32 || h.LastOffset() == math.MaxInt64:
			bad(pos+posLastOffsetDelta, ErrBadOffset)
		case pos+size > math.MaxUint32:
			bad(pos, ErrBadLength)
		case !ec.ok(&h):
			bad(pos+posPartitionLeaderEpoch, ErrEpochMismatch)
		}
		if res.bad != nil {
			break
		}
		res.max.observe(h.MaxTimestamp, uint64(h.LastOffset()), h.RecordCount)
		if indexEntryDue(res.entries, pos, interval) {
			res.entries = append(res.entries, indexEntry{rel: uint32(h.BaseOffset - base), pos: uint32(pos)})
			if e, ok := timeEntryFor(res.max, lastTs(res.times), base, pos); ok {
				res.times = append(res.times, e)
			}
		}
		pr.batch(&h)
		res.next = h.NextOffset()
		res.batches++
		pos += size
		res.size = pos
	}
	switch {
	case res.bad != nil || !haveWant || res.next == wantNext:
	case res.next < wantNext:
		bad(pos, ErrHole) // the file ends before the next segment begins
	default:
		// The next segment begins inside this one: its name is wrong (a
		// stray file), since this segment's batches are checksummed and
		// continue each other. Trust ends at this segment's end.
		bad(pos, ErrBadOffset)
	}
	return res, buf, nil
}

// countBatches walks the batch headers of f from pos (magic and length
// only, no CRC) and returns how many whole batches it could walk: what a
// report says was dropped.
func countBatches(f vfs.File, pos, size int64) (int, error) {
	var hdr [BatchHeaderSize]byte
	n := 0
	for pos+BatchHeaderSize <= size {
		if k, err := f.ReadAt(hdr[:], pos); k != len(hdr) {
			return n, fmt.Errorf("log: open: read %d: %w", pos, err)
		}
		l := BatchLogOverhead + int64(int32(binary.BigEndian.Uint32(hdr[posBatchLength:])))
		if hdr[posMagic] != Magic || l < BatchHeaderSize || pos+l > size {
			break
		}
		n++
		pos += l
	}
	return n, nil
}

// isOwnedTemp reports whether name is a temporary file of a checkpoint or
// marker write.
func isOwnedTemp(name string) bool {
	stem, ok := strings.CutSuffix(name, checkpointTempSuffix)
	if _, snap := parseStem(stem, producerSnapshotSuffix); ok && snap {
		return true
	}
	return ok && slices.Contains(ownedTempFiles, stem)
}

// recovery is Open's working state.
type recovery struct {
	l *Log
	r *RecoveryReport
	// names holds the directory's regular files other than segment and
	// index files (checkpoints, temporary files, ...): a few, whereas a
	// log can have thousands of segments.
	names map[string]bool
	// entries is the directory's listing; all holds every name in it,
	// built only when a name must be found free (asideName: rare, and a
	// map of every name would cost a clean Open of thousands of segments
	// a map insert per file); irregular, the checkpoint paths that are
	// not regular files, and aside where Repair moves each.
	entries    []vfs.DirEntry
	all        map[string]bool
	irregular  []string
	aside      map[string]string
	bases      []uint64 // segment log files, sorted
	indexBases []uint64 // index files, in listing order
	// timeIndexBases are the time index files, in listing order.
	timeIndexBases []uint64
	hw             uint64
	hwFound        bool
	rp             uint64
	rpFound        bool
	start          uint64
	startFound     bool
	verifyFrom     uint64
	vfFound        bool
	epochs         []epoch.Entry
	epochsFound    bool
	marker         *shutdownRecord
	dirty          bool // directory entries changed: sync at the end
	newDir         bool // no segment was found: sync the parent directory too
	// pr replays the producer state in the verification pass (unclean
	// Open); deadSnapshots are producer-state snapshots that did not load.
	pr            *producerReplay
	deadSnapshots []uint64
	droppedAll    bool // only leftovers below the log start were found
}

// recover brings the directory to a state the log can trust, filling in
// l.segments, the offsets, the epoch cache and the report. See the package
// doc ("Recovery") for the rules.
func (l *Log) recover() error {
	rc := &recovery{l: l, r: &l.report, names: map[string]bool{}}
	if err := rc.list(); err != nil {
		return err
	}
	if err := rc.readCheckpoints(); err != nil {
		return err
	}
	if err := rc.readMarker(); err != nil {
		return err
	}
	if err := rc.moveAsideIrregular(); err != nil {
		return err
	}
	if err := rc.deleteLeftovers(); err != nil {
		return err
	}
	clean, err := rc.tryClean()
	if err != nil {
		return err
	}
	if !clean {
		if err := rc.unclean(); err != nil {
			return err
		}
	}
	return rc.finish()
}

func (rc *recovery) list() error {
	entries, err := rc.l.fs.ReadDir(rc.l.dir)
	if err != nil {
		return fmt.Errorf("log: open: %w", err)
	}
	// Mostly segments and their indexes.
	rc.bases = make([]uint64, 0, len(entries)/3+1)
	rc.indexBases = make([]uint64, 0, len(entries)/3+1)
	rc.timeIndexBases = make([]uint64, 0, len(entries)/3+1)
	rc.entries = entries
	for _, e := range entries {
		if !e.Regular {
			// A directory (or a link, a device) where the log writes a
			// checkpoint: it can be neither read nor replaced.
			if slices.Contains(ownedTempFiles, e.Name) || isOwnedTemp(e.Name) {
				rc.irregular = append(rc.irregular, e.Name)
			}
			continue
		}
		// One parse of the 20 digits, then the suffix: a clean Open of
		// thousands of segments spends its time here.
		var list *[]uint64
		if len(e.Name) > 20 {
			switch e.Name[20:] {
			case segmentSuffix:
				list = &rc.bases
			case indexSuffix:
				list = &rc.indexBases
			case timeIndexSuffix:
				list = &rc.timeIndexBases
			case producerSnapshotSuffix:
				list = &rc.l.snapshots
			}
		}
		if list != nil {
			if base, ok := parseStem(e.Name, e.Name[20:]); ok {
				*list = append(*list, base)
				continue
			}
		}
		rc.names[e.Name] = true
	}
	slices.Sort(rc.bases)
	slices.Sort(rc.l.snapshots)
	slices.Sort(rc.irregular)
	return nil
}

// asideName returns the name a checkpoint path that is not a regular file
// is moved to by Repair: name.damaged, or name.damaged-2, ... if taken.
func (rc *recovery) asideName(name string) string {
	if rc.all == nil {
		rc.all = make(map[string]bool, len(rc.entries))
		for _, e := range rc.entries {
			rc.all[e.Name] = true
		}
	}
	aside := name + damagedSuffix
	for i := 2; rc.all[aside]; i++ {
		aside = fmt.Sprintf("%s%s-%d", name, damagedSuffix, i)
	}
	rc.all[aside] = true
	return aside
}

// moveAsideIrregular moves each checkpoint path that is not a regular file
// to the name readCheckpoints gave it (Repair only: without it Open has
// already refused). Nothing is deleted: the log cannot prove what such an
// entry holds, so it only makes room to write the checkpoint again.
func (rc *recovery) moveAsideIrregular() error {
	for _, name := range rc.irregular {
		aside := rc.aside[name]
		if err := rc.l.fs.Rename(filepath.Join(rc.l.dir, name), filepath.Join(rc.l.dir, aside)); err != nil {
			return fmt.Errorf("log: open: move %s aside: %w", name, err)
		}
		rc.dirty = true
	}
	return nil
}

// checkpointErr handles a damaged checkpoint: an error unless Repair, in
// which case it is reported and ignored.
func (rc *recovery) checkpointErr(err error) error {
	if !errors.Is(err, ErrBadCheckpoint) || !rc.l.opts.Repair {
		return err
	}
	rc.r.CheckpointsIgnored = append(rc.r.CheckpointsIgnored, err.Error())
	return nil
}

func (rc *recovery) readCheckpoints() error {
	// Before anything is read: without Repair, Open refuses here and
	// changes nothing.
	rc.aside = map[string]string{}
	for _, name := range rc.irregular {
		rc.aside[name] = rc.asideName(name)
		err := fmt.Errorf("log: %s: not a regular file: %w", name, ErrBadCheckpoint)
		if err := rc.checkpointErr(err); err != nil {
			return err
		}
		rc.r.CheckpointsIgnored[len(rc.r.CheckpointsIgnored)-1] += "; moved aside to " + rc.aside[name]
	}
	var err error
	type target struct {
		name  string
		v     *uint64
		found *bool
	}
	for _, t := range []target{
		{checkpointFileName, &rc.hw, &rc.hwFound},
		{recoveryPointFileName, &rc.rp, &rc.rpFound},
		{logStartFileName, &rc.start, &rc.startFound},
		{verifyFromFileName, &rc.verifyFrom, &rc.vfFound},
	} {
		if _, bad := rc.aside[t.name]; bad {
			continue // ignored above: taken as absent
		}
		*t.v, *t.found, err = readOffsetCheckpoint(rc.l.fs, rc.l.dir, t.name)
		if err != nil {
			*t.v, *t.found = 0, false
			if err := rc.checkpointErr(err); err != nil {
				return err
			}
		}
	}
	if _, bad := rc.aside[epochFileName]; bad {
		return nil
	}
	rc.epochs, rc.epochsFound, err = readEpochCheckpoint(rc.l.fs, rc.l.dir)
	if err != nil {
		rc.epochs, rc.epochsFound = nil, false
		return rc.checkpointErr(err)
	}
	return nil
}

// readMarker reads the clean-shutdown marker, if any, and deletes it (and
// syncs the directory) before anything else changes: from here on, the
// directory is not known to be as Close left it.
func (rc *recovery) readMarker() error {
	if !rc.names[cleanShutdownFileName] {
		return nil
	}
	data, _, err := readFile(rc.l.fs, rc.l.dir, cleanShutdownFileName, markerLimit)
	switch {
	case errors.Is(err, ErrBadCheckpoint):
		rc.r.MarkerIgnored = err.Error()
	case err != nil:
		return err
	default:
		rec, perr := parseShutdownRecord(data)
		if perr != nil {
			rc.r.MarkerIgnored = "damaged: " + perr.Error()
		} else {
			rc.marker = &rec
		}
	}
	if err := rc.l.fs.Remove(filepath.Join(rc.l.dir, cleanShutdownFileName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("log: open: delete clean-shutdown marker: %w", err)
	}
	if err := rc.l.fs.SyncDir(rc.l.dir); err != nil {
		return fmt.Errorf("log: open: %w", err)
	}
	return nil
}

// deleteLeftovers deletes the files of interrupted operations: temporary
// checkpoints, compaction's copies, index and time index files without a
// segment.
func (rc *recovery) deleteLeftovers() error {
	var leftovers []string
	for name := range rc.names {
		if strings.HasSuffix(name, cleanedSuffix) || isOwnedTemp(name) {
			leftovers = append(leftovers, name)
		}
	}
	// Index files without a segment (bases is sorted).
	for _, b := range rc.indexBases {
		if _, found := slices.BinarySearch(rc.bases, b); !found {
			leftovers = append(leftovers, segmentName(b, indexSuffix))
		}
	}
	for _, b := range rc.timeIndexBases {
		if _, found := slices.BinarySearch(rc.bases, b); !found {
			leftovers = append(leftovers, segmentName(b, timeIndexSuffix))
		}
	}
	slices.Sort(leftovers)
	for _, name := range leftovers {
		if err := rc.remove(name); err != nil {
			return err
		}
		rc.r.LeftoversDeleted = append(rc.r.LeftoversDeleted, name)
	}
	return nil
}

// remove deletes a file of the directory; one already gone is fine.
func (rc *recovery) remove(name string) error {
	err := rc.l.fs.Remove(filepath.Join(rc.l.dir, name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("log: open: delete %s: %w", name, err)
	}
	delete(rc.names, name)
	rc.dirty = true
	return nil
}

// tryClean trusts the clean-shutdown marker if the directory is as it
// says: the same segments, the active one of the recorded size with a
// plausible index, and the checkpoints Close writes before the marker, in
// agreement with it. Then no segment is read.
func (rc *recovery) tryClean() (bool, error) {
	m := rc.marker
	if m == nil {
		return false, nil
	}
	why := ""
	last := m.segments[len(m.segments)-1]
	switch {
	case !slices.EqualFunc(m.segments, rc.bases, func(s segmentRecord, b uint64) bool { return s.base == b }):
		why = "the segment files differ from the ones it lists"
	case !rc.rpFound || rc.rp != m.end:
		why = "the recovery-point checkpoint does not match"
	case !rc.startFound || rc.start != m.start:
		why = "the log-start checkpoint does not match"
	case !rc.hwFound:
		why = "no high-watermark checkpoint"
	case !rc.epochsFound || (len(rc.epochs) == 0 && m.end > m.start):
		why = "no leader-epoch checkpoint"
	case rc.vfFound:
		why = "damage was found since"
	case last.size < 0:
		why = "no size for the active segment"
	case !slices.Contains(rc.timeIndexBases, last.base):
		why = "the active segment has no time index"
	}
	var active *segment
	if why == "" {
		var err error
		active, why, err = rc.openActiveClean(last, m.end, m.activeMax)
		if err != nil {
			if active != nil {
				rc.l.closeSegmentFilesLocked(active)
			}
			return false, err
		}
	}
	if why != "" {
		rc.r.MarkerIgnored = why
		if active != nil {
			rc.l.closeSegmentFilesLocked(active)
		}
		return false, nil
	}
	l := rc.l
	l.segments = make([]*segment, 0, len(m.segments))
	older := make([]segment, len(m.segments)-1) // one allocation for thousands of segments
	for i, rec := range m.segments[:len(m.segments)-1] {
		s := &older[i]
		s.base, s.dir, s.maxTimestamp = rec.base, l.dir, noTimestamp
		s.size, s.next = rec.size, m.segments[i+1].base
		l.segments = append(l.segments, s)
	}
	l.segments = append(l.segments, active)
	l.start = m.start
	l.recoveryPoint, l.rpOnDisk = m.end, onDisk{rc.rp, true}
	rc.r.Clean = true
	return true, nil
}

// openActiveClean opens the active segment named by a trusted marker and
// loads its index and time index from their files, and its largest
// timestamp m from the marker, so appends can continue them without
// reading the segment. why is non-empty when the files disagree with the
// marker.
func (rc *recovery) openActiveClean(rec segmentRecord, end uint64, m maxTime) (s *segment, why string, err error) {
	l := rc.l
	s = newSegment(l.dir, rec.base)
	s.size, s.next = rec.size, end
	s.maxTimestamp, s.maxTimestampOffset = m.ts, m.off
	if s.log, err = l.fs.OpenFile(s.path(segmentSuffix), os.O_RDWR, 0); err != nil {
		return nil, "", fmt.Errorf("log: open: %w", err)
	}
	if size, err := s.log.Size(); err != nil {
		return s, "", fmt.Errorf("log: open: %w", err)
	} else if size != rec.size {
		return s, fmt.Sprintf("%s is %d bytes, not %d", s.name(), size, rec.size), nil
	}
	if s.index, err = l.fs.OpenFile(s.path(indexSuffix), os.O_RDWR|os.O_CREATE, 0o644); err != nil {
		return s, "", fmt.Errorf("log: open: %w", err)
	}
	entries, ok, err := readIndexEntries(s.index, s.base, s.size, s.next)
	if err != nil {
		return s, "", fmt.Errorf("log: open: %w", err)
	}
	if !ok {
		return s, "the active segment's index is implausible", nil
	}
	s.entries = entries
	if s.timeIndex, err = l.fs.OpenFile(s.path(timeIndexSuffix), os.O_RDWR|os.O_CREATE, 0o644); err != nil {
		return s, "", fmt.Errorf("log: open: %w", err)
	}
	times, ok, err := readTimeIndexEntries(s.timeIndex, s.base, s.size, s.next, m)
	if err != nil {
		return s, "", fmt.Errorf("log: open: %w", err)
	}
	if !ok || len(times) > len(entries) {
		return s, "the active segment's time index is implausible", nil
	}
	s.times = times
	return s, "", nil
}

// unclean verifies what the recovery point does not vouch for and cuts at
// the first damage.
func (rc *recovery) unclean() error {
	l, r := rc.l, rc.r
	r.RecoveryPoint, r.HaveRecoveryPoint = rc.rp, rc.rpFound
	rp := rc.rp

	// The log start: the checkpointed one, or the first segment's base.
	start := rc.start
	if !rc.startFound && len(rc.bases) > 0 {
		start = rc.bases[0]
	}
	// Segments wholly below the start are leftovers of retention or of
	// TruncateFullyAndStartAt, interrupted: delete them, newest first.
	first := 0
	for first+1 < len(rc.bases) && rc.bases[first+1] <= start {
		first++
	}
	for i := first - 1; i >= 0; i-- {
		if err := rc.removeSegment(rc.bases[i]); err != nil {
			return err
		}
		rc.r.LeftoversDeleted = append(rc.r.LeftoversDeleted, segmentName(rc.bases[i], segmentSuffix))
	}
	bases := rc.bases[first:]

	var cache *epoch.Cache
	if len(rc.epochs) == 0 {
		cache = epoch.New() // rebuild from the batches
	}
	ec := newEpochCheck(rc.epochs, cache, start)

	// Which segments to verify: those holding offsets at or past the
	// recovery point (and past a damage hint); all of them to rebuild the
	// epoch cache or without a recovery point.
	from := 0
	if cache == nil && rc.rpFound {
		target := rp
		if rc.vfFound {
			target = min(target, rc.verifyFrom)
		}
		for from+1 < len(bases) && bases[from+1] <= target {
			from++
		}
	}
	segs := make([]*segment, 0, len(bases))
	for i, b := range bases {
		s := newSegment(l.dir, b)
		if i+1 < len(bases) {
			s.next = bases[i+1]
		}
		segs = append(segs, s)
	}
	l.segments = segs // so that failure paths close their files

	// A log that should start below its first segment has lost its head.
	if len(segs) > 0 && segs[0].base > start {
		bad := &CorruptError{File: segs[0].name(), Pos: 0, Err: ErrHole}
		if err := rc.cut(0, true, 0, 0, start, bad, rp); err != nil {
			return err
		}
		segs = l.segments
	}

	// The producer state: the snapshot at the recovery point, and the
	// batches the pass verifies replayed onto it.
	from, err := rc.startProducerReplay(from)
	if err != nil {
		return err
	}

	var buf []byte
	for i := from; i < len(segs); i++ {
		s := segs[i]
		f, err := l.fs.OpenFile(s.path(segmentSuffix), os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("log: open: %w", err)
		}
		s.log = f
		size, err := f.Size()
		if err != nil {
			return fmt.Errorf("log: open: %w", err)
		}
		last := i == len(segs)-1
		var res scanResult
		res, buf, err = scanSegment(f, s.name(), s.base, size, s.next, !last, l.opts.IndexIntervalBytes, ec, rc.pr, buf)
		if err != nil {
			return err
		}
		r.SegmentsVerified++
		r.BatchesVerified += res.batches
		r.BytesVerified += res.size
		s.size, s.next, s.entries, s.times = res.size, res.next, res.entries, res.times
		s.maxTimestamp, s.maxTimestampOffset = res.max.ts, res.max.off
		s.verified.Store(true)
		if res.bad != nil {
			if err := rc.cut(i, false, res.size, size, res.badOffset, res.bad, rp); err != nil {
				return err
			}
			break
		}
	}
	segs = l.segments
	if len(segs) == 0 {
		// Nothing left (or nothing ever): an empty log at its start. A new
		// directory's own name must be durable too (Kafka flushes the
		// parent of a log directory it creates): fsync the parent below.
		s, err := createSegmentFiles(l.fs, l.dir, start)
		if err != nil {
			return err
		}
		rc.dirty, rc.newDir = true, true
		l.segments = []*segment{s}
		segs = l.segments
	}
	leo := segs[len(segs)-1].next
	// Flushed offsets the files no longer hold (deleted last segments, an
	// empty directory): damage too — unless they are below the log start,
	// where deleting them was the point (a TruncateFullyAndStartAt past the
	// LEO killed after it checkpointed the new start).
	if rc.rpFound && max(leo, start) < rp && !r.LostFlushedData {
		last := segs[len(segs)-1]
		bad := &CorruptError{File: last.name(), Pos: int(max(last.size, 0)), Err: ErrHole}
		if !l.opts.Repair {
			return fmt.Errorf("log: open %s: offsets [%d, %d) were flushed but no segment holds them: %w: %w",
				l.dir, max(leo, start), rp, ErrDamageBelowRecoveryPoint, bad)
		}
		r.Cuts = append(r.Cuts, Cut{File: bad.File, Pos: int64(bad.Pos), FirstOffset: max(leo, start), Reason: bad, BelowRecoveryPoint: true})
		r.LostFlushedData = true
	}
	// A last segment wholly below the start holds only leftovers.
	if s := segs[len(segs)-1]; s.next <= start && s.base < start {
		rc.droppedAll = true
		if err := rc.dropAllFor(start); err != nil {
			return err
		}
		segs = l.segments
	}
	l.start = max(start, segs[0].base)
	if cache != nil {
		if cache.Len() > 0 {
			r.EpochsRebuilt = true
		}
		rc.epochs = cache.Entries()
	}

	// Make what was verified durable: it is the log from now on.
	l.fileMu.Lock()
	defer l.fileMu.Unlock()
	for i := from; i < len(segs); i++ {
		s := segs[i]
		if err := s.log.Sync(); err != nil {
			return fmt.Errorf("log: open: sync %s: %w", s.name(), err)
		}
		if err := rc.checkIndex(s, i == len(segs)-1); err != nil {
			return err
		}
	}
	if rc.dirty {
		if err := l.fs.SyncDir(l.dir); err != nil {
			return fmt.Errorf("log: open: %w", err)
		}
		rc.dirty = false
	}
	if rc.newDir {
		if err := l.fs.SyncDir(filepath.Dir(l.dir)); err != nil {
			return fmt.Errorf("log: open: %w", err)
		}
	}
	l.recoveryPoint = segs[len(segs)-1].next
	l.rpOnDisk = onDisk{rc.rp, rc.rpFound}
	return nil
}

// dropAllFor replaces every segment with an empty one at start.
func (rc *recovery) dropAllFor(start uint64) error {
	l := rc.l
	for len(l.segments) > 0 {
		s := l.segments[len(l.segments)-1]
		l.closeSegmentFilesLocked(s)
		if err := rc.removeSegment(s.base); err != nil {
			return err
		}
		rc.r.LeftoversDeleted = append(rc.r.LeftoversDeleted, s.name())
		l.segments = l.segments[:len(l.segments)-1]
	}
	s, err := createSegmentFiles(l.fs, l.dir, start)
	if err != nil {
		return err
	}
	l.segments = []*segment{s}
	return nil
}

// checkIndex makes a verified segment's index and time index files hold
// exactly its entries, and leaves the active segment's open. The caller holds
// fileMu.
func (rc *recovery) checkIndex(s *segment, active bool) error {
	l := rc.l
	for _, suffix := range [2]string{indexSuffix, timeIndexSuffix} {
		f := s.index
		if suffix == timeIndexSuffix {
			f = s.timeIndex
		}
		if f == nil {
			var err error
			if f, err = l.fs.OpenFile(s.path(suffix), os.O_RDWR|os.O_CREATE, 0o644); err != nil {
				return fmt.Errorf("log: open: %w", err)
			}
		}
		var rewritten bool
		var err error
		if suffix == indexSuffix {
			rewritten, err = writeIndexFile(f, s.entries)
		} else {
			rewritten, err = writeTimeIndexFile(f, s.times)
		}
		if err != nil {
			f.Close()
			return fmt.Errorf("log: open: %w", err)
		}
		if rewritten {
			rc.r.IndexesRebuilt = append(rc.r.IndexesRebuilt, segmentName(s.base, suffix))
			s.indexDirty = true
		}
		switch {
		case active && suffix == indexSuffix:
			s.index = f
		case active:
			s.timeIndex = f
		default:
			if err := f.Close(); err != nil {
				return fmt.Errorf("log: open: %w", err)
			}
		}
	}
	if active {
		return nil
	}
	// Verified older segments are opened again when read.
	err := s.log.Close()
	s.log = nil
	return err
}

// removeSegment deletes a segment's files; missing ones are fine.
func (rc *recovery) removeSegment(base uint64) error {
	for _, suffix := range []string{segmentSuffix, indexSuffix, timeIndexSuffix} {
		if err := rc.remove(segmentName(base, suffix)); err != nil {
			return err
		}
	}
	return nil
}

// cut stops trusting the log at segment i, byte pos (the segment file is
// fileSize bytes and open), whose first untrusted offset is off, for reason
// bad: a torn write if off is at or past the recovery point, damage
// otherwise (refused unless Repair). It truncates segment i at pos, deletes
// every later segment newest first, and reports what went. With before,
// the hole is before segment i, which goes too.
func (rc *recovery) cut(i int, before bool, pos, fileSize int64, off uint64, bad *CorruptError, rp uint64) error {
	l, r := rc.l, rc.r
	below := rc.rpFound && off < rp
	if below && !l.opts.Repair {
		return fmt.Errorf("log: open %s: %w: %w", l.dir, ErrDamageBelowRecoveryPoint, bad)
	}
	c := Cut{File: bad.File, Pos: int64(bad.Pos), FirstOffset: off, Reason: bad, BelowRecoveryPoint: below}
	segs := l.segments
	s := segs[i]
	if !before && pos < fileSize {
		n, err := countBatches(s.log, pos, fileSize)
		if err != nil {
			return err
		}
		c.Batches += n
		c.Bytes += fileSize - pos
		if err := s.log.Truncate(pos); err != nil {
			return fmt.Errorf("log: open: cut %s: %w", s.name(), err)
		}
		if err := s.log.Sync(); err != nil {
			return fmt.Errorf("log: open: cut %s: %w", s.name(), err)
		}
	}
	keep := i + 1
	if before {
		keep = i
	}
	for k := len(segs) - 1; k >= keep; k-- {
		d := segs[k]
		f, err := l.fs.OpenFile(d.path(segmentSuffix), os.O_RDONLY, 0)
		if err != nil {
			return fmt.Errorf("log: open: %w", err)
		}
		size, err := f.Size()
		var n int
		if err == nil {
			n, err = countBatches(f, 0, size)
		}
		f.Close()
		if err != nil {
			return err
		}
		c.Batches += n
		c.Bytes += size
		l.closeSegmentFilesLocked(d)
		if err := rc.removeSegment(d.base); err != nil {
			return err
		}
	}
	l.segments = segs[:keep]
	r.Cuts = append(r.Cuts, c)
	if below {
		r.LostFlushedData = true
	}
	return nil
}

// finish sets the HW and the epoch cache, and writes what recovery
// changed.
func (rc *recovery) finish() error {
	l, r := rc.l, rc.r
	leo := l.endOffset()
	// The epoch cache describes the log: no entry past its end, none below
	// its start.
	cache, err := epoch.FromEntries(rc.epochs)
	if err != nil {
		return fmt.Errorf("log: open: %w", err)
	}
	for _, e := range cache.Entries() {
		if e.StartOffset >= leo {
			r.EpochsDropped = append(r.EpochsDropped, e)
		}
	}
	cache.TruncateFromEnd(leo)
	cache.TruncateFromStart(l.start)
	l.epochs = cache
	if rc.epochsFound && slices.Equal(cache.Entries(), rc.epochs) && !r.EpochsRebuilt {
		l.epochsOnDisk = cache
	} else if err := l.writeEpochCheckpoint(cache); err != nil {
		return err
	}
	l.hwOnDisk = onDisk{rc.hw, rc.hwFound}
	l.startOnDisk = onDisk{rc.start, rc.startFound}

	l.hw = min(max(rc.hw, l.start), leo)
	if rc.hwFound && rc.hw > leo {
		r.HighWatermarkClamped, r.HighWatermarkCheckpoint = true, rc.hw
	}
	if err := rc.finishProducers(); err != nil {
		return err
	}
	if !r.Clean {
		if err := l.writeRecoveryPoint(); err != nil {
			return err
		}
		if rc.vfFound {
			if err := rc.remove(verifyFromFileName); err != nil {
				return err
			}
			if err := l.fs.SyncDir(l.dir); err != nil {
				return fmt.Errorf("log: open: %w", err)
			}
		}
	}
	r.StartOffset, r.EndOffset, r.HighWatermark = l.start, leo, l.hw
	return nil
}

// verify verifies an unverified segment in full, the first time anything
// needs its batches (a read, truncation, compaction, retention by time):
// the checks Open applies (scanSegment), its size against what Close
// recorded, and its index files against the rebuilt indexes. Damage puts the
// log in the failed state with a *CorruptError naming the file and
// position, and records the segment's base in verifyFromFileName so that
// the next Open verifies it too and refuses (or, with Repair, cuts). The
// caller holds mu (read) or writeMu; for the active segment, writeMu (the
// writer reads the active segment's fields without mu).
func (l *Log) verify(s *segment) error {
	if s.verified.Load() {
		return nil
	}
	l.fileMu.Lock()
	defer l.fileMu.Unlock()
	if s.verified.Load() {
		return nil
	}
	if f := l.failed.Load(); f != nil {
		return &failedError{cause: f.cause}
	}
	if err := l.openLocked(s); err != nil {
		return err
	}
	s.pins++
	defer func() {
		s.pins--
		l.evictLocked()
	}()
	size, err := s.log.Size()
	if err != nil {
		return l.fail(fmt.Errorf("log: verify %s: %w", s.name(), err))
	}
	var bad *CorruptError
	var res scanResult
	if s.size >= 0 && size != s.size {
		cause := ErrBadLength
		if size < s.size {
			cause = ErrHole
		}
		bad = &CorruptError{File: s.name(), Pos: int(min(size, s.size)), Err: cause}
	} else {
		ec := newEpochCheck(l.epochs.Entries(), nil, l.start)
		res, l.verifyBuf, err = scanSegment(s.log, s.name(), s.base, size, s.next, true, l.opts.IndexIntervalBytes, ec, nil, l.verifyBuf)
		if err != nil {
			return l.fail(err)
		}
		bad = res.bad
	}
	if len(l.verifyBuf) > recoverChunkBytes {
		l.verifyBuf = nil // do not keep one huge batch's buffer
	}
	if bad != nil {
		// Best effort: the log fails either way.
		writeFilesAtomic(l.fs, l.dir, checkpointFile{verifyFromFileName, formatCheckpoint(s.base)})
		return l.fail(fmt.Errorf("log: segment %s was trusted but is damaged: %w", s.name(), bad))
	}
	for _, suffix := range [2]string{indexSuffix, timeIndexSuffix} {
		f := s.index
		if suffix == timeIndexSuffix {
			f = s.timeIndex
		}
		if f == nil {
			if f, err = l.fs.OpenFile(s.path(suffix), os.O_RDWR|os.O_CREATE, 0o644); err != nil {
				return l.fail(fmt.Errorf("log: verify: %w", err))
			}
			defer f.Close()
		}
		var rewritten bool
		if suffix == indexSuffix {
			rewritten, err = writeIndexFile(f, res.entries)
		} else {
			rewritten, err = writeTimeIndexFile(f, res.times)
		}
		if err != nil {
			return l.fail(fmt.Errorf("log: verify: %w", err))
		}
		if rewritten {
			s.indexDirty = true // Close reads it under fileMu
		}
	}
	s.size, s.entries, s.times, s.indexPending, s.timePending = size, res.entries, res.times, 0, 0
	s.maxTimestamp, s.maxTimestampOffset = res.max.ts, res.max.off
	s.verified.Store(true)
	return nil
}
