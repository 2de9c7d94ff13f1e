package replica

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// This file is the leader's AlterPartition client (Kafka's
// AlterPartitionManager and Partition.handleAlterPartition*): an ISR change
// is proposed to the controller, at most one at a time, resent until the
// controller answers, and applied only as the controller commits it.
//
// Kafka keeps two things apart, and so does alterState. The partition's
// proposal (Partition.partitionState, PendingShrinkIsr/PendingExpandIsr)
// ends when the controller's next partition state arrives, whatever
// became of it. The request sent for it (the AlterPartitionManager's entry
// for the partition, kept until its answer arrives, resent meanwhile) does
// not: while it is unanswered nothing new is sent for the partition, even
// after a partition state at the same leader epoch ended the proposal it
// was sent for. Kafka's manager refuses such a second submit at once
// (OPERATION_NOT_ATTEMPTED, which reverts the partition to its committed
// state); kaenlog makes no proposal then, which leaves the same state. The
// answer, when it comes, frees the partition and is otherwise ignored
// (Kafka: partitionState != proposedIsrState), and the next ISR check or
// fetch proposes again from the state as it is then.
//
// Where kaenlog differs: Kafka's manager is the broker's and keeps the
// entry while the partition follows another leader for a while; kaenlog's
// replica forgets its request when it stops leading. A request from an
// earlier leadership may then still be on its way when the replica leads
// again, which is harmless: the controller fences its leader epoch, and
// its answer matches nothing here.

// alterState is the leader's ISR proposal and the request in flight.
type alterState struct {
	// isr is the proposed ISR; nil when nothing is proposed. epochs are
	// its members' broker epochs, fixed when it was proposed.
	isr    []int32
	epochs []int64
	// waiting is set by an answer that says the leader's view is out of
	// date (FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, ...): Kafka keeps
	// the proposal pending, resends nothing, and waits for the controller's
	// next partition state to settle it.
	waiting bool
	// out is the request sent and not yet answered, sent (last) at
	// sentAtMs; nil when none. Only its answer frees the partition for
	// another request. While isr is non-nil, out (if any) was sent for it:
	// nothing is proposed while a request is out, and a partition state
	// that ends the proposal leaves out as it is.
	out      *wire.AlterPartitionRequest
	sentAtMs int64
}

func (a *alterState) propose(isr []int32, epochs []int64) {
	*a = alterState{isr: isr, epochs: epochs}
}

// canPropose reports whether a new proposal may be made: none pending, no
// request unanswered.
func (a *alterState) canPropose() bool { return a.isr == nil && a.out == nil }

// supersede ends the proposal for a partition state from the controller,
// keeping the request in flight, if any, until its answer arrives.
func (a *alterState) supersede() { *a = alterState{out: a.out, sentAtMs: a.sentAtMs} }

// retryAtMs is when an unanswered request is sent again.
func (a *alterState) retryAtMs(retryMs int64) (int64, bool) {
	if a.out == nil {
		return 0, false
	}
	return clock.Deadline(a.sentAtMs, retryMs), true
}

// AlterPartition returns the ISR change this leader wants the controller to
// commit, to send now: a new proposal, or the request in flight again when
// AlterPartitionRetryMs passed without an answer — unchanged, even once a
// partition state ended its proposal, since only its answer frees the
// partition (Kafka's AlterPartitionManager resends it until answered). The
// partition's leader and partition epochs and every member's broker epoch
// (as of the proposal: see memberEpochs) are filled in; the caller adds its
// own broker id and epoch, the topic, the partition and a correlation id.
// ok is false when there is nothing to send.
func (r *Replica) AlterPartition(nowMs int64) (req wire.AlterPartitionRequest, ok bool) {
	if r.closed || r.role != RoleLeader {
		return req, false
	}
	a := &r.lead.alter
	if a.out != nil {
		if at, _ := a.retryAtMs(r.opts.alterRetryMs()); nowMs < at {
			return req, false
		}
		a.sentAtMs = nowMs
		return cloneAlter(a.out), true
	}
	if a.isr == nil || a.waiting {
		return req, false
	}
	req = wire.AlterPartitionRequest{
		LeaderEpoch:         r.leaderEpoch,
		PartitionEpoch:      r.partitionEpoch,
		NewISR:              make([]wire.BrokerState, len(a.isr)),
		LeaderRecoveryState: wire.LeaderRecovered,
	}
	for i, id := range a.isr {
		req.NewISR[i] = wire.BrokerState{BrokerID: id, BrokerEpoch: a.epochs[i]}
	}
	out := cloneAlter(&req)
	a.out, a.sentAtMs = &out, nowMs
	return req, true
}

