package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/wire"
)

// Defaults of ConsumerConfig, Kafka's consumer's.
const (
	DefaultMaxWaitMs         = 500      // fetch.max.wait.ms
	DefaultMinBytes          = 1        // fetch.min.bytes
	DefaultMaxBytes          = 50 << 20 // fetch.max.bytes
	DefaultPartitionMaxBytes = 1 << 20  // max.partition.fetch.bytes
	DefaultAPITimeoutMs      = 60000    // default.api.timeout.ms
)

// ConsumerConfig configures a Consumer. Zero fields take the defaults.
type ConsumerConfig struct {
	// MaxWaitMs is how long the leader may hold a fetch that finds less
	// than MinBytes before answering (the fetch is parked in the broker:
	// a consumer long-polls, it does not ask in a loop). Default
	// DefaultMaxWaitMs.
	MaxWaitMs int32
	// MinBytes is how many record bytes a fetch waits for. Default
	// DefaultMinBytes.
	MinBytes int32
	// MaxBytes bounds a fetch response's records (the first batch comes
	// whole, whatever its size). Default DefaultMaxBytes.
	MaxBytes int32
	// PartitionMaxBytes bounds the records of the partition in one fetch.
	// Default DefaultPartitionMaxBytes.
	PartitionMaxBytes int32
	// DefaultAPITimeoutMs bounds how long Records waits for its partition
	// to appear in the metadata before the iteration ends with an error
	// matching ErrMetadataTimeout, which names the controller's address
	// and the last cause (Kafka's default.api.timeout.ms, which bounds
	// its consumer's blocking calls). Sooner, once
	// DefaultUnknownTopicRetries fresh metadata answers in a row say the
	// topic or partition does not exist, it ends with an error matching
	// wire.ErrUnknownTopicOrPartition. Default DefaultAPITimeoutMs.
	DefaultAPITimeoutMs int64
}

// Consumer reads partitions. It holds only its configuration: each
// Records iteration is independent, with its own connection to the
// partition's leader, so one iteration's long poll never delays another
// (Kafka's brokers answer one connection's requests in order). It is safe
// for concurrent use.
type Consumer struct {
	c   *Client
	cfg ConsumerConfig
}

// NewConsumer returns a consumer on c.
func (c *Client) NewConsumer(cfg ConsumerConfig) (*Consumer, error) {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"MaxWaitMs", int64(cfg.MaxWaitMs)}, {"MinBytes", int64(cfg.MinBytes)}, {"MaxBytes", int64(cfg.MaxBytes)},
		{"PartitionMaxBytes", int64(cfg.PartitionMaxBytes)}, {"DefaultAPITimeoutMs", cfg.DefaultAPITimeoutMs},
	} {
		if f.v < 0 {
			return nil, configError("ConsumerConfig."+f.name, "%d is negative (0 takes the default)", f.v)
		}
	}
	cfg.MaxWaitMs = cmp.Or(cfg.MaxWaitMs, DefaultMaxWaitMs)
	cfg.MinBytes = cmp.Or(cfg.MinBytes, DefaultMinBytes)
	cfg.MaxBytes = cmp.Or(cfg.MaxBytes, DefaultMaxBytes)
	cfg.PartitionMaxBytes = cmp.Or(cfg.PartitionMaxBytes, DefaultPartitionMaxBytes)
	cfg.DefaultAPITimeoutMs = cmp.Or(cfg.DefaultAPITimeoutMs, DefaultAPITimeoutMs)
	return &Consumer{c: c, cfg: cfg}, nil
}

// Position is where a consumer starts reading: FromStart, FromEnd or
// FromOffset.
type Position struct {
	kind   positionKind
	offset uint64
}

type positionKind uint8

const (
	atOffset positionKind = iota
	atStart
	atEnd
)

// FromStart is the partition's log start offset (ListOffsets, earliest).
func FromStart() Position { return Position{kind: atStart} }

// FromEnd is the partition's high watermark when the iteration begins
// (ListOffsets, latest): only records committed after it.
func FromEnd() Position { return Position{kind: atEnd} }

// FromOffset is an absolute offset.
func FromOffset(off uint64) Position { return Position{kind: atOffset, offset: off} }

