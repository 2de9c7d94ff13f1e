package log

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kaenlog/kaenlog/epoch"
	"github.com/kaenlog/kaenlog/log/vfs"
)

// ReadOnlyLog is a log directory opened by OpenReadOnly: what recovery
// would find in it, found without changing it. It has no method that
// writes, so no call on it can change the directory. It is not safe for
// concurrent use.
type ReadOnlyLog struct {
	fs       vfs.FS
	dir      string
	segments []ReadOnlySegment

	start, end, hw uint64
	rp             uint64
	rpFound        bool
	clean          bool
	markerIgnored  string
	ignored        []string
	leftovers      []string
	stale          []string
	damage         Cut
	damaged        bool
	buf            []byte
}

// ReadOnlySegment is one segment file of a ReadOnlyLog, in offset order.
type ReadOnlySegment struct {
	// BaseOffset is the offset in the file's name.
	BaseOffset uint64
	// File is the segment file's base name.
	File string
	// Size is the file's size in bytes when it was opened.
	Size int64
	// ValidBytes is the length of the prefix of whole batches that passed
	// recovery's checks: Size for an undamaged segment.
	ValidBytes int64
	// NextOffset is the offset after the valid prefix's batches.
	NextOffset uint64
	// Batches is how many batches the valid prefix holds.
	Batches int
	// Verified is false for a segment after the damage (recovery would
	// delete it) or wholly below the log start (a leftover recovery would
	// delete): its batches were not checked.
	Verified bool
}

// OpenReadOnly opens the log in dir for reading only, through opts.FS.
// It checks the directory as Open's recovery does after an unclean
// shutdown, every segment batch by batch (see the package doc,
// "Recovery"), but it writes, renames, truncates, deletes and fsyncs
// nothing, leaves the clean-shutdown marker in place, and takes no lock
// (the lock file holds its holder's pid, and taking it writes it): it may
// run beside a Log that is appending, and then sees each file as large as
// it was when opened. Damage is reported, not cut: Damage names where the
// valid prefix ends and why, as a *CorruptError; a damaged checkpoint is
// reported (CheckpointsIgnored) and taken as absent, as Options.Repair
// would; index files recovery would rewrite are listed (IndexesStale).
// opts is checked as Open checks it; only FS and IndexIntervalBytes
// matter. The error is an I/O failure or an invalid option; a missing
// directory is one (Open would create it).
func OpenReadOnly(dir string, opts Options) (*ReadOnlyLog, error) {
	opts, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	r := &ReadOnlyLog{fs: opts.FS, dir: dir}
	if r.fs == nil {
		r.fs = vfs.OS()
	}
	if err := r.open(opts.IndexIntervalBytes); err != nil {
		return nil, fmt.Errorf("log: open read-only %s: %w", dir, err)
	}
	return r, nil
}

