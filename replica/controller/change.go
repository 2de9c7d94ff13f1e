package controller

import (
	"slices"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/wire"
)

// election says how far an election may reach.
type election uint8

const (
	// electClean elects from the ISR, or from the ELR when the ISR is
	// empty (Kafka's Election.ONLINE).
	electClean election = iota
	// electUnclean also elects any acceptable replica when no clean
	// candidate exists (Kafka's Election.UNCLEAN).
	electUnclean
)

// changeSpec is what one partition change asks for; build works out the
// rest (ELR, leader, epochs), like KRaft's PartitionChangeBuilder.
type changeSpec struct {
	// targetISR is the ISR wanted before the election.
	targetISR []int32
	// remove is a broker that may not lead (it is being fenced or shut
	// down), or NoLeader.
	remove int32
	// uncleanShutdown is a broker that restarted uncleanly: it may not lead
	// and is kept out of the ELR, or NoLeader.
	uncleanShutdown int32
	// election is electClean or electUnclean.
	election election
	// targetLRS is the leader recovery state wanted, when setLRS.
	targetLRS wire.LeaderRecoveryState
	setLRS    bool
	// preferred elects the preferred replica (the first of the
	// assignment) whenever it is a valid leader, even over a valid one
	// (KRaft's Election.PREFERRED).
	preferred bool
	// setReplicas changes the assignment to replicas, with the in-flight
	// reassignment's adding and removing replicas (reassign.go); the
	// election then runs over the new assignment.
	setReplicas                bool
	replicas, adding, removing []int32
}

// topicElection is the election a topic's settings allow for the
// controller's own changes (fencing, shutdowns, AlterPartition): unclean
// only when the topic enables it.
func topicElection(t *topicState) election {
	if t.UncleanLeaderElection {
		return electUnclean
	}
	return electClean
}

// effectiveMinISR is Kafka's getTopicEffectiveMinIsr: the topic's min ISR,
// capped at the replication factor, by the leader's own rule.
func effectiveMinISR(t *topicState, p *PartitionState) int {
	return isr.EffectiveMinISR(int(t.MinISR), len(p.Replicas))
}

// change builds one partition change on o's scratch image and adds its
// record if anything changed. It reports the new state and whether the
// election was unclean.
func (c *Controller) change(o *op, t *topicState, p *PartitionState, spec changeSpec) (PartitionState, bool) {
	reassigning(p, &spec) // carry, or complete, a reassignment in flight
	next, changed, unclean := c.build(o.img, t, p, spec)
	if changed {
		r := changeRecord(next)
		if next.Reassigning() || !slices.Equal(next.Replicas, p.Replicas) {
			r.Replicas = next.Replicas
		}
		o.add(r)
	}
	return next, unclean
}

