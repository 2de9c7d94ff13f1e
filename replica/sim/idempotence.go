package sim

import (
	"math"
	"strings"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The simulated idempotent producer: its rules, replica/client's, are
// told in the package documentation (doc.go, "The idempotent producer");
// this file is their code, with the client's state — batches new, in
// flight, to retry or to resend; what each failed attempt proves; a
// sequence gap that needs an epoch bump.

// idempotentPrefix starts every value the idempotent producer sends, so the
// Idempotence check can tell its records apart.
const idempotentPrefix = "i"

// The producer's settings: Kafka's, scaled to the simulator's clock (a run
// covers a few minutes).
const (
	idemMaxInFlight       = 5      // the broker remembers 5 batches per producer
	idemAckTimeoutMs      = 10_000 // the produce's TimeoutMs
	idemRequestTimeoutMs  = idemAckTimeoutMs + 1_000
	idemDeliveryTimeoutMs = 30_000
	idemBackoffMs         = 100
	idemBackoffMaxMs      = 1_000
	// idemNewProducerEvery: every so many idempotent produce steps, the
	// producer is closed and a new one takes over, with a new producer id
	// that no broker has seen.
	idemNewProducerEvery = 8
)

// producerAddr is the idempotent producer's address on the network.
var producerAddr = replica.ClientAt(1)

// batchState is where a batch is in the producer, as in replica/client.
type batchState uint8

const (
	batchNew      batchState = iota // never sent, or renumbered
	batchInFlight                   // sent, not answered
	batchRetry                      // came back failed: waits for the partition's barrier
	batchResend                     // settled: to be resent with its bytes
)

// ident is a producer id and epoch; ok is false until the controller gave
// one.
type ident struct {
	id    int64
	epoch int16
	ok    bool
}

// idemBatch is one batch of the producer.
type idemBatch struct {
	values    []string
	first     int   // the production rank of its first record
	createdMs int64 // when it was handed over
	state     batchState
	hasSeq    bool
	seq       int32
	bytes     []byte // fixed from its first send until it is renumbered
	// maybeWritten: an attempt may have been appended. Only
	// OUT_OF_ORDER_SEQUENCE_NUMBER or UNKNOWN_PRODUCER_ID clear it.
	maybeWritten bool
	sent         bool  // sent at least once under its sequence
	ordinal      int64 // the producer's sequenced count once it was sequenced
}

// idemCall is one request of the producer, in flight.
type idemCall struct {
	corr   int32
	b      *idemBatch
	to     int32
	broker *replica.Broker // the incarnation it went to: another one means the connection broke
	sentMs int64
	leo    uint64 // the leader's log end then: an answer below it came from the dedupe window
	resend bool
}

// ackRank is an acknowledged record's producer and production rank.
type ackRank struct{ producer, rank int }

// idemProducer is the producer's state.
type idemProducer struct {
	producer int   // producers opened so far
	ident    ident // the identity for new sequences
	// initCorr is the InitProducerId in flight (0: none), sent at
	// initSentMs; the next may go at initRetryAt.
	initCorr          int32
	initSentMs        int64
	initRetryAt       int64
	initFailures      int64
	partIdent         ident // the identity of the partition's sequences
	nextSeq           int32
	sequenced         int64        // batches sequenced so far (windowRoom)
	needBump          bool         // a sequence gap: the next sequence needs a new epoch
	batches           []*idemBatch // handed over, not resolved, in record order
	inflight          []*idemCall  // in send order
	inflightTo        int32
	retryAt, attempts int64
	responses         map[int32]wire.Message
	produced          int // records handed over, for their ranks
	acked             map[string]ackRank
}

// openProducer starts the producer: its link, and an identity to ask for.
func (s *sim) openProducer() {
	net := s.c.Network()
	for _, a := range append([]replica.Addr{replica.ControllerAt()}, brokerAddrs(s.brokers)...) {
		net.SetFaults(producerAddr, a, replica.LinkFaults{})
		net.SetFaults(a, producerAddr, replica.LinkFaults{})
	}
	p := &s.idem
	*p = idemProducer{producer: 1, responses: map[int32]wire.Message{}, acked: map[string]ackRank{}}
	net.Attach(producerAddr, func(env replica.Envelope) {
		if env.Msg != nil {
			p.responses[env.Msg.Correlation()] = env.Msg
		}
	})
}

// newProducer closes the producer — its records not yet acknowledged
// fail, answers still due are never read — and opens another, which asks
// for a new producer id.
func (s *sim) newProducer() {
	p := &s.idem
	for _, call := range p.inflight {
		delete(p.responses, call.corr)
	}
	if p.initCorr != 0 {
		delete(p.responses, p.initCorr)
	}
	*p = idemProducer{producer: p.producer + 1, responses: p.responses, acked: p.acked, produced: p.produced}
	s.cov.IdempotentProducers++
}

func brokerAddrs(ids []int32) []replica.Addr {
	out := make([]replica.Addr, len(ids))
	for i, id := range ids {
		out[i] = replica.BrokerAt(id)
	}
	return out
}

// produceIdempotent hands the step's batches to the producer and lets it
// send; fetch rounds at this instant give them a chance, as for any
// produce.
func (s *sim) produceIdempotent(st Step) {
	p := &s.idem
	now := s.c.NowMs()
	if st.NewProducer {
		s.newProducer()
	}
	n := max(st.Batches, 1)
	letter := 0
	for j := range n {
		b := &idemBatch{first: p.produced, createdMs: now}
		for range 1 + j/2 {
			b.values = append(b.values, st.Value+string(rune('a'+letter)))
			letter++
			p.produced++
		}
		p.batches = append(p.batches, b)
	}
	s.runProducer(st)
	for range 4 {
		if len(p.inflight) == 0 {
			break
		}
		s.c.FetchRound()
		s.runProducer(st)
	}
}

// runProducer is the producer's event loop for this instant: answers,
// broken connections, delivery timeouts, then whatever may be sent, until
// nothing more happens.
func (s *sim) runProducer(st Step) {
	for range 8 {
		s.producerAnswers(st)
		s.producerTimeouts()
		s.producerExpire()
		if !s.producerDrain() || s.failure != nil {
			return
		}
	}
}

// producerAnswers applies the answers that arrived, in send order.
func (s *sim) producerAnswers(st Step) {
	p := &s.idem
	if p.initCorr != 0 {
		if m, ok := p.responses[p.initCorr]; ok {
			delete(p.responses, p.initCorr)
			p.initCorr = 0
			r, ok := m.(*wire.InitProducerIDResponse)
			if ok && r.ErrorCode == wire.CodeNone && r.ProducerID >= 0 && r.ProducerEpoch >= 0 {
				p.ident, p.initFailures = ident{id: r.ProducerID, epoch: r.ProducerEpoch, ok: true}, 0
			} else {
				s.initFailed()
			}
		}
	}
	kept := p.inflight[:0]
	for _, call := range p.inflight {
		m, ok := p.responses[call.corr]
		if !ok {
			kept = append(kept, call)
			continue
		}
		delete(p.responses, call.corr)
		r, ok := m.(*wire.ProduceResponse)
		if !ok || len(r.Partitions) != 1 {
			s.retry(call.b, mayBeWritten)
			continue
		}
		s.answer(st, call, &r.Partitions[0])
	}
	clear(p.inflight[len(kept):])
	p.inflight = kept
}

// initFailed backs off before asking for an identity again.
func (s *sim) initFailed() {
	p := &s.idem
	p.initFailures++
	p.initRetryAt = s.c.NowMs() + backoffMs(p.initFailures)
}

// backoffMs is the wait after n errors in a row: 100 ms doubling to 1 s
// (Kafka's, without the jitter: the simulator draws nothing here).
func backoffMs(n int64) int64 {
	d := int64(idemBackoffMs)
	for i := int64(1); i < n && d < idemBackoffMaxMs; i++ {
		d *= 2
	}
	return min(d, idemBackoffMaxMs)
}

// attemptVerdict is what a failed attempt proves about its batch.
type attemptVerdict uint8

const (
	mayBeWritten      attemptVerdict = iota // no answer, or one that may follow the append
	attemptNotWritten                       // refused before the append; an earlier attempt may be in the log
	notInLog                                // the leader's producer state has no such sequence
)

// answer applies the leader's answer to call.
func (s *sim) answer(st Step, call *idemCall, r *wire.ProducePartitionResponse) {
	p := &s.idem
	b := call.b
	switch code := r.ErrorCode; {
	case code == wire.CodeNone:
		p.attempts = 0
		s.removeBatch(b)
		s.cov.IdempotentAcked++
		if call.resend && r.BaseOffset < call.leo {
			s.cov.IdempotentDuplicatesAnswered++
		}
		for i, v := range b.values {
			p.acked[v] = ackRank{p.producer, b.first + i}
		}
		s.acknowledge(st, r.BaseOffset, b.values...)
	case code == wire.CodeDuplicateSequenceNumber:
		// Written, but no offset can be given; no gap follows.
		p.attempts = 0
		s.removeBatch(b)
	case code == wire.CodeOutOfOrderSequenceNumber || code == wire.CodeUnknownProducerID:
		if b.hasSeq && p.batches[0] == b {
			p.needBump = true // no earlier batch explains it: a gap
		}
		s.retry(b, notInLog)
	case code == wire.CodeInvalidProducerEpoch:
		s.failBatch(b)
	case code.Retriable():
		// NOT_ENOUGH_REPLICAS is checked before the append (and before
		// the dedupe): this attempt was not written, an earlier one may
		// have been. Every other retriable code may follow an append.
		verdict := mayBeWritten
		if code == wire.CodeNotEnoughReplicas {
			if b.maybeWritten {
				s.cov.IdempotentNotEnoughReplicas++
			}
			verdict = attemptNotWritten
			if s.cfg.ProducerTrustsNotEnoughReplicas {
				verdict = notInLog
			}
		}
		s.retry(b, verdict)
	default:
		s.failBatch(b)
	}
}

// retry makes b one to send again after the partition's backoff, unless
// its delivery time is over.
func (s *sim) retry(b *idemBatch, verdict attemptVerdict) {
	p := &s.idem
	now := s.c.NowMs()
	if now >= b.createdMs+idemDeliveryTimeoutMs {
		s.cov.IdempotentDeliveryTimeouts++
		s.failBatch(b)
		return
	}
	b.state = batchRetry
	switch verdict {
	case mayBeWritten:
		b.maybeWritten = true
	case notInLog:
		b.maybeWritten = false
	}
	p.attempts++
	p.retryAt = now + backoffMs(p.attempts)
}

// failBatch gives b up. A batch that had a sequence leaves a gap: the next
// sequence needs a new epoch.
func (s *sim) failBatch(b *idemBatch) {
	if b.hasSeq {
		s.idem.needBump = true
		s.cov.IdempotentGaps++
	}
	s.removeBatch(b)
}

func (s *sim) removeBatch(b *idemBatch) {
	p := &s.idem
	if i := indexOf(p.batches, b); i >= 0 {
		p.batches = append(p.batches[:i], p.batches[i+1:]...)
	}
}

func indexOf(bs []*idemBatch, b *idemBatch) int {
	for i, x := range bs {
		if x == b {
			return i
		}
	}
	return -1
}

// producerTimeouts breaks the connections whose broker crashed, or on
// which a request waited idemRequestTimeoutMs: every request on them fails
// and may have been written.

func (s *sim) producerTimeouts() {
	p := &s.idem
	now := s.c.NowMs()
	var broken []int32
	for _, call := range p.inflight {
		if s.c.Broker(call.to) != call.broker || now >= call.sentMs+idemRequestTimeoutMs {
			broken = append(broken, call.to)
		}
	}
	if len(broken) > 0 {
		kept := p.inflight[:0]
		for _, call := range p.inflight {
			if !containsID(broken, call.to) {
				kept = append(kept, call)
				continue
			}
			delete(p.responses, call.corr)
			s.retry(call.b, mayBeWritten)
		}
		clear(p.inflight[len(kept):])
		p.inflight = kept
	}
	if p.initCorr != 0 && now >= p.initSentMs+idemRequestTimeoutMs {
		p.initCorr = 0
		s.initFailed()
	}
}

func containsID(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// producerExpire fails the batches not in flight whose delivery time is
// over; batches in flight wait for their answer.
func (s *sim) producerExpire() {
	p := &s.idem
	now := s.c.NowMs()
	for i := 0; i < len(p.batches); {
		b := p.batches[i]
		if b.state != batchInFlight && now >= b.createdMs+idemDeliveryTimeoutMs {
			s.cov.IdempotentDeliveryTimeouts++
			s.failBatch(b)
			continue
		}
		i++
	}
}

// producerDrain sends what may go now; it reports whether it sent
// anything.
func (s *sim) producerDrain() bool {
	p := &s.idem
	c := s.c
	sent := false
	for {
		now := c.NowMs()
		if !p.ident.ok && len(p.batches) > 0 && p.initCorr == 0 && now >= p.initRetryAt {
			p.initCorr, p.initSentMs = c.NextCorrelation(), now
			c.Network().Send(replica.Envelope{From: producerAddr, To: replica.ControllerAt(), Msg: &wire.InitProducerIDRequest{
				CorrelationID: p.initCorr, TransactionTimeoutMs: -1, ProducerID: wire.NoProducerID, ProducerEpoch: wire.NoProducerEpoch,
			}})
			c.Run()
			return true
		}
		if now < p.retryAt || len(p.inflight) >= idemMaxInFlight || !p.hasWork() {
			return sent
		}
		leader := c.LeaderOf(topic)
		broker := c.Broker(leader)
		if broker == nil {
			return sent
		}
		b := s.take(leader)
		if b == nil {
			return sent
		}
		call := &idemCall{corr: c.NextCorrelation(), b: b, to: leader, broker: broker, sentMs: now, resend: b.sent}
		if r, ok := c.Replica(leader, topic); ok {
			call.leo = r.Log().EndOffset()
		}
		if len(p.inflight) > 0 {
			s.cov.IdempotentPipelined++
		}
		if b.sent {
			s.cov.IdempotentRetries++
		}
		b.sent = true
		p.inflight = append(p.inflight, call)
		c.Network().Send(replica.Envelope{From: producerAddr, To: replica.BrokerAt(leader), Msg: &wire.ProduceRequest{
			CorrelationID: call.corr, Acks: wire.AcksAll, TimeoutMs: idemAckTimeoutMs,
			Partitions: []wire.ProducePartition{{Topic: topic.Topic, Partition: topic.Partition, Records: b.bytes}},
		}})
		c.Run()
		sent = true
	}
}

// deadlines appends the times after now at which the producer acts by
// the clock alone: a request times out, a batch's delivery time ends, a
// backoff ends.
func (p *idemProducer) deadlines(dst []int64, now int64) []int64 {
	at := func(ms int64) {
		if ms > now {
			dst = append(dst, ms)
		}
	}
	for _, call := range p.inflight {
		at(call.sentMs + idemRequestTimeoutMs)
	}
	for _, b := range p.batches {
		at(b.createdMs + idemDeliveryTimeoutMs)
	}
	if p.hasWork() {
		at(p.retryAt)
	}
	if p.initCorr != 0 {
		at(p.initSentMs + idemRequestTimeoutMs)
	}
	return dst
}

// hasWork reports whether a batch waits to be sent.
func (p *idemProducer) hasWork() bool {
	for _, b := range p.batches {
		if b.state != batchInFlight {
			return true
		}
	}
	return false
}

// take returns the next batch to send to leader, marked in flight, or nil.
// After a change of leader it waits until nothing is in flight to the old
// one; after an error, until nothing is in flight at all, and then
// settles the batches to retry.
func (s *sim) take(leader int32) *idemBatch {
	p := &s.idem
	if len(p.inflight) > 0 && p.inflightTo != leader {
		s.cov.IdempotentLeaderBarrierHolds++
		if !s.cfg.ProducerSkipsLeaderBarrier {
			return nil
		}
	}
	if p.hasRetry() || p.needBump {
		if len(p.inflight) > 0 {
			return nil
		}
		s.settle()
	}
	var b *idemBatch
	for _, x := range p.batches {
		if x.state == batchNew || x.state == batchResend {
			b = x
			break
		}
	}
	if b == nil {
		return nil
	}
	if b.state == batchNew {
		// Before a bump only what may have been written goes; a new
		// batch needs an identity.
		if p.needBump || !p.ident.ok || !p.windowRoom() {
			return nil
		}
		if !s.sequence(b) {
			return nil
		}
	}
	b.state = batchInFlight
	p.inflightTo = leader
	return b
}

func (p *idemProducer) hasRetry() bool {
	for _, b := range p.batches {
		if b.state == batchRetry {
			return true
		}
	}
	return false
}

// settle decides, once nothing is in flight, what the batches to retry
// become: resent with their bytes; or, after a gap, if none may have been
// written, renumbered under a new epoch.
func (s *sim) settle() {
	p := &s.idem
	if p.needBump {
		maybeWritten := false
		for _, b := range p.batches {
			// A batch settled for a resend and not yet sent keeps its old
			// sequence: it counts too, as in the client.
			if (b.state == batchRetry || b.state == batchResend) && b.maybeWritten {
				maybeWritten = true
			}
		}
		if !maybeWritten {
			if p.partIdent == p.ident {
				// The same id with the next epoch, or a new id once the
				// epoch is exhausted.
				if p.ident.epoch == math.MaxInt16 {
					p.ident = ident{}
				} else {
					p.ident.epoch++
				}
				s.cov.IdempotentEpochBumps++
			}
			for _, b := range p.batches {
				if b.state == batchRetry || b.state == batchResend {
					b.state, b.hasSeq, b.sent = batchNew, false, false
					s.cov.IdempotentRenumbered++
				}
			}
			p.needBump = false
			return
		}
	}
	for _, b := range p.batches {
		if b.state == batchRetry {
			b.state = batchResend
		}
	}
}

// sequence gives b the partition's next sequence and its bytes. The
// partition takes the producer's current identity, from sequence 0, once
// nothing else of it carries a sequence.
func (s *sim) sequence(b *idemBatch) bool {
	p := &s.idem
	if p.partIdent != p.ident {
		for _, x := range p.batches {
			if x != b && x.hasSeq {
				return false
			}
		}
		p.partIdent, p.nextSeq = p.ident, 0
	}
	vals := make([][]byte, len(b.values))
	for i, v := range b.values {
		vals[i] = []byte(v)
	}
	bytes, err := replica.ProducerBatch(p.partIdent.id, p.partIdent.epoch, p.nextSeq, b.createdMs, vals...)
	if err != nil {
		s.fail(Step{Kind: Produce, Idempotent: true}, Operable, "idempotent batch: %v", err)
		return false
	}
	b.bytes, b.seq, b.hasSeq = bytes, p.nextSeq, true
	p.nextSeq = incSequence(p.nextSeq, int32(len(b.values)))
	p.sequenced++
	b.ordinal = p.sequenced
	return true
}

// windowRoom reports whether another batch may be sequenced: from the
// oldest batch whose fate is unknown to the newest sequenced, acknowledged
// ones included, at most idemMaxInFlight, so that the leader's dedupe
// window still holds it when it is resent.
func (p *idemProducer) windowRoom() bool {
	for _, b := range p.batches {
		if b.hasSeq {
			return p.sequenced-b.ordinal+1 < idemMaxInFlight
		}
	}
	return true
}

// incSequence returns seq + n, wrapping from math.MaxInt32 to 0.
func incSequence(seq, n int32) int32 {
	if seq > math.MaxInt32-n {
		return n - (math.MaxInt32 - seq) - 1
	}
	return seq + n
}

// checkIdempotence fails the run if a record the idempotent producer sent
// appears twice in the log of the leader, or if two records it had
// acknowledged appear there out of the order they were produced in.
func (s *sim) checkIdempotence(st Step, leader int32, v logView) bool {
	seen := map[string]uint64{}
	type last struct {
		rank  int
		value string
		off   uint64
	}
	prev := map[int]last{} // by producer
	checkedOrder := false
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
		r, ok := s.idem.acked[val]
		if !ok {
			continue
		}
		if pr, ok := prev[r.producer]; ok {
			checkedOrder = true
			if r.rank < pr.rank {
				s.fail(st, ProducerOrder, "leader %d holds acknowledged %q at offset %d, after acknowledged %q, produced later, at offset %d",
					leader, val, off, pr.value, pr.off)
				return false
			}
		}
		prev[r.producer] = last{r.rank, val, off}
	}
	if checkedOrder {
		s.cov.Checks[ProducerOrder]++
	}
	return true
}