// Records reads tp's committed records from `from`, in offset order, each
// once, with its absolute offset:
//
//	for rec, err := range consumer.Records(ctx, tp, client.FromStart()) {
//		if err != nil {
//			return err
//		}
//		use(rec.Offset, rec.Value)
//	}
//
// It reads only what the leader counts as committed (ReplicaID -1: up to
// the high watermark), long-polling when there is nothing new. It follows
// the partition's leader across elections: NOT_LEADER_OR_FOLLOWER, a
// fenced or unknown leader epoch, an unknown partition or a broken
// connection make it refresh the metadata and fetch again after a
// backoff. Batches are checked (CRC and layout) with package log's
// decoder; records of a batch below the position are skipped.
//
// An error ends the sequence: it is the last pair. It is ctx.Err() when
// ctx ends, ErrClosed when the client closes, an *OffsetOutOfRangeError
// when the position is outside the partition (the client never resets a
// position by itself), an error matching wire.ErrCorruptMessage for a
// batch that does not verify, or a refusal no retry can change.
func (co *Consumer) Records(ctx context.Context, tp TopicPartition, from Position) iter.Seq2[Record, error] {
	return co.records(ctx, tp, from, nil)
}

// records is Records, telling onStart (if set) the offset FromStart or
// FromEnd resolved to, before any record of it is yielded: a group member
// commits that position (Kafka's commitSync commits a reset's position).
func (co *Consumer) records(ctx context.Context, tp TopicPartition, from Position, onStart func(uint64)) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		s := &session{co: co, c: co.c, tp: tp, onStart: onStart}
		defer s.close()
		if err := s.run(ctx, from, yield); err != nil && err != errStopped {
			yield(Record{}, err)
		}
	}
}

// finalError ends the iteration with its error whatever its code says: a
// batch the client could not verify is not fetched again (Kafka's
// consumer raises it too, though CORRUPT_MESSAGE from a broker is
// retriable).
type finalError struct{ error }

// errStopped ends an iteration whose caller stopped asking.
var errStopped = errors.New("client: iteration stopped")

// session is one Records iteration.
type session struct {
	co       *Consumer
	c        *Client
	tp       TopicPartition
	cn       *conn
	leader   int32
	back     *backoff
	failures int
	// prefetched is the fetch sent before the last records were yielded,
	// or nil.
	prefetched *pendingFetch
	// batch is the decoder's, reused from batch to batch.
	batch log.Batch
	// onStart, if set, is told the offset a FromStart or FromEnd
	// resolved to.
	onStart func(uint64)
	// known is set once the partition was in the metadata: until then
	// connect's wait for it is bounded (DefaultAPITimeoutMs,
	// DefaultUnknownTopicRetries).
	known bool
}

// close ends the session's connection.
func (s *session) close() {
	if s.cn != nil {
		s.cn.fail(errSessionEnded)
		s.cn = nil
	}
}

// errSessionEnded closes a connection the client no longer needs.
var errSessionEnded = errors.New("client: connection no longer needed")

// run reads until an error or until yield says stop.
func (s *session) run(ctx context.Context, from Position, yield func(Record, error) bool) error {
	if err := wire.ValidateTopic(s.tp.Topic); err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if s.tp.Partition < 0 {
		return fmt.Errorf("client: %s: %w", s.tp, wire.ErrInvalidPartition)
	}
	s.c.meta.follow(s.tp.Topic)
	offset, positioned := from.offset, from.kind == atOffset
	for {
		if err := s.stopped(ctx); err != nil {
			return err
		}
		epoch, err := s.connect(ctx)
		if err != nil {
			return err
		}
		if !positioned {
			ts := wire.EarliestTimestamp
			if from.kind == atEnd {
				ts = wire.LatestTimestamp
			}
			off, err := s.listOffsets(ctx, epoch, ts)
			if err != nil {
				if err = s.retry(ctx, err); err != nil {
					return err
				}
				continue
			}
			offset, positioned = off, true
			if s.onStart != nil {
				s.onStart(off)
			}
		}
		next, err := s.fetch(ctx, epoch, offset, yield)
		offset = next
		if err == errStopped {
			return err
		}
		var final finalError
		if errors.As(err, &final) {
			return final.error
		}
		if err != nil {
			if err = s.retry(ctx, err); err != nil {
				return err
			}
			continue
		}
		s.failures = 0
	}
}

