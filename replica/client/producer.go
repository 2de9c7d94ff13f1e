package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// Acks is how many replicas must hold a batch before its leader answers.
// The zero value is AcksAll, Kafka's default since 3.0.
type Acks uint8

const (
	// AcksAll waits until every in-sync replica has the batch (the high
	// watermark passed it): wire.AcksAll, -1. The leader refuses it while
	// the ISR is below min.insync.replicas (NOT_ENOUGH_REPLICAS).
	AcksAll Acks = iota
	// AcksLeader waits for the leader's append only: wire.AcksLeader, 1.
	AcksLeader
	// AcksNone waits for nothing; no broker answers: wire.AcksNone, 0.
	AcksNone
)

// Wire returns the value a ProduceRequest carries: wire.AcksAll,
// wire.AcksLeader or wire.AcksNone.
func (a Acks) Wire() int16 {
	switch a {
	case AcksLeader:
		return wire.AcksLeader
	case AcksNone:
		return wire.AcksNone
	}
	return wire.AcksAll
}

// String returns "all", "1" or "0", as Kafka's acks setting reads.
func (a Acks) String() string {
	switch a {
	case AcksLeader:
		return "1"
	case AcksNone:
		return "0"
	}
	return "all"
}

// Defaults of ProducerConfig, Kafka's producer's.
const (
	DefaultBatchBytes        = 16384    // batch.size
	DefaultMaxInFlight       = 5        // max.in.flight.requests.per.connection
	DefaultAckTimeoutMs      = 30000    // request.timeout.ms, which Kafka sends as the produce timeout
	DefaultDeliveryTimeoutMs = 120000   // delivery.timeout.ms
	DefaultMaxBufferedBytes  = 32 << 20 // buffer.memory
	DefaultMaxRecordBytes    = 1 << 20  // max.request.size
	DefaultMaxBlockMs        = 60000    // max.block.ms
	// DefaultUnknownTopicRetries is franz-go's UnknownTopicRetries default:
	// Kafka's producer has none (it waits max.block.ms).
	DefaultUnknownTopicRetries = 4
	maxIdempotentInFlight      = 5 // the broker remembers 5 batches per producer
)

// ProducerConfig configures a Producer. Zero fields take the defaults.
type ProducerConfig struct {
	// Acks is AcksAll (the default), AcksLeader or AcksNone.
	Acks Acks
	// DisableIdempotence turns idempotence off. With AcksAll the producer
	// is idempotent by default (Kafka's default since 3.0): a producer id
	// from the controller, a sequence per partition, retries with the
	// same bytes, so a retried batch is never written twice. With
	// AcksLeader or AcksNone it is never idempotent, and a retry may
	// duplicate a batch (as in Kafka).
	DisableIdempotence bool
	// LingerMs is how long a batch waits for more records before it is
	// sent (Kafka's linger.ms; 0, the default, sends at once — records
	// still gather while earlier batches are in flight).
	LingerMs int64
	// BatchBytes bounds a batch's encoded size (Kafka's batch.size): a
	// batch is sent once the next record would not fit. A record larger
	// than it goes in a batch of its own. Default DefaultBatchBytes.
	BatchBytes int
	// MaxInFlight bounds the batches of one partition sent and not yet
	// answered (at most 5 when idempotent: the broker answers a duplicate
	// from its last 5). Default DefaultMaxInFlight.
	MaxInFlight int
	// AckTimeoutMs is how long a leader may wait for the ISR before it
	// answers an AcksAll batch REQUEST_TIMED_OUT (the ProduceRequest's
	// TimeoutMs). The client waits Config.RequestTimeoutMs longer for the
	// answer. Default DefaultAckTimeoutMs.
	AckTimeoutMs int64
	// DeliveryTimeoutMs bounds a record's life in the producer, retries
	// included (Kafka's delivery.timeout.ms): a record not acknowledged
	// by then fails with ErrDeliveryTimeout. A batch in flight fails once
	// its answer (or the request's timeout) comes. It must be at least
	// LingerMs + AckTimeoutMs. Default DefaultDeliveryTimeoutMs.
	DeliveryTimeoutMs int64
	// MaxBufferedBytes bounds the encoded records held, from Produce to
	// their outcome (Kafka's buffer.memory). Default
	// DefaultMaxBufferedBytes.
	MaxBufferedBytes int64
	// MaxRecordBytes bounds every record, measured as in a batch of its
	// own, whichever batch it joins; a larger one is refused with an error
	// matching wire.ErrMessageTooLarge (Kafka's max.request.size, which its
	// producer checks for each record). It bounds a produce request's
	// batches too, unless the request carries one batch alone. Default
	// DefaultMaxRecordBytes.
	MaxRecordBytes int
	// MaxBlockMs bounds two waits (Kafka's max.block.ms): a record's wait
	// for its topic and partition to appear in the metadata — a record
	// still waiting after MaxBlockMs fails with an error matching
	// ErrMetadataTimeout that names the controller's address and the
	// last cause, such as a refused connection — and the wait of Produce
	// and Send for room in a full buffer (then ErrBufferFull). Default
	// DefaultMaxBlockMs.
	MaxBlockMs int64
	// UnknownTopicRetries is how many metadata answers in a row, each
	// asked for after the record was handed over, may say that a record's
	// topic or partition does not exist before the record fails with an
	// error matching wire.ErrUnknownTopicOrPartition (franz-go's
	// UnknownTopicRetries; Kafka's producer waits MaxBlockMs instead).
	// -1 never fails them so: MaxBlockMs still does. Default
	// DefaultUnknownTopicRetries.
	UnknownTopicRetries int
	// Partitioner chooses each record's partition: KeyPartitioner (the
	// default: a record with a key goes where Kafka's default partitioner
	// puts it) or ManualPartitioner (Record.Partition, always).
	Partitioner Partitioner
}

