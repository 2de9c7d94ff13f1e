package epoch

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Cache is a partition's leader-epoch cache: which epoch began at which
// offset, as Kafka's LeaderEpochFileCache keeps it. A Cache from Open writes
// its leader-epoch-checkpoint file after every mutation; one from New lives
// in memory only. A Cache holds no open file, so there is nothing to close.
// It is not safe for concurrent use; the replica layer serializes calls under
// its partition lock. At most one Cache may own a given file.
type Cache struct {
	// path is the checkpoint file; "" for an in-memory cache.
	path string
	// entries: epochs >= 0 and strictly increasing, start offsets strictly
	// increasing and <= math.MaxInt64. With a path, the file on disk holds
	// exactly these entries whenever a method has returned nil.
	entries []Entry
}

// New returns an empty in-memory cache.
func New() *Cache { return &Cache{} }

// Open returns the cache persisted at path, Kafka's leader-epoch-checkpoint
// text format (see the package doc). If the file does not exist, Open creates
// it empty (version 0, count 0), so a missing directory or a read-only disk
// shows up now rather than at the first Assign. A stale path+".tmp" left by a
// crash is ignored and later overwritten. A malformed file returns an error
// wrapping ErrBadCheckpoint and is left untouched; file-system failures are
// returned as they are.
func Open(path string) (*Cache, error) {
	entries, exists, err := readCheckpointFile(path)
	if err != nil {
		return nil, err
	}
	if !exists {
		if err := writeCheckpointFile(path, nil); err != nil {
			return nil, err
		}
	}
	return &Cache{path: path, entries: entries}, nil
}

// commit makes next the cache's entries, writing the checkpoint first when
// the cache has a path. On a write error the cache keeps its old entries;
// the file holds the old or the new entries, whole, and Open reads either.
func (c *Cache) commit(next []Entry) error {
	if c.path != "" {
		if err := writeCheckpointFile(c.path, next); err != nil {
			return fmt.Errorf("epoch: write checkpoint: %w", err)
		}
	}
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
// It returns an error wrapping ErrInvalidEpoch for a negative epoch,
// ErrOffsetOverflow for startOffset > math.MaxInt64, or the checkpoint write
// error; on error the cache is unchanged.
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
// began at or after it no longer have any records. Kafka flushes this change
// asynchronously; kaenlog writes it before returning. It returns only the
// checkpoint write error, leaving the cache unchanged.
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
// math.MaxInt64, or the checkpoint write error; on error the cache is
// unchanged.
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

// Entries returns a copy of the entries, oldest first.
func (c *Cache) Entries() []Entry { return slices.Clone(c.entries) }

// Path returns the checkpoint file's path, or "" for an in-memory cache.
func (c *Cache) Path() string { return c.path }