// cloneAlter copies a request the replica keeps, so that the caller may
// change what it was given.
func cloneAlter(req *wire.AlterPartitionRequest) wire.AlterPartitionRequest {
	c := *req
	c.NewISR = slices.Clone(req.NewISR)
	return c
}

// ApplyAlterPartition applies the controller's answer to a request this
// replica sent (sent is the request as it went out). Kafka's rules
// (AlterPartitionManager, Partition.handleAlterPartitionError /
// handleAlterPartitionUpdate):
//
//   - an answer to anything but the request in flight — matched by its
//     leader epoch, partition epoch and proposed ISR with the members'
//     broker epochs — or arriving after the replica stopped leading, is
//     dropped: a late or duplicated answer to an earlier request changes
//     nothing;
//   - the answer to the request in flight frees the partition for the next
//     one; if a partition state from the controller ended the proposal it
//     was sent for (the same leader epoch with a newer partition epoch, or
//     a new leader epoch), that is all it does, whatever it says;
//   - success: adopted only if it is for this leader epoch and not older
//     than the partition epoch held; then the ISR is the committed one and
//     the high watermark is recomputed; otherwise the proposal is held as
//     below;
//   - OPERATION_NOT_ATTEMPTED, INELIGIBLE_REPLICA: the proposal is dropped
//     and the maximal ISR goes back to the committed one; a later check may
//     propose again;
//   - FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, UNKNOWN_TOPIC_OR_PARTITION,
//     INVALID_REQUEST, NEW_LEADER_ELECTED, STALE_BROKER_EPOCH: this leader's
//     view is out of date; nothing more is proposed until the controller's
//     next partition state arrives (BecomeLeader or BecomeFollower);
//   - anything else (NOT_CONTROLLER, a network error): sent again after
//     AlterPartitionRetryMs.
//
// The returned error is the controller's refusal of the proposal in
// flight, for the caller's logs; the replica has already acted on it.
func (r *Replica) ApplyAlterPartition(sent *wire.AlterPartitionRequest, resp *wire.AlterPartitionResponse, nowMs int64) error {
	if r.closed || r.role != RoleLeader || !r.isOut(sent) {
		return nil
	}
	a := &r.lead.alter
	if a.isr == nil {
		a.out = nil // its proposal was superseded by a partition state: ignored, as Kafka does
		return nil
	}
	if err := resp.ErrorCode.Err(); err != nil && errorRetries(err) {
		a.sentAtMs = nowMs // the same request again after the retry interval
		return fmt.Errorf("replica: broker %d: ISR proposal %v not answered: %w", r.id, a.isr, err)
	}
	a.out = nil
	if err := resp.ErrorCode.Err(); err != nil {
		if errors.Is(err, wire.ErrOperationNotAttempted) || errors.Is(err, wire.ErrIneligibleReplica) {
			r.lead.isr.Abort()
			*a = alterState{}
		} else {
			a.waiting = true
		}
		return fmt.Errorf("replica: broker %d: ISR proposal %v refused: %w", r.id, sent.NewISR, err)
	}
	if resp.LeaderEpoch != r.leaderEpoch || resp.PartitionEpoch < r.partitionEpoch {
		a.waiting = true // Kafka ignores it and keeps the proposal pending
		return nil
	}
	if err := r.lead.isr.Commit(resp.ISR, nowMs); err != nil {
		return fmt.Errorf("replica: broker %d: %w: %w", r.id, ErrInvalidState, err)
	}
	*a = alterState{}
	r.partitionEpoch = resp.PartitionEpoch
	return r.leaderStateChanged(nowMs)
}

// errorRetries reports whether a refusal leaves the request to be sent
// again: every code but the ones Kafka's handleAlterPartitionError settles.
func errorRetries(err error) bool {
	for _, settled := range []error{
		wire.ErrOperationNotAttempted, wire.ErrIneligibleReplica,
		wire.ErrFencedLeaderEpoch, wire.ErrInvalidUpdateVersion, wire.ErrUnknownTopicOrPartition,
		wire.ErrInvalidRequest, wire.ErrNewLeaderElected, wire.ErrStaleBrokerEpoch,
	} {
		if errors.Is(err, settled) {
			return false
		}
	}
	return true
}

// isOut reports whether sent is the request in flight: the same leader
// and partition epochs and the same proposed ISR, broker epochs included.
func (r *Replica) isOut(sent *wire.AlterPartitionRequest) bool {
	out := r.lead.alter.out
	return out != nil && sent.LeaderEpoch == out.LeaderEpoch && sent.PartitionEpoch == out.PartitionEpoch &&
		sent.LeaderRecoveryState == out.LeaderRecoveryState && slices.Equal(sent.NewISR, out.NewISR)
}