// Producer sends records to partition leaders in batches. It is safe for
// concurrent use. Records are handed over with Produce (which waits for
// the outcome) or ProduceAsync (which calls back), and Flush waits for
// everything handed over so far.
type Producer struct {
	c    *Client
	cfg  ProducerConfig
	acks int16
	idem bool

	mu        sync.Mutex
	closed    bool
	closedCh  chan struct{}
	driver    *clock.Driver
	parts     map[TopicPartition]*partition
	order     []*partition // parts in the order they were first used
	last      *partition   // the partition of the last record, looked up first
	buffered  int64
	room      chan struct{} // made when a record waits for room, closed when buffered shrinks
	back      *backoff
	resp      wire.ProduceResponse // decoding scratch, under mu
	done      []completion         // outcomes to hand to the completer after the event
	dests     []*produceCall       // drainLocked's scratch
	freeCalls []*produceCall       // answered calls, for reuse

	watch chan struct{} // closed after the next event; made only when a test waits

	// drainedMs and expiredMs are the clock readings the last drainLocked
	// and the last expireLocked went by: NextTickMs leaves out only the
	// moments they already looked at (see there).
	drainedMs, expiredMs int64

	ident        producerIdent // the producer id and epoch for new sequences
	initing      bool          // an InitProducerId is in flight
	initFailures int
	initRetryAt  int64

	cq *completer

	// spares are answered batches kept for new ones, their buffers
	// BatchBytes large: batchPool loses what it holds at every garbage
	// collection, and a buffer made anew is zeroed first (1 MB for large
	// batches). At most maxSpares; the completer gives them back.
	spareMu   sync.Mutex
	spares    []*batch
	maxSpares int

	resends atomic.Int64 // batches sent again, for tests
	onBlock func()       // told when Send begins to wait for room, for tests

	// waiting holds keyed records whose topic's partition count is not
	// known yet, per topic, in waitOrder (missing.go); placing is set
	// while they are put in batches, whose room they already hold.
	waiting   map[string]*topicWait
	waitOrder []string
	placing   bool
}

// partition is one partition's batches in the producer.
type partition struct {
	tp      TopicPartition
	open    *batch   // taking records
	batches []*batch // sealed and not yet resolved, in record order
	// inflight counts batches sent and not yet answered, all to the
	// broker inflightTo: a partition never has batches in flight to two
	// leaders, or a newer batch could reach a new leader first.
	inflight   int
	inflightTo int32
	// retryAt is when the partition may send again after an error;
	// attempts counts errors since its last success.
	retryAt  int64
	attempts int
	lastErr  error // why the partition could not send, for a delivery timeout

	ident    producerIdent // the producer id and epoch of its sequences
	nextSeq  int32         // the next batch's base sequence
	needBump bool          // a sequence gap: the next sequence needs a new epoch
	// sequencedBatches counts the batches sequenced so far, so that a
	// batch's ordinal tells how many were sequenced after it (windowRoom).
	sequencedBatches uint64

	// everSent is set once a batch of the partition was sent: until then
	// the metadata may deny the partition, and its records fail after
	// UnknownTopicRetries such answers or MaxBlockMs (missing.go).
	everSent    bool
	unknown     int    // fresh answers in a row that denied the partition
	seenAnswers uint64 // the metadata's answer count last looked at
}

// NewProducer returns a producer on c.
func (c *Client) NewProducer(cfg ProducerConfig) (*Producer, error) {
	if cfg.Acks > AcksNone {
		return nil, configError("ProducerConfig.Acks", "%d is not AcksAll (%d), AcksLeader (%d) or AcksNone (%d)", cfg.Acks, AcksAll, AcksLeader, AcksNone)
	}
	if cfg.Partitioner > ManualPartitioner {
		return nil, configError("ProducerConfig.Partitioner", "%d is not KeyPartitioner (%d) or ManualPartitioner (%d)", cfg.Partitioner, KeyPartitioner, ManualPartitioner)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"LingerMs", cfg.LingerMs}, {"BatchBytes", int64(cfg.BatchBytes)}, {"MaxInFlight", int64(cfg.MaxInFlight)},
		{"AckTimeoutMs", cfg.AckTimeoutMs}, {"DeliveryTimeoutMs", cfg.DeliveryTimeoutMs},
		{"MaxBufferedBytes", cfg.MaxBufferedBytes}, {"MaxRecordBytes", int64(cfg.MaxRecordBytes)}, {"MaxBlockMs", cfg.MaxBlockMs},
	} {
		if f.v < 0 {
			return nil, configError("ProducerConfig."+f.name, "%d is negative (0 takes the default)", f.v)
		}
	}
	if cfg.UnknownTopicRetries < -1 {
		return nil, configError("ProducerConfig.UnknownTopicRetries", "%d is below -1 (-1: never; 0 takes the default)", cfg.UnknownTopicRetries)
	}
	cfg.BatchBytes = cmp.Or(cfg.BatchBytes, DefaultBatchBytes)
	cfg.MaxInFlight = cmp.Or(cfg.MaxInFlight, DefaultMaxInFlight)
	cfg.AckTimeoutMs = cmp.Or(cfg.AckTimeoutMs, DefaultAckTimeoutMs)
	cfg.DeliveryTimeoutMs = cmp.Or(cfg.DeliveryTimeoutMs, DefaultDeliveryTimeoutMs)
	cfg.MaxBufferedBytes = cmp.Or(cfg.MaxBufferedBytes, DefaultMaxBufferedBytes)
	cfg.MaxRecordBytes = cmp.Or(cfg.MaxRecordBytes, DefaultMaxRecordBytes)
	cfg.MaxBlockMs = cmp.Or(cfg.MaxBlockMs, DefaultMaxBlockMs)
	cfg.UnknownTopicRetries = cmp.Or(cfg.UnknownTopicRetries, DefaultUnknownTopicRetries)
	idem := cfg.Acks == AcksAll && !cfg.DisableIdempotence
	if idem && cfg.MaxInFlight > maxIdempotentInFlight {
		return nil, configError("ProducerConfig.MaxInFlight", "%d is above %d, which idempotence allows (the broker remembers 5 batches per producer): lower it, or set DisableIdempotence", cfg.MaxInFlight, maxIdempotentInFlight)
	}
	if cfg.AckTimeoutMs > math.MaxInt32 {
		return nil, configError("ProducerConfig.AckTimeoutMs", "%d is above %d, the most a produce request carries", cfg.AckTimeoutMs, math.MaxInt32)
	}
	if cfg.DeliveryTimeoutMs < cfg.LingerMs+cfg.AckTimeoutMs {
		return nil, configError("ProducerConfig.DeliveryTimeoutMs", "%d is below LingerMs + AckTimeoutMs = %d + %d: a record could time out before its first answer (Kafka's rule for delivery.timeout.ms)", cfg.DeliveryTimeoutMs, cfg.LingerMs, cfg.AckTimeoutMs)
	}
	// A request goes out as one frame, and a broker closes the connection
	// on a frame above its server.Config.MaxFrameSize (by default
	// wire.DefaultMaxFrameSize, as the client's Config.MaxFrameSize): a
	// batch or request that cannot fit
	// would be retried until its delivery timeout.
	if room := c.maxRequestBatchBytes(); cfg.MaxRecordBytes > room {
		return nil, configError("ProducerConfig.MaxRecordBytes", "%d leaves no room for a produce request's other fields in a frame of Config.MaxFrameSize %d: at most %d", cfg.MaxRecordBytes, c.cfg.MaxFrameSize, room)
	} else if cfg.BatchBytes > room {
		return nil, configError("ProducerConfig.BatchBytes", "%d leaves no room for a produce request's other fields in a frame of Config.MaxFrameSize %d: at most %d", cfg.BatchBytes, c.cfg.MaxFrameSize, room)
	}
	p := &Producer{
		c: c, cfg: cfg, acks: cfg.Acks.Wire(), idem: idem,
		closedCh: make(chan struct{}),
		parts:    map[TopicPartition]*partition{},
		back:     c.newBackoff(),
		waiting:  map[string]*topicWait{},
	}
	// Spares of at most MaxBufferedBytes in all (besides the batches
	// alive, unlike Kafka's BufferPool: see the package doc). There are never
	// more than the batches that were alive at once, which full batches
	// of MaxBufferedBytes bound.
	p.maxSpares = int(cfg.MaxBufferedBytes / int64(cfg.BatchBytes))
	p.cq = newCompleter(p.recycle)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.producers[p] = struct{}{}
	c.mu.Unlock()
	if !c.track.goroutine(p.cq.run) {
		return nil, ErrClosed
	}
	p.driver = clock.NewDriver(c.clock, &p.mu, (*producerTicker)(p), p.afterTickLocked)
	c.meta.listen(p)
	return p, nil
}

