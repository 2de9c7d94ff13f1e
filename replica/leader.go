package replica

import (
	"errors"
	"fmt"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/wire"
)

// This file is the leader's side of the protocol: what it does with a
// produce, a fetch and an offsets-for-leader-epoch request. Every answer is
// a value of the wire package, so the same code serves an in-memory link and
// a socket.

// checkLeaderEpoch is Kafka's fencing rule for a request that names the
// leader epoch its sender believes current (-1: the sender does not say).
func (r *Replica) checkLeaderEpoch(current int32) wire.ErrorCode {
	switch {
	case current < 0 || current == r.leaderEpoch:
		return wire.CodeNone
	case current < r.leaderEpoch:
		return wire.CodeFencedLeaderEpoch
	default:
		return wire.CodeUnknownLeaderEpoch
	}
}

// Produce appends one or more record batches as the leader and reports the
// base offset assigned to the first. acks is wire.AcksAll, wire.AcksLeader or
// wire.AcksNone.
//
// With acks=all the ISR is checked before the append: under
// min.insync.replicas the write is refused with wire.CodeNotEnoughReplicas
// (Kafka's NOT_ENOUGH_REPLICAS, 19) and nothing is written. Whether an
// accepted acks=all write is then committed is a second, later question,
// answered by AckVerdict. acks changes when a producer hears back, never
// what is written: acks=1 writes the same bytes as acks=all.
//
// The batches are stamped in place with their offsets and the leader epoch,
// without recomputing their CRC. A corrupt batch is refused with
// wire.CodeCorruptMessage and an error; the log is unchanged.
func (r *Replica) Produce(batches []byte, acks int16, nowMs int64) (base uint64, code wire.ErrorCode, err error) {
	if r.closed {
		return 0, wire.CodeNotLeaderOrFollower, ErrClosed
	}
	if acks != wire.AcksAll && acks != wire.AcksLeader && acks != wire.AcksNone {
		return 0, wire.CodeInvalidRequiredAcks, fmt.Errorf("%w: %d", ErrInvalidAcks, acks)
	}
	if r.role != RoleLeader {
		return 0, wire.CodeNotLeaderOrFollower, nil
	}
	// error 19's check sits before the append: it is not atomic with the write.
	if acks == wire.AcksAll && r.isr.UnderMinISR() {
		return 0, wire.CodeNotEnoughReplicas, nil
	}
	info, err := r.log.AppendAsLeader(batches, r.leaderEpoch)
	if err != nil {
		return 0, produceErrorCode(err), err
	}
	base = info.FirstOffset
	// The leader's own LEO moved; with no other ISR member it alone decides.
	if err := r.advanceLeaderHW(); err != nil {
		return base, wire.CodeUnknownServerError, err
	}
	return base, wire.CodeNone, nil
}

// produceErrorCode is the code a produce the log refused gets.
func produceErrorCode(err error) wire.ErrorCode {
	switch {
	case errors.Is(err, log.ErrCorrupt):
		return wire.CodeCorruptMessage
	case errors.Is(err, log.ErrBatchTooLarge):
		return wire.CodeMessageTooLarge
	case errors.Is(err, log.ErrInvalidRecord):
		return wire.CodeInvalidRecord
	case errors.Is(err, log.ErrUnsupportedCompression):
		return wire.CodeUnsupportedCompressionType
	case errors.Is(err, log.ErrLogFailed):
		return wire.CodeKafkaStorageError
	}
	return wire.CodeUnknownServerError
}

// AckVerdict answers whether a write the producer asked acks=all for is done:
// requiredOffset is the offset the high watermark must reach (for a record at
// offset o, o+1, because the high watermark is exclusive). It applies the
// chapter's gate to the current high watermark and ISR: NotYet while the HW
// is short of it, then Committed, or NotEnoughReplicasAfterAppend when the
// ISR shrank under min.insync.replicas after the append (Kafka's 20).
func (r *Replica) AckVerdict(requiredOffset uint64) (isr.Verdict, error) {
	if r.closed {
		return isr.NotYet, ErrClosed
	}
	if r.role != RoleLeader {
		return isr.NotYet, ErrNotLeader
	}
	return r.isr.Gate(r.log.HighWatermark()).Verdict(requiredOffset), nil
}