func (r *ReadOnlyLog) open(interval int) error {
	entries, err := r.fs.ReadDir(r.dir)
	if err != nil {
		return err
	}
	var bases []uint64
	hasMarker := false
	irregular := map[string]bool{}
	for _, e := range entries {
		if !e.Regular {
			// A checkpoint's path that cannot be read (recovery refuses it,
			// or with Repair moves it aside).
			if slices.Contains(ownedTempFiles, e.Name) || isOwnedTemp(e.Name) {
				irregular[e.Name] = true
				r.ignored = append(r.ignored, fmt.Sprintf("log: %s: not a regular file: %v", e.Name, ErrBadCheckpoint))
			}
			continue
		}
		if e.Name == cleanShutdownFileName {
			hasMarker = true
		}
		if base, ok := parseSegmentName(e.Name); ok {
			bases = append(bases, base)
			continue
		}
		_, idx := parseStem(e.Name, indexSuffix)
		if !idx {
			_, idx = parseStem(e.Name, timeIndexSuffix)
		}
		if idx || strings.HasSuffix(e.Name, cleanedSuffix) || isOwnedTemp(e.Name) {
			r.leftovers = append(r.leftovers, e.Name) // index files are taken back below
		}
	}
	slices.Sort(bases)
	// Index files of a segment are not leftovers.
	r.leftovers = slices.DeleteFunc(r.leftovers, func(name string) bool {
		base, ok := parseStem(name, indexSuffix)
		if !ok {
			base, ok = parseStem(name, timeIndexSuffix)
		}
		_, found := slices.BinarySearch(bases, base)
		return ok && found
	})

	// Checkpoints: a damaged one is taken as absent, as Repair takes it.
	var start, vf uint64
	var startFound, vfFound bool
	for _, t := range []struct {
		name  string
		v     *uint64
		found *bool
	}{
		{checkpointFileName, &r.hw, new(bool)},
		{recoveryPointFileName, &r.rp, &r.rpFound},
		{logStartFileName, &start, &startFound},
		{verifyFromFileName, &vf, &vfFound},
	} {
		if irregular[t.name] {
			continue
		}
		*t.v, *t.found, err = readOffsetCheckpoint(r.fs, r.dir, t.name)
		if err != nil {
			if !errors.Is(err, ErrBadCheckpoint) {
				return err
			}
			*t.v, *t.found = 0, false
			r.ignored = append(r.ignored, err.Error())
		}
	}
	var epochs []epoch.Entry
	if !irregular[epochFileName] {
		epochs, _, err = readEpochCheckpoint(r.fs, r.dir)
	}
	if err != nil {
		if !errors.Is(err, ErrBadCheckpoint) {
			return err
		}
		epochs = nil
		r.ignored = append(r.ignored, err.Error())
	}
	var marker *shutdownRecord
	if hasMarker && !irregular[cleanShutdownFileName] {
		data, _, err := readFile(r.fs, r.dir, cleanShutdownFileName, markerLimit)
		switch {
		case errors.Is(err, ErrBadCheckpoint):
			r.markerIgnored = err.Error()
		case err != nil:
			return err
		default:
			rec, perr := parseShutdownRecord(data)
			if perr != nil {
				r.markerIgnored = "damaged: " + perr.Error()
			} else {
				marker = &rec
			}
		}
	}

	if !startFound && len(bases) > 0 {
		start = bases[0]
	}
	r.start = start
	var cache *epoch.Cache
	if len(epochs) == 0 {
		cache = epoch.New() // recovery rebuilds it from the batches
	}
	ec := newEpochCheck(epochs, cache, start)
	r.end = start
	trusting := true
	for i, base := range bases {
		seg := ReadOnlySegment{BaseOffset: base, File: segmentName(base, segmentSuffix), Size: -1}
		leftover := i+1 < len(bases) && bases[i+1] <= start
		if leftover {
			r.leftovers = append(r.leftovers, seg.File)
		}
		if trusting && !leftover && i == 0 && base > start {
			// A log that should start below its first segment has lost its head.
			r.setDamage(Cut{File: seg.File, FirstOffset: start, Reason: &CorruptError{File: seg.File, Err: ErrHole}})
			trusting = false
		}
		if !trusting || leftover {
			size, err := r.fileSize(seg.File)
			if err != nil {
				return err
			}
			seg.Size = size
			r.segments = append(r.segments, seg)
			continue
		}
		res, size, err := r.scan(seg.File, base, bases, i, interval, ec)
		if err != nil {
			return err
		}
		seg.Size, seg.ValidBytes, seg.NextOffset, seg.Batches, seg.Verified = size, res.size, res.next, res.batches, true
		r.end = res.next
		r.segments = append(r.segments, seg)
		if res.bad != nil {
			r.setDamage(Cut{File: seg.File, Pos: int64(res.bad.Pos), FirstOffset: res.badOffset, Bytes: size - res.size, Reason: res.bad})
			trusting = false
			continue
		}
		if err := r.checkIndexes(base, res); err != nil {
			return err
		}
	}
	if trusting && r.rpFound && max(r.end, start) < r.rp {
		// Flushed offsets no segment holds.
		file, pos := "", int64(0)
		if n := len(r.segments); n > 0 {
			file, pos = r.segments[n-1].File, r.segments[n-1].ValidBytes
		}
		r.setDamage(Cut{File: file, Pos: pos, FirstOffset: max(r.end, start), Reason: &CorruptError{File: file, Pos: int(pos), Err: ErrHole}})
	}
	r.end = max(r.end, start)
	r.hw = min(max(r.hw, start), r.end)
	r.clean = marker != nil && r.matches(marker)
	slices.Sort(r.leftovers)
	return nil
}

