package client

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// idempotentSetup returns an idempotent producer on a fake cluster whose
// first record (sequence 0 of t-0, offset 0) is acknowledged.
func idempotentSetup(t *testing.T, cfg ProducerConfig) (*fakeCluster, *clock.Manual, *Producer, TopicPartition) {
	t.Helper()
	fc := newFakeCluster(t, 2, 2)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := produceAsync(t, p, tp, "warm-up")
	flushed := make(chan error, 1)
	go func() { flushed <- p.Flush(context.Background()) }()
	r := fc.brokers[1].next(t)
	if b := batchOf(t, r.produce(t).Partitions[0]); b.ProducerID != 1001 || b.ProducerEpoch != 0 || b.BaseSequence != 0 {
		t.Fatalf("first batch: producer %d epoch %d sequence %d, want 1001, 0, 0", b.ProducerID, b.ProducerEpoch, b.BaseSequence)
	}
	r.answerProduce(t, wire.CodeNone, 0)
	if o := await(t, out); o.err != nil {
		t.Fatal(o.err)
	}
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	return fc, clk, p, tp
}

// producerFields returns a produce request's batch's producer id, epoch
// and base sequence.
func producerFields(t *testing.T, r *fakeReq) (int64, int16, int32) {
	t.Helper()
	b := batchOf(t, r.produce(t).Partitions[0])
	return b.ProducerID, b.ProducerEpoch, b.BaseSequence
}

