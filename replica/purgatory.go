package replica

import (
	"fmt"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/wire"
)

// This file is the produce purgatory (Kafka's DelayedProduce), as plain
// state: acks=all produces wait here for the high watermark to pass them.

// parkedProduce is an acks=all produce whose records are written but not yet
// known to be committed.
type parkedProduce struct {
	ref        uint64
	result     ProduceResult
	deadlineMs int64
	// records are the produce's batches as the log stored them, kept
	// (by a broker, whose transport keeps a request until it is answered)
	// so that a follower fetching them is sent these bytes instead of a
	// read of the file; gen is the log's generation at their append
	// (log.Log.ReadsAppended). nil when not kept.
	records []byte
	gen     uint64
}

// ProduceOutcome is how a parked produce ended.
type ProduceOutcome struct {
	// Ref is the ref the produce was made with.
	Ref uint64
	// Result is where its records went.
	Result ProduceResult
	// Err is nil when the records are committed; otherwise it wraps
	// wire.ErrNotEnoughReplicasAfterAppend, wire.ErrRequestTimedOut or
	// ErrNotLeader (and matches with errors.Is; wire.CodeOf gives its code).
	Err error
}

// TakeProduceOutcomes returns the parked produces that have ended since the
// last call, in the order they ended, and forgets them.
func (r *Replica) TakeProduceOutcomes() []ProduceOutcome {
	out := r.lead.done
	r.lead.done = nil
	return out
}

// drainProduceOutcomes hands f the parked produces that have ended since
// the last call, in order, and forgets them, keeping their slice for the
// next ones: the broker's way, which copies each outcome out at once.
func (r *Replica) drainProduceOutcomes(f func(ProduceOutcome)) {
	for _, o := range r.lead.done {
		f(o)
	}
	clear(r.lead.done)
	r.lead.done = r.lead.done[:0]
}

// Parked returns how many acks=all produces are waiting.
func (r *Replica) Parked() int { return len(r.lead.parked) }

// completeParked ends every parked produce that can be answered at nowMs:
//
//   - its records are below the high watermark: NONE, or
//     NOT_ENOUGH_REPLICAS_AFTER_APPEND if the maximal ISR is under
//     min.insync.replicas (the chapter's gate, Kafka's
//     checkEnoughReplicasReachOffset);
//   - the committed ISR is under min.insync.replicas: the high watermark is
//     frozen (KIP-966), so the records cannot commit until the ISR grows
//     back; the producer hears NOT_ENOUGH_REPLICAS_AFTER_APPEND now rather
//     than REQUEST_TIMED_OUT later, as issue 8 asks (Kafka 4.0 waits for
//     the timeout). Both are retriable and neither says the records are
//     gone: they may still commit;
//   - its deadline has passed: REQUEST_TIMED_OUT.
func (r *Replica) completeParked(nowMs int64) {
	if len(r.lead.parked) == 0 {
		return
	}
	hw := r.log.HighWatermark()
	gate := r.lead.isr.Gate(hw)
	under := r.lead.isr.UnderMinISR()
	kept := r.lead.parked[:0]
	for _, p := range r.lead.parked {
		var err error
		switch {
		case hw >= p.result.NextOffset:
			if gate.Verdict(p.result.NextOffset) != isr.Committed {
				err = errNotEnoughReplicasAfterAppend
			}
		case under:
			err = errNotEnoughReplicasAfterAppend
		case nowMs >= p.deadlineMs:
			err = fmt.Errorf("replica: offsets [%d, %d) not committed by the deadline (high watermark %d): %w",
				p.result.BaseOffset, p.result.NextOffset, hw, wire.ErrRequestTimedOut)
		default:
			kept = append(kept, p)
			continue
		}
		r.lead.done = append(r.lead.done, ProduceOutcome{Ref: p.ref, Result: p.result, Err: err})
	}
	clear(r.lead.parked[len(kept):])
	r.lead.parked = kept
}

// failParked ends every parked produce with err: the replica stopped leading
// (or closed), so it can no longer tell when they commit.
func (r *Replica) failParked(err error) {
	for _, p := range r.lead.parked {
		r.lead.done = append(r.lead.done, ProduceOutcome{Ref: p.ref, Result: p.result, Err: err})
	}
	r.lead.parked = nil
}