// stopped returns why the iteration must end now, if it must.
func (s *session) stopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.c.isClosed() {
		return ErrClosed
	}
	return nil
}

// connect finds the partition's leader, waiting for metadata while it is
// unknown, and returns its epoch with a connection to it. Until the
// partition was once in the metadata the wait is bounded: by
// DefaultAPITimeoutMs, and by DefaultUnknownTopicRetries fresh answers in
// a row that deny the topic or the partition.
func (s *session) connect(ctx context.Context) (int32, error) {
	var (
		expired  chan struct{}
		unknown  int
		answered uint64
	)
	for {
		seen := s.c.meta.next()
		id, epoch, addr, err := s.c.meta.leader(s.tp)
		if err == nil {
			s.known = true
			if s.cn == nil || s.leader != id || s.cn.addr != addr || s.cn.broken() {
				s.close()
				if s.cn, err = s.c.privateConn(id, addr); err != nil {
					return 0, err
				}
				s.leader = id
			}
			return epoch, nil
		}
		if !errors.Is(err, errNoMetadata) && !wire.IsRetriable(err) {
			return 0, err
		}
		if !s.known && (errors.Is(err, errNoMetadata) || errors.Is(err, wire.ErrUnknownTopicOrPartition)) {
			n, topicKnown, answers, _ := s.c.meta.partitions(s.tp.Topic)
			if expired == nil {
				expired = make(chan struct{})
				t := s.c.clock.AfterFunc(s.co.cfg.DefaultAPITimeoutMs, func() { close(expired) })
				defer t.Stop()
				answered = answers
				if s.c.onMetadataWait != nil {
					s.c.onMetadataWait()
				}
			}
			if errors.Is(err, wire.ErrUnknownTopicOrPartition) && answers != answered {
				answered = answers
				if unknown++; unknown >= DefaultUnknownTopicRetries {
					what := fmt.Sprintf("name no topic %s", s.tp.Topic)
					if topicKnown {
						what = fmt.Sprintf("give topic %s %d partitions, 0 to %d", s.tp.Topic, n, n-1)
					}
					return 0, fmt.Errorf("client: %s: the last %d metadata answers of the controller at %s %s: %w",
						s.tp, unknown, s.c.cfg.Controller, what, wire.ErrUnknownTopicOrPartition)
				}
			}
		} else {
			unknown = 0
		}
		s.c.meta.refresh(s.tp.Topic)
		select {
		case <-seen:
		case <-expired: // nil, never ready, once the partition was known
			return 0, s.c.meta.timeoutError(s.tp.String(), "ConsumerConfig.DefaultAPITimeoutMs", s.co.cfg.DefaultAPITimeoutMs, err)
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-s.c.track.closing():
			return 0, ErrClosed
		}
	}
}

// retry decides what an error means: the end of the iteration (returned),
// or a pause before trying again — after a metadata refresh if the leader
// may have moved.
func (s *session) retry(ctx context.Context, err error) error {
	if e := s.stopped(ctx); e != nil {
		return e
	}
	if errors.Is(err, ErrClosed) || !wire.IsRetriable(err) {
		return err
	}
	s.failures++
	if leaderMoved(wire.CodeOf(err)) || errors.Is(err, wire.ErrNetworkException) || errors.Is(err, wire.ErrRequestTimedOut) {
		s.c.meta.refresh(s.tp.Topic)
	}
	if s.back == nil {
		s.back = s.c.newBackoff()
	}
	return s.sleep(ctx, s.back.delayMs(s.failures-1))
}

// sleep waits ms on the client's clock.
func (s *session) sleep(ctx context.Context, ms int64) error {
	ch := make(chan struct{})
	t := s.c.clock.AfterFunc(ms, func() { close(ch) })
	defer t.Stop()
	if s.c.onSleep != nil {
		s.c.onSleep(ms)
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.c.track.closing():
		return ErrClosed
	}
}