// setDamage records where trust ends (the first place only).
func (r *ReadOnlyLog) setDamage(c Cut) {
	if r.damaged {
		return
	}
	c.BelowRecoveryPoint = r.rpFound && c.FirstOffset < r.rp
	r.damage, r.damaged = c, true
}

func (r *ReadOnlyLog) fileSize(name string) (int64, error) {
	f, err := r.fs.OpenFile(filepath.Join(r.dir, name), os.O_RDONLY, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.Size()
}

// scan verifies segment i as recovery does (scanSegment).
func (r *ReadOnlyLog) scan(name string, base uint64, bases []uint64, i, interval int, ec *epochCheck) (scanResult, int64, error) {
	f, err := r.fs.OpenFile(filepath.Join(r.dir, name), os.O_RDONLY, 0)
	if err != nil {
		return scanResult{}, 0, err
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return scanResult{}, 0, err
	}
	var want uint64
	last := i == len(bases)-1
	if !last {
		want = bases[i+1]
	}
	var res scanResult
	res, r.buf, err = scanSegment(f, name, base, size, want, !last, interval, ec, nil, r.buf)
	return res, size, err
}

// checkIndexes lists the index files of a verified segment that differ
// from the ones recovery rebuilds (a missing one included).
func (r *ReadOnlyLog) checkIndexes(base uint64, res scanResult) error {
	for _, c := range [2]struct {
		suffix string
		want   []byte
	}{
		{indexSuffix, appendIndexEntries(nil, res.entries)},
		{timeIndexSuffix, appendTimeEntries(nil, res.times)},
	} {
		name := segmentName(base, c.suffix)
		// Bounded by what it should hold: a larger file differs.
		got, err := vfs.ReadFile(r.fs, filepath.Join(r.dir, name), int64(len(c.want)))
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, vfs.ErrTooLarge):
			r.stale = append(r.stale, name)
		case err != nil:
			return err
		case !bytes.Equal(got, c.want):
			r.stale = append(r.stale, name)
		}
	}
	return nil
}

// matches reports whether the marker describes the directory as found:
// the same segments, sizes where recorded, and the same log end.
func (r *ReadOnlyLog) matches(m *shutdownRecord) bool {
	if r.damaged || m.end != r.end || len(m.segments) != len(r.segments) {
		return false
	}
	for i, s := range m.segments {
		if s.base != r.segments[i].BaseOffset || s.size >= 0 && s.size != r.segments[i].Size {
			return false
		}
	}
	return true
}

// Dir returns the directory.
func (r *ReadOnlyLog) Dir() string { return r.dir }

// Segments returns the segment files, in offset order.
func (r *ReadOnlyLog) Segments() []ReadOnlySegment { return slices.Clone(r.segments) }

// StartOffset returns the log start offset Open would recover: the
// checkpointed one, or the first segment's base.
func (r *ReadOnlyLog) StartOffset() uint64 { return r.start }

// EndOffset returns the end of the valid prefix: the LEO Open would
// recover.
func (r *ReadOnlyLog) EndOffset() uint64 { return r.end }

// HighWatermark returns the checkpointed high watermark, clamped as Open
// clamps it to [StartOffset, EndOffset].
func (r *ReadOnlyLog) HighWatermark() uint64 { return r.hw }

// RecoveryPoint returns the checkpointed recovery point; ok is false
// without one.
func (r *ReadOnlyLog) RecoveryPoint() (offset uint64, ok bool) { return r.rp, r.rpFound }

// CleanShutdown reports whether the directory holds a clean-shutdown
// marker that parses and matches what was found (the same segments and
// sizes, the same log end, no damage).
func (r *ReadOnlyLog) CleanShutdown() bool { return r.clean }

// MarkerIgnored says why a clean-shutdown marker that exists could not be
// read ("" when there is none or it parsed).
func (r *ReadOnlyLog) MarkerIgnored() string { return r.markerIgnored }

// CheckpointsIgnored lists the damaged checkpoints (ErrBadCheckpoint's
// messages), which were taken as absent.
func (r *ReadOnlyLog) CheckpointsIgnored() []string { return slices.Clone(r.ignored) }

