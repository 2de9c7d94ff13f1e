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
)

// recoverChunkBytes is how much of a segment recovery reads per system call.
const recoverChunkBytes = 1 << 20

// recoverSegments opens the segments in dir and repairs whatever a crash
// left, so that the files again satisfy the segment invariants:
//
//   - leftover temporary files (compaction's ".cleaned" copies, a
//     checkpoint's ".tmp") are deleted: the originals they were meant to
//     replace are intact;
//   - an index file without its segment is deleted;
//   - every segment, oldest first, is read in full and every batch is
//     verified (framing, CRC-32C, base offsets increasing from the segment
//     base and within the 2^32 its index can express).
//     At the first batch that fails, the file is truncated there and every
//     later segment is deleted: the log must stay one contiguous run, and
//     nothing after a hole can be trusted to continue it. A segment whose
//     base offset is below the end of the previous one is deleted with all
//     later ones for the same reason;
//   - every index file is compared with the index rebuilt from its segment
//     and rewritten if it differs (the segment is the source of truth).
//
// Reading everything costs one sequential read of the log at page-cache or
// disk speed; in exchange a damaged byte anywhere is found at Open, not by a
// reader later. It always returns at least one segment, creating an empty
// one at offset 0 in an empty directory.
func recoverSegments(dir string, opts Options) (segs []*segment, err error) {
	names, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("log: open: %w", err)
	}
	var bases []uint64
	haveLog := map[string]bool{}
	repaired := false
	for _, e := range names {
		name := e.Name()
		if base, ok := parseSegmentName(name); ok && e.Type().IsRegular() {
			bases = append(bases, base)
			haveLog[strings.TrimSuffix(name, segmentSuffix)] = true
		}
	}
	for _, e := range names {
		name := e.Name()
		stem, isIndex := strings.CutSuffix(name, indexSuffix)
		leftover := strings.HasSuffix(name, cleanedSuffix) ||
			name == checkpointFileName+checkpointTempSuffix ||
			(isIndex && len(stem) == 20 && !haveLog[stem])
		if leftover {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("log: open: delete leftover: %w", err)
			}
			repaired = true
		}
	}
	slices.Sort(bases)

	defer func() {
		if err != nil {
			for _, s := range segs {
				s.close()
			}
			segs = nil
		}
	}()
	var buf []byte
	for i, base := range bases {
		if len(segs) > 0 && base < segs[len(segs)-1].next {
			// Overlaps its predecessor: not a continuation of the log.
			if err := removeSegmentFiles(dir, bases[i:]); err != nil {
				return segs, err
			}
			repaired = true
			break
		}
		s, err := openSegmentFiles(dir, base, false)
		if err != nil {
			return segs, err
		}
		segs = append(segs, s)
		var cut bool
		cut, buf, err = s.recover(opts.IndexIntervalBytes, buf)
		if err != nil {
			return segs, err
		}
		if _, err := s.syncIndexFile(); err != nil {
			return segs, err
		}
		if cut {
			if err := removeSegmentFiles(dir, bases[i+1:]); err != nil {
				return segs, err
			}
			repaired = true
			break
		}
	}
	if len(segs) == 0 {
		s, err := openSegmentFiles(dir, 0, true)
		if err != nil {
			return segs, err
		}
		segs = append(segs, s)
		repaired = true
	}
	if repaired {
		if err := syncDir(dir); err != nil {
			return segs, err
		}
	}
	return segs, nil
}

// removeSegmentFiles deletes the log and index files of the given segments,
// newest first, so that an interrupted removal still leaves a contiguous
// run of segments.
func removeSegmentFiles(dir string, bases []uint64) error {
	for i := len(bases) - 1; i >= 0; i-- {
		for _, suffix := range []string{segmentSuffix, indexSuffix} {
			err := os.Remove(filepath.Join(dir, segmentName(bases[i], suffix)))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("log: open: delete segment: %w", err)
			}
		}
	}
	return nil
}

// recover reads the segment's file from the start, verifying batch by batch,
// and sets size, next, maxTimestamp and entries from the valid prefix. If
// anything follows the valid prefix (a torn write, a corrupt batch, offsets
// that go backwards) it truncates the file to the prefix, fsyncs it, and
// reports cut. buf is a reusable read buffer; the possibly grown one is
// returned.
func (s *segment) recover(interval int, buf []byte) (cut bool, _ []byte, err error) {
	st, err := s.log.Stat()
	if err != nil {
		return false, buf, fmt.Errorf("log: open: %w", err)
	}
	fileSize := st.Size()
	s.size, s.next, s.maxTimestamp, s.entries = 0, s.base, noTimestamp, s.entries[:0]

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
			if err := s.readFull(buf, pos); err != nil {
				buf = buf[:0]
				return nil, err
			}
			bufStart = pos
		}
		return buf[pos-bufStart : pos-bufStart+n], nil
	}

	pos := int64(0)
	for pos < fileSize {
		remain := fileSize - pos
		if remain < BatchHeaderSize {
			break // torn header
		}
		hdr, err := load(pos, BatchHeaderSize)
		if err != nil {
			return false, buf, err
		}
		size := BatchLogOverhead + int64(int32(binary.BigEndian.Uint32(hdr[8:12])))
		if size < BatchHeaderSize || size > remain {
			break // impossible length, or torn body
		}
		b, err := load(pos, size)
		if err != nil {
			return false, buf, err
		}
		h, err := VerifyBatch(b)
		if err != nil || h.Size() != int(size) {
			break // corrupt
		}
		if h.BaseOffset < s.next || h.BaseOffset-s.base > math.MaxUint32 || pos+size > math.MaxUint32 || h.LastOffset() == math.MaxInt64 {
			break // does not continue the segment, cannot be indexed, or its end does not fit int64
		}
		if indexEntryDue(s.entries, pos, interval) {
			s.entries = append(s.entries, indexEntry{rel: uint32(h.BaseOffset - s.base), pos: uint32(pos)})
		}
		s.next = h.NextOffset()
		s.maxTimestamp = max(s.maxTimestamp, h.MaxTimestamp)
		pos += size
	}
	s.size = pos
	if pos == fileSize {
		return false, buf, nil
	}
	if err := s.log.Truncate(pos); err != nil {
		return false, buf, fmt.Errorf("log: open: cut corrupt tail: %w", err)
	}
	if err := s.log.Sync(); err != nil {
		return false, buf, fmt.Errorf("log: open: cut corrupt tail: %w", err)
	}
	return true, buf, nil
}
