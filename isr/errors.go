package isr

import "errors"

// Sentinel errors. Every error returned by this package wraps exactly one of
// these, so callers match with errors.Is; the wrapping message carries the ids
// and offsets involved.
var (
	// ErrLeaderNotInISR is returned by NewState when Config.ISR does not
	// contain Config.LeaderID: a leader is always a member of its own ISR.
	ErrLeaderNotInISR = errors.New("isr: leader is not in the ISR")

	// ErrDuplicateReplica is returned by NewState when Config.Replicas or
	// Config.ISR names the same replica id twice.
	ErrDuplicateReplica = errors.New("isr: duplicate replica id")

	// ErrInvalidReplicaID is returned by NewState when a replica id is
	// negative. Negative ids are not brokers: on the wire -1 marks a consumer.
	ErrInvalidReplicaID = errors.New("isr: invalid replica id")

	// ErrInvalidMinISR is returned by NewState when Config.MinISR < 1
	// (min.insync.replicas counts the leader, so it is at least 1).
	ErrInvalidMinISR = errors.New("isr: min ISR must be at least 1")

	// ErrUnknownReplica is returned by State.Observe, State.RemoveLostSession
	// and State.Readmit for an id that is not an assigned follower, by
	// State.Observe for the leader's own id (the leader does not fetch from
	// itself), by NewState, State.Reelect and State.UpdateAssignment when
	// the leader or an ISR member is not an assigned replica, and by
	// State.Reelect for another leader's Config.
	ErrUnknownReplica = errors.New("isr: unknown replica")

	// ErrFetchOffsetOutOfRange is returned by State.Observe when the fetch
	// offset is above the leader's LEO. Such a follower has diverged (or is
	// confused) and must truncate before it counts for anything, so nothing
	// is recorded; Kafka likewise skips the follower-state update for a fetch
	// that fails or diverges.
	ErrFetchOffsetOutOfRange = errors.New("isr: fetch offset beyond leader LEO")

	// ErrLeaderRemoval is returned by State.RemoveLostSession for the leader's
	// own id: no path removes the leader from its own ISR.
	ErrLeaderRemoval = errors.New("isr: cannot remove the leader from its ISR")

	// ErrNotCaughtUp is returned by State.Readmit when the follower has not
	// been observed yet, or its last observed LEO is below the leader's high
	// watermark or below the start offset of the leader's current epoch.
	ErrNotCaughtUp = errors.New("isr: follower is not caught up")
)
