package epoch

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Cache is a partition's leader-epoch cache: which epoch began at which
// offset, as Kafka's LeaderEpochFileCache keeps it. It lives in memory only;
// whoever owns it persists it (package log writes Entries to its
// leader-epoch-checkpoint file with AppendCheckpoint). It is not safe for
// concurrent use.
type Cache struct {
	// entries: epochs >= 0 and strictly increasing, start offsets strictly
	// increasing and <= math.MaxInt64. Mutations replace the slice rather
	// than write into it, so a slice handed out by an earlier state stays
	// valid.
	entries []Entry
}

// New returns an empty cache.
func New() *Cache { return &Cache{} }

// FromEntries returns a cache holding a copy of entries, as read back from
// a checkpoint. The entries must be what a Cache can hold (epochs >= 0,
// epochs and start offsets strictly increasing, start offsets <=
// math.MaxInt64), else it returns an error wrapping ErrBadCheckpoint.
func FromEntries(entries []Entry) (*Cache, error) {
	for i, e := range entries {
		switch {
		case e.Epoch < 0:
			return nil, fmt.Errorf("%w: entry %d has epoch %d", ErrBadCheckpoint, i, e.Epoch)
		case e.StartOffset > math.MaxInt64:
			return nil, fmt.Errorf("%w: entry %d has start offset %d", ErrBadCheckpoint, i, e.StartOffset)
		case i > 0 && (e.Epoch <= entries[i-1].Epoch || e.StartOffset <= entries[i-1].StartOffset):
			return nil, fmt.Errorf("%w: entry %d %d does not follow %d %d", ErrBadCheckpoint, e.Epoch, e.StartOffset, entries[i-1].Epoch, entries[i-1].StartOffset)
		}
	}
	return &Cache{entries: slices.Clone(entries)}, nil
}

// Clone returns an independent copy of the cache, so a caller can compute a
// new state, persist it, and only then adopt it.
func (c *Cache) Clone() *Cache { return &Cache{entries: slices.Clone(c.entries)} }

// commit makes next the cache's entries. It never fails; the error keeps
// the mutators' signatures uniform.
func (c *Cache) commit(next []Entry) error {
	c.entries = next
	return nil
}

// Assign records that epoch began at startOffset. It is called when this
// broker becomes leader (with its LEO) and when a follower appends a batch
// whose partition leader epoch is newer than its latest (with the batch's
// base offset). Kafka's assign rules (LeaderEpochFileCache.assign):
//
//   - epoch equal to the latest epoch and startOffset >= its start offset:
//     nothing to do (the epoch is already known, from an earlier or the
//     same offset), and no write happens;
//   - otherwise, first remove from the tail every entry that conflicts with
//     the new one — an epoch >= epoch, or a start offset >= startOffset —
//     then append the new entry. This keeps epochs and start offsets
//     strictly increasing; removed entries described a log tail that is
//     being (or was) overwritten.
//
// It returns an error wrapping ErrInvalidEpoch for a negative epoch or
// ErrOffsetOverflow for startOffset > math.MaxInt64; on error the cache is
// unchanged.
func (c *Cache) Assign(epoch int32, startOffset uint64) error {
	if epoch < 0 {
		return fmt.Errorf("%w: %d", ErrInvalidEpoch, epoch)
	}
	if startOffset > math.MaxInt64 {
		return fmt.Errorf("%w: start offset %d", ErrOffsetOverflow, startOffset)
	}
	if n := len(c.entries); n > 0 {
		latest := c.entries[n-1]
		if latest.Epoch == epoch && startOffset >= latest.StartOffset {
			return nil
		}
	}
	keep := len(c.entries)
	for keep > 0 && (c.entries[keep-1].Epoch >= epoch || c.entries[keep-1].StartOffset >= startOffset) {
		keep--
	}
	next := append(slices.Clone(c.entries[:keep]), Entry{Epoch: epoch, StartOffset: startOffset})
	return c.commit(next)
}

// TruncateFromEnd removes every entry whose start offset is >= endOffset. It
// is called when the log is truncated to endOffset (the new LEO): epochs that
// began at or after it no longer have any records. It never fails; the
// error keeps the mutators' signatures uniform.
func (c *Cache) TruncateFromEnd(endOffset uint64) error {
	keep := len(c.entries)
	for keep > 0 && c.entries[keep-1].StartOffset >= endOffset {
		keep--
	}
	if keep == len(c.entries) {
		return nil
	}
	return c.commit(slices.Clone(c.entries[:keep]))
}

// TruncateFromStart forgets epochs below the log's new start offset. Entries
// with start offset <= startOffset are removed, and the last of them — the
// epoch covering startOffset — comes back with its start raised to
// startOffset (so an entry starting exactly at startOffset is kept as is).
// It is called when the log start moves forward (retention, DeleteRecords).
// It returns an error wrapping ErrOffsetOverflow for startOffset >
// math.MaxInt64; on error the cache is unchanged.
func (c *Cache) TruncateFromStart(startOffset uint64) error {
	if startOffset > math.MaxInt64 {
		return fmt.Errorf("%w: start offset %d", ErrOffsetOverflow, startOffset)
	}
	covered := 0
	for covered < len(c.entries) && c.entries[covered].StartOffset <= startOffset {
		covered++
	}
	if covered == 0 || (covered == 1 && c.entries[0].StartOffset == startOffset) {
		return nil
	}
	next := slices.Clone(c.entries[covered-1:])
	next[0].StartOffset = startOffset
	return c.commit(next)
}

// EndOffsetForEpoch is the package-level EndOffsetForEpoch over this cache's
// entries: the largest epoch <= e and the offset where it ended (leo for the
// latest epoch); ok=false when there is none.
func (c *Cache) EndOffsetForEpoch(e int32, leo uint64) (int32, uint64, bool) {
	return EndOffsetForEpoch(c.entries, e, leo)
}

// LatestEpoch returns the newest epoch; ok is false for an empty cache.
func (c *Cache) LatestEpoch() (int32, bool) {
	if len(c.entries) == 0 {
		return 0, false
	}
	return c.entries[len(c.entries)-1].Epoch, true
}

// StartOffsetOf returns the start offset recorded for exactly this epoch;
// ok is false if the cache has no entry for it. For the leader's current
// epoch this is the bound isr.State.Readmit needs.
func (c *Cache) StartOffsetOf(epoch int32) (uint64, bool) {
	i, ok := slices.BinarySearchFunc(c.entries, epoch, func(e Entry, epoch int32) int {
		return cmp.Compare(e.Epoch, epoch)
	})
	if !ok {
		return 0, false
	}
	return c.entries[i].StartOffset, true
}

// EpochForOffset returns the epoch whose range holds offset: the epoch of
// the last entry starting at or below it (Kafka's epochForOffset); ok is
// false when offset is below every entry.
func (c *Cache) EpochForOffset(offset uint64) (int32, bool) {
	i, _ := slices.BinarySearchFunc(c.entries, offset, func(e Entry, off uint64) int {
		if e.StartOffset <= off {
			return -1
		}
		return 1
	})
	if i == 0 {
		return 0, false
	}
	return c.entries[i-1].Epoch, true
}

// Entries returns a copy of the entries, oldest first.
func (c *Cache) Entries() []Entry { return slices.Clone(c.entries) }

// Len returns the number of entries.
func (c *Cache) Len() int { return len(c.entries) }
