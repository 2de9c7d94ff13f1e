package replica

import "fmt"

// This file is the high-watermark rule, both halves of it, in one place.
//
// The leader computes: isr.AdvanceHW proposes the smallest LEO among the
// maximal ISR (the leader's own included), lowered to the LEO of any
// caught-up follower outside it that may join the ISR, and the leader takes
// the proposal only when it is larger than what it has. AdvanceHW cannot keep the high
// watermark monotonic by itself, because it is never told the current one.
//
// The follower learns: the leader's high watermark arrives in the fetch
// response, one round after the records it covers, and the follower takes
// max(own HW, min(response HW, own LEO)): never above what it holds, never
// backwards. A response that reports a diverging epoch moves nothing: the
// follower's log may still disagree with the leader's below its LEO, and
// the next response, to a fetch from the truncated log, carries the HW.

// advanceLeaderHW recomputes the leader's high watermark from the ISR state
// at nowMs. Kafka calls the same step (Partition.maybeIncrementLeaderHW)
// whenever the ISR changes or any replica's LEO changes. It proposes
// nothing while the committed ISR is under min.insync.replicas (KIP-966's
// strict min ISR: the high watermark is frozen, so every ISR member at the
// time holds every committed record). Besides the maximal ISR, a follower
// outside it that is caught up by the time rule and may join the ISR holds
// the high watermark back too, as in Kafka: otherwise a busy leader's high
// watermark runs ahead of such a follower at every produce, and it never
// reaches it to rejoin.
func (r *Replica) advanceLeaderHW(nowMs int64) error {
	leo := r.log.EndOffset()
	proposal, ok := r.lead.isr.ProposeHW(leo)
	if !ok {
		return nil // under min.insync.replicas: the HW stays
	}
	proposal = min(proposal, r.lowestCaughtUpOutsideISR(leo, nowMs))
	if proposal <= r.log.HighWatermark() {
		return nil // not forward: the HW stays
	}
	if err := r.log.SetHighWatermark(proposal); err != nil {
		return fmt.Errorf("replica: broker %d: %w", r.id, storageError(err))
	}
	return nil
}

// lowestCaughtUpOutsideISR is the smallest LEO, below leaderLEO, of the
// followers outside the committed ISR that are caught up at nowMs (caught
// up within replica.lag.time.max.ms) and eligible to join the ISR: the
// last group of Kafka's high-watermark rule (isCaughtUp &&
// isReplicaIsrEligible). leaderLEO when there is none.
func (r *Replica) lowestCaughtUpOutsideISR(leaderLEO uint64, nowMs int64) uint64 {
	st, low := r.lead.isr, leaderLEO
	for _, id := range r.replicas {
		if id == r.id || st.InISR(id) {
			continue
		}
		leo, ok := st.FollowerLEO(id)
		if !ok || leo >= low {
			continue
		}
		if at, ok := st.LastCaughtUpMs(id); !ok || nowMs-at > st.LagMaxMs() {
			continue
		}
		if b := r.opts.Brokers; b != nil && !b.ISREligible(id) {
			continue
		}
		low = leo
	}
	return low
}

// followerHW is the follower's half: what its high watermark becomes after a
// fetch response carrying responseHW, when it holds records up to leo.
func followerHW(own, responseHW, leo uint64) uint64 {
	return max(own, min(responseHW, leo))
}

// advanceFollowerHW applies followerHW to the follower's log.
func (r *Replica) advanceFollowerHW(responseHW uint64) error {
	own := r.log.HighWatermark()
	if hw := followerHW(own, responseHW, r.log.EndOffset()); hw > own {
		if err := r.log.SetHighWatermark(hw); err != nil {
			return fmt.Errorf("replica: broker %d: %w", r.id, storageError(err))
		}
	}
	return nil
}
