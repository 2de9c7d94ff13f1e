package isr

import "slices"

// ReplicaLEO is one follower's log end offset as the leader last saw it: the
// fetch offset of that follower's latest fetch request.
type ReplicaLEO struct {
	ID  int32  // the follower's broker id
	LEO uint64 // its log end offset: the next offset it will fetch
	// CaughtUp reports that the follower is caught up by the time rule (last
	// caught up within replica.lag.time.max.ms, see State.OutOfSync) and
	// eligible to join the ISR: Kafka's shouldWaitForReplicaToJoinIsr. It
	// makes a follower outside the maximal ISR hold the high watermark back.
	// The zero value leaves it out, which is the chapter's rule.
	CaughtUp bool
}

// AdvanceHW proposes a high watermark for a leader whose own log end offset
// is leaderLEO. It is the high-watermark rule the replica layer runs (through
// State.ProposeHW), Kafka's Partition.maybeIncrementLeaderHW.
//
// It returns ok=false, proposing nothing, when len(maximalISR) < minISR: a
// partition under min.insync.replicas must not advance its high watermark.
// Otherwise it starts at leaderLEO and lowers it to the smallest LEO among the
// followers in followerLEOs whose id is in maximalISR or that are CaughtUp. A
// follower outside the maximal ISR that is caught up holds the high watermark
// back too: otherwise a busy leader's high watermark runs ahead of it at
// every produce, and it never reaches the high watermark to rejoin.
// maximalISR includes the leader's own id (it is counted against minISR);
// followerLEOs need not.
//
// The result is a proposal, not a new high watermark. AdvanceHW does not know
// the current high watermark, so it cannot and does not keep it monotonic: a
// follower that truncated, or an ISR that just grew, can make the proposal
// smaller than the value already published. The caller — the replica layer's
// leader — accepts a proposal only if it is larger than its current high
// watermark.
//
// AdvanceHW reads no clock and does not allocate: whether a follower is
// caught up arrives as ReplicaLEO.CaughtUp.
func AdvanceHW(leaderLEO uint64, followerLEOs []ReplicaLEO, maximalISR []int32, minISR int) (uint64, bool) {
	if len(maximalISR) < minISR {
		return 0, false
	}
	candidate := leaderLEO
	for _, f := range followerLEOs {
		if f.LEO < candidate && (f.CaughtUp || slices.Contains(maximalISR, f.ID)) {
			candidate = f.LEO
		}
	}
	return candidate, true
}