// Each partition numbers its records from 0 under the producer id the
// controller gave; a batch's base sequence is the sequence of its first
// record.
func TestSequencesNumberEachPartitionsRecords(t *testing.T) {
	fc, _, p, tp0 := idempotentSetup(t, ProducerConfig{})
	tp1 := TopicPartition{"t", 1}
	broker := fc.brokers[1]
	type sent struct {
		tp  TopicPartition
		seq int32
	}
	var got []sent
	for _, tp := range []TopicPartition{tp0, tp0, tp1, tp0, tp1} {
		produceAsync(t, p, tp, "x")
		r := broker.next(t)
		part := r.produce(t).Partitions[0]
		id, epoch, seq := producerFields(t, r)
		if id != 1001 || epoch != 0 {
			t.Fatalf("producer %d epoch %d", id, epoch)
		}
		got = append(got, sent{TopicPartition{part.Topic, part.Partition}, seq})
	}
	want := []sent{{tp0, 1}, {tp0, 2}, {tp1, 0}, {tp0, 3}, {tp1, 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("sequences %v, want %v", got, want)
	}
}

// Sequences wrap from math.MaxInt32 to 0, as Kafka's
// DefaultRecordBatch.incrementSequence: a batch may straddle the wrap.
func TestSequenceWrapsAtMaxInt32(t *testing.T) {
	fc, clk, p, tp := idempotentSetup(t, ProducerConfig{LingerMs: 10})
	inPartition(p, tp, func(part *partition) { part.nextSeq = math.MaxInt32 - 1 })
	for _, v := range []string{"a", "b", "c"} {
		produceAsync(t, p, tp, v)
	}
	clk.Advance(10)
	r := fc.brokers[1].next(t)
	if _, _, seq := producerFields(t, r); seq != math.MaxInt32-1 {
		t.Fatalf("base sequence %d, want MaxInt32-1", seq)
	}
	r.answerProduce(t, wire.CodeNone, 1)
	produceAsync(t, p, tp, "d")
	clk.Advance(10)
	if _, _, seq := producerFields(t, fc.brokers[1].next(t)); seq != 1 {
		t.Fatalf("after MaxInt32-1, MaxInt32 and 0, base sequence %d, want 1", seq)
	}
	if got := incSequence(math.MaxInt32, 1); got != 0 {
		t.Errorf("incSequence(MaxInt32, 1) = %d", got)
	}
	if got := incSequence(5, 3); got != 8 {
		t.Errorf("incSequence(5, 3) = %d", got)
	}
}

// At most MaxInFlight batches of a partition are in flight (5 when
// idempotent, the broker's dedupe window); the records that arrive
// meanwhile gather in one batch, sent when an answer frees a slot.
func TestInFlightLimitPerPartition(t *testing.T) {
	fc, _, p, tp := idempotentSetup(t, ProducerConfig{})
	broker := fc.brokers[1]
	for i := range 8 {
		produceAsync(t, p, tp, string(rune('a'+i)))
	}
	var first *fakeReq
	for i := range 5 {
		r := broker.next(t)
		if _, _, seq := producerFields(t, r); seq != int32(1+i) {
			t.Fatalf("request %d: sequence %d", i, seq)
		}
		if i == 0 {
			first = r
		}
	}
	inPartition(p, tp, func(part *partition) {
		if part.inflight != 5 || part.open == nil || part.open.count != 3 {
			t.Fatalf("in flight %d, open batch %+v: want 5 in flight and 3 records waiting", part.inflight, part.open)
		}
	})
	first.answerProduce(t, wire.CodeNone, 1)
	r := broker.next(t)
	b := batchOf(t, r.produce(t).Partitions[0])
	if b.BaseSequence != 6 || !slices.Equal(values(b), []string{"f", "g", "h"}) {
		t.Fatalf("sixth batch: sequence %d, %q", b.BaseSequence, values(b))
	}
}

// A retry resends the bytes of the first attempt — producer id, epoch,
// sequence, CRC and all — after every batch of the partition in flight has
// come back, in the same order: the broker answers a batch it already
// wrote with its original offset. Whatever the retriable code (the two
// after which the records may be on the log included), or a connection
// that breaks, or a leader that moves.
func TestRetryResendsTheSameBytes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		code  wire.ErrorCode // answer to the first attempts; CodeNone: the connection breaks
		moved bool           // the leader moves to broker 2
	}{
		{"REQUEST_TIMED_OUT", wire.CodeRequestTimedOut, false},
		{"NOT_ENOUGH_REPLICAS_AFTER_APPEND", wire.CodeNotEnoughReplicasAfterAppend, false},
		{"NOT_ENOUGH_REPLICAS", wire.CodeNotEnoughReplicas, false},
		{"NOT_LEADER_OR_FOLLOWER", wire.CodeNotLeaderOrFollower, true},
		{"connection broken", wire.CodeNone, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc, clk, p, tp := idempotentSetup(t, ProducerConfig{})
			clk.Advance(1000) // metadata refreshes go at once from here
			var outs []chan outcome
			var reqs []*fakeReq
			var first [][]byte
			for _, v := range []string{"a", "b", "c"} {
				outs = append(outs, produceAsync(t, p, tp, v))
				r := fc.brokers[1].next(t)
				reqs = append(reqs, r)
				first = append(first, bytes.Clone(r.produce(t).Partitions[0].Records))
			}
			dest := fc.brokers[1]
			if tc.moved {
				fc.setLeader(tp, 2, 1)
				dest = fc.brokers[2]
			}
			if tc.code == wire.CodeNone {
				fc.brokers[1].closeConns()
			} else {
				for _, r := range reqs {
					r.answerProduce(t, tc.code, 7)
				}
			}
			var due int64
			waitProducer(t, p, func() bool {
				part := p.parts[tp]
				due = part.retryAt
				for _, b := range part.batches {
					if b.state != stRetry {
						return false
					}
				}
				return len(part.batches) == 3
			})
			if tc.moved {
				waitLeader(t, p.c, tp, 2)
			}
			clk.AdvanceTo(due)
			for i := range 3 {
				r := dest.next(t)
				if got := r.produce(t).Partitions[0].Records; !bytes.Equal(got, first[i]) {
					t.Fatalf("retry %d: bytes differ from the first attempt's", i)
				}
				r.answerProduce(t, wire.CodeNone, uint64(7+i))
			}
			for i, ch := range outs {
				if o := await(t, ch); o.err != nil || o.off.Offset != uint64(7+i) {
					t.Errorf("record %d: %+v %v, want offset %d", i, o.off, o.err, 7+i)
				}
			}
		})
	}
}

