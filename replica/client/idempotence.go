package client

import (
	"fmt"
	"math"

	"github.com/kaenlog/kaenlog/wire"
)

// The idempotent producer (Kafka's enable.idempotence, the default with
// acks=all) in the non-transactional case. The rules, and where Kafka's
// producer differs:
//
//   - Identity: a producer id and epoch from the controller's
//     InitProducerId (a new id, epoch 0), asked for before the first
//     batch is sent and again when the epoch is exhausted.
//   - Sequences: each partition numbers its records from 0 under the
//     identity, wrapping from math.MaxInt32 to 0 as Kafka's
//     DefaultRecordBatch.incrementSequence does. A batch takes its base
//     sequence when first sent, and its bytes are fixed from then on.
//   - At most 5 batches of a partition are in flight: the broker keeps the
//     last 5 batches of each producer and answers a duplicate of any of
//     them with its original offset.
//   - A retry resends the batch's bytes unchanged, in sequence order: after
//     an error a partition sends nothing until all its batches in flight
//     have come back, then resends those to retry, oldest first. So a
//     batch the broker wrote before the error (an acks=all answered
//     REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS_AFTER_APPEND, a connection
//     broken before the answer, a leader that appended, replicated and
//     died) is answered from the dedupe window with the offset it was
//     written at, never written twice.
//   - OUT_OF_ORDER_SEQUENCE_NUMBER (and UNKNOWN_PRODUCER_ID) as Kafka's
//     producer since KIP-360 handles them without transactions: the batch
//     was not written, and is retried. If an earlier batch of the
//     partition is still unresolved the error only echoes it; otherwise
//     the broker has lost acknowledged batches of this producer (an
//     unclean election, a lost disk) and the partition needs a new epoch:
//     once nothing of it is in flight the producer bumps its epoch
//     locally (same id, epoch+1, or a new id when the epoch is exhausted)
//     and the partition's unwritten batches are renumbered from sequence
//     0. The loss is the broker's; no record is duplicated.
//   - INVALID_PRODUCER_EPOCH fails the batch with that error (it is not
//     retriable), and, as for any batch that fails for good after it had
//     a sequence, the partition's next sequence needs a new epoch — a gap
//     in the sequences would otherwise refuse every later batch. Batches
//     that may have been written before the gap are resent with their
//     bytes first, so only batches the broker proved unwritten are
//     renumbered. franz-go, by contrast, resets the producer id on these
//     errors.
//   - DUPLICATE_SEQUENCE_NUMBER (a batch older than the broker's window)
//     fails the records with that error: they were written, but no
//     offset can be given. With at most 5 batches in flight it does not
//     happen; Kafka reports success without an offset.
//
// Epochs are per partition in effect: a bump moves the producer's
// identity forward, and each partition takes the new identity (starting
// again at sequence 0) only once none of its batches carries the old one,
// as Kafka's TransactionManager does.

// producerIdent is a producer id and epoch; ok is false until the
// controller gave one.
type producerIdent struct {
	id    int64
	epoch int16
	ok    bool
}

// bumped returns the identity after an epoch bump: the same id with the
// next epoch, or none (ask the controller again) when the epoch is
// exhausted.
func (id producerIdent) bumped() producerIdent {
	if id.epoch == math.MaxInt16 {
		return producerIdent{}
	}
	id.epoch++
	return id
}

// incSequence returns seq + n, wrapping from math.MaxInt32 to 0 (Kafka's
// DefaultRecordBatch.incrementSequence).
func incSequence(seq, n int32) int32 {
	if seq > math.MaxInt32-n {
		return n - (math.MaxInt32 - seq) - 1
	}
	return seq + n
}

// sequenceLocked writes b's header: with the partition's identity and
// next sequence when idempotent. A partition with nothing sequenced left
// takes the producer's current identity first, from sequence 0.
func (p *Producer) sequenceLocked(part *partition, b *batch) {
	if !p.idem {
		if !b.hasSeq {
			b.writeHeader(noProducerID, noProducerEpoch, noSequence)
			b.hasSeq = true
		}
		return
	}
	if part.ident != p.ident && !part.sequenced(b) {
		part.ident, part.nextSeq = p.ident, 0
	}
	seq := part.nextSeq
	part.nextSeq = incSequence(seq, b.count)
	if b.ident.ok {
		b.resequence(part.ident.id, part.ident.epoch, seq) // renumbered after a bump
	} else {
		b.writeHeader(part.ident.id, part.ident.epoch, seq)
	}
	b.ident, b.seq, b.hasSeq = part.ident, seq, true
}

// sequenced reports whether a batch of part other than b carries a
// sequence not yet resolved.
func (part *partition) sequenced(b *batch) bool {
	for _, x := range part.batches {
		if x != b && x.hasSeq {
			return true
		}
	}
	return false
}

