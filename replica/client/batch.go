package client

import (
	"math"
	"math/bits"
	"slices"
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
// log.PutBatchHeader writes it and log.SetProducer renumbers it: the
// layout has one owner.

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

// recordBody returns the encoded size of a record at offsetDelta with
// tsDelta, without its length prefix, or ok false if it cannot be encoded
// (a field longer than an int32 length).
func recordBody(offsetDelta int32, tsDelta int64, key, value []byte, headers []Header) (body int, ok bool) {
	body = 1 + varintSize(tsDelta) + varintSize(int64(offsetDelta)) + bytesFieldSize(key) + bytesFieldSize(value) + varintSize(int64(len(headers)))
	for i := range headers {
		h := &headers[i]
		if len(h.Key) > math.MaxInt32 {
			return 0, false
		}
		body += varintSize(int64(len(h.Key))) + len(h.Key) + bytesFieldSize(h.Value)
	}
	if len(key) > math.MaxInt32 || len(value) > math.MaxInt32 || body > math.MaxInt32 {
		return 0, false
	}
	return body, true
}

// body returns the size of r, stamped ts, as b's next record, without its
// length prefix, and ok false if it cannot be encoded.
func (b *batch) body(r *Record, ts int64) (int, bool) {
	tsDelta := int64(0)
	if b.count > 0 {
		tsDelta = ts - b.baseTs
	}
	return recordBody(b.count, tsDelta, r.Key, r.Value, r.Headers)
}

// encodedSize is the size of a record whose body is body bytes.
func encodedSize(body int) int { return varintSize(int64(body)) + body }

// add encodes r, stamped ts, as b's next record (body bytes, as b.body
// said). The caller keeps the record's outcome callback. The record's
// size is known, so it is written in place, in one pass.
func (b *batch) add(r *Record, ts int64, body int) {
	if b.count == 0 {
		b.baseTs, b.maxTs = ts, ts
	}
	b.maxTs = max(b.maxTs, ts)
	n, size := len(b.buf), encodedSize(body)
	b.buf = slices.Grow(b.buf, size)[:n+size]
	p := b.buf[n:]
	i := putVarint(p, int64(body))
	p[i] = 0 // attributes: unused
	i++
	i += putVarint(p[i:], ts-b.baseTs)
	i += putVarint(p[i:], int64(b.count))
	i += putBytesField(p[i:], r.Key)
	i += putBytesField(p[i:], r.Value)
	i += putVarint(p[i:], int64(len(r.Headers)))
	for j := range r.Headers {
		h := &r.Headers[j]
		i += putVarint(p[i:], int64(len(h.Key)))
		i += copy(p[i:], h.Key)
		i += putBytesField(p[i:], h.Value)
	}
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

// putBytesField writes a nullable byte field at the start of dst, which
// has room for it: its varint length (-1 for nil), then its bytes. It
// returns the bytes written.
func putBytesField(dst, p []byte) int {
	if p == nil {
		dst[0] = 1 // -1, zig-zag
		return 1
	}
	i := putVarint(dst, int64(len(p)))
	return i + copy(dst[i:], p)
}

// putVarint writes v as a zig-zag varint (binary.PutVarint's encoding) at
// the start of dst, which has room for it, and returns its size. Unlike
// binary.PutVarint it is small enough to inline.
func putVarint(dst []byte, v int64) int {
	u := zigzag(v)
	i := 0
	for u >= 0x80 {
		dst[i] = byte(u) | 0x80
		u >>= 7
		i++
	}
	dst[i] = byte(u)
	return i + 1
}

// zigzag maps signed to unsigned so that small magnitudes are small.
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// bytesFieldSize is the encoded size of a nullable byte field.
func bytesFieldSize(p []byte) int {
	if p == nil {
		return 1
	}
	return varintSize(int64(len(p))) + len(p)
}

// varintSize is the size of v as a zig-zag varint (Kafka's varint and
// varlong, encoding/binary's AppendVarint).
func varintSize(v int64) int {
	u := zigzag(v)
	return (bits.Len64(u|1) + 6) / 7
}
