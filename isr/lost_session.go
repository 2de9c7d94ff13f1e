package isr

import (
	"fmt"
	"slices"
)

// RemoveLostSession is the controller's removal path: the replica id lost its
// session with the controller, so it leaves the ISR whatever its fetch
// history. The leader cannot see this condition (it only sees fetches), which
// is why there are two judges: the leader applies the time rule (ShrinkISR),
// the controller applies the session rule (this method).
//
// It reports whether the ISR changed (false if id was already out). The
// follower's LEO and caught-up time are kept. It returns an error wrapping
// ErrLeaderRemoval for the leader's own id, and ErrUnknownReplica for an id
// that is not an assigned follower.
func (s *State) RemoveLostSession(id int32) (bool, error) {
	if id == s.leaderID {
		return false, fmt.Errorf("%w: replica %d leads this partition", ErrLeaderRemoval, id)
	}
	if _, ok := s.follower(id); !ok {
		return false, fmt.Errorf("%w: replica %d is not assigned to this partition", ErrUnknownReplica, id)
	}
	next, changed := WithoutLostSession(s.isr, id)
	if changed {
		s.setCommitted(next)
	}
	return changed, nil
}

// WithoutLostSession is the controller's session rule over an ISR: the
// replica id lost its session, so it leaves the ISR, whatever its fetch
// history and whether or not it leads. It returns a new slice of the
// members other than id, in their order, and whether id was one. The
// controller's fencing (package replica/controller, Kafka's
// ReplicationControlManager.handleBrokerFenced) applies it to every
// partition, electing a new leader where id led; State.RemoveLostSession
// applies it to the leader's own State.
func WithoutLostSession(members []int32, id int32) ([]int32, bool) {
	if !slices.Contains(members, id) {
		return slices.Clone(members), false
	}
	return slices.DeleteFunc(slices.Clone(members), func(m int32) bool { return m == id }), true
}