// settleLocked decides, once nothing of part is in flight, what its
// batches to retry become. Normally they are resent with their bytes.
// After a sequence gap, if the broker proved every one unwritten, the
// producer's epoch is bumped and they are renumbered under it; if some may
// have been written, they are resent first, to find out.
func (p *Producer) settleLocked(part *partition) {
	if part.needBump {
		maybeWritten := false
		for _, b := range part.batches {
			if b.state == stRetry && !b.notWritten {
				maybeWritten = true
			}
		}
		if !maybeWritten {
			if part.ident == p.ident {
				p.ident = p.ident.bumped()
			}
			for _, b := range part.batches {
				if b.state == stRetry {
					b.state, b.hasSeq = stNew, false
				}
			}
			part.needBump = false
			return
		}
	}
	for _, b := range part.batches {
		if b.state == stRetry {
			b.state = stResend
		}
	}
}

// answerLocked applies the broker's answer for b.
func (p *Producer) answerLocked(b *batch, r *wire.ProducePartitionResponse, leader int32, now int64) {
	code := r.ErrorCode
	if code == wire.CodeNone {
		p.succeedLocked(b, r.BaseOffset, r.HasBaseOffset)
		return
	}
	part := b.part
	err := refusal(part.tp, brokerName(leader), code)
	switch {
	case code == wire.CodeDuplicateSequenceNumber:
		part.attempts, part.lastErr = 0, nil
		p.remove(b)
		p.resolveLocked(b, Offset{}, err, true)
	case code == wire.CodeOutOfOrderSequenceNumber || code == wire.CodeUnknownProducerID:
		if p.idem && b.hasSeq && part.batches[0] == b {
			part.needBump = true // no earlier batch explains it: a gap
		}
		p.retryLocked(b, err, true, now)
	case code == wire.CodeInvalidProducerEpoch:
		p.failLocked(b, err)
	case code.Retriable():
		// NOT_ENOUGH_REPLICAS is checked before the append: nothing was
		// written. Every other retriable code may follow an append.
		p.retryLocked(b, err, code == wire.CodeNotEnoughReplicas, now)
		if leaderMoved(code) {
			p.c.meta.refresh()
		}
	default:
		p.failLocked(b, err)
	}
}

// leaderMoved reports whether code says the client's idea of the leader
// is stale.
func leaderMoved(code wire.ErrorCode) bool {
	switch code {
	case wire.CodeNotLeaderOrFollower, wire.CodeFencedLeaderEpoch, wire.CodeUnknownLeaderEpoch,
		wire.CodeUnknownTopicOrPartition, wire.CodeLeaderNotAvailable, wire.CodeKafkaStorageError:
		return true
	}
	return false
}

// initIdentLocked asks the controller for a producer id, unless it is
// already asking or backing off.
func (p *Producer) initIdentLocked(now int64) {
	if p.initing || now < p.initRetryAt {
		return
	}
	p.initing = true
	cn, err := p.c.controllerConn()
	if err == nil {
		err = cn.send(newInitProducerIDRequest(), 0, p.identAnswered, nil)
	}
	if err != nil {
		p.initing = false
		p.initFailedLocked(err, now)
	}
}

// identAnswered takes the controller's answer to InitProducerId.
func (p *Producer) identAnswered(payload []byte, err error) bool {
	var ident producerIdent
	if err == nil {
		ident, err = decodeInitProducerID(payload)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.initing = false
	if p.closed {
		return false
	}
	now := p.c.clock.NowMs()
	if err != nil {
		p.initFailedLocked(err, now)
	} else {
		p.ident, p.initFailures = ident, 0
	}
	p.afterLocked(now)
	return false
}

// initFailedLocked backs off before asking again. A refusal that will not
// change by asking again fails the records waiting for an identity.
func (p *Producer) initFailedLocked(err error, now int64) {
	p.initFailures++
	p.initRetryAt = now + p.back.delayMs(p.initFailures-1)
	retriable := wire.IsRetriable(err)
	for _, part := range p.order {
		part.lastErr = err
		if retriable {
			continue
		}
		part.seal()
		kept := part.batches[:0]
		for _, b := range part.batches {
			if b.state != stInFlight && !b.hasSeq {
				p.resolveLocked(b, Offset{}, err, false)
				continue
			}
			kept = append(kept, b)
		}
		clear(part.batches[len(kept):])
		part.batches = kept
	}
}

// newInitProducerIDRequest is a new producer's InitProducerId: no id, no
// epoch, no transaction timeout.
func newInitProducerIDRequest() *wire.InitProducerIDRequest {
	return &wire.InitProducerIDRequest{TransactionTimeoutMs: -1, ProducerID: wire.NoProducerID, ProducerEpoch: wire.NoProducerEpoch}
}

// decodeInitProducerID decodes the controller's answer and turns a refusal
// into its error.
func decodeInitProducerID(payload []byte) (producerIdent, error) {
	resp, err := wire.DecodeInitProducerIDResponse(payload)
	if err != nil {
		return producerIdent{}, networkError("controller", err)
	}
	if resp.ErrorCode != wire.CodeNone {
		return producerIdent{}, fmt.Errorf("client: InitProducerId: %w", resp.ErrorCode.Err())
	}
	if resp.ProducerID < 0 || resp.ProducerEpoch < 0 {
		return producerIdent{}, networkError("controller", fmt.Errorf("%w: InitProducerIdResponse without a producer id", wire.ErrMalformed))
	}
	return producerIdent{id: resp.ProducerID, epoch: resp.ProducerEpoch, ok: true}, nil
}
