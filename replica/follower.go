package replica

import (
	"fmt"

	"github.com/kaenlog/kaenlog/wire"
)

// This file is the follower's side: the fetch it sends and what it does
// with the answer. A follower is a consumer that carries its replica id;
// that id is the only thing that lets it read past the high watermark.

// followerState is what a replica keeps only while it follows.
type followerState struct {
	// truncating is set under TruncateByLeaderEpoch after a new leader
	// epoch: the follower asks the leader where its epochs end before it
	// fetches again.
	truncating bool
	// backoffUntilMs is when a follower whose fetch was refused may fetch
	// again (replica.fetch.backoff.ms).
	backoffUntilMs int64
}

// NextFetch returns this follower's part of the next fetch to its leader at
// nowMs: its LEO as the fetch offset (it always asks for the record after
// the last one it holds), the leader epoch it believes current, its log
// start, its byte budget and — under TruncateOnFetch — the epoch of its
// last record, so the leader can tell it where the logs part. Topic and
// partition are the caller's to fill in. ok is false when it should not
// fetch now: it leads, knows no leader, is closed, must first ask where its
// epochs end (NextEpochQuery), or is backing off after a refusal.
func (r *Replica) NextFetch(nowMs int64) (p wire.FetchPartition, ok bool) {
	if !r.fetching(nowMs) || r.follow.truncating {
		return p, false
	}
	maxBytes := r.opts.MaxFetchBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFetchBytes
	}
	p = wire.FetchPartition{
		CurrentLeaderEpoch: r.leaderEpoch,
		FetchOffset:        r.log.EndOffset(),
		LastFetchedEpoch:   wire.NoEpoch,
		LogStartOffset:     r.log.StartOffset(),
		HasLogStartOffset:  true,
		MaxBytes:           maxBytes,
	}
	if r.opts.Truncation == TruncateOnFetch {
		if e, ok := r.log.LatestEpoch(); ok {
			p.LastFetchedEpoch = e
		}
	}
	return p, true
}

// fetching reports whether the replica is a follower that may talk to its
// leader at nowMs.
func (r *Replica) fetching(nowMs int64) bool {
	return !r.closed && r.role == RoleFollower && r.leaderID >= 0 && nowMs >= r.follow.backoffUntilMs
}

// ApplyFetch applies the leader's answer to a fetch this follower sent
// (sent is its part as it went out) and reports how many records it
// shipped. An answer to anything but the fetch the follower would send now
// — an older leader epoch, another fetch offset, a follower that has since
// become leader — is dropped: late answers are not errors.
//
// Otherwise, in order:
//
//   - a refusal: OFFSET_OUT_OF_RANGE resets the log (below the leader's log
//     start: truncate fully and start at it, Kafka's truncateFullyAndStartAt;
//     past the leader's log: cut to the leader's high watermark); every
//     refusal backs the follower off for FetchBackoffMs. The refusal is
//     returned, already acted on;
//   - a diverging epoch truncates the log by KIP-279's rule and ships
//     nothing, and the high watermark stays: the truncation may be only an
//     intermediate step, and the next fetch, from the truncated log, carries
//     the high watermark;
//   - otherwise the batches are appended exactly as they came, offsets and
//     epochs kept, the epoch cache learns any new epoch, and only then does
//     the high watermark move, to max(own, min(response's, own LEO)).
func (r *Replica) ApplyFetch(sent *wire.FetchPartition, resp *wire.FetchPartitionResponse, nowMs int64) (shipped int, err error) {
	if !r.answers(sent.CurrentLeaderEpoch) || sent.FetchOffset != r.log.EndOffset() {
		return 0, nil
	}
	if err := resp.ErrorCode.Err(); err != nil {
		r.follow.backoffUntilMs = nowMs + r.opts.fetchBackoffMs()
		err = fmt.Errorf("replica: broker %d: fetch from %d at epoch %d refused: %w", r.id, r.leaderID, r.leaderEpoch, err)
		if resp.ErrorCode == wire.CodeOffsetOutOfRange {
			if rerr := r.resetOutOfRange(resp); rerr != nil {
				return 0, rerr
			}
		}
		return 0, err
	}
	if resp.HasDivergingEpoch {
		d := resp.DivergingEpoch
		_, err := r.truncateToLeader(d.Epoch, d.EndOffset, true)
		return 0, err
	}
	if len(resp.Records) > 0 {
		info, err := r.log.AppendAsFollower(resp.Records)
		if err != nil {
			r.follow.backoffUntilMs = nowMs + r.opts.fetchBackoffMs()
			return 0, fmt.Errorf("replica: broker %d: fetched records: %w", r.id, storageError(err))
		}
		shipped = info.Records
	}
	if err := r.advanceFollowerHW(resp.HighWatermark); err != nil {
		return shipped, err
	}
	return shipped, r.followLogStart(resp.LogStartOffset)
}