// listOffsets asks the leader for the partition's start (EarliestTimestamp)
// or high watermark (LatestTimestamp).
func (s *session) listOffsets(ctx context.Context, epoch int32, ts int64) (uint64, error) {
	payload, err := s.c.roundTrip(ctx, s.cn, &wire.ListOffsetsRequest{
		ReplicaID:  wire.ConsumerReplicaID,
		Partitions: []wire.ListOffsetsPartition{{Topic: s.tp.Topic, Partition: s.tp.Partition, CurrentLeaderEpoch: epoch, Timestamp: ts}},
	}, 0)
	if err != nil {
		return 0, err
	}
	resp, err := wire.DecodeListOffsetsResponse(payload)
	if err != nil {
		return 0, networkError(s.cn.peer, err)
	}
	for _, p := range resp.Partitions {
		if p.Topic == s.tp.Topic && p.Partition == s.tp.Partition {
			if p.ErrorCode != wire.CodeNone {
				return 0, refusal(s.tp, s.cn.peer, p.ErrorCode)
			}
			if !p.Found { // the log's start and end always exist
				return 0, networkError(s.cn.peer, fmt.Errorf("%w: ListOffsets answer for %s without an offset", wire.ErrMalformed, s.tp))
			}
			return p.Offset, nil
		}
	}
	return 0, networkError(s.cn.peer, fmt.Errorf("%w: ListOffsets answer without %s", wire.ErrMalformed, s.tp))
}

// fetch fetches once from offset and yields the records; it returns the
// next offset to fetch. Before it yields a response's records it sends
// the fetch from where they end (Kafka's consumer prefetches likewise),
// so that the leader reads and sends the next records while the caller
// handles these; a prefetch that turns out to start elsewhere is dropped.
func (s *session) fetch(ctx context.Context, epoch int32, offset uint64, yield func(Record, error) bool) (uint64, error) {
	pf := s.prefetched
	s.prefetched = nil
	if pf == nil || pf.cn != s.cn || pf.epoch != epoch || pf.offset != offset {
		var err error
		if pf, err = s.sendFetch(epoch, offset); err != nil {
			return offset, err
		}
	}
	var payload []byte
	select {
	case a := <-pf.ch:
		payload = a.payload
		if a.err != nil {
			return offset, a.err
		}
	case <-ctx.Done():
		return offset, ctx.Err()
	case <-s.c.track.closing():
		return offset, ErrClosed
	}
	resp, err := wire.DecodeFetchResponse(payload)
	if err != nil {
		return offset, networkError(s.cn.peer, err)
	}
	if resp.ErrorCode != wire.CodeNone {
		return offset, refusal(s.tp, s.cn.peer, resp.ErrorCode)
	}
	var p *wire.FetchPartitionResponse
	for i := range resp.Partitions {
		if resp.Partitions[i].Topic == s.tp.Topic && resp.Partitions[i].Partition == s.tp.Partition {
			p = &resp.Partitions[i]
		}
	}
	if p == nil {
		return offset, networkError(s.cn.peer, fmt.Errorf("%w: Fetch answer without %s", wire.ErrMalformed, s.tp))
	}
	switch {
	case p.ErrorCode == wire.CodeOffsetOutOfRange:
		return offset, &OffsetOutOfRangeError{TopicPartition: s.tp, Offset: offset, LogStartOffset: p.LogStartOffset, HighWatermark: p.HighWatermark}
	case p.ErrorCode != wire.CodeNone:
		if p.HasCurrentLeader {
			s.c.meta.hint(s.tp, p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch)
		}
		return offset, refusal(s.tp, s.cn.peer, p.ErrorCode)
	}
	if next, ok := endOfRecords(p, offset); ok && prefetch {
		// A prefetch that cannot be sent is the next fetch's to retry.
		s.prefetched, _ = s.sendFetch(epoch, next)
	}
	return s.yieldRecords(p, offset, yield)
}

// prefetch turns the consumer's prefetch on (benchmarks turn it off to
// compare).
var prefetch = true

// pendingFetch is a fetch sent and not yet read.
type pendingFetch struct {
	cn     *conn
	epoch  int32
	offset uint64
	ch     chan fetchAnswer
}

// fetchAnswer is a fetch's response payload, or why there is none.
type fetchAnswer struct {
	payload []byte
	err     error
}

