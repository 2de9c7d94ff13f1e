package client

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/wire"
)

// Records whose partition the metadata does not give yet.
//
// Kafka's producer blocks send() in waitOnMetadata until the record's
// topic, and its partition if the record names one, are in the metadata,
// for at most max.block.ms; then it throws a TimeoutException. The
// producer here never blocks ProduceAsync for it: a record waits in the
// producer instead, and fails once ProducerConfig.MaxBlockMs has passed
// (ErrMetadataTimeout, naming the controller and the last cause). As
// franz-go's UnknownTopicRetries does, it also fails sooner, with
// UNKNOWN_TOPIC_OR_PARTITION, once UnknownTopicRetries metadata answers in
// a row, each fresh, say that its topic or partition does not exist.
//
// A record with a key under KeyPartitioner needs its topic's partition
// count before it has a partition at all: it waits in its topic's queue,
// its bytes copied, until the count is known, and is then put in its
// partition's batch; while a topic's queue is not empty every record of
// the topic joins it, keyed or not, so that a partition's records keep
// the order they were handed over in. A record with its partition named
// and no keyed record ahead of it goes to that partition's batch at once,
// and the partition's batches fail as above while the partition was never
// in the metadata (no batch of it was ever sent).

// waitingRecord is a record waiting in its topic's queue: a keyed one for
// its topic's partition count, an unkeyed one behind keyed ones.
type waitingRecord struct {
	rec       Record // Key, Value and Headers are the producer's copies
	keyed     bool   // its key chooses its partition (else rec.Partition)
	ts        int64  // its timestamp, taken when it was handed over
	createdMs int64
	size      int64 // what it counts against MaxBufferedBytes
	done      func(Offset, error)
	many      func(i, n int, first Offset, err error) // a ProduceManyAsync record's, with i
	i         int
	flushers  []*flushWaiter
}

// topicWait is one topic's queue of waiting records.
type topicWait struct {
	recs []waitingRecord
	// unknown counts the fresh metadata answers in a row that said the
	// topic does not exist; seen is the answer count last looked at.
	unknown int
	seen    uint64
}

// keyed reports whether rec's key chooses its partition.
func (p *Producer) keyed(rec *Record) bool {
	return rec.Key != nil && p.cfg.Partitioner == KeyPartitioner
}

// partitionNowLocked returns the partition rec goes to now, or wait true
// if it must join its topic's queue: it is keyed and its topic's
// partition count is not known, or earlier records of its topic wait
// there (a record of any kind then joins them, so that a partition's
// records keep the order they were handed over in, as Kafka's send(),
// which blocks in waitOnMetadata, keeps it). An unkeyed record naming a
// negative partition is refused here, as partitionLocked refuses it.
func (p *Producer) partitionNowLocked(rec *Record) (part int32, wait bool, err error) {
	keyed := p.keyed(rec)
	if p.waiting[rec.Topic] != nil {
		if !keyed && rec.Partition < 0 {
			return 0, false, fmt.Errorf("client: %s: %w", TopicPartition{rec.Topic, rec.Partition}, wire.ErrInvalidPartition)
		}
		return 0, true, nil
	}
	if !keyed {
		return rec.Partition, false, nil
	}
	n, ok, _, _ := p.c.meta.partitions(rec.Topic)
	if !ok || n <= 0 {
		return 0, true, nil
	}
	return PartitionForKey(rec.Key, n), false, nil
}

// waitLocked queues a keyed record until its topic's partition count is
// known (and places it at once if it now is). It refuses what
// ProduceAsync refuses: an invalid topic, a negative timestamp, a record
// larger than MaxRecordBytes, a full buffer.
func (p *Producer) waitLocked(rec *Record, done func(Offset, error), many func(i, n int, first Offset, err error), i int) error {
	if err := wire.ValidateTopic(rec.Topic); err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if rec.TimestampMs < 0 {
		return fmt.Errorf("client: topic %s: record timestamp %d is negative: %w", rec.Topic, rec.TimestampMs, wire.ErrInvalidRecord)
	}
	n, ok := recordSize(rec)
	if !ok || log.BatchHeaderSize+n > p.cfg.MaxRecordBytes {
		return fmt.Errorf("client: topic %s: %w", rec.Topic, p.tooLarge(rec, n, ok))
	}
	size := int64(n)
	if p.buffered > 0 && p.buffered+size > p.cfg.MaxBufferedBytes {
		return ErrBufferFull
	}
	now := p.c.clock.NowMs()
	ts := rec.TimestampMs
	if ts == 0 {
		ts = now
	}
	w := waitingRecord{
		rec: Record{
			Topic: rec.Topic, Key: slices.Clone(rec.Key), Value: slices.Clone(rec.Value),
			Headers: cloneHeaders(rec.Headers), TimestampMs: rec.TimestampMs,
			Partition: rec.Partition,
		},
		keyed: p.keyed(rec), ts: ts, createdMs: now, size: size, done: done, many: many, i: i,
	}
	tw := p.waiting[rec.Topic]
	if tw == nil {
		tw = &topicWait{}
		_, _, tw.seen, _ = p.c.meta.partitions(rec.Topic)
		p.waiting[rec.Topic] = tw
		p.waitOrder = append(p.waitOrder, rec.Topic)
	}
	tw.recs = append(tw.recs, w)
	p.buffered += size
	p.c.meta.follow(rec.Topic)
	p.placeLocked(rec.Topic, tw, now)
	return nil
}

