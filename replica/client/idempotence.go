package client

import (
	"fmt"
	"math"

	"github.com/kaenlog/kaenlog/wire"
)

// The idempotent producer's rules are told in the package documentation
// (doc.go, "Idempotence"); this file is their code.

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
	part.sequencedBatches++
	b.ordinal = part.sequencedBatches
}

// windowRoom reports whether part may sequence another batch: the broker
// remembers a producer's last 5 batches, and a batch whose fate is unknown
// (in flight, or to be resent) must still be among them when its resend
// arrives, or the broker answers OUT_OF_ORDER_SEQUENCE_NUMBER — taken for
// proof that it was never written — instead of its original offset. So
// from the oldest unresolved batch to the newest sequenced, batches
// acknowledged in between included, there are at most 5 (Kafka's producer
// keeps them, unacknowledged ones, under max.in.flight too).
func (part *partition) windowRoom() bool {
	for _, b := range part.batches {
		if b.hasSeq {
			return part.sequencedBatches-b.ordinal+1 < maxIdempotentInFlight
		}
	}
	return true
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
			// A batch already settled for a resend, not yet sent, counts
			// too: it keeps its old sequence, so it must go before any
			// bump.
			if (b.state == stRetry || b.state == stResend) && b.maybeWritten {
				maybeWritten = true
			}
		}
		if !maybeWritten {
			if part.ident == p.ident {
				p.ident = p.ident.bumped()
			}
			for _, b := range part.batches {
				if b.state == stRetry || b.state == stResend {
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

// attemptVerdict is what an attempt's failure proves about its batch.
type attemptVerdict uint8

const (
	// mayBeWritten: no answer, or one given after the append.
	mayBeWritten attemptVerdict = iota
	// attemptNotWritten: this attempt was refused before the append; an
	// earlier one may still have been written.
	attemptNotWritten
	// notInLog: the leader's producer state has no such sequence
	// (OUT_OF_ORDER_SEQUENCE_NUMBER, UNKNOWN_PRODUCER_ID), so no attempt
	// is in its log — within the 5-batch window the dedupe would have
	// answered it.
	notInLog
)

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
		p.retryLocked(b, err, notInLog, now)
	case code == wire.CodeInvalidProducerEpoch:
		p.failLocked(b, err)
	case code.Retriable():
		// NOT_ENOUGH_REPLICAS is checked before the append (and before
		// the dedupe): this attempt was not written, an earlier one may
		// have been. Every other retriable code may follow an append.
		verdict := mayBeWritten
		if code == wire.CodeNotEnoughReplicas {
			verdict = attemptNotWritten
		}
		p.retryLocked(b, err, verdict, now)
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