// Produce hands rec to the producer and waits for its outcome: where it
// landed, or why it failed. If the producer holds MaxBufferedBytes it
// first waits for room, as Send does: up to MaxBlockMs (then an error
// matching ErrBufferFull). If ctx ends first, Produce returns ctx.Err(),
// and a record already handed over may still be written.
func (p *Producer) Produce(ctx context.Context, rec Record) (Offset, error) {
	type result struct {
		off Offset
		err error
	}
	ch := make(chan result, 1)
	done := func(off Offset, err error) { ch <- result{off, err} }
	if err := p.send(ctx, &rec, done); err != nil {
		return Offset{}, err
	}
	select {
	case r := <-ch:
		return r.off, r.err
	case <-ctx.Done():
		return Offset{}, ctx.Err()
	}
}

// Send hands rec to the producer as ProduceAsync does, but when the
// buffer is full (the producer holds MaxBufferedBytes) it waits for room,
// as Kafka's KafkaProducer.send does: for at most MaxBlockMs on the
// client's clock, then it returns an error matching ErrBufferFull; or
// until ctx ends (ctx.Err()) or the producer closes (ErrClosed). It does
// not wait for anything else — a record whose topic is not in the
// metadata yet waits in the producer, not in Send (see MaxBlockMs) — and
// done is called as ProduceAsync's is, never if Send returns an error.
func (p *Producer) Send(ctx context.Context, rec Record, done func(Offset, error)) error {
	return p.send(ctx, &rec, done)
}

// send is Send.
func (p *Producer) send(ctx context.Context, rec *Record, done func(Offset, error)) error {
	var expired chan struct{}
	for {
		room, err := p.produce(rec, done)
		if err == nil || room == nil {
			return err
		}
		if expired == nil {
			expired = make(chan struct{})
			t := p.c.clock.AfterFunc(p.cfg.MaxBlockMs, func() { close(expired) })
			defer t.Stop()
			if p.onBlock != nil {
				p.onBlock()
			}
		}
		select {
		case <-room:
		case <-expired:
			return fmt.Errorf("client: topic %s: %w: no room within ProducerConfig.MaxBlockMs %d ms (MaxBufferedBytes %d held by records not yet acknowledged)",
				rec.Topic, ErrBufferFull, p.cfg.MaxBlockMs, p.cfg.MaxBufferedBytes)
		case <-ctx.Done():
			return ctx.Err()
		case <-p.closedCh:
			return ErrClosed
		}
	}
}

// ProduceAsync hands rec to the producer and returns at once, never
// waiting (Send waits for room in a full buffer). If it
// returns an error (ErrClosed, ErrBufferFull, an invalid topic or
// partition, a record too large, a negative timestamp), done is never
// called. Otherwise done is
// called exactly once with the record's outcome, from a goroutine of the
// producer's that calls every outcome in turn: done must not block for
// long, and may call the producer. nil done discards the outcome.
func (p *Producer) ProduceAsync(rec Record, done func(Offset, error)) error {
	_, err := p.produce(&rec, done)
	return err
}

// tooLarge is the refusal of rec, which alone encodes in n bytes (ok
// false: too large to count), above MaxRecordBytes.
func (p *Producer) tooLarge(rec *Record, n int, ok bool) error {
	size := int64(len(rec.Key)) + int64(len(rec.Value))
	if ok {
		size = int64(log.BatchHeaderSize + n)
	}
	return fmt.Errorf("record of %d bytes (in a batch of its own) is larger than ProducerConfig.MaxRecordBytes %d: %w", size, p.cfg.MaxRecordBytes, wire.ErrMessageTooLarge)
}

// discard is the outcome callback of a record whose outcome nobody wants.
func discard(Offset, error) {}