// A request the broker does not answer within AckTimeoutMs plus
// RequestTimeoutMs fails on the client's clock: the client closes the
// connection (the answers after it could not be trusted in order) and
// resends the same bytes on a new one.
func TestRequestTimeoutClosesTheConnectionAndRetries(t *testing.T) {
	fc, clk, p, tp := idempotentSetup(t, ProducerConfig{AckTimeoutMs: 5000})
	out := produceAsync(t, p, tp, "a")
	r := fc.brokers[1].next(t)
	sent := bytes.Clone(r.produce(t).Partitions[0].Records)
	clk.Advance(5000 + DefaultRequestTimeoutMs - 1)
	inPartition(p, tp, func(part *partition) {
		if part.inflight != 1 {
			t.Fatalf("timed out 1 ms early")
		}
	})
	clk.Advance(1)
	select {
	case <-r.conn.eof:
	case <-time.After(waitGuard):
		t.Fatal("the client kept the connection of a timed-out request")
	}
	var due int64
	waitProducer(t, p, func() bool {
		part := p.parts[tp]
		due = part.retryAt
		return part.batches[0].state == stRetry
	})
	if err := p.parts[tp].batches[0].lastErr; !errors.Is(err, wire.ErrRequestTimedOut) {
		t.Errorf("the batch's error %v does not match REQUEST_TIMED_OUT", err)
	}
	clk.AdvanceTo(due)
	r2 := fc.brokers[1].next(t)
	if r2.conn == r.conn || !bytes.Equal(r2.produce(t).Partitions[0].Records, sent) {
		t.Fatal("the retry is not the same bytes on a new connection")
	}
	r2.answerProduce(t, wire.CodeNone, 3)
	if o := await(t, out); o.err != nil || o.off.Offset != 3 {
		t.Fatalf("%+v %v", o.off, o.err)
	}
}

// retryDue waits until tp's only batch waits for its backoff and returns
// when it ends.
func retryDue(t *testing.T, p *Producer, tp TopicPartition) int64 {
	t.Helper()
	var due int64
	waitProducer(t, p, func() bool {
		part := p.parts[tp]
		due = part.retryAt
		return len(part.batches) > 0 && part.batches[0].state == stRetry && part.inflight == 0
	})
	return due
}

// OUT_OF_ORDER_SEQUENCE_NUMBER for a partition's oldest batch means the
// broker lost acknowledged batches of this producer. As Kafka's producer
// (KIP-360) without transactions, the producer bumps its epoch and sends
// the batch again from sequence 0: it was not written, so it is not
// duplicated.
func TestOutOfOrderSequenceBumpsTheEpoch(t *testing.T) {
	fc, clk, p, tp := idempotentSetup(t, ProducerConfig{})
	out := produceAsync(t, p, tp, "a")
	fc.brokers[1].next(t).answerProduce(t, wire.CodeOutOfOrderSequenceNumber, 0)
	clk.AdvanceTo(retryDue(t, p, tp))
	r := fc.brokers[1].next(t)
	if id, epoch, seq := producerFields(t, r); id != 1001 || epoch != 1 || seq != 0 {
		t.Fatalf("resent as producer %d epoch %d sequence %d, want 1001, 1, 0", id, epoch, seq)
	}
	if v := values(batchOf(t, r.produce(t).Partitions[0])); !slices.Equal(v, []string{"a"}) {
		t.Fatalf("resent %q", v)
	}
	r.answerProduce(t, wire.CodeNone, 9)
	if o := await(t, out); o.err != nil || o.off.Offset != 9 {
		t.Fatalf("%+v %v", o.off, o.err)
	}
	produceAsync(t, p, tp, "b")
	if id, epoch, seq := producerFields(t, fc.brokers[1].next(t)); id != 1001 || epoch != 1 || seq != 1 {
		t.Fatalf("next batch: producer %d epoch %d sequence %d, want 1001, 1, 1", id, epoch, seq)
	}
}

// INVALID_PRODUCER_EPOCH is not retriable: the records fail with it, and
// the partition's next batch starts a new epoch at sequence 0, since the
// failed batch left a gap.
func TestInvalidProducerEpochFailsTheBatch(t *testing.T) {
	fc, _, p, tp := idempotentSetup(t, ProducerConfig{})
	out := produceAsync(t, p, tp, "a")
	fc.brokers[1].next(t).answerProduce(t, wire.CodeInvalidProducerEpoch, 0)
	o := await(t, out)
	var we *wire.Error
	if !errors.Is(o.err, wire.ErrInvalidProducerEpoch) || !errors.As(o.err, &we) || we.Retriable() {
		t.Fatalf("outcome %v, want INVALID_PRODUCER_EPOCH, not retriable", o.err)
	}
	produceAsync(t, p, tp, "b")
	if id, epoch, seq := producerFields(t, fc.brokers[1].next(t)); id != 1001 || epoch != 1 || seq != 0 {
		t.Fatalf("next batch: producer %d epoch %d sequence %d, want 1001, 1, 0", id, epoch, seq)
	}
}

