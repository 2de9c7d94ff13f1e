package sim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The simulated idempotent producer: one producer id from the controller,
// one batch in flight at a time (Kafka's ordering with
// max.in.flight.requests.per.connection=1), acks=all. A batch that got no
// answer or a retriable refusal is sent again — the same bytes, the same
// sequences — by the next idempotent produce step, and the leader's
// dedupe window must answer a copy it already holds with the original
// offset. After OUT_OF_ORDER_SEQUENCE_NUMBER or UNKNOWN_PRODUCER_ID the
// producer bumps its epoch and starts again at sequence 0, as Kafka's
// non-transactional producer does (KIP-360); the batch it was sending is
// given up.

// idempotentPrefix starts every value the idempotent producer sends, so the
// Idempotence check can tell its records apart.
const idempotentPrefix = "i"

// idemProducer is the producer's state.
type idemProducer struct {
	id      int64
	epoch   int16
	nextSeq int32
	// pending is the batch being sent until it is answered NONE or given up.
	pending *idemBatch
	// calls are every request of every batch whose answer has not been
	// read; a late answer is checked too.
	calls []idemCall
}

// idemBatch is one batch of the producer: its bytes (resent as they are),
// its values and, once acknowledged, where.
type idemBatch struct {
	bytes  []byte
	values []string
	seq    int32
	acked  bool
	offset uint64
}

type idemCall struct {
	call  *replica.ProduceCall
	batch *idemBatch
}

// produceIdempotent runs an idempotent produce step: a retry of the
// pending batch if there is one, else a new batch of st.Value.
func (s *sim) produceIdempotent(st Step) {
	c := s.c
	p := &s.idem
	to := c.LeaderOf(topic)
	if to < 0 || c.Broker(to) == nil {
		return
	}
	b := p.pending
	if b == nil {
		bytes, err := replica.ProducerBatch(p.id, p.epoch, p.nextSeq, c.NowMs(), []byte(st.Value))
		if err != nil {
			s.fail(st, Operable, "idempotent batch: %v", err)
			return
		}
		b = &idemBatch{bytes: bytes, values: []string{st.Value}, seq: p.nextSeq}
		p.pending = b
	} else {
		s.cov.IdempotentRetries++
	}
	call := c.SendProduceBatchTo(to, topic, wire.AcksAll, 2_000, b.bytes)
	for range 4 {
		if call.Done() {
			break
		}
		c.FetchRound()
	}
	p.calls = append(p.calls, idemCall{call: call, batch: b})
}

// collectIdempotent reads the answers that arrived for the idempotent
// producer's requests.
func (s *sim) collectIdempotent(st Step) {
	p := &s.idem
	kept := p.calls[:0]
	for _, ic := range p.calls {
		resp, done, err := ic.call.Result()
		if !done {
			kept = append(kept, ic)
			continue
		}
		b := ic.batch
		switch {
		case err == nil:
			if b.acked {
				s.cov.IdempotentDuplicatesAnswered++
				if resp.BaseOffset != b.offset {
					s.fail(st, Idempotence, "batch %q (sequence %d) acknowledged at offset %d, then again at %d", b.values, b.seq, b.offset, resp.BaseOffset)
					return
				}
				continue
			}
			b.acked, b.offset = true, resp.BaseOffset
			s.cov.IdempotentAcked++
			s.acknowledge(st, resp.BaseOffset, b.values[0])
			if p.pending == b {
				p.pending = nil
				p.nextSeq += int32(len(b.values))
			}
		case errors.Is(err, wire.ErrOutOfOrderSequenceNumber), errors.Is(err, wire.ErrUnknownProducerID):
			if p.pending == b {
				p.pending = nil
				p.epoch++
				p.nextSeq = 0
				s.cov.IdempotentEpochBumps++
			}
		}
		// Any other refusal leaves the batch pending: the next idempotent
		// step sends it again.
	}
	clear(p.calls[len(kept):])
	p.calls = kept
}

// checkIdempotence fails the run if a value the idempotent producer sent
// appears twice in the log of the leader l.
func (s *sim) checkIdempotence(st Step, leader int32, v logView) bool {
	seen := map[string]uint64{}
	for off := v.start; off < uint64(len(v.values)); off++ {
		val := v.values[off]
		if !strings.HasPrefix(val, idempotentPrefix) {
			continue
		}
		s.cov.Checks[Idempotence]++
		if first, dup := seen[val]; dup {
			s.fail(st, Idempotence, "leader %d holds %q at offsets %d and %d", leader, val, first, off)
			return false
		}
		seen[val] = off
	}
	return true
}

// initIdempotentProducer asks the controller for the producer id.
func (s *sim) initIdempotentProducer() error {
	id, epoch, err := s.c.InitProducerID()
	if err != nil {
		return fmt.Errorf("sim: init producer id: %w", err)
	}
	s.idem = idemProducer{id: id, epoch: epoch}
	return nil
}