// produce adds rec to its partition's open batch. When it refuses rec for
// lack of room it returns the channel closed when room frees up.
func (p *Producer) produce(rec *Record, done func(Offset, error)) (chan struct{}, error) {
	if done == nil {
		done = discard
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	n, wait, err := p.partitionNowLocked(rec)
	if err != nil {
		return nil, err
	}
	if wait {
		err := p.waitLocked(rec, done, nil, 0)
		if err == ErrBufferFull {
			if p.room == nil {
				p.room = make(chan struct{})
			}
			return p.room, err
		}
		if err == nil {
			p.afterLocked(p.c.clock.NowMs())
		}
		return nil, err
	}
	rec.Partition = n
	part := p.last
	if part == nil || part.tp.Topic != rec.Topic || part.tp.Partition != rec.Partition {
		var err error
		if part, err = p.partitionLocked(rec); err != nil {
			return nil, err
		}
	}
	// The clock is read only when something needs it: a record without
	// its own timestamp, a new batch. Reading it costs more than the rest
	// of a record's encoding on some machines.
	now := int64(-1)
	ts := rec.TimestampMs
	if ts == 0 {
		now = p.c.clock.NowMs()
		ts = now
	}
	b, err := p.appendLocked(part, rec, ts, &now, false)
	if err != nil {
		if err == ErrBufferFull {
			if p.room == nil {
				p.room = make(chan struct{})
			}
			return p.room, err
		}
		return nil, err
	}
	b.dones = append(b.dones, done)
	if b.count == 1 || len(b.buf) >= p.cfg.BatchBytes {
		if now < 0 {
			now = p.c.clock.NowMs()
		}
		p.afterLocked(now)
	}
	return nil, nil
}

// partitionLocked returns the partition rec goes to, made on first use,
// and makes it the one looked up first.
func (p *Producer) partitionLocked(rec *Record) (*partition, error) {
	tp := TopicPartition{rec.Topic, rec.Partition}
	part := p.parts[tp]
	if part == nil {
		if err := wire.ValidateTopic(tp.Topic); err != nil {
			return nil, fmt.Errorf("client: %w", err)
		}
		if tp.Partition < 0 {
			return nil, fmt.Errorf("client: %s: %w", tp, wire.ErrInvalidPartition)
		}
		part = &partition{tp: tp}
		_, _, part.seenAnswers, _ = p.c.meta.partitions(tp.Topic)
		p.parts[tp] = part
		p.order = append(p.order, part)
		p.c.meta.follow(tp.Topic)
	}
	p.last = part
	return part, nil
}

// surelySmall reports whether rec, headers aside, is certainly within
// MaxRecordBytes: its key and value leave room for the largest framing a
// record can have (five varints of at most 5 bytes and two bytes more).
func (p *Producer) surelySmall(rec *Record) bool {
	return len(rec.Headers) == 0 && len(rec.Key)+len(rec.Value) <= p.cfg.MaxRecordBytes-log.BatchHeaderSize-27
}

// appendLocked encodes rec, stamped ts, into part's open batch, sealing
// the open batch first if rec does not fit and opening a new one, and
// returns the batch it went to. *now is the clock's reading, or -1: it is
// read when a new batch needs it. drainOnSeal sends what may go right
// after a full batch is sealed, before the next one opens (so that a
// sealed batch need not wait for the end of a ProduceManyAsync call, and
// the new one does not go with one record). It refuses rec with
// ErrBufferFull, or with the error of a record too large, and then
// changes nothing but the seal.
func (p *Producer) appendLocked(part *partition, rec *Record, ts int64, now *int64, drainOnSeal bool) (*batch, error) {
	if rec.TimestampMs < 0 {
		// Its delta from a batch's other timestamps could leave int64,
		// and the leader would refuse the whole batch.
		return nil, fmt.Errorf("client: %s: record timestamp %d is negative: %w", part.tp, rec.TimestampMs, wire.ErrInvalidRecord)
	}
	// Measured alone, so that whether a record is taken does not depend
	// on the batch it happens to meet; a record surely small need not be.
	alone := -1
	if !p.surelySmall(rec) {
		var ok bool
		if alone, ok = recordSize(rec); !ok || log.BatchHeaderSize+alone > p.cfg.MaxRecordBytes {
			return nil, fmt.Errorf("client: %s: %w", part.tp, p.tooLarge(rec, alone, ok))
		}
	}
	b := part.open
	var n int
	if b != nil {
		var ok bool
		if n, ok = b.size(rec, ts); !ok || len(b.buf)+n > p.cfg.BatchBytes {
			part.seal()
			b = nil
			if drainOnSeal {
				if *now < 0 {
					*now = p.c.clock.NowMs()
				}
				p.drainLocked(*now)
			}
		}
	}
	if b == nil {
		if alone < 0 {
			alone, _ = recordSize(rec) // small: it encodes
		}
		n = alone
	}
	size := int64(n)
	if !p.placing && p.buffered > 0 && p.buffered+size > p.cfg.MaxBufferedBytes {
		return nil, ErrBufferFull
	}
	if b == nil {
		if *now < 0 {
			*now = p.c.clock.NowMs()
		}
		b = p.newBatch(part, *now, int(size))
		part.open = b
	}
	b.add(rec, ts)
	b.bytes += size
	p.buffered += size
	return b, nil
}

// ProduceManyAsync hands recs to the producer, in order, and returns how
// many it took: len(recs), or the number before the record it refused and
// the error ProduceAsync would have refused that record with (ErrClosed,
// ErrBufferFull, an invalid topic or partition, a record too large, a
// negative timestamp).
// Records not taken are never written and done says nothing of them.
//
// It exists for throughput: Kafka's producer takes one record at a time,
// and so does ProduceAsync, which takes the producer's lock, may read the
// clock and keeps a callback for every record. ProduceManyAsync does each
// of those once per call (or per batch the records fill), as franz-go's
// ProduceSync takes many records at once. The records of a call may name
// any partitions; runs of consecutive records of one partition are what
// it handles fastest.
//
// Records of one call whose TimestampMs is 0 all get the same CreateTime:
// the clock is read once for the call, and that reading is also when the
// batches the call opens were created, from which their LingerMs and
// DeliveryTimeoutMs count.
//
// recs is read only during the call (Key, Value and Headers are copied),
// so the caller may reuse it once the call returns. A record taken is in
// a batch, and the batch goes by the usual rules: a call does not wait for
// its records to be sent, and a batch it fills may be sent before the
// call ends.
// The call holds the producer throughout, so brokers' answers wait for
// its end: calls of a few thousand records keep that wait short.
//
// done, unless nil, is called once for each run of taken records that went
// into one batch: recs[i:i+n], consecutive in recs, of one partition, with
// their outcome. On success first is the Offset of recs[i], and recs[i+k]
// is at first.Offset+k (first.HasOffset is false with acks=0: nobody
// knows). A call's records may fill several batches, and each batch has
// its own outcome, so done may report runs of one call with different
// outcomes, and not necessarily in the order of recs: it is called from
// the goroutine that calls ProduceAsync's callbacks, in the order outcomes
// are decided. done must not block for long, and may call the producer.
// Every other rule is ProduceAsync's: batching by BatchBytes and
// LingerMs, retries, idempotence, MaxBufferedBytes (a call may be taken in
// part when the buffer fills).
func (p *Producer) ProduceManyAsync(recs []Record, done func(i, n int, first Offset, err error)) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, ErrClosed
	}
	now := int64(-1)
	part := p.last
	var prev *batch // the batch of recs[i-1], whose last run is recs[i-1]'s
	i := 0
	var err error
	var keyed Record // a keyed record, with the partition its key gives
	for ; i < len(recs); i++ {
		rec := &recs[i]
		n, wait, perr := p.partitionNowLocked(rec)
		if perr != nil {
			err = perr
			break
		}
		if wait {
			if err = p.waitLocked(rec, nil, done, i); err != nil {
				break
			}
			prev = nil
			continue
		}
		if n != rec.Partition {
			keyed = *rec
			keyed.Partition = n
			rec = &keyed
		}
		if part == nil || part.tp.Topic != rec.Topic || part.tp.Partition != rec.Partition {
			if part, err = p.partitionLocked(rec); err != nil {
				break
			}
		}
		ts := rec.TimestampMs
		if ts == 0 {
			if now < 0 {
				now = p.c.clock.NowMs()
			}
			ts = now
		}
		// The common case, inline: a record that fits the batch the call's
		// previous record went to, and the buffer.
		if b := part.open; b == prev && b != nil && rec.TimestampMs >= 0 && p.surelySmall(rec) {
			size, ok := b.size(rec, ts)
			if ok && len(b.buf)+size <= p.cfg.BatchBytes && p.buffered+int64(size) <= p.cfg.MaxBufferedBytes {
				b.add(rec, ts)
				b.bytes += int64(size)
				p.buffered += int64(size)
				b.runs[len(b.runs)-1].n++
				continue
			}
		}
		var b *batch
		if b, err = p.appendLocked(part, rec, ts, &now, true); err != nil {
			break
		}
		// Nothing else adds to a batch while the call holds the lock, and
		// a batch this call added to is not recycled before the call's
		// end: the run of recs[i-1] is b's last.
		if b == prev {
			b.runs[len(b.runs)-1].n++
			continue
		}
		b.runs = append(b.runs, doneRun{done: done, i: i, at: b.count - 1, n: 1})
		prev = b
	}
	// Even a call that took nothing may have sealed a batch (and sent
	// what could go): the event ends as every event does.
	if now < 0 {
		now = p.c.clock.NowMs()
	}
	p.afterLocked(now)
	return i, err
}

