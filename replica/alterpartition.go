package replica

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kaenlog/kaenlog/wire"
)

// This file is the leader's AlterPartition client (Kafka's
// AlterPartitionManager and Partition.handleAlterPartition*): an ISR change
// is proposed to the controller, at most one at a time, resent until the
// controller answers, and applied only as the controller commits it.

// alterState is the leader's ISR proposal in flight.
type alterState struct {
	// isr is the proposed ISR; nil when nothing is in flight. epochs are
	// its members' broker epochs, fixed when it was proposed.
	isr    []int32
	epochs []int64
	// sent reports that the proposal went out at sentAtMs.
	sent     bool
	sentAtMs int64
	// waiting is set by an answer that says the leader's view is out of
	// date (FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, ...): Kafka keeps
	// the proposal pending, resends nothing, and waits for the controller's
	// next partition state to settle it.
	waiting bool
}

func (a *alterState) propose(isr []int32, epochs []int64) {
	*a = alterState{isr: isr, epochs: epochs}
}

// retryAtMs is when an unanswered proposal is sent again.
func (a *alterState) retryAtMs(retryMs int64) (int64, bool) {
	if a.isr == nil || !a.sent || a.waiting {
		return 0, false
	}
	return saturatingAdd(a.sentAtMs, retryMs), true
}

// AlterPartition returns the ISR change this leader wants the controller to
// commit, to send now: a new proposal, or the last one again when
// AlterPartitionRetryMs passed without an answer. The partition's leader
// and partition epochs and every member's broker epoch (as of the proposal:
// see memberEpochs) are filled in; the
// caller adds its own broker id and epoch, the topic, the partition and a
// correlation id. ok is false when there is nothing to send.
func (r *Replica) AlterPartition(nowMs int64) (req wire.AlterPartitionRequest, ok bool) {
	if r.closed || r.role != RoleLeader {
		return req, false
	}
	a := &r.lead.alter
	if a.isr == nil || a.waiting {
		return req, false
	}
	if a.sent {
		if at, _ := a.retryAtMs(r.opts.alterRetryMs()); nowMs < at {
			return req, false
		}
	}
	a.sent, a.sentAtMs = true, nowMs
	req = wire.AlterPartitionRequest{
		LeaderEpoch:         r.leaderEpoch,
		PartitionEpoch:      r.partitionEpoch,
		NewISR:              make([]wire.BrokerState, len(a.isr)),
		LeaderRecoveryState: wire.LeaderRecovered,
	}
	for i, id := range a.isr {
		req.NewISR[i] = wire.BrokerState{BrokerID: id, BrokerEpoch: a.epochs[i]}
	}
	return req, true
}

// ApplyAlterPartition applies the controller's answer to a proposal this
// replica sent (sent is the request as it went out). Kafka's rules
// (Partition.handleAlterPartitionError / handleAlterPartitionUpdate):
//
//   - an answer to anything but the proposal in flight, or arriving after
//     the replica stopped leading, is dropped;
//   - success: adopted only if it is for this leader epoch and not older
//     than the partition epoch held; then the ISR is the committed one and
//     the high watermark is recomputed;
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
// The returned error is the controller's refusal, for the caller's logs; the
// replica has already acted on it.
func (r *Replica) ApplyAlterPartition(sent *wire.AlterPartitionRequest, resp *wire.AlterPartitionResponse, nowMs int64) error {
	if r.closed || r.role != RoleLeader || sent.LeaderEpoch != r.leaderEpoch || !r.inFlight(sent) {
		return nil
	}
	a := &r.lead.alter
	if err := resp.ErrorCode.Err(); err != nil {
		switch {
		case errors.Is(err, wire.ErrOperationNotAttempted), errors.Is(err, wire.ErrIneligibleReplica):
			r.lead.isr.Abort()
			*a = alterState{}
		case errors.Is(err, wire.ErrFencedLeaderEpoch), errors.Is(err, wire.ErrInvalidUpdateVersion),
			errors.Is(err, wire.ErrUnknownTopicOrPartition), errors.Is(err, wire.ErrInvalidRequest),
			errors.Is(err, wire.ErrNewLeaderElected), errors.Is(err, wire.ErrStaleBrokerEpoch):
			a.waiting = true
		default:
			a.sent, a.sentAtMs = true, nowMs // resend after the retry interval
		}
		return fmt.Errorf("replica: broker %d: ISR proposal %v refused: %w", r.id, a.isr, err)
	}
	if resp.LeaderEpoch != r.leaderEpoch || resp.PartitionEpoch < r.partitionEpoch {
		return nil
	}
	if err := r.lead.isr.Commit(resp.ISR, nowMs); err != nil {
		return fmt.Errorf("replica: broker %d: %w: %w", r.id, ErrInvalidState, err)
	}
	*a = alterState{}
	r.partitionEpoch = resp.PartitionEpoch
	return r.leaderStateChanged(nowMs)
}

// inFlight reports whether sent is the proposal in flight.
func (r *Replica) inFlight(sent *wire.AlterPartitionRequest) bool {
	a := &r.lead.alter
	if a.isr == nil || len(sent.NewISR) != len(a.isr) {
		return false
	}
	return slices.EqualFunc(sent.NewISR, a.isr, func(s wire.BrokerState, id int32) bool { return s.BrokerID == id })
}