// Leftovers lists the files Open would delete as leftovers of
// interrupted operations: temporary checkpoint files, compaction's copies,
// index files without a segment, segments wholly below the log start.
func (r *ReadOnlyLog) Leftovers() []string { return slices.Clone(r.leftovers) }

// IndexesStale lists the index and time index files of valid segments
// that differ from what recovery rebuilds (missing ones included): Open
// would rewrite them. Nothing is trusted from them here.
func (r *ReadOnlyLog) IndexesStale() []string { return slices.Clone(r.stale) }

// Damage returns where the valid prefix ends, as the Cut Open would make
// (with Options.Repair when BelowRecoveryPoint): the file and position,
// the first offset lost, and the reason, a *CorruptError matching
// ErrCorrupt and one cause. ok is false when there is none.
func (r *ReadOnlyLog) Damage() (cut Cut, ok bool) { return r.damage, r.damaged }

// StoredBatch is one batch of a segment file, as ScanSegment frames it.
type StoredBatch struct {
	// Pos is the batch's byte position in the segment file.
	Pos int64
	// Header is the batch's header.
	Header BatchHeader
	// Bytes are the batch's bytes, valid only until the callback returns.
	Bytes []byte
	// Err is nil when the batch passes VerifyBatch (its CRC included),
	// else its *CorruptError (positions in the batch).
	Err error
}

// ScanSegment reads the segment file of the segment with base offset
// base, batch after batch from its start, and calls fn with each batch it
// can frame (a header that parses and a length the file holds), whether
// or not its CRC holds, until fn returns false. It reads the whole file,
// not only the valid prefix: a batch with a bad CRC is handed over with
// Err set and framing goes on after it. It returns nil when the file was
// framed to its end (or fn stopped), a *CorruptError (File set, Pos in
// the file) where framing stopped, or an I/O error; and
// ErrOffsetOutOfRange for a base that names no segment. A length read
// from the file is checked against the bytes left in it before anything
// is allocated.
func (r *ReadOnlyLog) ScanSegment(base uint64, fn func(StoredBatch) bool) error {
	i := slices.IndexFunc(r.segments, func(s ReadOnlySegment) bool { return s.BaseOffset == base })
	if i < 0 {
		return fmt.Errorf("log: no segment with base offset %d: %w", base, ErrOffsetOutOfRange)
	}
	name := r.segments[i].File
	f, err := r.fs.OpenFile(filepath.Join(r.dir, name), os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return err
	}
	// As large as it was when opened: a live Log may be appending to it.
	size = min(size, r.segments[i].Size)
	var hdr [BatchHeaderSize]byte
	for pos := int64(0); pos < size; {
		if size-pos < BatchHeaderSize {
			return &CorruptError{File: name, Pos: int(pos), Err: ErrTruncated}
		}
		if n, err := f.ReadAt(hdr[:], pos); n != len(hdr) {
			return fmt.Errorf("log: read %s at %d: %w", name, pos, err)
		}
		n := BatchLogOverhead + int64(int32(binary.BigEndian.Uint32(hdr[posBatchLength:])))
		if n < BatchHeaderSize {
			return &CorruptError{File: name, Pos: int(pos + posBatchLength), Err: ErrBadLength}
		}
		if n > size-pos {
			return &CorruptError{File: name, Pos: int(pos), Err: ErrTruncated}
		}
		if int64(cap(r.buf)) < n {
			r.buf = make([]byte, n)
		}
		b := r.buf[:n]
		if k, err := f.ReadAt(b, pos); int64(k) != n {
			return fmt.Errorf("log: read %s at %d: %w", name, pos, err)
		}
		h, err := ReadBatchHeader(b)
		if err != nil {
			var ce *CorruptError
			if errors.As(err, &ce) {
				return &CorruptError{File: name, Pos: int(pos) + ce.Pos, Err: ce.Err}
			}
			return err
		}
		_, verr := VerifyBatch(b)
		if !fn(StoredBatch{Pos: pos, Header: h, Bytes: b, Err: verr}) {
			return nil
		}
		pos += n
	}
	return nil
}