// Flush makes every batch ready to send, linger or not, and waits until
// every record handed over before it has its outcome (its done called).
func (p *Producer) Flush(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	w := &flushWaiter{ch: make(chan struct{})}
	for _, part := range p.order {
		part.seal()
		for _, b := range part.batches {
			b.flushers = append(b.flushers, w)
			w.left++
		}
	}
	p.flushWaitingLocked(w)
	// Batches already answered have left part.batches, but their
	// callbacks may still wait in the completer, which runs outcomes in
	// order: an empty outcome queued behind them tells w once they ran.
	// (With none waiting Flush returns at once, so a callback may still
	// call it when nothing else is pending.)
	if len(p.done) > 0 || p.cq.unstarted.Load() > 0 {
		p.done = append(p.done, completion{b: &batch{flushers: []*flushWaiter{w}}})
		w.left++
	}
	if w.left == 0 {
		p.mu.Unlock()
		return nil
	}
	p.afterLocked(p.c.clock.NowMs())
	p.mu.Unlock()
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close fails every record not yet acknowledged with ErrClosed and stops
// the producer; Flush first to wait for them. The records' done callbacks
// still run, after Close returns. Client.Close closes every producer.
func (p *Producer) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.closedCh)
	p.failAllWaitingLocked(ErrClosed)
	for _, part := range p.order {
		part.seal()
		for _, b := range part.batches {
			p.resolveLocked(b, Offset{}, ErrClosed, false)
		}
		part.batches = nil
	}
	p.pushLocked()
	p.mu.Unlock()
	p.driver.Stop()
	p.cq.close()
	p.c.meta.forget(p)
	p.c.mu.Lock()
	delete(p.c.producers, p)
	p.c.mu.Unlock()
}

// seal closes the open batch: it takes no more records and may be sent.
func (part *partition) seal() {
	if part.open != nil {
		part.batches = append(part.batches, part.open)
		part.open = nil
	}
}

// producerTicker is the Producer as the clock.Driver sees it.
type producerTicker Producer

// Tick fails batches whose delivery time is over and sends what is due
// (lingered batches, ended backoffs).
func (t *producerTicker) Tick(nowMs int64) {
	p := (*Producer)(t)
	if p.closed {
		return
	}
	p.expireLocked(nowMs)
	p.expireMissingLocked(nowMs)
	p.drainLocked(nowMs)
}

// NextTickMs is the earliest moment something may become due: a batch's
// linger, a partition's backoff, a delivery timeout, a new try for a
// producer id. Moments the last look at them already passed are left out
// (the last drain's for sends, the last tick's for delivery timeouts):
// that look acted on them or found that what waits past them waits for an
// answer or for metadata, which wake the producer. A moment after that
// look is kept even if the clock has passed it since — the look's own
// work can outlast a deadline it found not yet due — and the driver then
// ticks at once; leaving it out as past would leave its batch waiting for
// some unrelated event.
func (t *producerTicker) NextTickMs() int64 {
	p := (*Producer)(t)
	if p.closed {
		return clock.Never
	}
	next := clock.Never
	at := func(ms, seen int64) {
		if ms > seen && ms < next {
			next = ms
		}
	}
	if p.idem && !p.ident.ok {
		at(p.initRetryAt, p.drainedMs)
	}
	for _, part := range p.order {
		if part.open != nil && p.cfg.LingerMs > 0 {
			at(part.open.createdMs+p.cfg.LingerMs, p.drainedMs)
		}
		if part.open != nil || len(part.batches) > 0 {
			at(part.retryAt, p.drainedMs)
		}
		for _, b := range part.batches {
			if b.state != stInFlight {
				at(b.createdMs+p.cfg.DeliveryTimeoutMs, p.expiredMs)
				break
			}
		}
		if part.open != nil {
			at(part.open.createdMs+p.cfg.DeliveryTimeoutMs, p.expiredMs)
		}
	}
	p.nextMissingMs(at)
	return next
}

