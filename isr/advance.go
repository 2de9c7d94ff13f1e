package isr

import "slices"

// ReplicaLEO is one follower's log end offset as the leader last saw it: the
// fetch offset of that follower's latest fetch request.
type ReplicaLEO struct {
	ID  int32  // the follower's broker id
	LEO uint64 // its log end offset: the next offset it will fetch
}

// AdvanceHW proposes a high watermark for a leader whose own log end offset
// is leaderLEO.
//
// It returns ok=false, proposing nothing, when len(maximalISR) < minISR: a
// partition under min.insync.replicas must not advance its high watermark.
// Otherwise it starts at leaderLEO and lowers it to the smallest LEO among the
// followers in followerLEOs whose id is in maximalISR; followers outside the
// maximal ISR do not hold it back. maximalISR includes the leader's own id
// (it is counted against minISR); followerLEOs need not.
//
// The result is a proposal, not a new high watermark. AdvanceHW does not know
// the current high watermark, so it cannot and does not keep it monotonic: a
// follower that truncated, or an ISR that just grew, can make the proposal
// smaller than the value already published. The caller — the replica layer's
// leader — accepts a proposal only if it is larger than its current high
// watermark.
//
// AdvanceHW reads no clock and does not allocate.
func AdvanceHW(leaderLEO uint64, followerLEOs []ReplicaLEO, maximalISR []int32, minISR int) (uint64, bool) {
	if len(maximalISR) < minISR {
		return 0, false
	}
	candidate := leaderLEO
	for _, f := range followerLEOs {
		if f.LEO < candidate && slices.Contains(maximalISR, f.ID) {
			candidate = f.LEO
		}
	}
	return candidate, true
}