// After a batch fails for good, a later batch that may have been written
// (it timed out) is resent with its old bytes first: only once the broker
// proves it unwritten (OUT_OF_ORDER_SEQUENCE_NUMBER: the gap) is it
// renumbered under a new epoch. Renumbering it at once could write it
// twice.
func TestGapResendsWhatMayBeWrittenBeforeRenumbering(t *testing.T) {
	for _, written := range []bool{false, true} {
		fc, clk, p, tp := idempotentSetup(t, ProducerConfig{})
		a := produceAsync(t, p, tp, "a")
		b := produceAsync(t, p, tp, "b")
		ra, rb := fc.brokers[1].next(t), fc.brokers[1].next(t)
		bBytes := bytes.Clone(rb.produce(t).Partitions[0].Records)
		ra.answerProduce(t, wire.CodeMessageTooLarge, 0)
		rb.answerProduce(t, wire.CodeRequestTimedOut, 0)
		if o := await(t, a); !errors.Is(o.err, wire.ErrMessageTooLarge) {
			t.Fatalf("a: %v, want MESSAGE_TOO_LARGE", o.err)
		}
		clk.AdvanceTo(retryDue(t, p, tp))
		r := fc.brokers[1].next(t)
		if !bytes.Equal(r.produce(t).Partitions[0].Records, bBytes) {
			t.Fatal("b, which may have been written, was not resent as it was")
		}
		if written {
			r.answerProduce(t, wire.CodeNone, 4) // a duplicate: its original offset
			if o := await(t, b); o.err != nil || o.off.Offset != 4 {
				t.Fatalf("b: %+v %v", o.off, o.err)
			}
			produceAsync(t, p, tp, "c")
			if _, epoch, seq := producerFields(t, fc.brokers[1].next(t)); epoch != 1 || seq != 0 {
				t.Fatalf("c: epoch %d sequence %d, want 1, 0", epoch, seq)
			}
			continue
		}
		r.answerProduce(t, wire.CodeOutOfOrderSequenceNumber, 0)
		clk.AdvanceTo(retryDue(t, p, tp))
		r = fc.brokers[1].next(t)
		if _, epoch, seq := producerFields(t, r); epoch != 1 || seq != 0 {
			t.Fatalf("b renumbered as epoch %d sequence %d, want 1, 0", epoch, seq)
		}
		r.answerProduce(t, wire.CodeNone, 4)
		if o := await(t, b); o.err != nil || o.off.Offset != 4 {
			t.Fatalf("b: %+v %v", o.off, o.err)
		}
	}
}

// A retriable refusal is retried until DeliveryTimeoutMs after the record
// was handed over; then the record fails with ErrDeliveryTimeout and the
// last refusal, both matched by errors.Is.
func TestDeliveryTimeoutEndsRetries(t *testing.T) {
	fc, clk, p, tp := idempotentSetup(t, ProducerConfig{AckTimeoutMs: 500, DeliveryTimeoutMs: 3000})
	start := clk.NowMs()
	out := produceAsync(t, p, tp, "a")
	tries := 0
	for {
		fc.brokers[1].next(t).answerProduce(t, wire.CodeNotEnoughReplicas, 0)
		tries++
		var due int64
		resolved := false
		waitProducer(t, p, func() bool {
			part := p.parts[tp]
			if len(part.batches) == 0 {
				resolved = true
				return true
			}
			due = part.retryAt
			return part.batches[0].state == stRetry
		})
		if resolved {
			break
		}
		clk.AdvanceTo(min(due, start+3000))
		if clk.NowMs() == start+3000 {
			break
		}
	}
	o := await(t, out)
	if !errors.Is(o.err, ErrDeliveryTimeout) || !errors.Is(o.err, wire.ErrNotEnoughReplicas) {
		t.Fatalf("outcome %v after %d tries, want ErrDeliveryTimeout and NOT_ENOUGH_REPLICAS", o.err, tries)
	}
	if tries < 4 {
		t.Errorf("only %d tries in 3 s of 100..1000 ms backoffs", tries)
	}
}

// DUPLICATE_SEQUENCE_NUMBER says the records were written long ago, where
// the broker no longer remembers: they fail with that error, which says
// so, and the sequence goes on (no gap).
func TestDuplicateSequenceFailsWithoutAGap(t *testing.T) {
	fc, _, p, tp := idempotentSetup(t, ProducerConfig{})
	out := produceAsync(t, p, tp, "a")
	fc.brokers[1].next(t).answerProduce(t, wire.CodeDuplicateSequenceNumber, 0)
	if o := await(t, out); !errors.Is(o.err, wire.ErrDuplicateSequenceNumber) {
		t.Fatalf("%v", o.err)
	}
	produceAsync(t, p, tp, "b")
	if _, epoch, seq := producerFields(t, fc.brokers[1].next(t)); epoch != 0 || seq != 2 {
		t.Fatalf("next: epoch %d sequence %d, want 0, 2", epoch, seq)
	}
}

