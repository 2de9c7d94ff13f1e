package client

import (
	"sync"

	"github.com/kaenlog/kaenlog/log"
)

// A producer's batch is a RecordBatch v2 (log.BatchHeader documents the
// layout) built in place: each record is encoded onto the batch's buffer
// when it is produced, after 61 bytes left for the header, so a batch's
// size is known exactly at every step (Kafka's batch.size counts encoded
// bytes) and a record's key and value are copied once. The header — and
// with it the producer id, epoch and base sequence, which the CRC covers —
// is written when the batch is first sent; from then on its bytes are
// fixed, so a retry sends exactly the bytes of the first attempt.
// log.AppendRecord encodes each record, log.PutBatchHeader writes the
// header and log.SetProducer renumbers it: the layout has one owner.

// noProducerID, noProducerEpoch and noSequence are what a batch from a
// producer that is not idempotent carries (Kafka's RecordBatch.NO_*), and
// noPartitionLeaderEpoch what every producer writes: the leader stamps its
// epoch when it appends.
const (
	noProducerID           int64 = -1
	noProducerEpoch        int16 = -1
	noSequence             int32 = -1
	noPartitionLeaderEpoch int32 = -1
)

// batchState is where a sealed batch is in its life.
type batchState uint8

const (
	// stNew: never sent, or its sequence was taken back after the
	// producer's epoch was bumped; it gets its sequence when sent.
	stNew batchState = iota
	// stInFlight: in a request not yet answered.
	stInFlight
	// stRetry: answered with a retriable error; waits until nothing of its
	// partition is in flight, then is resent (or, after an epoch bump and
	// when the broker proved it unwritten, re-sequenced).
	stRetry
	// stResend: to be resent with the bytes of its first attempt.
	stResend
)

// batch is one partition's records on their way to the leader.
type batch struct {
	part      *partition
	buf       []byte // header space, then the encoded records
	count     int32  // records so far
	baseTs    int64  // first record's timestamp
	maxTs     int64  // largest record timestamp
	createdMs int64  // when the first record arrived: linger and delivery timeout count from here
	// dones are the outcome callbacks of the records ProduceAsync put
	// here, in record order; runs are the spans of records
	// ProduceManyAsync put here, in record order. A record is in one run
	// or has one done: completion.run walks both.
	dones []func(Offset, error)
	runs  []doneRun
	bytes int64 // what the batch counts against MaxBufferedBytes

	state  batchState
	hasSeq bool          // buf's header is written, with seq and ident
	ident  producerIdent // the producer id and epoch in the header
	seq    int32         // base sequence in the header
	// ordinal is the partition's sequencedBatches once b was sequenced.
	ordinal uint64
	// maybeWritten: an attempt with its sequence may have been written (no
	// answer, or an answer after the append). A later refusal that proves
	// only its own attempt unwritten (NOT_ENOUGH_REPLICAS) does not clear
	// it; only the leader's word that its log holds no such sequence does.
	// A batch that may have been written is never renumbered.
	maybeWritten bool
	attempts     int   // requests sent with it
	lastErr      error // the last retriable error, for a delivery timeout
	flushers     []*flushWaiter
}

// batchPool recycles batches and their buffers once the broker has answered
// them (the buffer of a batch whose connection broke is left to the
// collector: the connection's writer may still be reading it).
var batchPool = sync.Pool{New: func() any { return new(batch) }}

// newBatch returns an empty batch for part whose first record arrives at
// nowMs, with room for capBytes.
func newBatch(part *partition, nowMs int64, capBytes int) *batch {
	b := batchPool.Get().(*batch)
	buf := b.buf[:0]
	if cap(buf) < capBytes {
		buf = make([]byte, 0, capBytes)
	}
	*b = batch{part: part, buf: append(buf, make([]byte, log.BatchHeaderSize)...), createdMs: nowMs, dones: b.dones[:0], runs: b.runs[:0], flushers: b.flushers[:0]}
	return b
}

// doneRun is a span of a batch's records handed over by one
// ProduceManyAsync call: n records from index at in the batch, which were
// recs[i:i+n] of the call. Their offsets are contiguous.
type doneRun struct {
	done  func(i, n int, first Offset, err error)
	i     int
	at, n int32
}