// afterTickLocked hands the tick's outcomes to the completer.
func (p *Producer) afterTickLocked() {
	p.pushLocked()
	if p.watch != nil {
		close(p.watch)
		p.watch = nil
	}
}

// afterLocked ends an event: send what can go, rearm the timer, hand the
// outcomes over.
func (p *Producer) afterLocked(now int64) {
	if !p.closed {
		p.drainLocked(now)
		p.driver.Kick()
	}
	p.pushLocked()
	if p.watch != nil {
		close(p.watch)
		p.watch = nil
	}
}

// nextEvent returns a channel closed after the producer's next event, for
// tests that wait for the producer to act.
func (p *Producer) nextEvent() <-chan struct{} {
	if p.watch == nil {
		p.watch = make(chan struct{})
	}
	return p.watch
}

// metadataChanged is the metadata's news: leaders may be known now.
func (p *Producer) metadataChanged() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.c.clock.NowMs()
	if !p.closed {
		p.checkMissingLocked(now)
	}
	p.afterLocked(now)
}

// expireLocked fails the batches not in flight whose delivery time is
// over. Batches in flight wait for their answer.
func (p *Producer) expireLocked(now int64) {
	p.expiredMs = now
	for _, part := range p.order {
		if part.open != nil && now >= part.open.createdMs+p.cfg.DeliveryTimeoutMs {
			part.seal()
		}
		// failLocked takes a batch out of part.batches: pick first, fail
		// after, so the range never runs over a slice it is changing.
		var expired []*batch
		for _, b := range part.batches {
			if b.state != stInFlight && now >= b.createdMs+p.cfg.DeliveryTimeoutMs {
				expired = append(expired, b)
			}
		}
		for _, b := range expired {
			p.failLocked(b, deliveryTimeout(part.tp, p.cfg.DeliveryTimeoutMs, cmp.Or(b.lastErr, part.lastErr)))
		}
	}
}

// ready reports whether the open batch may be sealed and sent now.
func (p *Producer) ready(b *batch, now int64) bool {
	return p.cfg.LingerMs == 0 || now >= b.createdMs+p.cfg.LingerMs || len(b.buf) >= p.cfg.BatchBytes
}

// drainLocked sends every batch that may go: per leader, one request per
// round with at most one batch of each partition (as Kafka, so a broker
// appends an idempotent batch alone), as many rounds as the in-flight
// limits allow.
func (p *Producer) drainLocked(now int64) {
	if p.closed {
		return
	}
	p.drainedMs = now
	defer func() {
		// New batches wait for a producer id; resends of batches sequenced
		// under an earlier one need none.
		if p.idem && !p.ident.ok && p.hasWork() {
			p.initIdentLocked(now)
		}
	}()
	for {
		dests := p.dests[:0]
		refresh := false
		for _, part := range p.order {
			if !part.hasWork(p, now) {
				continue
			}
			leader, _, addr, err := p.c.meta.leader(part.tp)
			if err != nil {
				if errors.Is(err, errNoMetadata) {
					err = p.c.meta.lastError()
				}
				part.lastErr = cmp.Or(err, part.lastErr)
				refresh = true
				continue
			}
			b := part.take(p, leader, now)
			if b == nil {
				continue
			}
			// A request holds at most MaxRecordBytes of batches (Kafka's
			// max.request.size), or one batch alone: one batch of every
			// partition of a leader could pass the broker's frame limit,
			// and it would close the connection with every request on it.
			var pc *produceCall
			for _, x := range dests {
				if x.leader == leader && x.size+len(b.buf) <= p.cfg.MaxRecordBytes {
					pc = x
				}
			}
			if pc == nil {
				pc = p.newCall(leader, addr)
				dests = append(dests, pc)
			}
			pc.batches = append(pc.batches, b)
			pc.size += len(b.buf)
		}
		p.dests = dests
		if refresh {
			p.c.meta.refresh()
		}
		if len(dests) == 0 {
			return
		}
		for i, pc := range dests {
			dests[i] = nil
			p.sendLocked(pc, now)
		}
	}
}

// hasWork reports whether any record waits to be sent.
func (p *Producer) hasWork() bool {
	for _, part := range p.order {
		if part.open != nil || len(part.batches) > 0 {
			return true
		}
	}
	return false
}

// hasWork reports whether part has a batch it could send now, leaders
// aside.
func (part *partition) hasWork(p *Producer, now int64) bool {
	if now < part.retryAt || part.inflight >= p.cfg.MaxInFlight {
		return false
	}
	for _, b := range part.batches {
		if b.state != stInFlight {
			return true
		}
	}
	return part.open != nil && p.ready(part.open, now)
}

// take returns part's next batch to send to leader, marked in flight, or
// nil. After an error it first waits until nothing of part is in flight,
// then settles the batches to retry; after a change of leader it waits
// until nothing is in flight to the old one. The barriers keep a
// partition's batches in sequence order on the wire whatever came back:
// a new leader that never saw this producer would take a later sequence
// first, and the earlier batch's resend would then be out of order.
func (part *partition) take(p *Producer, leader int32, now int64) *batch {
	if part.inflight > 0 && part.inflightTo != leader {
		return nil
	}
	if part.hasRetry() || part.needBump {
		if part.inflight > 0 {
			return nil
		}
		p.settleLocked(part)
	}
	var b *batch
	for _, x := range part.batches {
		if x.state == stNew || x.state == stResend {
			b = x
			break
		}
	}
	// Before a bump only what may have been written goes; a new batch
	// needs a producer id. An open batch that cannot go keeps taking
	// records.
	blocked := part.needBump || (p.idem && !p.ident.ok)
	if b == nil && part.open != nil && p.ready(part.open, now) && !blocked {
		part.seal()
		b = part.batches[len(part.batches)-1]
	}
	if b == nil {
		return nil
	}
	if b.state == stNew {
		if blocked || (p.idem && !part.windowRoom()) {
			return nil
		}
		p.sequenceLocked(part, b)
	} else {
		p.resends.Add(1)
	}
	b.state = stInFlight
	b.attempts++
	part.everSent = true
	part.inflight++
	part.inflightTo = leader
	return b
}