// build computes partition p's next state under spec, in KRaft's order:
// ELR first (maybePopulateTargetElr), then the election (electAnyLeader,
// without balanced recovery), then the ISR, the last known ELR, the leader
// recovery state and the epochs. It reports whether anything changed and
// whether the election was unclean.
func (c *Controller) build(img *Image, t *topicState, p *PartitionState, spec changeSpec) (next PartitionState, changed, unclean bool) {
	elrOn := !c.cfg.DisableELR
	replicas, adding, removing := p.Replicas, p.AddingReplicas, p.RemovingReplicas
	if spec.setReplicas {
		replicas, adding, removing = spec.replicas, spec.adding, spec.removing
	}
	minISR := effectiveMinISR(t, p)
	if spec.setReplicas {
		minISR = isr.EffectiveMinISR(int(t.MinISR), len(replicas))
	}
	targetISR := cloneIDs(spec.targetISR)
	targetELR := p.ELR
	if spec.setReplicas {
		targetELR = slices.DeleteFunc(slices.Clone(targetELR), func(r int32) bool { return !slices.Contains(replicas, r) })
	}

	// KIP-966's ELR: while the ISR is under min ISR the high watermark does
	// not move, so a replica that was in the ISR when it dropped under min
	// ISR still holds every committed record. Such a replica stays
	// eligible unless it restarted uncleanly.
	if elrOn {
		if len(targetISR) >= minISR {
			targetELR = nil
		} else {
			var elr []int32
			for _, r := range replicas { // assignment order: deterministic
				if (slices.Contains(p.ISR, r) || slices.Contains(p.ELR, r)) &&
					!slices.Contains(targetISR, r) && r != spec.uncleanShutdown {
					elr = append(elr, r)
				}
			}
			targetELR = elr
		}
	}

	acceptable := func(r int32) bool {
		if r == NoLeader || r == spec.remove || r == spec.uncleanShutdown {
			return false
		}
		b, ok := img.brokers[r]
		return ok && b.active()
	}
	valid := func(r int32) bool {
		in := slices.Contains(targetISR, r) || (len(targetISR) == 0 && slices.Contains(targetELR, r))
		return in && acceptable(r)
	}

	leader := NoLeader
	switch {
	case spec.preferred && valid(p.preferred()):
		leader = p.preferred()
	case valid(p.Leader):
		leader = p.Leader // keep a leader that is still valid
	default:
		for _, r := range replicas {
			if valid(r) {
				leader = r
				break
			}
		}
		if leader == NoLeader && spec.election == electUnclean {
			for _, r := range replicas {
				if acceptable(r) {
					leader, unclean = r, true
					break
				}
			}
		}
	}

	lrs := p.LeaderRecoveryState
	if spec.setLRS {
		lrs = spec.targetLRS
	}
	newISR := targetISR
	if leader != p.Leader {
		if slices.Contains(targetELR, leader) {
			// Elected from the ELR: it becomes the ISR alone.
			newISR = []int32{leader}
			targetELR = slices.DeleteFunc(slices.Clone(targetELR), func(r int32) bool { return r == leader })
		}
		if unclean {
			// It may lack committed records: alone in the ISR, and
			// RECOVERING until it says otherwise.
			newISR = []int32{leader}
			lrs = wire.LeaderRecovering
		}
	}
	if len(newISR) == 0 && !elrOn {
		// Without ELR the ISR never becomes empty: its last member stays,
		// leaderless until it can lead again (KRaft writes no empty ISR
		// unless ELR is enabled).
		newISR = p.ISR
	}

	lastKnown := p.LastKnownELR
	if spec.setReplicas {
		lastKnown = slices.DeleteFunc(slices.Clone(lastKnown), func(r int32) bool { return !slices.Contains(replicas, r) })
	}
	switch {
	case !elrOn || unclean:
		targetELR, lastKnown = nil, nil
	case len(newISR) >= minISR || leader != NoLeader:
		lastKnown = nil
	case len(newISR) == 0 && len(p.ISR) > 0 && p.Leader != NoLeader:
		// The first time the ISR empties, remember who led last.
		lastKnown = []int32{p.Leader}
	}

	next = PartitionState{
		Topic: p.Topic, Partition: p.Partition, Replicas: cloneIDs(replicas),
		AddingReplicas: cloneIDs(adding), RemovingReplicas: cloneIDs(removing),
		ISR: cloneIDs(newISR), ELR: cloneIDs(targetELR), LastKnownELR: cloneIDs(lastKnown),
		Leader: leader, LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch,
		LeaderRecoveryState: lrs,
	}
	if next.equal(*p) {
		return *p, false, false
	}
	if next.Leader != p.Leader {
		next.LeaderEpoch++
	}
	next.PartitionEpoch++
	return next, true, unclean
}

// changeRecord is the record that takes a partition to next.
func changeRecord(next PartitionState) PartitionChangeRecord {
	return PartitionChangeRecord{
		Topic: next.Topic, Partition: next.Partition,
		ISR: next.ISR, ELR: next.ELR, LastKnownELR: next.LastKnownELR,
		Leader: next.Leader, LeaderEpoch: next.LeaderEpoch, PartitionEpoch: next.PartitionEpoch,
		LeaderRecoveryState: next.LeaderRecoveryState,
		AddingReplicas:      next.AddingReplicas, RemovingReplicas: next.RemovingReplicas,
	}
}

// without returns ids minus id, in order.
func without(ids []int32, id int32) []int32 {
	return slices.DeleteFunc(slices.Clone(ids), func(r int32) bool { return r == id })
}