// sendFetch sends a fetch from offset on the session's connection.
func (s *session) sendFetch(epoch int32, offset uint64) (*pendingFetch, error) {
	cfg := &s.co.cfg
	s.c.fetches.Add(1)
	s.c.mu.Lock()
	if s.c.fetchSent != nil {
		close(s.c.fetchSent)
		s.c.fetchSent = nil
	}
	s.c.mu.Unlock()
	pf := &pendingFetch{cn: s.cn, epoch: epoch, offset: offset, ch: make(chan fetchAnswer, 1)}
	err := s.cn.send(&wire.FetchRequest{
		ReplicaID:    wire.ConsumerReplicaID,
		ReplicaEpoch: wire.NoBrokerEpoch,
		MaxWaitMs:    cfg.MaxWaitMs,
		MinBytes:     cfg.MinBytes,
		MaxBytes:     cfg.MaxBytes,
		Partitions: []wire.FetchPartition{{
			Topic: s.tp.Topic, Partition: s.tp.Partition, CurrentLeaderEpoch: epoch,
			FetchOffset: offset, LastFetchedEpoch: wire.NoEpoch, MaxBytes: cfg.PartitionMaxBytes,
		}},
	}, int64(cfg.MaxWaitMs), func(payload []byte, err error) bool {
		pf.ch <- fetchAnswer{payload, err}
		return true
	}, nil)
	if err != nil {
		return nil, err
	}
	return pf, nil
}

// endOfRecords returns where yieldRecords will most likely leave the
// position after p's records, from their batch headers alone: the end of
// the last whole batch, at most the high watermark. ok is false when p
// holds no whole batch past offset: then there is nothing to prefetch.
func endOfRecords(p *wire.FetchPartitionResponse, offset uint64) (next uint64, ok bool) {
	next = offset
	for buf := p.Records; len(buf) > 0; {
		h, err := log.ReadBatchHeader(buf)
		if err != nil || h.Size() > len(buf) {
			break
		}
		buf = buf[h.Size():]
		next = max(next, min(h.NextOffset(), p.HighWatermark))
	}
	return next, next > offset
}

// yieldRecords decodes a partition's records and yields those at or above
// offset and below the high watermark.
func (s *session) yieldRecords(p *wire.FetchPartitionResponse, offset uint64, yield func(Record, error) bool) (uint64, error) {
	buf := p.Records
	first := true
	for len(buf) > 0 {
		h, err := log.ReadBatchHeader(buf)
		if err != nil && !first && errors.Is(err, log.ErrTruncated) {
			return offset, nil // a partial batch at the end: fetched again next time
		}
		if err != nil {
			return offset, finalError{fmt.Errorf("client: %s: batch at %d: %w: %w", s.tp, offset, wire.ErrCorruptMessage, err)}
		}
		b := &s.batch
		n, err := b.Decode(buf)
		if err != nil {
			return offset, finalError{fmt.Errorf("client: %s: batch at %d: %w: %w", s.tp, h.BaseOffset, wire.ErrCorruptMessage, err)}
		}
		buf, first = buf[n:], false
		if b.Attributes&log.AttrControl == 0 {
			for i := range b.Records {
				r := &b.Records[i]
				off := b.BaseOffset + uint64(r.OffsetDelta)
				if off >= p.HighWatermark {
					return offset, nil // not committed: never shown
				}
				if off < offset {
					continue
				}
				ts := b.BaseTimestamp + r.TimestampDelta
				if b.Attributes&log.AttrLogAppendTime != 0 {
					ts = b.MaxTimestamp
				}
				rec := Record{
					Topic: s.tp.Topic, Partition: s.tp.Partition,
					// Keys and values alias the response, which is never
					// reused; the headers slice is the decoder's, reused
					// for the next batch, so a record gets its own.
					Key: r.Key, Value: r.Value, Headers: slices.Clone(r.Headers),
					TimestampMs: ts, Offset: off, LeaderEpoch: b.PartitionLeaderEpoch,
				}
				if !yield(rec, nil) {
					return off + 1, errStopped
				}
				offset = off + 1
			}
		}
		if next := h.NextOffset(); next > offset && next <= p.HighWatermark {
			offset = next // past records compaction removed, or a control batch
		}
	}
	return offset, nil
}