// hasRetry reports whether a batch of part waits for the barrier. It
// looks no further than the first batch never sent: only a batch sent
// can be waiting to retry, and take sends a partition's batches in
// order — every batch before a sent one was sent — so none after a batch
// never sent was. The batches queued behind the in-flight limit (up to
// MaxBufferedBytes of them) are not walked on every send.
func (part *partition) hasRetry() bool {
	found := false
	for _, b := range part.batches {
		if b.attempts == 0 {
			break
		}
		if b.state == stRetry {
			found = true
			break
		}
	}
	if checkOrder {
		for _, b := range part.batches {
			if b.state == stRetry && !found {
				panic(fmt.Sprintf("client: %s: a batch to retry after a batch never sent", part.tp))
			}
		}
	}
	return found
}

// checkOrder makes hasRetry check, by walking every batch, that no batch
// to retry follows a batch never sent. The package's tests turn it on.
var checkOrder = false

// produceCall is one produce request on its way. A call is reused once
// the connection's writer has put it out and (unless acks=0) the broker
// has answered it; one that failed is left to the collector, since the
// writer may still be reading it.
type produceCall struct {
	p        *Producer
	leader   int32
	addr     string
	batches  []*batch
	size     int // the batches' bytes
	req      wire.ProduceRequest
	refs     int                      // the writer's and the answer's holds, under p.mu
	answerFn func([]byte, error) bool // pc.answered, made once
	writeFn  func(error)              // pc.written, made once
	sentFn   func(error)              // pc.sent, made once
}

// newCall returns a produce call to leader, from the free list.
func (p *Producer) newCall(leader int32, addr string) *produceCall {
	var pc *produceCall
	if n := len(p.freeCalls); n > 0 {
		pc, p.freeCalls = p.freeCalls[n-1], p.freeCalls[:n-1]
	} else {
		pc = &produceCall{p: p}
		pc.answerFn, pc.writeFn, pc.sentFn = pc.answered, pc.written, pc.sent
	}
	pc.leader, pc.addr, pc.size = leader, addr, 0
	return pc
}

// sent is the writer's word on an answered request: written out, or not.
func (pc *produceCall) sent(err error) {
	if err != nil {
		return
	}
	p := pc.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.releaseLocked(pc)
}

// releaseLocked drops a hold on pc and reuses it when none is left.
func (p *Producer) releaseLocked(pc *produceCall) {
	if pc.refs--; pc.refs == 0 {
		p.recycleLocked(pc)
	}
}

// recycleLocked puts pc back on the free list.
func (p *Producer) recycleLocked(pc *produceCall) {
	clear(pc.batches)
	clear(pc.req.Partitions)
	pc.batches, pc.req.Partitions = pc.batches[:0], pc.req.Partitions[:0]
	p.freeCalls = append(p.freeCalls, pc)
}

// sendLocked puts pc's batches in one request to its leader.
func (p *Producer) sendLocked(pc *produceCall, now int64) {
	pc.req = wire.ProduceRequest{Acks: p.acks, TimeoutMs: int32(p.cfg.AckTimeoutMs), Partitions: pc.req.Partitions[:0]}
	for _, b := range pc.batches {
		pc.req.Partitions = append(pc.req.Partitions, wire.ProducePartition{Topic: b.part.tp.Topic, Partition: b.part.tp.Partition, Records: b.buf})
	}
	cn, err := p.c.produceConn(pc.leader, pc.addr)
	if err == nil {
		if p.acks == wire.AcksNone {
			pc.refs = 1
			err = cn.send(&pc.req, 0, nil, pc.writeFn)
		} else {
			pc.refs = 2
			err = cn.send(&pc.req, p.cfg.AckTimeoutMs, pc.answerFn, pc.sentFn)
		}
	}
	if err != nil {
		p.requestFailedLocked(pc, err, now)
		p.recycleLocked(pc) // never queued: nothing reads it
	}
}

// written is an acks=0 request's end: written out, or not.
func (pc *produceCall) written(err error) {
	p := pc.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	now := p.c.clock.NowMs()
	if err != nil {
		// The request may be partly out: its bytes are the writer's
		// still, so pc is not reused.
		p.requestFailedLocked(pc, err, now)
	} else {
		for _, b := range pc.batches {
			b.part.inflight--
			p.succeedLocked(b, 0, false)
		}
		p.releaseLocked(pc)
	}
	p.afterLocked(now)
}

// answered is a produce request's answer, or its failure.
func (pc *produceCall) answered(payload []byte, err error) bool {
	p := pc.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	now := p.c.clock.NowMs()
	if err == nil {
		if err = wire.DecodeProduceResponseInto(payload, &p.resp); err != nil {
			err = networkError(fmt.Sprintf("broker %d", pc.leader), err)
		}
	}
	if err != nil {
		p.requestFailedLocked(pc, err, now) // pc is not reused: see written
		p.afterLocked(now)
		return false
	}
	from := ""
	for i, b := range pc.batches {
		r := p.answerFor(b.part.tp, i)
		b.part.inflight--
		if r == nil {
			if from == "" {
				from = fmt.Sprintf("broker %d", pc.leader)
			}
			p.retryLocked(b, networkError(from, fmt.Errorf("%w: no answer for %s", wire.ErrMalformed, b.part.tp)), mayBeWritten, now)
			continue
		}
		p.answerLocked(b, r, pc.leader, now)
	}
	p.releaseLocked(pc)
	p.afterLocked(now)
	return false
}