// An epoch bump past math.MaxInt16 asks the controller for a new producer
// id instead (Kafka's resetIdempotentProducerId): the batch goes again
// under the new id, epoch 0, sequence 0.
func TestExhaustedEpochTakesANewProducerID(t *testing.T) {
	fc, clk, p, tp := idempotentSetup(t, ProducerConfig{})
	p.mu.Lock()
	p.ident.epoch = math.MaxInt16
	p.parts[tp].ident.epoch = math.MaxInt16
	p.mu.Unlock()
	out := produceAsync(t, p, tp, "a")
	r := fc.brokers[1].next(t)
	if id, epoch, seq := producerFields(t, r); id != 1001 || epoch != math.MaxInt16 || seq != 1 {
		t.Fatalf("producer %d epoch %d sequence %d", id, epoch, seq)
	}
	r.answerProduce(t, wire.CodeOutOfOrderSequenceNumber, 0)
	clk.AdvanceTo(retryDue(t, p, tp))
	r = fc.brokers[1].next(t)
	if id, epoch, seq := producerFields(t, r); id != 1002 || epoch != 0 || seq != 0 {
		t.Fatalf("after the last epoch: producer %d epoch %d sequence %d, want 1002, 0, 0", id, epoch, seq)
	}
	r.answerProduce(t, wire.CodeNone, 1)
	if o := await(t, out); o.err != nil || o.off.Offset != 1 {
		t.Fatalf("%+v %v", o.off, o.err)
	}
}

// A batch whose fate is unknown must stay within the broker's dedupe
// window (its producer's last 5 batches) until it is resolved: 5 batches
// at most from the oldest unresolved one to the newest sequenced, the
// acknowledged ones between them included. Otherwise its resend finds a
// broker that forgot it: OUT_OF_ORDER_SEQUENCE_NUMBER, which the producer
// takes for proof that it was never written, and the epoch bump writes it
// a second time. (Found by review: a randomized run against a broker with
// a real log wrote "a" at offsets 5 and 15.)
//
// Here a (sequence 1) is appended but answered REQUEST_TIMED_OUT, and b to
// e (2 to 5) are acknowledged: the broker's window is 1..5. f must wait
// until a's resend is answered.
func TestUnresolvedBatchStaysInTheDedupeWindow(t *testing.T) {
	fc, clk, p, tp := idempotentSetup(t, ProducerConfig{})
	broker := fc.brokers[1]
	a := produceAsync(t, p, tp, "a")
	var rs []*fakeReq
	for i := range 5 {
		if i > 0 {
			produceAsync(t, p, tp, string(rune('a'+i)))
		}
		rs = append(rs, broker.next(t))
	}
	rs[0].answerProduce(t, wire.CodeRequestTimedOut, 1)
	for i, r := range rs[1:] {
		r.answerProduce(t, wire.CodeNone, uint64(2+i))
	}
	due := retryDue(t, p, tp)
	f := produceAsync(t, p, tp, "f")
	clk.AdvanceTo(due)
	r := broker.next(t)
	if _, _, seq := producerFields(t, r); seq != 1 {
		t.Fatalf("resent sequence %d, want a's 1", seq)
	}
	inPartition(p, tp, func(part *partition) {
		for _, b := range part.batches {
			if b.hasSeq && b.seq != 1 {
				t.Fatalf("sequence %d given while sequence 1 is unresolved and 4 batches after it are written: the broker's window of 5 would lose it", b.seq)
			}
		}
	})
	r.answerProduce(t, wire.CodeNone, 1) // the broker's dedupe: a's offset
	if o := await(t, a); o.err != nil || o.off.Offset != 1 {
		t.Fatalf("a: %+v %v", o.off, o.err)
	}
	r = broker.next(t)
	if _, _, seq := producerFields(t, r); seq != 6 {
		t.Fatalf("f sent with sequence %d, want 6", seq)
	}
	r.answerProduce(t, wire.CodeNone, 6)
	if o := await(t, f); o.err != nil || o.off.Offset != 6 {
		t.Fatalf("f: %+v %v", o.off, o.err)
	}
}
