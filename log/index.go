package log

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// indexEntrySize is the size of one index entry on disk: a uint32 offset
// relative to the segment base, then a uint32 file position, both
// big-endian, as in Kafka's OffsetIndex.
const indexEntrySize = 8

// indexEntry says that the batch starting at byte pos of the segment has base
// offset segment.base + rel. Kafka's index keys an entry by the batch's last
// offset; keying by the base offset makes every entry a batch boundary whose
// header can be checked against it, and locating works the same way (largest
// entry at or below the target, then scan forward).
type indexEntry struct {
	rel uint32
	pos uint32
}

// indexEntryDue reports whether a batch starting at pos gets an index entry:
// when it starts at least interval bytes after the last entry (or after the
// segment start). Entries are thus a pure function of the batch layout, so
// Open can rebuild the index and check the stored one byte for byte, and a
// lookup scans less than interval bytes plus one batch.
func indexEntryDue(entries []indexEntry, pos int64, interval int) bool {
	last := int64(0)
	if len(entries) > 0 {
		last = int64(entries[len(entries)-1].pos)
	}
	return pos-last >= int64(interval)
}

// floorEntry returns the index of the last entry whose offset is <= off, or
// -1 if there is none (the scan then starts at the segment start).
func (s *segment) floorEntry(off uint64) int {
	if off < s.base {
		return -1
	}
	rel := off - s.base
	lo, hi := 0, len(s.entries) // entries[:lo] are <= rel, entries[hi:] are > rel
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if uint64(s.entries[mid].rel) <= rel {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// ceilPos returns the position of the first entry whose offset is >= off:
// every batch with a base offset below off ends at or before it. ok is false
// when no entry qualifies.
func (s *segment) ceilPos(off uint64) (pos int64, ok bool) {
	i := s.floorEntry(off)
	if i >= 0 && uint64(s.entries[i].rel)+s.base == off {
		return int64(s.entries[i].pos), true
	}
	if i+1 < len(s.entries) {
		return int64(s.entries[i+1].pos), true
	}
	return 0, false
}

// appendIndexEntries encodes entries onto dst in the on-disk format.
func appendIndexEntries(dst []byte, entries []indexEntry) []byte {
	for _, e := range entries {
		dst = binary.BigEndian.AppendUint32(dst, e.rel)
		dst = binary.BigEndian.AppendUint32(dst, e.pos)
	}
	return dst
}

// writeIndexFile makes the index file f hold exactly entries, rewriting it
// if the stored bytes differ (missing, torn, stale or garbage). It reports
// whether it rewrote the file.
func writeIndexFile(f vfs.File, entries []indexEntry) (rewritten bool, err error) {
	return writeDerivedFile(f, appendIndexEntries(make([]byte, 0, len(entries)*indexEntrySize), entries), "index")
}

// writeDerivedFile makes the file f (an index of kind what) hold exactly
// want, rewriting it if the stored bytes differ. A stored file of another
// size is rewritten without being read.
func writeDerivedFile(f vfs.File, want []byte, what string) (rewritten bool, err error) {
	size, err := f.Size()
	if err != nil {
		return false, fmt.Errorf("log: stat %s: %w", what, err)
	}
	if size == int64(len(want)) {
		if size == 0 {
			return false, nil
		}
		have := make([]byte, len(want))
		n, err := f.ReadAt(have, 0)
		if n == len(have) && bytes.Equal(have, want) {
			return false, nil
		}
		if n < len(have) && err != io.EOF {
			return false, fmt.Errorf("log: read %s: %w", what, err)
		}
	}
	if err := f.Truncate(0); err != nil {
		return false, fmt.Errorf("log: rewrite %s: %w", what, err)
	}
	if _, err := f.WriteAt(want, 0); err != nil {
		return false, fmt.Errorf("log: rewrite %s: %w", what, err)
	}
	return true, nil
}

// readIndexEntries loads the index file f of a segment (base offset base,
// size bytes, offsets below next) that a clean shutdown vouches for. ok is
// false if the file is implausible: not whole entries, more entries than
// the segment can have, or entries not strictly increasing inside the
// segment. Plausible entries are only used to continue the index on
// append: reads use the index rebuilt when the segment is verified.
func readIndexEntries(f vfs.File, base uint64, size int64, next uint64) (entries []indexEntry, ok bool, err error) {
	n, err := f.Size()
	if err != nil {
		return nil, false, err
	}
	if n%indexEntrySize != 0 || n/indexEntrySize > size/BatchHeaderSize+1 {
		return nil, false, nil
	}
	data := make([]byte, n)
	if k, err := f.ReadAt(data, 0); int64(k) != n {
		return nil, false, fmt.Errorf("log: read index: %w", err)
	}
	entries = make([]indexEntry, 0, n/indexEntrySize)
	for p := 0; p < len(data); p += indexEntrySize {
		e := indexEntry{rel: binary.BigEndian.Uint32(data[p:]), pos: binary.BigEndian.Uint32(data[p+4:])}
		if int64(e.pos) >= size || uint64(e.rel) >= next-base {
			return nil, false, nil
		}
		if k := len(entries); k > 0 && (e.rel <= entries[k-1].rel || e.pos <= entries[k-1].pos) {
			return nil, false, nil
		}
		entries = append(entries, e)
	}
	return entries, true, nil
}
