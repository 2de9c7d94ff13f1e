package log

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Producer state: what the partition knows of each idempotent producer, so
// that a leader can refuse a zombie's batch, a batch out of sequence, and
// answer a retried batch with the offsets it already has instead of
// writing it twice. The rules are in doc.go ("Producer state"); the
// snapshot file that makes recovery cheap is producer_snapshot.go.

const (
	// ProducerBatchesRetained is how many of a producer's most recent
	// batches the log remembers: a retry of any of them is a duplicate.
	// Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN, which matches a
	// producer's max.in.flight.requests.per.connection of at most 5.
	ProducerBatchesRetained = 5
	// DefaultProducerIDExpirationMs is Options.ProducerIDExpirationMs when
	// 0: one day, Kafka's producer.id.expiration.ms default.
	DefaultProducerIDExpirationMs = 86_400_000
)

// Sentinels of the producer-state checks of AppendAsLeader. Like the
// validation sentinels they are not corruption: the batch is intact, but
// the producer may not write it now. Nothing is written.
var (
	// ErrInvalidProducerEpoch is returned for a batch whose producer epoch
	// is older than the epoch the log knows for its producer id: a zombie
	// of a producer that has since been re-initialised. It maps to Kafka's
	// INVALID_PRODUCER_EPOCH (47).
	ErrInvalidProducerEpoch = errors.New("log: producer epoch is older than the partition's")

	// ErrOutOfOrderSequence is returned for a batch of a known producer
	// whose base sequence does not follow the last one written (the last
	// sequence plus one, wrapping from MaxInt32 to 0), or that opens a new
	// producer epoch at a sequence other than 0. It maps to Kafka's
	// OUT_OF_ORDER_SEQUENCE_NUMBER (45).
	ErrOutOfOrderSequence = errors.New("log: out-of-order producer sequence number")
)

// BatchMetadata is what the log remembers of one of a producer's recent
// batches (Kafka's BatchMetadata, with both ends spelled out).
type BatchMetadata struct {
	// FirstSeq and LastSeq are the batch's base and last sequence numbers
	// (LastSeq = FirstSeq + LastOffset - FirstOffset, wrapping at MaxInt32).
	FirstSeq, LastSeq int32
	// FirstOffset and LastOffset are the offsets the batch was written at.
	FirstOffset, LastOffset uint64
	// MaxTimestamp is the batch's largest timestamp.
	MaxTimestamp int64
}

// ProducerState is the log's state for one producer id, as Producers and
// Producer return it (a copy).
type ProducerState struct {
	// ProducerID is the producer's id (>= 0).
	ProducerID int64
	// Epoch is the newest producer epoch written for it.
	Epoch int16
	// Batches are its last batches of that epoch, oldest first: 1 to
	// ProducerBatchesRetained of them.
	Batches []BatchMetadata
	// LastTimestamp is the MaxTimestamp of its last batch: what expiry
	// (RemoveExpiredProducers) measures its age by.
	LastTimestamp int64
}

// producerEntry is one producer's state: its epoch and a ring of its last
// batches. An entry always holds at least one batch. It is updated in
// place, so an append of a known producer allocates nothing.
type producerEntry struct {
	epoch   int16
	n, head uint8 // batches held; the oldest is batches[head]
	batches [ProducerBatchesRetained]BatchMetadata
}

// at returns the i-th oldest batch.
func (e *producerEntry) at(i int) *BatchMetadata {
	return &e.batches[(int(e.head)+i)%ProducerBatchesRetained]
}

// last returns the newest batch.
func (e *producerEntry) last() *BatchMetadata { return e.at(int(e.n) - 1) }

// add records a batch written under epoch (Kafka's addBatch): a new epoch
// forgets the previous epoch's batches; a full ring forgets its oldest.
func (e *producerEntry) add(epoch int16, b BatchMetadata) {
	if epoch != e.epoch {
		e.epoch, e.n, e.head = epoch, 0, 0
	}
	if int(e.n) == ProducerBatchesRetained {
		e.batches[e.head] = b
		e.head = (e.head + 1) % ProducerBatchesRetained
		return
	}
	*e.at(int(e.n)) = b
	e.n++
}

// find returns the cached batch with exactly this sequence range, if any
// (Kafka's batchWithSequenceRange).
func (e *producerEntry) find(firstSeq, lastSeq int32) (*BatchMetadata, bool) {
	for i := range int(e.n) {
		if b := e.at(i); b.FirstSeq == firstSeq && b.LastSeq == lastSeq {
			return b, true
		}
	}
	return nil, false
}

// state returns the exported copy of e.
func (e *producerEntry) state(id int64) ProducerState {
	s := ProducerState{ProducerID: id, Epoch: e.epoch, Batches: make([]BatchMetadata, e.n)}
	for i := range s.Batches {
		s.Batches[i] = *e.at(i)
	}
	s.LastTimestamp = e.last().MaxTimestamp
	return s
}

// producerMap is the state of every producer, by id.
type producerMap map[int64]*producerEntry

// incrementSequence returns seq advanced by n (>= 0), wrapping from
// MaxInt32 to 0, as Kafka's DefaultRecordBatch.incrementSequence.
func incrementSequence(seq, n int32) int32 {
	if seq > math.MaxInt32-n {
		return n - (math.MaxInt32 - seq) - 1
	}
	return seq + n
}

// inSequence reports whether next follows last (Kafka's inSequence).
func inSequence(last, next int32) bool {
	return int64(next) == int64(last)+1 || (next == 0 && last == math.MaxInt32)
}