// newBatch returns an empty batch for part whose first record, of size
// bytes, arrives at nowMs: a spare if there is one and the record fits in
// BatchBytes.
func (p *Producer) newBatch(part *partition, nowMs int64, size int) *batch {
	capBytes := max(p.cfg.BatchBytes, log.BatchHeaderSize+size)
	if capBytes == p.cfg.BatchBytes {
		p.spareMu.Lock()
		if n := len(p.spares); n > 0 {
			b := p.spares[n-1]
			p.spares[n-1] = nil
			p.spares = p.spares[:n-1]
			p.spareMu.Unlock()
			b.reset(part, nowMs)
			return b
		}
		p.spareMu.Unlock()
	}
	return newBatch(part, nowMs, capBytes)
}

// recycle takes back a batch the broker answered: a spare if its buffer
// is BatchBytes large and there is room, batchPool's otherwise.
func (p *Producer) recycle(b *batch) {
	if cap(b.buf) == p.cfg.BatchBytes {
		p.spareMu.Lock()
		if len(p.spares) < p.maxSpares {
			b.clear()
			p.spares = append(p.spares, b)
			p.spareMu.Unlock()
			return
		}
		p.spareMu.Unlock()
	}
	b.release()
}

// reset makes b, cleared, an empty batch for part whose first record
// arrives at nowMs.
func (b *batch) reset(part *partition, nowMs int64) {
	b.part, b.createdMs = part, nowMs
	b.buf = append(b.buf[:0], make([]byte, log.BatchHeaderSize)...)
}

// clear drops what b holds, keeping its storage.
func (b *batch) clear() {
	clear(b.dones)
	clear(b.runs)
	clear(b.flushers)
	*b = batch{buf: b.buf[:0], dones: b.dones[:0], runs: b.runs[:0], flushers: b.flushers[:0]}
}

// release returns b to the pool. Only for a batch the broker answered.
func (b *batch) release() {
	b.clear()
	batchPool.Put(b)
}

// record is rec as the record at offsetDelta of a batch, tsDelta after the
// batch's base timestamp: what log.RecordSize measures and log.AppendRecord
// encodes, the one encoding of a record.
func record(offsetDelta int32, tsDelta int64, rec *Record) log.Record {
	return log.Record{TimestampDelta: tsDelta, OffsetDelta: offsetDelta, Key: rec.Key, Value: rec.Value, Headers: rec.Headers}
}

// recordSize is the encoded size of rec, length prefix included, as the
// first record of a batch, or ok false if it cannot be encoded (a field
// longer than an int32 length).
func recordSize(rec *Record) (int, bool) {
	r := record(0, 0, rec)
	return log.RecordSize(&r)
}

// size returns the encoded size of r, stamped ts, as b's next record,
// length prefix included, and ok false if it cannot be encoded.
func (b *batch) size(r *Record, ts int64) (int, bool) {
	tsDelta := int64(0)
	if b.count > 0 {
		tsDelta = ts - b.baseTs
	}
	rec := record(b.count, tsDelta, r)
	return log.RecordSize(&rec)
}

// add encodes r, stamped ts, as b's next record; b.size said it encodes.
// The caller keeps the record's outcome callback.
func (b *batch) add(r *Record, ts int64) {
	if b.count == 0 {
		b.baseTs, b.maxTs = ts, ts
	}
	b.maxTs = max(b.maxTs, ts)
	rec := record(b.count, ts-b.baseTs, r)
	b.buf, _ = log.AppendRecord(b.buf, &rec) // b.size said it encodes
	b.count++
}

// writeHeader writes b's header with the producer id, epoch and base
// sequence, and its CRC. The records are final: no record is added after.
func (b *batch) writeHeader(id int64, epoch int16, seq int32) {
	// The leader assigns the base offset and stamps its epoch; the checks
	// PutBatchHeader makes cannot fail for a batch of at least one record
	// within BatchBytes.
	_ = log.PutBatchHeader(b.buf, log.BatchHeader{
		PartitionLeaderEpoch: noPartitionLeaderEpoch, LastOffsetDelta: b.count - 1,
		BaseTimestamp: b.baseTs, MaxTimestamp: b.maxTs,
		ProducerID: id, ProducerEpoch: epoch, BaseSequence: seq, RecordCount: b.count,
	})
}

// resequence gives b new producer fields. The old bytes may still be read
// by a connection that broke while writing them, so b gets a copy.
func (b *batch) resequence(id int64, epoch int16, seq int32) {
	buf := make([]byte, len(b.buf))
	copy(buf, b.buf)
	_ = log.SetProducer(buf, id, epoch, seq) // a header this producer wrote
	b.buf = buf
}
