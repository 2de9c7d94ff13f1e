package replica

import "fmt"

// This file applies the high-watermark rule, both halves of it.
//
// The leader computes: isr.AdvanceHW, through isr.State.ProposeHW, proposes
// the smallest LEO among the maximal ISR (the leader's own included) and the
// caught-up followers outside it that may join the ISR, and the leader takes
// the proposal only when it is larger than what it has. AdvanceHW cannot
// keep the high watermark monotonic by itself, because it is never told the
// current one.
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
// time holds every committed record). A follower's broker may join the ISR
// as Brokers.ISREligible says.
func (r *Replica) advanceLeaderHW(nowMs int64) error {
	var eligible func(int32) bool
	if b := r.opts.Brokers; b != nil {
		eligible = b.ISREligible
	}
	proposal, ok := r.lead.isr.ProposeHW(r.log.EndOffset(), nowMs, eligible)
	if !ok {
		return nil // under min.insync.replicas: the HW stays
	}
	if proposal <= r.log.HighWatermark() {
		return nil // not forward: the HW stays
	}
	if err := r.log.SetHighWatermark(proposal); err != nil {
		return fmt.Errorf("replica: broker %d: %w", r.id, storageError(err))
	}
	return nil
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
