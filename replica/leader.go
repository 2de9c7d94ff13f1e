package replica

import (
	"fmt"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// This file is the leader's side of the protocol: what it does with a
// produce, a fetch, an offsets question, and the clock.

// leaderState is what a replica keeps only while it leads.
type leaderState struct {
	isr *isr.State
	// epochStart is the LEO when this leader's epoch began (Kafka's
	// leaderEpochStartOffset): a follower joins the ISR only once it holds
	// everything up to it.
	epochStart uint64
	// nextShrinkMs is when the time rule is next checked: every
	// replica.lag.time.max.ms/2, as Kafka's isr-expiration task.
	nextShrinkMs int64
	alter        alterState
	parked       []parkedProduce
	done         []ProduceOutcome
	// fetchEpochs is each follower's broker epoch as its last accepted
	// fetch carried it (Kafka's ReplicaState.brokerEpoch): a proposal
	// names the incarnation whose fetches earned the ISR (KIP-903), not
	// whatever incarnation the metadata shows when it is sent.
	fetchEpochs map[int32]int64
}

// checkLeaderEpoch is Kafka's fencing rule for a request that names the
// leader epoch its sender believes current (wire.NoEpoch: the sender does
// not say). It comes before the role check, so a follower at epoch 5 asked
// with 4 answers FENCED_LEADER_EPOCH and with 6 UNKNOWN_LEADER_EPOCH, as a
// leader would.
func (r *Replica) checkLeaderEpoch(current int32) error {
	switch {
	case current < 0 || current == r.leaderEpoch:
		return nil
	case current < r.leaderEpoch:
		return fmt.Errorf("replica: broker %d is at leader epoch %d, request at %d: %w", r.id, r.leaderEpoch, current, wire.ErrFencedLeaderEpoch)
	default:
		return fmt.Errorf("replica: broker %d is at leader epoch %d, request at %d: %w", r.id, r.leaderEpoch, current, wire.ErrUnknownLeaderEpoch)
	}
}

// requireLeader refuses a leader-only request on a replica that does not
// lead.
func (r *Replica) requireLeader() error {
	if r.closed {
		return ErrClosed
	}
	if r.role != RoleLeader {
		return fmt.Errorf("replica: broker %d follows %d at epoch %d: %w", r.id, r.leaderID, r.leaderEpoch, ErrNotLeader)
	}
	return nil
}

// currentLeader is the hint a refusal carries so the client goes straight
// to the leader.
func (r *Replica) currentLeader(resp *wire.FetchPartitionResponse) {
	if r.leaderID >= 0 && r.leaderEpoch >= 0 {
		resp.CurrentLeader = wire.LeaderAndEpoch{LeaderID: r.leaderID, LeaderEpoch: r.leaderEpoch}
		resp.HasCurrentLeader = true
	}
}

// ProduceResult is where a produce's records went.
type ProduceResult struct {
	// BaseOffset is the offset given to the first record.
	BaseOffset uint64
	// NextOffset is one past the last record: the high watermark an
	// acks=all produce waits for (Kafka's requiredOffset).
	NextOffset uint64
	// LogStartOffset is the leader's log start offset after the append.
	LogStartOffset uint64
	// Duplicate is set when the batch was an idempotent producer's retry
	// of a batch the log already holds: nothing was written, and
	// BaseOffset and NextOffset are the original batch's.
	Duplicate bool
}

// Produce appends record batches as the leader, at time nowMs, for a
// producer that asked for acks (wire.AcksAll, AcksLeader or AcksNone) and
// will wait timeoutMs for an acks=all answer. ref is the caller's name for
// the request; parked produces come back with it.
//
// In order: a replica that does not lead refuses with ErrNotLeader; acks
// outside {-1, 0, 1} is wire.ErrInvalidRequiredAcks; acks=all while the
// committed ISR is under min.insync.replicas is wire.ErrNotEnoughReplicas
// (Kafka's 19) and nothing is written; the log validates and appends
// (refusals wrap wire.ErrCorruptMessage, ErrInvalidRecord, ...; an
// idempotent producer's batch out of sequence or from a fenced epoch is
// wire.ErrOutOfOrderSequenceNumber or wire.ErrInvalidProducerEpoch). A
// retry of a batch the log already holds (log.AppendInfo.Duplicate) is not
// written again: it is answered NONE with the original batch's offsets
// (ProduceResult.Duplicate), and for acks=all it completes when the high
// watermark passes the original batch, at once if it already has, so a
// retry after REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS_AFTER_APPEND never
// lands twice. acks only changes when the producer hears back, never what
// is written.
//
// acks=0 and acks=1 are done when the append returns (parked false; a
// broker sends no response at all for acks=0). An acks=all produce whose
// records are not yet below the high watermark is parked: Produce returns
// parked true, and its outcome comes later from TakeProduceOutcomes — NONE
// once the high watermark passes NextOffset, NOT_ENOUGH_REPLICAS_AFTER_APPEND
// (20) if the committed ISR falls under min.insync.replicas first,
// REQUEST_TIMED_OUT (7) at nowMs+timeoutMs, NOT_LEADER_OR_FOLLOWER if this
// replica stops leading. It is Kafka's produce purgatory, as plain state.
func (r *Replica) Produce(ref uint64, batches []byte, acks int16, timeoutMs int32, nowMs int64) (res ProduceResult, parked bool, err error) {
	return r.produce(ref, batches, acks, timeoutMs, nowMs, false)
}

// produce is Produce; with keep, a parked produce keeps batches (stamped
// by the append) for fetchAppended until it ends, so the caller must not
// change or reuse them before then: a broker's transport keeps a request
// until it is answered.
func (r *Replica) produce(ref uint64, batches []byte, acks int16, timeoutMs int32, nowMs int64, keep bool) (res ProduceResult, parked bool, err error) {
	if err := r.requireLeader(); err != nil {
		return ProduceResult{}, false, err
	}
	if acks != wire.AcksAll && acks != wire.AcksLeader && acks != wire.AcksNone {
		return ProduceResult{}, false, fmt.Errorf("replica: acks %d: %w", acks, wire.ErrInvalidRequiredAcks)
	}
	// Error 19's check sits before the append: it is not atomic with the
	// write, which is why error 20 exists.
	if acks == wire.AcksAll && r.lead.isr.UnderMinISR() {
		return ProduceResult{}, false, fmt.Errorf("replica: broker %d: ISR %v under min.insync.replicas %d: %w",
			r.id, r.lead.isr.ISR(), r.lead.isr.EffectiveMinISR(), wire.ErrNotEnoughReplicas)
	}
	info, err := r.log.AppendAsLeader(batches, r.leaderEpoch)
	if err != nil {
		return ProduceResult{}, false, fmt.Errorf("replica: broker %d: produce: %w", r.id, storageError(err))
	}
	res = ProduceResult{BaseOffset: info.FirstOffset, NextOffset: info.NextOffset, LogStartOffset: r.log.StartOffset(), Duplicate: info.Duplicate}
	// The leader's own LEO moved; with no other ISR member it alone decides.
	if err := r.leaderStateChanged(nowMs); err != nil {
		return res, false, err
	}
	if acks != wire.AcksAll || r.log.HighWatermark() >= res.NextOffset {
		return res, false, nil
	}
	pp := parkedProduce{ref: ref, result: res, deadlineMs: clock.Deadline(nowMs, int64(max(timeoutMs, 0)))}
	// A duplicate wrote nothing: its bytes are not the log's.
	if keep && !info.Duplicate && info.Bytes == len(batches) {
		pp.records, pp.gen = batches[:len(batches):len(batches)], r.log.Generation()
	}
	r.lead.parked = append(r.lead.parked, pp)
	return res, true, nil
}

// AckVerdict answers whether a write the producer asked acks=all for is
// committed: requiredOffset is the offset the high watermark must reach
// (ProduceResult.NextOffset). It applies the chapter's gate to the current
// high watermark and the maximal ISR: NotYet while the high watermark is
// short of it, then Committed, or NotEnoughReplicasAfterAppend when the ISR
// is under min.insync.replicas (Kafka's 20).
func (r *Replica) AckVerdict(requiredOffset uint64) (isr.Verdict, error) {
	if err := r.requireLeader(); err != nil {
		return isr.NotYet, err
	}
	return r.lead.isr.Gate(r.log.HighWatermark()).Verdict(requiredOffset), nil
}

// FetchFrom names who sent a fetch: a follower's broker id and broker
// epoch, or wire.ConsumerReplicaID (and -1) for a consumer.
type FetchFrom struct {
	ReplicaID    int32 // the follower's broker id, or wire.ConsumerReplicaID
	ReplicaEpoch int64 // the follower's broker epoch, or -1
}

// HandleFetch serves one partition of a fetch at time nowMs, reading at most
// maxBytes of records (the first batch whole even if larger, as KIP-74; no
// records at all for maxBytes <= 0). The records are appended to dst and the
// extended slice returned; the response's Records alias that storage and are
// valid until dst is reused. A refusal is the
// returned error; the response still carries what the wire answer needs
// beside the code (the high watermark and log start offset, and the current
// leader when known), with ErrorCode set to wire.CodeOf(err).
//
// In Kafka's order (Partition.fetchRecords, readRecords):
//
//  1. the request's CurrentLeaderEpoch against this replica's (before the
//     role: FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH);
//  2. leadership (NOT_LEADER_OR_FOLLOWER);
//  3. a follower must be an assigned replica at its current broker epoch
//     (otherwise UNKNOWN_LEADER_EPOCH if it named an epoch, else
//     NOT_LEADER_OR_FOLLOWER, as Kafka answers);
//  4. a fetch offset below the log start is OFFSET_OUT_OF_RANGE;
//  5. a follower whose last fetched epoch ended, on this leader, below its
//     fetch offset has diverged (KIP-320 / KIP-595): it gets the leader's
//     end offset for that epoch as DivergingEpoch, no records, and its
//     fetch offset is not taken as its LEO. The end offset is the one
//     HandleOffsetsForLeaderEpoch answers, Kafka's: for an epoch below the
//     leader's earliest entry, that epoch ending at the earliest entry's
//     start offset (a DivergingEpoch when the fetch offset is past it).
//     Only a leader with no epochs at all cannot place it:
//     OFFSET_OUT_OF_RANGE, as Kafka answers UNDEFINED_EPOCH_OFFSET;
//  6. a fetch offset past the log end is OFFSET_OUT_OF_RANGE;
//  7. a follower's fetch offset IS its LEO: the leader records it, may
//     propose it back into the ISR, and recomputes its high watermark
//     BEFORE reading — the chapter's order, so the response carries the
//     high watermark this very fetch moved. (Kafka answers with the high
//     watermark from before the fetch, one round later still; kaenlog
//     follows the chapter.)
//  8. the read: followers to the log end, consumers to the high watermark
//     (IsolationOf), at most maxBytes (the first batch whole, as KIP-74).
func (r *Replica) HandleFetch(from FetchFrom, p *wire.FetchPartition, maxBytes int, dst []byte, nowMs int64) (wire.FetchPartitionResponse, []byte, error) {
	return r.fetch(from, p, maxBytes, dst, nowMs, true, false)
}

// handleFetchAppended is HandleFetch for a broker: a follower's records
// may be a parked produce's kept batches rather than a copy in dst (see
// fetchAppended).
func (r *Replica) handleFetchAppended(from FetchFrom, p *wire.FetchPartition, maxBytes int, dst []byte, nowMs int64) (wire.FetchPartitionResponse, []byte, error) {
	return r.fetch(from, p, maxBytes, dst, nowMs, true, true)
}

// refetch answers a fetch that HandleFetch already saw and a broker parked:
// the same checks and read, without step 7 — the follower's position was
// recorded when its fetch arrived, and recording it again later would make
// it look caught up at a time it did not fetch.
func (r *Replica) refetch(from FetchFrom, p *wire.FetchPartition, maxBytes int, dst []byte, nowMs int64) (wire.FetchPartitionResponse, []byte, error) {
	return r.fetch(from, p, maxBytes, dst, nowMs, false, true)
}

// fetch is HandleFetch (observe) and refetch; with appended, a follower's
// records may alias a parked produce's kept batches (fetchAppended).
func (r *Replica) fetch(from FetchFrom, p *wire.FetchPartition, maxBytes int, dst []byte, nowMs int64, observe, appended bool) (wire.FetchPartitionResponse, []byte, error) {
	resp := wire.FetchPartitionResponse{Topic: p.Topic, Partition: p.Partition}
	fail := func(err error) (wire.FetchPartitionResponse, []byte, error) {
		resp.ErrorCode = wire.CodeOf(err)
		return resp, dst, err
	}
	if r.closed {
		return fail(ErrClosed)
	}
	if err := r.checkLeaderEpoch(p.CurrentLeaderEpoch); err != nil {
		r.currentLeader(&resp)
		return fail(err)
	}
	if err := r.requireLeader(); err != nil {
		r.currentLeader(&resp)
		return fail(err)
	}
	isFollower := from.ReplicaID >= 0
	if isFollower {
		if err := r.checkReplica(from, p.CurrentLeaderEpoch); err != nil {
			return fail(err)
		}
	}
	leo, start := r.log.EndOffset(), r.log.StartOffset()
	resp.HighWatermark, resp.LogStartOffset = r.log.HighWatermark(), start
	if p.FetchOffset < start {
		return fail(fmt.Errorf("replica: fetch offset %d below log start %d: %w", p.FetchOffset, start, wire.ErrOffsetOutOfRange))
	}
	// The epoch check comes before the log-end check, as in Kafka's
	// Partition.readRecords: an old leader's divergent tail is often longer
	// than the new leader's whole log, and it must be told where the logs
	// part, not that its offset is out of range.
	if p.LastFetchedEpoch >= 0 {
		e, end, ok := r.endOffsetForEpoch(p.LastFetchedEpoch)
		if !ok {
			return fail(fmt.Errorf("replica: broker %d has no leader epochs to place epoch %d: %w", r.id, p.LastFetchedEpoch, wire.ErrOffsetOutOfRange))
		}
		if e < p.LastFetchedEpoch || end < p.FetchOffset {
			resp.DivergingEpoch = wire.EpochEndOffset{Epoch: e, EndOffset: end}
			resp.HasDivergingEpoch = true
			return resp, dst, nil
		}
	}
	if p.FetchOffset > leo {
		return fail(fmt.Errorf("replica: fetch offset %d past log end %d: %w", p.FetchOffset, leo, wire.ErrOffsetOutOfRange))
	}
	if isFollower && observe {
		if err := r.lead.isr.Observe(from.ReplicaID, p.FetchOffset, leo, nowMs); err != nil {
			return fail(fmt.Errorf("replica: %w: %w", wire.ErrNotLeaderOrFollower, err))
		}
		if from.ReplicaEpoch >= 0 {
			if r.lead.fetchEpochs == nil {
				r.lead.fetchEpochs = map[int32]int64{}
			}
			r.lead.fetchEpochs[from.ReplicaID] = from.ReplicaEpoch
		}
		r.maybeProposeExpansion(from.ReplicaID)
		if err := r.leaderStateChanged(nowMs); err != nil {
			return fail(err)
		}
		resp.HighWatermark = r.log.HighWatermark()
	}
	if maxBytes <= 0 {
		return resp, dst, nil
	}
	if appended && isFollower {
		if recs, ok := r.fetchAppended(p.FetchOffset, maxBytes); ok {
			resp.Records = recs
			return resp, dst, nil
		}
	}
	out, err := r.log.Read(dst, p.FetchOffset, maxBytes, IsolationOf(from.ReplicaID))
	if err != nil {
		return fail(fmt.Errorf("replica: broker %d: fetch: %w", r.id, storageError(err)))
	}
	resp.Records = out[len(dst):len(out):len(out)]
	return resp, out, nil
}

// fetchAppended returns what a follower's read of at most maxBytes from
// offset from returns, if that is exactly the batches of a parked produce
// that kept them: the bytes its request brought, which the log stored as
// they are (log.Log.ReadsAppended checks that the log was only appended
// to since, and that a read would stop where they end). A follower near
// the log end, the usual case, is then sent them without a read of the
// file and a copy, as Kafka's leader serves it from the page cache.
//
// They stay valid until the produce is answered, and every fetch
// response that aliases them leaves before that answer: they are served
// only while the produce is parked, and its answer is queued only once it
// has left the parked produces, so it comes after those responses in the
// broker's outbox (the same one or a later one), which a transport sends
// or copies in order.
func (r *Replica) fetchAppended(from uint64, maxBytes int) ([]byte, bool) {
	for i := len(r.lead.parked) - 1; i >= 0; i-- {
		pp := &r.lead.parked[i]
		if pp.records == nil || pp.result.BaseOffset != from {
			continue
		}
		if !r.log.ReadsAppended(pp.records, pp.gen, from, maxBytes) {
			return nil, false
		}
		return pp.records, true
	}
	return nil, false
}

// checkReplica refuses a fetch from a broker that is not an assigned
// replica, or that carries a broker epoch older than the one the metadata
// holds (KIP-903: a fetch from a previous incarnation of that broker).
func (r *Replica) checkReplica(from FetchFrom, currentLeaderEpoch int32) error {
	assigned := false
	for _, id := range r.replicas {
		if id == from.ReplicaID && id != r.id {
			assigned = true
		}
	}
	if !assigned {
		code := wire.ErrNotLeaderOrFollower
		if currentLeaderEpoch >= 0 {
			code = wire.ErrUnknownLeaderEpoch
		}
		return fmt.Errorf("replica: broker %d is not a follower of this partition (replicas %v): %w", from.ReplicaID, r.replicas, code)
	}
	if b := r.opts.Brokers; b != nil && from.ReplicaEpoch >= 0 {
		if cur, ok := b.BrokerEpoch(from.ReplicaID); ok && cur > from.ReplicaEpoch {
			return fmt.Errorf("replica: broker %d fetched with broker epoch %d, current is %d: %w",
				from.ReplicaID, from.ReplicaEpoch, cur, wire.ErrNotLeaderOrFollower)
		}
	}
	return nil
}

// endOffsetForEpoch is where epoch e ends on this leader's log, as Kafka's
// leader answers it (LeaderEpochFileCache.endOffsetFor): the chapter's <=
// lookup (log.Log.EndOffsetForEpoch), and for an epoch >= 0 below the
// earliest entry (the older epochs went with retention, or were never on
// this log) the epoch asked with the earliest entry's start offset, so the
// follower cuts there and fetches what this leader has. ok is false only
// for wire.NoEpoch or an empty cache (Kafka's UNDEFINED_EPOCH_OFFSET).
func (r *Replica) endOffsetForEpoch(e int32) (int32, uint64, bool) {
	if got, end, ok := r.log.EndOffsetForEpoch(e); ok {
		return got, end, true
	}
	if entries := r.log.EpochEntries(); e >= 0 && len(entries) > 0 && e < entries[0].Epoch {
		return e, entries[0].StartOffset, true
	}
	return 0, 0, false
}

// HandleOffsetsForLeaderEpoch answers a follower's question "where does
// epoch LeaderEpoch end on your log?" as the fetch's divergence check does
// (Kafka's Partition.lastOffsetForLeaderEpoch): the largest epoch not above
// the one asked and where it ends (the next epoch's start, or the LEO);
// for an epoch below the earliest entry, that epoch and the earliest
// entry's start offset, as Kafka answers. Fencing comes first, as for a
// fetch. Not found (wire.NoEpoch asked, or no epochs at all) is Found ==
// false; it becomes (-1, -1) only on the wire.
func (r *Replica) HandleOffsetsForLeaderEpoch(p *wire.OffsetsForLeaderEpochPartition) (wire.OffsetsForLeaderEpochPartitionResponse, error) {
	resp := wire.OffsetsForLeaderEpochPartitionResponse{Topic: p.Topic, Partition: p.Partition}
	if r.closed {
		resp.ErrorCode = wire.CodeOf(ErrClosed)
		return resp, ErrClosed
	}
	err := r.checkLeaderEpoch(p.CurrentLeaderEpoch)
	if err == nil {
		err = r.requireLeader()
	}
	if err != nil {
		resp.ErrorCode = wire.CodeOf(err)
		return resp, err
	}
	resp.Epoch, resp.EndOffset, resp.Found = r.endOffsetForEpoch(p.LeaderEpoch)
	return resp, nil
}

// HandleListOffsets answers where a partition starts or ends, or where a
// time is in it (Kafka's Partition.fetchOffsetForTimestamp): its log start
// for wire.EarliestTimestamp; for wire.LatestTimestamp its log end to a
// follower and its high watermark to a consumer, who may only read below
// it — except while that high watermark lags the start of this leader's
// epoch: the previous leader may have given out a larger one, so a
// consumer gets wire.ErrOffsetNotAvailable (retriable) until it catches up
// (KIP-207). For a timestamp >= 0 it answers the first record whose
// timestamp is at least it (log.Log.OffsetForTimestamp), for
// wire.MaxTimestamp the first record with the largest timestamp (KIP-734),
// each with the record's timestamp and its batch's leader epoch; a
// consumer is answered only a record below the high watermark, else no
// offset (Found false, Kafka's -1), or OFFSET_NOT_AVAILABLE under the
// KIP-207 condition above, as Kafka does. Answers to LatestTimestamp and
// EarliestTimestamp carry timestamp -1 and the leader's epoch.
func (r *Replica) HandleListOffsets(replicaID int32, p *wire.ListOffsetsPartition) (wire.ListOffsetsPartitionResponse, error) {
	resp := wire.ListOffsetsPartitionResponse{Topic: p.Topic, Partition: p.Partition, LeaderEpoch: r.leaderEpoch, Timestamp: -1}
	err := r.checkLeaderEpoch(p.CurrentLeaderEpoch)
	if err == nil {
		err = r.requireLeader()
	}
	consumer := replicaID < 0
	var lagging error // KIP-207: a consumer may not be told offsets yet
	if hw := r.log.HighWatermark(); err == nil && consumer && r.lead.epochStart > hw {
		lagging = fmt.Errorf("replica: broker %d: high watermark %d below the start %d of leader epoch %d: %w",
			r.id, hw, r.lead.epochStart, r.leaderEpoch, wire.ErrOffsetNotAvailable)
	}
	if err == nil {
		switch p.Timestamp {
		case wire.EarliestTimestamp:
			resp.Offset, resp.Found = r.log.StartOffset(), true
		case wire.LatestTimestamp:
			resp.Offset, resp.Found = r.log.HighWatermark(), true
			if !consumer {
				resp.Offset = r.log.EndOffset()
			} else if lagging != nil {
				resp.Offset, resp.Found, err = 0, false, lagging
			}
		default:
			var to log.TimestampOffset
			var found bool
			if p.Timestamp == wire.MaxTimestamp {
				to, found, err = r.log.OffsetOfMaxTimestamp()
			} else {
				to, found, err = r.log.OffsetForTimestamp(p.Timestamp)
			}
			err = storageError(err)
			if found && consumer && to.Offset >= r.log.HighWatermark() {
				found = false // not committed yet: Kafka answers none
			}
			switch {
			case err != nil:
			case found:
				resp.Offset, resp.Timestamp, resp.LeaderEpoch, resp.Found = to.Offset, to.Timestamp, to.LeaderEpoch, true
			case lagging != nil:
				err = lagging
			}
		}
	}
	if err != nil {
		resp.ErrorCode = wire.CodeOf(err)
		resp.Found, resp.Offset, resp.Timestamp = false, 0, -1
		return resp, err
	}
	return resp, nil
}

// ShrinkISR applies the leader's time rule at nowMs and commits the removal
// at once, without a controller: the chapter's single-process leader. It
// reports whether the ISR changed. A leader that answers to a controller
// never calls it: its Tick proposes the same removal (AlterPartition) and
// applies it when the controller commits it.
func (r *Replica) ShrinkISR(nowMs int64) (bool, error) {
	if err := r.requireLeader(); err != nil {
		return false, err
	}
	changed := r.lead.isr.ShrinkISR(nowMs)
	if changed {
		if err := r.leaderStateChanged(nowMs); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// leaderStateChanged runs whenever the leader's LEO, a follower's LEO or the
// ISR may have changed: the high watermark rule (advanceLeaderHW), then the
// parked produces that can now be answered.
func (r *Replica) leaderStateChanged(nowMs int64) error {
	if err := r.advanceLeaderHW(nowMs); err != nil {
		return err
	}
	r.completeParked(nowMs)
	return nil
}

// Tick does the leader's timed work due at nowMs: the ISR time rule every
// replica.lag.time.max.ms/2 (proposed to the controller, see
// AlterPartition), the resend of an unanswered proposal, and the deadlines
// of parked produces. A follower's only timed work is the end of its fetch
// backoff, after which its broker fetches again. Every replica, either
// role, also forgets expired producers there (expireProducers).
func (r *Replica) Tick(nowMs int64) {
	if r.closed {
		return
	}
	r.expireProducers(nowMs)
	if r.role != RoleLeader {
		if nowMs >= r.follow.backoffUntilMs {
			r.follow.backoffUntilMs = 0 // served: nothing timed is left
		}
		return
	}
	if nowMs >= r.lead.nextShrinkMs {
		r.CheckISR(nowMs)
	}
	// A caught-up follower outside the ISR holds the high watermark only
	// for replica.lag.time.max.ms: time alone can let it move.
	_ = r.advanceLeaderHW(nowMs)
	r.completeParked(nowMs)
}

// CheckISR applies the ISR time rule now, as Tick does every
// replica.lag.time.max.ms/2: followers out of sync are proposed for removal
// (see AlterPartition); nothing changes until the controller commits it.
// Nothing is proposed while a proposal is pending or a request for an
// earlier one is unanswered (Kafka's one AlterPartition in flight per
// partition): the check after that answer proposes again.
func (r *Replica) CheckISR(nowMs int64) {
	if r.closed || r.role != RoleLeader {
		return
	}
	r.lead.nextShrinkMs = nowMs + r.opts.lagMaxMs()/2
	if !r.lead.alter.canPropose() {
		return // one request at a time: the next check proposes again
	}
	if proposed, ok := r.lead.isr.ProposeShrink(nowMs); ok {
		r.lead.alter.propose(proposed, r.memberEpochs(proposed))
	}
}

// NextTickMs returns when Tick next has work: the next ISR check, the
// resend of an unanswered proposal, the earliest produce deadline, or a
// follower's end of backoff (so its broker fetches again).
func (r *Replica) NextTickMs() int64 {
	next := clock.Never
	if r.closed {
		return next
	}
	switch r.role {
	case RoleLeader:
		next = r.lead.nextShrinkMs
		if t, ok := r.lead.alter.retryAtMs(r.opts.alterRetryMs()); ok {
			next = min(next, t)
		}
		for _, p := range r.lead.parked {
			next = min(next, p.deadlineMs)
		}
	case RoleFollower:
		if r.follow.backoffUntilMs > 0 {
			next = r.follow.backoffUntilMs
		}
	}
	return next
}

// maybeProposeExpansion proposes follower id back into the ISR when it has
// caught up (its LEO at or past the high watermark and the start of this
// leader's epoch), its broker may join (Brokers.ISREligible), and no
// proposal or request is in flight (a later fetch proposes it then).
func (r *Replica) maybeProposeExpansion(id int32) {
	if r.lead.isr.InISR(id) || !r.lead.alter.canPropose() {
		return
	}
	if b := r.opts.Brokers; b != nil && !b.ISREligible(id) {
		return
	}
	proposed, ok, err := r.lead.isr.ProposeExpansion(id, r.log.HighWatermark(), r.lead.epochStart)
	if err == nil && ok {
		r.lead.alter.propose(proposed, r.memberEpochs(proposed))
	}
}

// memberEpochs is the broker epoch a proposal names for each member of
// isr, fixed when it is made: for a follower, the one its last fetch
// carried; for this leader, or a follower not heard from in this epoch,
// the metadata's; wire.NoBrokerEpoch when neither knows. The controller
// refuses a member whose epoch is no longer current (INELIGIBLE_REPLICA),
// so a resent proposal cannot add a later incarnation of a follower that
// caught up and then lost its tail.
func (r *Replica) memberEpochs(isr []int32) []int64 {
	epochs := make([]int64, len(isr))
	for i, id := range isr {
		epochs[i] = wire.NoBrokerEpoch
		if e, ok := r.lead.fetchEpochs[id]; ok && id != r.id {
			epochs[i] = e
		} else if b := r.opts.Brokers; b != nil {
			if e, ok := b.BrokerEpoch(id); ok {
				epochs[i] = e
			}
		}
	}
	return epochs
}

// errNotEnoughReplicasAfterAppend is how a parked produce ends when the
// committed ISR falls under min.insync.replicas before its records commit.
var errNotEnoughReplicasAfterAppend = fmt.Errorf("replica: ISR fell under min.insync.replicas after the append: %w", wire.ErrNotEnoughReplicasAfterAppend)
