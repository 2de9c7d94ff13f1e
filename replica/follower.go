package replica

import (
	"fmt"

	"github.com/kaenlog/kaenlog/wire"
)

// This file is the follower's side: the fetch it sends and what it does with
// the answer. A follower is a consumer that carries its replica id; that id
// is the only thing that lets it read past the high watermark.

// FetchRequest returns the fetch this follower sends next: its id, its LEO
// as the fetch offset (it always asks for the record after the last one it
// holds), the leader epoch it believes current, and the epoch of its last
// record so the leader can detect a diverged log.
func (r *Replica) FetchRequest(correlationID int32) wire.FetchRequest {
	last := int32(-1)
	if e, ok := r.log.LatestEpoch(); ok {
		last = e
	}
	maxBytes := r.opts.MaxFetchBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFetchBytes
	}
	return wire.FetchRequest{
		CorrelationID:      correlationID,
		ReplicaID:          r.id,
		FetchOffset:        r.log.EndOffset(),
		CurrentLeaderEpoch: r.leaderEpoch,
		LastFetchedEpoch:   last,
		MaxBytes:           maxBytes,
	}
}

// ApplyFetch applies the leader's fetch response and reports how many
// records it shipped. In order: a response error is returned as an error
// matching the wire package's sentinel; a diverging epoch truncates the log
// (KIP-279), ships nothing and leaves the high watermark alone (the next
// fetch, from the truncated log, asks again and carries it); otherwise the
// batches are appended exactly as they came, offsets and epochs kept, the
// epoch cache learns any new epoch, and only then does the high watermark
// move, to max(own, min(response HW, own LEO)). The high watermark moves
// only on a response that found the follower's log agreeing with the
// leader's, so the follower never claims to have committed a record it is
// about to drop.
func (r *Replica) ApplyFetch(resp *wire.FetchResponse) (shipped int, err error) {
	if r.closed {
		return 0, ErrClosed
	}
	if r.role != RoleFollower {
		return 0, ErrNotFollower
	}
	if resp.ErrorCode != wire.CodeNone {
		return 0, fmt.Errorf("kaenlog/replica: broker %d: fetch refused: %w", r.id, resp.ErrorCode.Err())
	}
	if resp.HasDivergingEpoch {
		// The high watermark stays: this truncation may be only KIP-279's
		// intermediate step, after which the log still disagrees with the
		// leader's, so raising it would claim divergent records committed.
		// Kafka's fetcher likewise leaves it to the next fetch.
		d := resp.DivergingEpoch
		_, err := r.truncateToLeader(d.Epoch, d.EndOffset, true)
		return 0, err
	}
	if len(resp.Records) > 0 {
		// One pass verifies the batches, counts the records and assigns
		// their epochs in the log's cache.
		info, err := r.log.AppendAsFollower(resp.Records)
		if err != nil {
			return 0, fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
		}
		shipped = info.Records
	}
	return shipped, r.advanceFollowerHW(resp.HighWatermark)
}
