package log

import (
	"fmt"

	"github.com/kaenlog/kaenlog/epoch"
)

// The leader-epoch cache lives with the log (Kafka's UnifiedLog owns it
// too): appends assign epochs from the batches in the pass that verifies
// them, truncation takes the entries along, and the leader-epoch
// checkpoint is written by the log with its other checkpoints.

// AssignEpoch records that leaderEpoch begins at the log end offset: the
// entry a replica adds when it becomes leader, before its first append in
// that epoch. The leader-epoch checkpoint is written before it returns. An
// epoch equal to the latest is a no-op; an older one is ErrInvalidArgument
// (epochs only grow; a follower's cache follows the batches it appends).
func (l *Log) AssignEpoch(leaderEpoch int32) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	latest, ok := l.epochs.LatestEpoch()
	switch {
	case leaderEpoch < 0 || (ok && leaderEpoch < latest):
		return fmt.Errorf("log: assign epoch %d, the log is at epoch %d: %w", leaderEpoch, latest, ErrInvalidArgument)
	case ok && leaderEpoch == latest:
		return nil
	}
	return l.assignEpochs(leaderEpoch, l.endOffset())
}

// LatestEpoch returns the newest leader epoch in the cache; ok is false
// when it is empty.
func (l *Log) LatestEpoch() (int32, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.epochs.LatestEpoch()
}

// EndOffsetForEpoch answers a follower's question "where does epoch e end
// on your log?" with epoch.EndOffsetForEpoch over the cache and the LEO:
// the largest epoch <= e and the offset where it ends (the next epoch's
// start, or the LEO for the latest); ok is false when there is none.
func (l *Log) EndOffsetForEpoch(e int32) (int32, uint64, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.epochs.EndOffsetForEpoch(e, l.endOffset())
}

// EpochStartOffset returns the start offset recorded for exactly epoch e;
// ok is false if the cache has no entry for it.
func (l *Log) EpochStartOffset(e int32) (uint64, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.epochs.StartOffsetOf(e)
}

// EpochEntries returns a copy of the leader-epoch cache's entries, oldest
// first.
func (l *Log) EpochEntries() []epoch.Entry {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.epochs.Entries()
}
