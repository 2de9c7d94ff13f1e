package replica

import (
	"fmt"
)

// This file is where a follower cuts its log, and by which rule.

// TruncationRule is how a restarted follower decides where its log may
// still disagree with the leader's.
type TruncationRule uint8

const (
	// TruncateToHighWatermark is the pre-KIP-101 rule: cut everything at and
	// above your own high watermark. It loses committed records when the
	// high watermark, which arrives one round late, is behind what was
	// committed (KIP-101 scenario 1).
	TruncateToHighWatermark TruncationRule = iota
	// TruncateByLeaderEpoch is KIP-101's rule with KIP-279's "<=" lookup:
	// ask the leader where your latest epoch ends on its log and cut to
	// min(your LEO, that end offset).
	TruncateByLeaderEpoch
)

// String returns the rule's name.
func (t TruncationRule) String() string {
	switch t {
	case TruncateToHighWatermark:
		return "high-watermark"
	case TruncateByLeaderEpoch:
		return "leader-epoch"
	}
	return fmt.Sprintf("TruncationRule(%d)", uint8(t))
}

// TruncateTo removes every record at and above offset from the log, and
// every epoch-cache entry that starts there or later, so the cache never
// describes records the log does not hold. It is the only way the replica
// layer shortens a log, and only a follower's: a leader's log is what the
// partition has committed, so a leader gets ErrNotFollower.
func (r *Replica) TruncateTo(offset uint64) error {
	if r.closed {
		return ErrClosed
	}
	if r.role != RoleFollower {
		return ErrNotFollower
	}
	// The log truncates its epoch cache with it.
	if err := r.log.TruncateTo(offset); err != nil {
		return fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
	}
	return nil
}

// TruncateToHighWatermark applies the pre-KIP-101 rule: the follower cuts
// its log to its own high watermark.
func (r *Replica) TruncateToHighWatermark() error {
	if r.closed {
		return ErrClosed
	}
	if r.role != RoleFollower {
		return ErrNotFollower
	}
	return r.TruncateTo(r.log.HighWatermark())
}

// truncateToLeader applies the leader's answer about an epoch — found, the
// leader's largest epoch <= the one asked and where it ends on the leader's
// log — and reports whether the follower's log now agrees with the leader's
// up to its end (false: ask again with the follower's new latest epoch).
// It is Kafka's follower truncation (AbstractFetcherThread's offset
// truncation state):
//
//   - not found: the leader has no epoch that old; the follower falls back
//     to its high watermark;
//   - the follower knows the leader's epoch: cut to the smaller of the two
//     ends of that epoch (and of its own LEO); done;
//   - the follower's largest epoch <= the leader's is an older one: cut to
//     where that epoch ends locally and ask again (KIP-279's convergence);
//   - the follower holds no epoch that old: every epoch it has lies between
//     the leader's answer and the epoch it asked about, and the leader has
//     none of them, so everything from its first epoch's start goes; done.
//     (Kafka gets there because its cache answers a lookup below the first
//     epoch with that epoch's start offset.)
func (r *Replica) truncateToLeader(leaderEpoch int32, leaderEnd uint64, found bool) (done bool, err error) {
	leo := r.log.EndOffset()
	if !found {
		return true, r.TruncateTo(min(r.log.HighWatermark(), leo))
	}
	ownEpoch, ownEnd, ok := r.log.EndOffsetForEpoch(leaderEpoch)
	switch {
	case !ok:
		cut := min(leaderEnd, leo)
		if entries := r.log.EpochEntries(); len(entries) > 0 {
			cut = min(cut, entries[0].StartOffset)
		}
		return true, r.TruncateTo(cut)
	case ownEpoch == leaderEpoch:
		return true, r.TruncateTo(min(ownEnd, leaderEnd, leo))
	default:
		return false, r.TruncateTo(min(ownEnd, leo))
	}
}
