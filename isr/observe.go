package isr

import "fmt"

// Observe records that follower replicaID sent a fetch request with
// fetchOffset at time nowMs, while the leader's LEO was leaderLEO. The fetch
// offset IS the follower's LEO: a follower always asks for the record after
// the last one it holds. The leader learns it from the request, which is why
// the high watermark a follower sees lags one round behind its records.
//
// The follower's last caught-up time follows Kafka's rule
// (Replica.updateFetchStateOrThrow):
//
//   - fetchOffset >= leaderLEO: it has everything the leader has now, so it
//     was caught up at nowMs;
//   - else, fetchOffset >= the leader's LEO as of its previous fetch: it has
//     everything the leader had then, so it was caught up at that previous
//     fetch's time (this keeps a follower of a busy leader, which never
//     reaches the moving LEO, in sync);
//   - else unchanged.
//
// The caught-up time never moves backwards. Then (leaderLEO, nowMs) is
// remembered as this follower's previous fetch. A follower outside the ISR is
// observed the same way: its LEO is tracked for readmission, but it does not
// count in ProposeHW, and Observe never changes ISR membership.
//
// It returns an error wrapping ErrUnknownReplica for the leader's own id or an
// id that is not an assigned follower, and ErrFetchOffsetOutOfRange when
// fetchOffset > leaderLEO; in both cases nothing is recorded. On success it
// does not allocate.
func (s *State) Observe(replicaID int32, fetchOffset, leaderLEO uint64, nowMs int64) error {
	if replicaID == s.leaderID {
		return fmt.Errorf("%w: replica %d is the leader, not a follower", ErrUnknownReplica, replicaID)
	}
	i, ok := s.follower(replicaID)
	if !ok {
		return fmt.Errorf("%w: replica %d is not assigned to this partition", ErrUnknownReplica, replicaID)
	}
	if fetchOffset > leaderLEO {
		return fmt.Errorf("%w: replica %d fetched at %d, leader LEO is %d", ErrFetchOffsetOutOfRange, replicaID, fetchOffset, leaderLEO)
	}

	f := &s.followers[i]
	switch {
	case fetchOffset >= leaderLEO:
		f.markCaughtUp(nowMs)
	case f.fetchKnown && fetchOffset >= f.lastFetchLeaderLEO:
		f.markCaughtUp(f.lastFetchMs)
	}
	if !f.fetchKnown || leaderLEO > f.lastFetchLeaderLEO {
		f.lastFetchLeaderLEO = leaderLEO
	}
	f.lastFetchMs = nowMs
	f.observed, f.fetchKnown = true, true
	s.leos[i].LEO = fetchOffset
	return nil
}

// markCaughtUp raises lastCaughtUpMs to atMs; it never lowers it.
func (f *follower) markCaughtUp(atMs int64) {
	if !f.caughtUp || atMs > f.lastCaughtUpMs {
		f.caughtUp, f.lastCaughtUpMs = true, atMs
	}
}
