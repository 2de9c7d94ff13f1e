package isr

import (
	"fmt"
	"slices"
)

// This file is the leader's half of AlterPartition (Kafka's Partition.scala
// partitionState): the leader never changes the ISR on its own authority. It
// proposes a change to the controller, keeps at most one proposal in flight,
// and applies the ISR the controller commits.

// proposal is the ISR change in flight.
type proposal struct {
	isr []int32 // the proposed ISR, sorted
	// expanding is the follower being added, or -1 for a shrink.
	expanding int32
}

// ProposeShrink applies the time rule (OutOfSync) at nowMs and, when it
// names anyone and no proposal is in flight, records the shrunk ISR as the
// proposal in flight and returns it for the caller to send to the
// controller. The committed and maximal ISRs do not change: a removal counts
// only once the controller commits it (Kafka's PendingShrinkIsr), so the
// high watermark is still computed over the larger set meanwhile.
func (s *State) ProposeShrink(nowMs int64) ([]int32, bool) {
	if s.inFlight != nil {
		return nil, false
	}
	out := s.outOfSync(nowMs)
	if len(out) == 0 {
		return nil, false
	}
	s.inFlight = &proposal{isr: without(s.isr, out), expanding: -1}
	return slices.Clone(s.inFlight.isr), true
}

// ProposeExpansion proposes adding follower id to the ISR when no proposal
// is in flight, id is an assigned follower outside the ISR, and it is caught
// up by the one joining rule (its last observed LEO has reached leaderHW and
// the start offset of the leader's epoch; see Readmit). It returns the
// proposed ISR. The follower joins the maximal ISR at once (Kafka's
// PendingExpandIsr): from now on it holds the high watermark back, which is
// the safe direction.
//
// It returns an error wrapping ErrUnknownReplica for an id that is not an
// assigned follower and ErrNotCaughtUp when the rule does not hold; ok is
// false, with a nil error, when id is already in the ISR or a proposal is in
// flight.
func (s *State) ProposeExpansion(id int32, leaderHW, leaderEpochStartOffset uint64) (isr []int32, ok bool, err error) {
	if s.InISR(id) || s.inFlight != nil {
		return nil, false, nil
	}
	i, found := s.follower(id)
	if !found {
		return nil, false, fmt.Errorf("%w: replica %d is not assigned to this partition", ErrUnknownReplica, id)
	}
	if err := s.caughtUpFor(i, leaderHW, leaderEpochStartOffset); err != nil {
		return nil, false, err
	}
	s.inFlight = &proposal{isr: with(s.isr, id), expanding: id}
	s.maximal = slices.Clone(s.inFlight.isr)
	return slices.Clone(s.inFlight.isr), true, nil
}

// InFlight returns the proposed ISR awaiting the controller, if any.
func (s *State) InFlight() ([]int32, bool) {
	if s.inFlight == nil {
		return nil, false
	}
	return slices.Clone(s.inFlight.isr), true
}

// Commit applies the ISR the controller committed for this partition —
// its answer to a proposal, or the partition state it published — and ends
// any proposal in flight. isr must contain the leader and only assigned
// replicas (ErrLeaderNotInISR, ErrUnknownReplica, ErrDuplicateReplica,
// ErrInvalidReplicaID otherwise, and nothing changes). A follower that
// joins keeps its fetch history; one that joins without ever having been
// caught up counts as caught up now, as Kafka's state reset does for ISR
// members.
func (s *State) Commit(isr []int32, nowMs int64) error {
	if err := checkIDs("ISR", isr); err != nil {
		return err
	}
	if !slices.Contains(isr, s.leaderID) {
		return fmt.Errorf("%w: leader %d, ISR %v", ErrLeaderNotInISR, s.leaderID, isr)
	}
	for _, id := range isr {
		if id == s.leaderID {
			continue
		}
		if _, ok := s.follower(id); !ok {
			return fmt.Errorf("%w: ISR member %d is not an assigned replica", ErrUnknownReplica, id)
		}
	}
	for _, id := range isr {
		if i, ok := s.follower(id); ok && !s.InISR(id) && !s.followers[i].caughtUp {
			s.followers[i].markCaughtUp(nowMs)
		}
	}
	s.setCommitted(slices.Sorted(slices.Values(isr)))
	return nil
}

// UpdateAssignment applies a partition state the controller published at
// the same leader epoch: replicas become the assigned replicas and isr the
// committed ISR, ending any proposal in flight, as Commit does. It is
// Kafka's updateAssignmentAndIsr on a leader: a follower that stays keeps
// its fetch history, one added starts with none (as in NewState: unobserved,
// never caught up unless isr names it, when it counts as caught up now, as
// Commit does), and one no longer assigned is forgotten. The leader must
// stay assigned and in isr, and every isr member must be assigned
// (ErrUnknownReplica, ErrLeaderNotInISR, ErrDuplicateReplica,
// ErrInvalidReplicaID otherwise, and nothing changes). Nil replicas means
// the same as isr, as in Config.
func (s *State) UpdateAssignment(replicas, isr []int32, nowMs int64) error {
	if replicas == nil {
		replicas = isr
	}
	if err := checkIDs("replicas", replicas); err != nil {
		return err
	}
	if err := checkIDs("ISR", isr); err != nil {
		return err
	}
	if !slices.Contains(replicas, s.leaderID) {
		return fmt.Errorf("%w: leader %d is not an assigned replica %v", ErrUnknownReplica, s.leaderID, replicas)
	}
	if !slices.Contains(isr, s.leaderID) {
		return fmt.Errorf("%w: leader %d, ISR %v", ErrLeaderNotInISR, s.leaderID, isr)
	}
	for _, id := range isr {
		if !slices.Contains(replicas, id) {
			return fmt.Errorf("%w: ISR member %d is not an assigned replica %v", ErrUnknownReplica, id, replicas)
		}
	}
	ids := slices.Sorted(slices.Values(replicas))
	followers := make([]follower, 0, len(ids)-1)
	leos := make([]ReplicaLEO, 0, len(ids)-1)
	for _, id := range ids {
		if id == s.leaderID {
			continue
		}
		if i, ok := s.follower(id); ok {
			followers, leos = append(followers, s.followers[i]), append(leos, s.leos[i])
			continue
		}
		followers, leos = append(followers, follower{id: id}), append(leos, ReplicaLEO{ID: id})
	}
	s.followers, s.leos = followers, leos
	return s.Commit(isr, nowMs)
}

// Abort ends the proposal in flight without a change, for an answer that
// refuses it for good (Kafka reverts on OPERATION_NOT_ATTEMPTED and
// INELIGIBLE_REPLICA): the maximal ISR goes back to the committed one.
func (s *State) Abort() {
	s.inFlight = nil
	s.maximal = slices.Clone(s.isr)
}

// setCommitted makes isr (sorted, valid) the committed ISR, ending any
// proposal in flight.
func (s *State) setCommitted(isr []int32) {
	s.isr = isr
	s.inFlight = nil
	s.maximal = slices.Clone(isr)
}
