package replica

import (
	"fmt"
)

// This file is where a follower cuts its log, and by which rule.

// TruncationRule is how a follower, after a new leader epoch, finds where
// its log may disagree with the leader's.
type TruncationRule uint8

const (
	// TruncateOnFetch is Kafka's rule since 2.8 (KIP-595's fetch,
	// KAFKA-10554): every fetch carries the epoch of the follower's last
	// record, the leader answers a DivergingEpoch when that epoch ended
	// earlier on its log, and the follower truncates by KIP-279's rule and
	// fetches again. No extra round trip. The zero value.
	TruncateOnFetch TruncationRule = iota
	// TruncateByLeaderEpoch is KIP-101's rule with KIP-279's "<=" lookup,
	// as the chapter tells it: before fetching, ask the leader where your
	// latest epoch ends on its log (OffsetsForLeaderEpoch) and cut to
	// min(your LEO, that end offset); repeat until the logs agree.
	TruncateByLeaderEpoch
	// TruncateToHighWatermark is the pre-KIP-101 rule: cut everything at
	// and above your own high watermark. It loses committed records when
	// the high watermark, which arrives one round late, is behind what was
	// committed (KIP-101 scenario 1). It exists to show that loss, in the
	// chapter's demo and in the simulator that must catch it.
	TruncateToHighWatermark
)

// String returns the rule's name.
func (t TruncationRule) String() string {
	switch t {
	case TruncateOnFetch:
		return "on-fetch"
	case TruncateByLeaderEpoch:
		return "leader-epoch"
	case TruncateToHighWatermark:
		return "high-watermark"
	}
	return fmt.Sprintf("TruncationRule(%d)", uint8(t))
}

// startTruncation begins a follower's reconciliation after a new leader
// epoch, by its rule.
func (r *Replica) startTruncation() error {
	switch r.opts.Truncation {
	case TruncateToHighWatermark:
		return r.TruncateTo(max(r.log.HighWatermark(), r.log.StartOffset()))
	case TruncateByLeaderEpoch:
		r.follow.truncating = true
	default:
		// Kafka's initial fetch state: a follower with records but no epoch
		// to send cannot be told where it diverged, so it truncates to its
		// high watermark first.
		if _, ok := r.log.LatestEpoch(); !ok && r.log.EndOffset() > r.log.StartOffset() {
			return r.TruncateTo(max(r.log.HighWatermark(), r.log.StartOffset()))
		}
	}
	return nil
}

// TruncateTo removes every record at and above offset from the log (and,
// with them, every epoch-cache entry that starts there or later: the log
// keeps the two together). It is the only way the replica layer shortens a
// log, and only a follower's: a leader's log is what the partition has
// committed, so a leader gets ErrNotFollower.
func (r *Replica) TruncateTo(offset uint64) error {
	if r.closed {
		return ErrClosed
	}
	if r.role != RoleFollower {
		return ErrNotFollower
	}
	if err := r.log.TruncateTo(offset); err != nil {
		return fmt.Errorf("replica: broker %d: %w", r.id, storageError(err))
	}
	return nil
}

// truncateFullyAndStartAt empties the log and starts it at offset: a
// follower behind the leader's log start cannot catch up by fetching, so it
// starts where the leader's log starts (Kafka's truncateFullyAndStartAt).
func (r *Replica) truncateFullyAndStartAt(offset uint64) error {
	if err := r.log.TruncateFullyAndStartAt(offset); err != nil {
		return fmt.Errorf("replica: broker %d: %w", r.id, storageError(err))
	}
	return nil
}

// truncateToLeader applies the leader's answer about an epoch — found, the
// leader's largest epoch <= the one asked and where it ends on the leader's
// log — and reports whether the follower's log now agrees with the leader's
// up to its end (false: ask again with the follower's new latest epoch).
// It is Kafka's follower truncation (AbstractFetcherThread's
// getOffsetTruncationState):
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
		return true, r.TruncateTo(max(min(r.log.HighWatermark(), leo), r.log.StartOffset()))
	}
	ownEpoch, ownEnd, ok := r.log.EndOffsetForEpoch(leaderEpoch)
	switch {
	case !ok:
		cut := min(leaderEnd, leo)
		if entries := r.log.EpochEntries(); len(entries) > 0 {
			cut = min(cut, entries[0].StartOffset)
		}
		return true, r.TruncateTo(max(cut, r.log.StartOffset()))
	case ownEpoch == leaderEpoch:
		return true, r.TruncateTo(min(ownEnd, leaderEnd, leo))
	default:
		return false, r.TruncateTo(min(ownEnd, leo))
	}
}