// cloneHeaders copies headers, keys and values.
func cloneHeaders(hs []Header) []Header {
	if hs == nil {
		return nil
	}
	out := make([]Header, len(hs))
	for i, h := range hs {
		out[i] = Header{Key: h.Key, Value: slices.Clone(h.Value)} // nil stays nil, empty empty
	}
	return out
}

// placeLocked puts topic's waiting records in their partitions' batches
// if the topic's partition count is known; otherwise it counts a fresh
// answer that said the topic does not exist, fails the records once
// UnknownTopicRetries did, and asks for metadata again.
func (p *Producer) placeLocked(topic string, tw *topicWait, now int64) {
	n, ok, answers, err := p.c.meta.partitions(topic)
	if !ok || n <= 0 {
		if err != nil && errors.Is(err, wire.ErrUnknownTopicOrPartition) && answers != tw.seen {
			tw.seen = answers
			tw.unknown++
			if r := p.cfg.UnknownTopicRetries; r >= 0 && tw.unknown >= r {
				p.failWaitingLocked(topic, fmt.Errorf("client: topic %s: the last %d metadata answers of the controller at %s name no topic %s: %w",
					topic, tw.unknown, p.c.cfg.Controller, topic, wire.ErrUnknownTopicOrPartition))
				return
			}
		} else if err == nil || !errors.Is(err, wire.ErrUnknownTopicOrPartition) {
			tw.unknown = 0
			tw.seen = answers
		}
		if err != nil && !wire.IsRetriable(err) {
			// An invalid topic, say: no answer will change it.
			p.failWaitingLocked(topic, fmt.Errorf("client: topic %s: %w", topic, err))
			return
		}
		p.c.meta.refresh(topic)
		return
	}
	p.dropWaitLocked(topic)
	p.placing = true
	defer func() { p.placing = false }()
	nowp := now
	for k := range tw.recs {
		w := &tw.recs[k]
		p.buffered -= w.size
		if w.keyed {
			w.rec.Partition = PartitionForKey(w.rec.Key, n)
		}
		part, err := p.partitionLocked(&w.rec)
		var b *batch
		if err == nil {
			b, err = p.appendLocked(part, &w.rec, w.ts, &nowp, false)
		}
		if err != nil {
			p.buffered += w.size
			p.failOneLocked(w, err)
			continue
		}
		if w.many != nil {
			b.runs = append(b.runs, doneRun{done: w.many, i: w.i, at: b.count - 1, n: 1})
		} else {
			b.dones = append(b.dones, w.done)
		}
		b.flushers = append(b.flushers, w.flushers...)
	}
}

// dropWaitLocked forgets topic's queue.
func (p *Producer) dropWaitLocked(topic string) {
	delete(p.waiting, topic)
	if i := slices.Index(p.waitOrder, topic); i >= 0 {
		p.waitOrder = slices.Delete(p.waitOrder, i, i+1)
	}
}

// failWaitingLocked fails every record waiting for topic with err.
func (p *Producer) failWaitingLocked(topic string, err error) {
	tw := p.waiting[topic]
	p.dropWaitLocked(topic)
	for k := range tw.recs {
		p.failOneLocked(&tw.recs[k], err)
	}
}

// failOneLocked queues a waiting record's failure for the completer and
// frees its room.
func (p *Producer) failOneLocked(w *waitingRecord, err error) {
	b := &batch{count: 1, flushers: w.flushers}
	if w.many != nil {
		b.runs = []doneRun{{done: w.many, i: w.i, at: 0, n: 1}}
	} else {
		b.dones = []func(Offset, error){w.done}
	}
	p.done = append(p.done, completion{b: b, off: Offset{Topic: w.rec.Topic}, err: err})
	p.buffered -= w.size
	if p.room != nil {
		close(p.room)
		p.room = nil
	}
}

