// Package epoch is the leader-epoch vector of one partition: which leader
// epoch began at which offset, the `<=` lookup a follower uses to find where
// to truncate, and the text format of Kafka's leader-epoch-checkpoint file
// that keeps the vector across restarts. It is pure: no clock, no file I/O.
//
// # Why epochs, in the chapter's terms
//
// A leader epoch is "a 32 bit, monotonically increasing number representing a
// continuous period of leadership for a single partition" (KIP-101). The
// controller bumps it at every leader change; the new leader records
// (epoch, its LEO) with Cache.Assign when it becomes leader, and every batch
// it writes carries the epoch, so followers record the same entries as they
// append.
//
// KIP-101, scenario 1: because the high watermark reaches a follower one
// round late, a follower always holds records it does not yet know are
// committed. If it restarts and truncates to its own high watermark, then
// becomes leader, a committed record is gone for good, though every party
// followed its rules. The fix: a follower never truncates to its own high
// watermark. It asks the leader for the end offset of the epoch it holds
// (OffsetForLeaderEpoch) and truncates to min(its LEO, that end offset).
// In the chapter's demo that answer is (0, 2), and nothing is lost.
//
// KIP-279 closes the remaining hole (scenario 2, a log that diverges when
// leaders change quickly, A -> B -> A): the leader answers with the LARGEST
// epoch less than or equal to the one requested, plus that epoch's end
// offset — `<=`, not `==`. A follower asking for an epoch the leader never
// had still gets an answer, and the two converge "to the largest common
// epoch, and then to the largest common offset in that epoch". That is
// EndOffsetForEpoch; its doc lists where Kafka 4.0's endOffsetFor answers
// differently at the edges and why kaenlog keeps the chapter's rule.
//
// Not found is ok=false, never a sentinel: Kafka's UNDEFINED_EPOCH and
// UNDEFINED_EPOCH_OFFSET are both -1, which fits no uint64. Only the wire
// edge turns not-found into (-1, -1).
//
// # The checkpoint format
//
// AppendCheckpoint writes and ParseCheckpoint reads Kafka's
// leader-epoch-checkpoint text format (LeaderEpochCheckpointFile over
// CheckpointFile): line 1 the version "0", line 2 the number of entries,
// then one "epoch start_offset" line per entry, "\n"-terminated. The file
// itself belongs to package log, which owns the cache with the log it
// describes and writes the file atomically with its other checkpoints.
package epoch