// ShrinkISR applies the leader's time rule at nowMs: followers that have not
// caught up within replica.lag.time.max.ms leave the ISR (the leader never
// does). It then recomputes the high watermark, which a shrink may move
// forward (a slow follower no longer holds it back) unless the ISR fell under
// min.insync.replicas. It reports whether the ISR changed.
func (r *Replica) ShrinkISR(nowMs int64) (bool, error) {
	if r.closed {
		return false, ErrClosed
	}
	if r.role != RoleLeader {
		return false, ErrNotLeader
	}
	changed := r.isr.ShrinkISR(nowMs)
	if changed {
		if err := r.advanceLeaderHW(); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// HandleFetch serves one fetch request at time nowMs: a follower's
// (ReplicaID >= 0) or a consumer's (-1). The records in the response alias
// dst's storage (reused across calls); the response is valid until the next
// call that passes the same dst.
//
// For a follower, in this order: the request's fetch offset is its LEO, so
// the leader records it in the ISR state and recomputes its high watermark
// before reading; then it reads up to its log end and answers with the
// records and the high watermark just computed. That order is the whole of
// the one-round lag: the follower learns that a record is committed only in
// the response after the one that carried it.
//
// A follower whose last fetched epoch ended, on the leader, below its fetch
// offset has diverged (KIP-279 via fetch, Kafka's KIP-320): it gets the
// leader's end offset for that epoch as DivergingEpoch, no records, and its
// fetch offset is not taken as its LEO. That check comes before the log-end
// check, so a diverged follower whose offset is past the leader's log end
// is told where to truncate rather than OFFSET_OUT_OF_RANGE. A follower
// whose last epoch the leader cannot place (older than every epoch it
// knows), or a fetch past the log end with no epoch to check, gets
// OFFSET_OUT_OF_RANGE; such a follower recovers with TruncateByLeaderEpoch.
func (r *Replica) HandleFetch(req *wire.FetchRequest, dst []byte, nowMs int64) (wire.FetchResponse, []byte, error) {
	resp := wire.FetchResponse{CorrelationID: req.CorrelationID}
	if r.closed {
		return resp, dst, ErrClosed
	}
	if r.role != RoleLeader {
		resp.ErrorCode = wire.CodeNotLeaderOrFollower
		return resp, dst, nil
	}
	if code := r.checkLeaderEpoch(req.CurrentLeaderEpoch); code != wire.CodeNone {
		resp.ErrorCode = code
		return resp, dst, nil
	}
	leo := r.log.EndOffset()
	resp.LogStartOffset = r.log.StartOffset()
	if req.FetchOffset < resp.LogStartOffset {
		resp.ErrorCode = wire.CodeOffsetOutOfRange
		resp.HighWatermark = r.log.HighWatermark()
		return resp, dst, nil
	}
	isFollower := req.ReplicaID >= 0
	// The epoch check comes before the log-end check, as in Kafka's
	// Partition.readRecords: an old leader's divergent tail is often longer
	// than the new leader's whole log, and it must be told where the logs
	// part, not that its offset is out of range.
	if isFollower && req.LastFetchedEpoch >= 0 {
		e, end, ok := r.log.EndOffsetForEpoch(req.LastFetchedEpoch)
		if !ok {
			// The leader knows no epoch that old: nothing to diverge
			// from, the follower's position itself is invalid.
			resp.ErrorCode = wire.CodeOffsetOutOfRange
			resp.HighWatermark = r.log.HighWatermark()
			return resp, dst, nil
		}
		if e < req.LastFetchedEpoch || end < req.FetchOffset {
			resp.HasDivergingEpoch = true
			resp.DivergingEpoch = wire.EpochEndOffset{Epoch: e, EndOffset: end}
			resp.HighWatermark = r.log.HighWatermark()
			return resp, dst, nil
		}
	}
	if req.FetchOffset > leo {
		// A follower claiming more than the leader has must not count.
		resp.ErrorCode = wire.CodeOffsetOutOfRange
		resp.HighWatermark = r.log.HighWatermark()
		return resp, dst, nil
	}
	if isFollower {
		if err := r.isr.Observe(req.ReplicaID, req.FetchOffset, leo, nowMs); err != nil {
			resp.ErrorCode = wire.CodeUnknownReplica
			resp.HighWatermark = r.log.HighWatermark()
			return resp, dst, nil
		}
		if err := r.advanceLeaderHW(); err != nil {
			return resp, dst, err
		}
	}
	resp.HighWatermark = r.log.HighWatermark()
	maxBytes := int(req.MaxBytes)
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFetchBytes
	}
	records, err := r.log.Read(dst[:0], req.FetchOffset, maxBytes, wire.IsolationOf(req.ReplicaID))
	if err != nil {
		if errors.Is(err, log.ErrOffsetOutOfRange) {
			resp.ErrorCode = wire.CodeOffsetOutOfRange
			return resp, dst, nil
		}
		return resp, dst, err
	}
	resp.Records = records
	return resp, records, nil
}

// HandleOffsetsForLeaderEpoch answers a follower's question "where does my
// latest epoch end on your log?" with the chapter's <= lookup: the largest
// epoch not above the one asked, and where it ends (the next epoch's start,
// or the leader's LEO). Not found stays Found=false here; it becomes
// (-1, -1) only on the wire.
func (r *Replica) HandleOffsetsForLeaderEpoch(req *wire.OffsetsForLeaderEpochRequest) (wire.OffsetsForLeaderEpochResponse, error) {
	resp := wire.OffsetsForLeaderEpochResponse{CorrelationID: req.CorrelationID}
	if r.closed {
		return resp, ErrClosed
	}
	if r.role != RoleLeader {
		resp.ErrorCode = wire.CodeNotLeaderOrFollower
		return resp, nil
	}
	if code := r.checkLeaderEpoch(req.CurrentLeaderEpoch); code != wire.CodeNone {
		resp.ErrorCode = code
		return resp, nil
	}
	resp.Epoch, resp.EndOffset, resp.Found = r.log.EndOffsetForEpoch(req.LeaderEpoch)
	return resp, nil
}

// Readmit is the controller's path back into the ISR for follower id: it
// succeeds only when the follower's last fetch showed it holding everything
// up to the leader's high watermark and the start of the leader's current
// epoch (isr.ErrNotCaughtUp otherwise). Time never readmits a follower. The
// high watermark is recomputed, since a new ISR member now holds it.
func (r *Replica) Readmit(id int32) error {
	if r.closed {
		return ErrClosed
	}
	if r.role != RoleLeader {
		return ErrNotLeader
	}
	start, ok := r.log.EpochStartOffset(r.leaderEpoch)
	if !ok {
		return fmt.Errorf("kaenlog/replica: broker %d leads epoch %d but its cache has no entry for it", r.id, r.leaderEpoch)
	}
	if err := r.isr.Readmit(id, r.log.HighWatermark(), start); err != nil {
		return fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
	}
	return r.advanceLeaderHW()
}