// checkMissingLocked runs after every metadata refresh: waiting records
// whose topic is now known are placed, and a partition never in the
// metadata whose topic or index fresh answers keep denying fails its
// records once UnknownTopicRetries answers in a row did.
func (p *Producer) checkMissingLocked(now int64) {
	for _, topic := range slices.Clone(p.waitOrder) {
		if tw := p.waiting[topic]; tw != nil {
			p.placeLocked(topic, tw, now)
		}
	}
	for _, part := range p.order {
		if part.everSent {
			continue
		}
		n, known, answers, _ := p.c.meta.partitions(part.tp.Topic)
		_, _, _, err := p.c.meta.leader(part.tp)
		if (part.open == nil && len(part.batches) == 0) || err == nil || !errors.Is(err, wire.ErrUnknownTopicOrPartition) {
			part.unknown, part.seenAnswers = 0, answers
			continue
		}
		if answers == part.seenAnswers {
			continue
		}
		part.seenAnswers = answers
		part.unknown++
		if r := p.cfg.UnknownTopicRetries; r < 0 || part.unknown < r {
			continue
		}
		var what string
		if known {
			what = fmt.Sprintf("give topic %s %d partitions, 0 to %d", part.tp.Topic, n, n-1)
		} else {
			what = fmt.Sprintf("name no topic %s", part.tp.Topic)
		}
		p.failPartitionLocked(part, fmt.Errorf("client: %s: the last %d metadata answers of the controller at %s %s: %w",
			part.tp, part.unknown, p.c.cfg.Controller, what, wire.ErrUnknownTopicOrPartition), -1)
		part.unknown = 0
	}
}

// failPartitionLocked fails the batches of a partition never sent to,
// all of them or (beforeMs >= 0) those created at or before beforeMs.
// None has a sequence, so no gap follows.
func (p *Producer) failPartitionLocked(part *partition, err error, beforeMs int64) {
	if part.open != nil && (beforeMs < 0 || part.open.createdMs <= beforeMs) {
		part.seal()
	}
	var failed []*batch
	for _, b := range part.batches {
		if beforeMs < 0 || b.createdMs <= beforeMs {
			failed = append(failed, b)
		}
	}
	for _, b := range failed {
		p.failLocked(b, err)
	}
}

// expireMissingLocked fails what waited MaxBlockMs for metadata: keyed
// records for a topic not yet known, and the batches of a partition never
// in the metadata.
func (p *Producer) expireMissingLocked(now int64) {
	limit := now - p.cfg.MaxBlockMs
	for _, topic := range slices.Clone(p.waitOrder) {
		tw := p.waiting[topic]
		k := 0
		for k < len(tw.recs) && tw.recs[k].createdMs <= limit {
			k++
		}
		if k == 0 {
			continue
		}
		_, _, _, cause := p.c.meta.partitions(topic)
		err := p.c.meta.timeoutError("topic "+topic, "ProducerConfig.MaxBlockMs", p.cfg.MaxBlockMs, cause)
		for j := range k {
			p.failOneLocked(&tw.recs[j], err)
		}
		tw.recs = tw.recs[k:]
		if len(tw.recs) == 0 {
			p.dropWaitLocked(topic)
		}
	}
	for _, part := range p.order {
		if part.everSent {
			continue
		}
		oldest, ok := part.oldestMs()
		if !ok || oldest > limit {
			continue
		}
		_, _, _, err := p.c.meta.leader(part.tp)
		if err == nil || !(errors.Is(err, errNoMetadata) || errors.Is(err, wire.ErrUnknownTopicOrPartition)) {
			continue // the partition exists: its records wait for a leader, up to their delivery timeout
		}
		p.failPartitionLocked(part, p.c.meta.timeoutError(part.tp.String(), "ProducerConfig.MaxBlockMs", p.cfg.MaxBlockMs, err), limit)
	}
}

// oldestMs returns when part's oldest unresolved batch was created.
func (part *partition) oldestMs() (int64, bool) {
	if len(part.batches) > 0 {
		return part.batches[0].createdMs, true
	}
	if part.open != nil {
		return part.open.createdMs, true
	}
	return 0, false
}

// nextMissingMs is the earliest moment expireMissingLocked has work. It
// runs in every Tick right after expireLocked, so the tick's expiredMs is
// the last look at these deadlines too.
func (p *Producer) nextMissingMs(at func(ms, seen int64)) {
	for _, topic := range p.waitOrder {
		if tw := p.waiting[topic]; len(tw.recs) > 0 {
			at(tw.recs[0].createdMs+p.cfg.MaxBlockMs, p.expiredMs)
		}
	}
	for _, part := range p.order {
		if oldest, ok := part.oldestMs(); ok && !part.everSent {
			at(oldest+p.cfg.MaxBlockMs, p.expiredMs)
		}
	}
}

// failAllWaitingLocked fails every waiting record (Close).
func (p *Producer) failAllWaitingLocked(err error) {
	for _, topic := range slices.Clone(p.waitOrder) {
		p.failWaitingLocked(topic, err)
	}
}

// flushWaitingLocked makes w wait for every waiting record too.
func (p *Producer) flushWaitingLocked(w *flushWaiter) {
	for _, topic := range p.waitOrder {
		tw := p.waiting[topic]
		for k := range tw.recs {
			tw.recs[k].flushers = append(tw.recs[k].flushers, w)
			w.left++
		}
	}
}