// followLogStart moves this follower's log start up to the leader's (never
// past its own high watermark), as Kafka's follower does with the fetch
// response's LogStartOffset: records the leader no longer serves, the
// follower need not keep.
func (r *Replica) followLogStart(leaderStart uint64) error {
	start := min(leaderStart, r.log.HighWatermark())
	if start <= r.log.StartOffset() {
		return nil
	}
	if err := r.log.IncrementStartOffset(start); err != nil {
		return fmt.Errorf("replica: broker %d: %w", r.id, storageError(err))
	}
	return nil
}

// answers reports whether an answer to a request sent at leader epoch e is
// still this follower's to apply.
func (r *Replica) answers(e int32) bool {
	return !r.closed && r.role == RoleFollower && r.leaderID >= 0 && e == r.leaderEpoch
}

// resetOutOfRange is Kafka's follower answer to OFFSET_OUT_OF_RANGE
// (AbstractFetcherThread.fetchOffsetAndTruncate): a follower behind the
// leader's log start starts again at it; one ahead of the leader's log
// (an unclean election left the leader shorter) cuts back to the leader's
// high watermark and fetches from there.
func (r *Replica) resetOutOfRange(resp *wire.FetchPartitionResponse) error {
	leo := r.log.EndOffset()
	switch {
	case resp.LogStartOffset > leo:
		return r.truncateFullyAndStartAt(resp.LogStartOffset)
	case resp.HighWatermark < leo:
		return r.TruncateTo(max(resp.HighWatermark, r.log.StartOffset()))
	}
	return nil
}

// NextEpochQuery returns the question a follower under
// TruncateByLeaderEpoch asks its leader before fetching after a new leader
// epoch: where does my latest epoch end on your log? ok is false when there
// is nothing to ask (fetch instead, or wait). A follower with records but no
// epoch at all cannot ask; as in Kafka it falls back to truncating to its
// high watermark.
func (r *Replica) NextEpochQuery(nowMs int64) (p wire.OffsetsForLeaderEpochPartition, ok bool) {
	if !r.fetching(nowMs) || !r.follow.truncating {
		return p, false
	}
	latest, ok := r.log.LatestEpoch()
	if !ok {
		r.follow.truncating = false
		if err := r.TruncateTo(max(r.log.HighWatermark(), r.log.StartOffset())); err != nil {
			r.follow.backoffUntilMs = nowMs + r.opts.fetchBackoffMs()
		}
		return p, false
	}
	return wire.OffsetsForLeaderEpochPartition{CurrentLeaderEpoch: r.leaderEpoch, LeaderEpoch: latest}, true
}

// ApplyEpochAnswer applies the leader's answer to an epoch question this
// follower sent: it truncates by KIP-279's rule and, once the logs agree,
// starts fetching (until then NextEpochQuery asks again, about the
// follower's new latest epoch). A refusal backs it off and is returned,
// already acted on; a late answer (another epoch, or the follower moved on)
// is dropped.
func (r *Replica) ApplyEpochAnswer(sent *wire.OffsetsForLeaderEpochPartition, resp *wire.OffsetsForLeaderEpochPartitionResponse, nowMs int64) error {
	latest, ok := r.log.LatestEpoch()
	if !r.answers(sent.CurrentLeaderEpoch) || !r.follow.truncating || !ok || sent.LeaderEpoch != latest {
		return nil
	}
	if err := resp.ErrorCode.Err(); err != nil {
		r.follow.backoffUntilMs = nowMs + r.opts.fetchBackoffMs()
		return fmt.Errorf("replica: broker %d: offsets for epoch %d refused: %w", r.id, sent.LeaderEpoch, err)
	}
	done, err := r.truncateToLeader(resp.Epoch, resp.EndOffset, resp.Found)
	if err == nil && done {
		r.follow.truncating = false
	}
	return err
}
