package isr

import (
	"fmt"
	"slices"
)

// Readmit is the only way back into the ISR, decided on the controller's
// path; time never readmits. It adds follower id when its last observed LEO
// is at least leaderHW (it holds every committed record) and at least
// leaderEpochStartOffset, the start offset of the leader's current epoch (it
// holds what this leader wrote, not only an older leader's tail): Kafka's
// isFollowerInSync rule from KIP-101.
//
// Readmitting a member (including the leader) is a no-op returning nil. The
// caught-up time is not touched: a follower readmitted while its last
// caught-up time is already older than the lag cutoff leaves again at the
// next ShrinkISR, so readmit followers that are fetching. It returns an error
// wrapping ErrUnknownReplica for an id that is not an assigned follower, and
// ErrNotCaughtUp when the follower was never observed or its LEO is below
// either bound.
func (s *State) Readmit(id int32, leaderHW, leaderEpochStartOffset uint64) error {
	if s.InISR(id) {
		return nil
	}
	i, ok := s.follower(id)
	if !ok {
		return fmt.Errorf("%w: replica %d is not assigned to this partition", ErrUnknownReplica, id)
	}
	if !s.followers[i].observed {
		return fmt.Errorf("%w: replica %d has not fetched since this leader started", ErrNotCaughtUp, id)
	}
	if err := s.caughtUpFor(i, leaderHW, leaderEpochStartOffset); err != nil {
		return err
	}
	s.setCommitted(with(s.isr, id))
	return nil
}

// caughtUpFor is the one rule for joining the ISR (Kafka's isFollowerInSync,
// KAFKA-7128): follower i was observed, and its LEO reached both the
// leader's high watermark and the start offset of the leader's epoch.
func (s *State) caughtUpFor(i int, leaderHW, leaderEpochStartOffset uint64) error {
	id := s.followers[i].id
	if !s.followers[i].observed {
		return fmt.Errorf("%w: replica %d has not fetched since this leader started", ErrNotCaughtUp, id)
	}
	if leo := s.leos[i].LEO; leo < leaderHW || leo < leaderEpochStartOffset {
		return fmt.Errorf("%w: replica %d LEO %d, leader high watermark %d, epoch start offset %d",
			ErrNotCaughtUp, id, leo, leaderHW, leaderEpochStartOffset)
	}
	return nil
}

// with returns a new sorted slice of set plus id.
func with(set []int32, id int32) []int32 {
	out := slices.Clone(set)
	j, found := slices.BinarySearch(out, id)
	if found {
		return out
	}
	return slices.Insert(out, j, id)
}