// answerFor finds tp's answer in the decoded response, where the request
// put it or elsewhere.
func (p *Producer) answerFor(tp TopicPartition, i int) *wire.ProducePartitionResponse {
	rs := p.resp.Partitions
	if i < len(rs) && rs[i].Topic == tp.Topic && rs[i].Partition == tp.Partition {
		return &rs[i]
	}
	for j := range rs {
		if rs[j].Topic == tp.Topic && rs[j].Partition == tp.Partition {
			return &rs[j]
		}
	}
	return nil
}

// requestFailedLocked handles a request that got no answer: a broken
// connection, a timeout. Each batch may or may not have been written; it
// is resent with the same bytes.
func (p *Producer) requestFailedLocked(pc *produceCall, err error, now int64) {
	for _, b := range pc.batches {
		b.part.inflight--
		p.retryLocked(b, err, mayBeWritten, now)
	}
	p.c.meta.refresh()
}

// succeedLocked resolves b: its records are at base, base+1, ...
func (p *Producer) succeedLocked(b *batch, base uint64, has bool) {
	b.part.attempts, b.part.lastErr = 0, nil
	p.remove(b)
	p.resolveLocked(b, Offset{Offset: base, HasOffset: has}, nil, true)
}

// failLocked resolves b with err for good. A gap in a partition's
// sequences follows, unless the broker proved b unwritten and nothing
// after it was sequenced; either way the next sequence needs a new epoch
// (Kafka bumps the epoch in both cases).
func (p *Producer) failLocked(b *batch, err error) {
	if p.idem && b.hasSeq {
		b.part.needBump = true
	}
	p.remove(b)
	p.resolveLocked(b, Offset{}, err, false)
}

// retryLocked sends b again later, after the backoff, unless its delivery
// time is over. verdict is what the failed attempt proves.
func (p *Producer) retryLocked(b *batch, err error, verdict attemptVerdict, now int64) {
	part := b.part
	if now >= b.createdMs+p.cfg.DeliveryTimeoutMs {
		p.failLocked(b, deliveryTimeout(part.tp, p.cfg.DeliveryTimeoutMs, err))
		return
	}
	b.state = stRetry
	b.lastErr = err
	switch verdict {
	case mayBeWritten:
		b.maybeWritten = true
	case notInLog:
		b.maybeWritten = false
	}
	part.attempts++
	part.retryAt = now + p.back.delayMs(part.attempts-1)
}

// remove takes b out of its partition's batches.
func (p *Producer) remove(b *batch) {
	part := b.part
	for i, x := range part.batches {
		if x == b {
			n := len(part.batches) - 1
			copy(part.batches[i:], part.batches[i+1:])
			part.batches[n] = nil
			part.batches = part.batches[:n]
			return
		}
	}
}

// resolveLocked queues b's outcome for the completer and frees its room.
// off carries the base offset; each record gets its own.
func (p *Producer) resolveLocked(b *batch, off Offset, err error, answered bool) {
	off.Topic, off.Partition = b.part.tp.Topic, b.part.tp.Partition
	p.done = append(p.done, completion{b: b, off: off, err: err, release: answered})
	p.buffered -= b.bytes
	if p.room != nil {
		close(p.room)
		p.room = nil
	}
}

// pushLocked hands the queued outcomes to the completer.
func (p *Producer) pushLocked() {
	if len(p.done) > 0 {
		p.cq.push(p.done)
		clear(p.done)
		p.done = p.done[:0]
	}
}

// flushWaiter is a Flush waiting for the batches it saw.
type flushWaiter struct {
	mu   sync.Mutex
	left int
	ch   chan struct{}
}

// completion is one batch's outcome on its way to the records' callbacks.
type completion struct {
	b       *batch
	off     Offset
	err     error
	release bool // the broker answered: the batch may be reused
}

// completer calls outcome callbacks, in the order outcomes were decided,
// from one goroutine, outside every lock of the client.
type completer struct {
	mu      sync.Mutex
	queue   []completion
	spare   []completion
	closed  bool
	wake    chan struct{}
	recycle func(*batch) // takes a batch the broker answered, for reuse
	// unstarted counts the outcomes pushed whose callbacks have not yet
	// begun (Flush waits for them).
	unstarted atomic.Int64
}

func newCompleter(recycle func(*batch)) *completer {
	return &completer{wake: make(chan struct{}, 1), recycle: recycle}
}

// push queues outcomes.
func (q *completer) push(cs []completion) {
	q.unstarted.Add(int64(len(cs)))
	q.mu.Lock()
	q.queue = append(q.queue, cs...)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// close makes run return once the queue is empty.
func (q *completer) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// run calls the callbacks until closed.
func (q *completer) run() {
	for {
		q.mu.Lock()
		for len(q.queue) == 0 && !q.closed {
			q.mu.Unlock()
			<-q.wake
			q.mu.Lock()
		}
		if len(q.queue) == 0 {
			q.mu.Unlock()
			return
		}
		cs := q.queue
		q.queue, q.spare = q.spare[:0], nil
		q.mu.Unlock()
		for i := range cs {
			q.unstarted.Add(-1)
			cs[i].run(q.recycle)
		}
		clear(cs)
		q.mu.Lock()
		q.spare = cs[:0]
		q.mu.Unlock()
	}
}

// run calls the batch's callbacks, tells its flushers, and recycles it.
// The records of its runs are at their run's index in the batch; the
// others each have a done, in record order.
func (c *completion) run(recycle func(*batch)) {
	b := c.b
	off := c.off
	base := off.Offset
	k := int32(0) // the next record's index in the batch
	dones := b.dones
	for _, r := range b.runs {
		for ; k < r.at; k++ {
			if c.off.HasOffset {
				off.Offset = base + uint64(k)
			}
			dones[0](off, c.err)
			dones = dones[1:]
		}
		if c.off.HasOffset {
			off.Offset = base + uint64(k)
		}
		if r.done != nil {
			r.done(r.i, int(r.n), off, c.err)
		}
		k += r.n
	}
	for _, done := range dones {
		if c.off.HasOffset {
			off.Offset = base + uint64(k)
		}
		done(off, c.err)
		k++
	}
	for _, w := range b.flushers {
		w.mu.Lock()
		w.left--
		if w.left == 0 {
			close(w.ch)
		}
		w.mu.Unlock()
	}
	if c.release {
		recycle(b)
	}
}
