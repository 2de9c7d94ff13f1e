package controller

import (
	"errors"

	"github.com/kaenlog/kaenlog/wire"
)

// DefaultLeaderImbalanceCheckIntervalMs is Kafka's
// leader.imbalance.check.interval.seconds default, 300 s.
const DefaultLeaderImbalanceCheckIntervalMs = 300_000

// MaxElectionsPerImbalance bounds the preferred elections of one periodic
// check, so that a broker coming back with many partitions does not put
// them all into one metadata batch (KRaft's maxElectionsPerImbalance). A
// check that reaches it runs again at once.
const MaxElectionsPerImbalance = 1000

// preferred is the partition's preferred replica: the first of its
// assignment.
func (p *PartitionState) preferred() int32 {
	if len(p.Replicas) == 0 {
		return NoLeader
	}
	return p.Replicas[0]
}

// imbalanced reports whether p is not led by its preferred replica
// (KRaft's imbalancedPartitions: a leaderless partition counts).
func imbalanced(p *PartitionState) bool { return p.Leader != p.preferred() }

// rebalanceIntervalMs is the periodic check's interval, or 0 when it is off.
func (c *Controller) rebalanceIntervalMs() int64 {
	if c.cfg.DisableAutoLeaderRebalance {
		return 0
	}
	return c.cfg.LeaderImbalanceCheckIntervalMs
}

// scheduleBalance schedules the periodic preferred-leader check at nowMs
// plus the interval when a partition is imbalanced and no check is due
// yet, as KRaft's maybeScheduleNextBalancePartitionLeaders does after
// every write: a leadership moved away from its preferred replica comes
// back at most one interval after it could.
func (c *Controller) scheduleBalance(nowMs int64) {
	iv := c.rebalanceIntervalMs()
	if iv == 0 || c.nextBalanceMs != Never || c.err != nil {
		return
	}
	if c.image.eachPartition(func(_ *topicState, p *PartitionState) error {
		if imbalanced(p) {
			return errFound
		}
		return nil
	}) == nil {
		return
	}
	if nowMs > Never-iv {
		return
	}
	c.nextBalanceMs = nowMs + iv
}

var errFound = errors.New("found")

// balance runs the periodic check when it is due: a preferred election
// (KRaft's maybeBalancePartitionLeaders) for every imbalanced partition,
// at most MaxElectionsPerImbalance changes in one batch. A partition whose
// preferred replica cannot lead yet keeps its leader; the check comes back
// an interval later while any partition is imbalanced, at once when it
// stopped at the bound.
func (c *Controller) balance(nowMs int64) {
	if c.err != nil || c.nextBalanceMs == Never || nowMs < c.nextBalanceMs {
		return
	}
	c.nextBalanceMs = Never
	o := c.begin()
	more := false
	o.img.eachPartition(func(t *topicState, p *PartitionState) error {
		if !imbalanced(p) {
			return nil
		}
		if len(o.recs) >= MaxElectionsPerImbalance {
			more = true
			return errFound
		}
		c.change(o, t, p, preferredSpec(p))
		return nil
	})
	if err := c.commit(o, nowMs); err != nil {
		return
	}
	if more {
		c.nextBalanceMs = nowMs
		return
	}
	c.scheduleBalance(nowMs)
}

// preferredSpec is a preferred election of p (KRaft's Election.PREFERRED
// without unclean reach): the preferred replica if it is in the ISR and
// active, else the current leader if still valid, else the first valid
// replica.
func preferredSpec(p *PartitionState) changeSpec {
	return changeSpec{targetISR: p.ISR, remove: NoLeader, uncleanShutdown: NoLeader, election: electClean, preferred: true}
}

// electPreferred answers a preferred ElectLeaders for p, as KRaft's
// electLeader: ELECTION_NOT_NEEDED when the preferred replica leads,
// PREFERRED_LEADER_NOT_AVAILABLE when the election changes nothing (the
// preferred replica is out of the ISR, fenced or shutting down, and the
// leader stays).
func (c *Controller) electPreferred(req wire.ElectLeadersRequest, p *PartitionState, nowMs int64) wire.ElectLeadersResponse {
	resp := wire.ElectLeadersResponse{CorrelationID: req.CorrelationID, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch}
	if !imbalanced(p) {
		resp.ErrorCode = wire.CodeElectionNotNeeded
		return resp
	}
	o := c.begin()
	before := len(o.recs)
	c.change(o, o.img.topics[req.Topic], o.img.partition(req.Topic, req.Partition), preferredSpec(p))
	if len(o.recs) == before {
		resp.ErrorCode = wire.CodePreferredLeaderNotAvailable
		return resp
	}
	if err := c.commit(o, nowMs); err != nil {
		resp.ErrorCode, resp.Leader, resp.LeaderEpoch = codeOf(err), NoLeader, wire.NoEpoch
		return resp
	}
	p = c.image.partition(req.Topic, req.Partition)
	resp.Leader, resp.LeaderEpoch = p.Leader, p.LeaderEpoch
	if p.Leader == NoLeader {
		resp.ErrorCode = wire.CodeEligibleLeadersNotAvailable
	}
	return resp
}