// producerBatch is one batch of an idempotent producer, as an append
// applies it.
type producerBatch struct {
	id    int64
	epoch int16
	meta  BatchMetadata
}

// producerBatchOf describes the batch with header h written at h's offsets.
// ok is false for a batch without a producer id, for one whose epoch or
// base sequence is unset (no leader of kaenlog's accepts it; a follower
// keeps whatever its leader wrote, but such a batch says nothing about a
// sequence), and for control batches (kaenlog has no transactions).
func producerBatchOf(h *BatchHeader) (producerBatch, bool) {
	if h.ProducerID < 0 || h.ProducerEpoch < 0 || h.BaseSequence < 0 || h.Attributes&AttrControl != 0 {
		return producerBatch{}, false
	}
	return producerBatch{
		id:    h.ProducerID,
		epoch: h.ProducerEpoch,
		meta: BatchMetadata{
			FirstSeq:     h.BaseSequence,
			LastSeq:      incrementSequence(h.BaseSequence, h.LastOffsetDelta),
			FirstOffset:  h.BaseOffset,
			LastOffset:   h.BaseOffset + uint64(h.LastOffsetDelta),
			MaxTimestamp: h.MaxTimestamp,
		},
	}, true
}

// apply records b in m, without checks: a follower's batch, a batch
// replayed at recovery, or a leader's once its checks passed.
func (m producerMap) apply(b *producerBatch) {
	e := m[b.id]
	if e == nil {
		e = &producerEntry{epoch: b.epoch}
		m[b.id] = e
	}
	e.add(b.epoch, b.meta)
}

// check applies Kafka's rules to a leader's batch b of a producer (its
// offsets not yet assigned) in the order of UnifiedLog's
// analyzeAndValidateProducerState and ProducerAppendInfo:
//
//   - same epoch and the same sequence range as a cached batch: a
//     duplicate, returned (nothing is to be written);
//   - an epoch older than the known one: ErrInvalidProducerEpoch;
//   - a newer epoch must start at sequence 0, unless the producer is
//     unknown: ErrOutOfOrderSequence;
//   - the same epoch must continue the last sequence: ErrOutOfOrderSequence.
//
// A producer the log has no state for may start at any epoch and sequence
// (Kafka accepts it: its batches may have gone with retention). It also
// returns the producer's entry (nil if unknown), for the append to update.
func (m producerMap) check(b *producerBatch) (e *producerEntry, dup *BatchMetadata, err error) {
	e = m[b.id]
	if e == nil {
		return nil, nil, nil
	}
	if b.epoch == e.epoch {
		if d, ok := e.find(b.meta.FirstSeq, b.meta.LastSeq); ok {
			return e, d, nil
		}
	}
	switch {
	case b.epoch < e.epoch:
		return e, nil, fmt.Errorf("log: producer %d writes at epoch %d, the partition knows epoch %d: %w", b.id, b.epoch, e.epoch, ErrInvalidProducerEpoch)
	case b.epoch > e.epoch && b.meta.FirstSeq != 0:
		return e, nil, fmt.Errorf("log: producer %d opens epoch %d at sequence %d, not 0: %w", b.id, b.epoch, b.meta.FirstSeq, ErrOutOfOrderSequence)
	case b.epoch == e.epoch && !inSequence(e.last().LastSeq, b.meta.FirstSeq):
		return e, nil, fmt.Errorf("log: producer %d epoch %d sends sequence %d after %d: %w", b.id, b.epoch, b.meta.FirstSeq, e.last().LastSeq, ErrOutOfOrderSequence)
	}
	return e, nil, nil
}

// clone returns a deep copy of m.
func (m producerMap) clone() producerMap {
	c := make(producerMap, len(m))
	for id, e := range m {
		cp := *e
		c[id] = &cp
	}
	return c
}

// sortedIDs returns m's producer ids, ascending.
func (m producerMap) sortedIDs() []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Producers returns the state of every producer the log knows, by
// ascending producer id (copies).
func (l *Log) Producers() []ProducerState {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	out := make([]ProducerState, 0, len(l.producers))
	for _, id := range l.producers.sortedIDs() {
		out = append(out, l.producers[id].state(id))
	}
	return out
}

// Producer returns the state of producer id, if the log knows it.
func (l *Log) Producer(id int64) (ProducerState, bool) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	e, ok := l.producers[id]
	if !ok {
		return ProducerState{}, false
	}
	return e.state(id), true
}

// RemoveExpiredProducers forgets every producer whose last batch's
// timestamp is Options.ProducerIDExpirationMs or more before nowMs
// (Kafka's producer.id.expiration.ms, measured the same way), and returns
// how many it forgot. A producer with a batch at or above the high
// watermark is kept whatever its age: that batch is not committed, and a
// retry of it must still be recognised. Time is an argument, not a clock
// read. The change reaches disk with the next producer snapshot (Flush,
// Close).
func (l *Log) RemoveExpiredProducers(nowMs int64) (int, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if err := l.usable(); err != nil {
		return 0, err
	}
	hw := l.HighWatermark()
	ttl := l.opts.ProducerIDExpirationMs
	n := 0
	for id, e := range l.producers {
		last := e.last()
		if last.LastOffset >= hw || nowMs < math.MinInt64+ttl || nowMs-ttl < last.MaxTimestamp {
			continue
		}
		delete(l.producers, id)
		n++
	}
	if n > 0 {
		l.producersGen++
	}
	return n, nil
}
