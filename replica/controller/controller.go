package controller

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/wire"
)

// DefaultSessionTimeoutMs is Kafka's broker.session.timeout.ms default.
const DefaultSessionTimeoutMs = 9000

// Never is what NextTickMs returns when no session can expire.
const Never int64 = math.MaxInt64

// replayChunkBytes is how much of the store Open reads at a time.
const replayChunkBytes = 1 << 20

// Config configures a Controller. The zero value is Kafka's defaults with
// KIP-966 on: a 9 s session timeout, ELR, min ISR 1, and the
// unclean-shutdown rule.
type Config struct {
	// SessionTimeoutMs is how long an unfenced broker may go without a
	// heartbeat before it is fenced (Kafka's broker.session.timeout.ms).
	// 0 means DefaultSessionTimeoutMs.
	SessionTimeoutMs int64
	// DisableELR turns KIP-966's eligible leader replicas off: the ISR
	// then never becomes empty and no ELR is kept.
	DisableELR bool
	// DefaultMinISR is the min.insync.replicas of a topic created
	// without its own (its TopicRecord's MinISR). 0 means 1, Kafka's
	// default.
	DefaultMinISR int32
	// DisableUncleanShutdownRule turns off KIP-966's rule that a broker
	// registering after an unclean shutdown leaves every ISR and ELR. Only
	// a simulator wants this: to show the data loss the rule prevents.
	// With DisableELR the rule cannot take the last ISR member out (the ISR
	// never becomes empty), so it protects less there, as in Kafka, which
	// applies it only with ELR.
	DisableUncleanShutdownRule bool
	// ClusterID is the cluster's id, as stamped in the controller's
	// directory (package replica/metaprops): RegisterBroker refuses a
	// broker naming another one and tells it to brokers that have none
	// yet. Empty (tests, the simulator) checks nothing.
	ClusterID string
	// DisableAutoLeaderRebalance turns off the periodic preferred-leader
	// check (Kafka's auto.leader.rebalance.enable, default true).
	DisableAutoLeaderRebalance bool
	// LeaderImbalanceCheckIntervalMs is the periodic check's interval
	// (Kafka's leader.imbalance.check.interval.seconds). 0 means
	// DefaultLeaderImbalanceCheckIntervalMs.
	LeaderImbalanceCheckIntervalMs int64
}

func (c Config) withDefaults() (Config, error) {
	switch {
	case c.SessionTimeoutMs < 0:
		return c, fmt.Errorf("%w: SessionTimeoutMs = %d", ErrInvalidConfig, c.SessionTimeoutMs)
	case c.DefaultMinISR < 0:
		return c, fmt.Errorf("%w: DefaultMinISR = %d", ErrInvalidConfig, c.DefaultMinISR)
	case c.LeaderImbalanceCheckIntervalMs < 0:
		return c, fmt.Errorf("%w: LeaderImbalanceCheckIntervalMs = %d", ErrInvalidConfig, c.LeaderImbalanceCheckIntervalMs)
	}
	if c.LeaderImbalanceCheckIntervalMs == 0 {
		c.LeaderImbalanceCheckIntervalMs = DefaultLeaderImbalanceCheckIntervalMs
	}
	if c.SessionTimeoutMs == 0 {
		c.SessionTimeoutMs = DefaultSessionTimeoutMs
	}
	if c.DefaultMinISR == 0 {
		c.DefaultMinISR = 1
	}
	return c, nil
}

// session is the controller's in-memory view of a broker's liveness, as in
// Kafka's BrokerHeartbeatManager: never written to the store, and started
// afresh for every registered broker when the controller opens.
type session struct {
	lastContactMs int64
	// metadataOffset is the MetadataOffset of the broker's last heartbeat.
	metadataOffset uint64
	// shutdownOffset is the end of the metadata log after the records that
	// began the broker's controlled shutdown: every active broker must
	// have applied them before it is told to shut down.
	shutdownOffset uint64
	// ended is set when the controller ended the session before it
	// expired: it fenced the broker for expiry, or told it to shut down.
	// A heartbeat from the same incarnation renews it.
	ended bool
}

// Controller owns the ISR: brokers register and heartbeat, leaders propose
// ISR changes, and the controller elects leaders, every decision a record
// in its Store's metadata log. It is a pure state machine: no goroutines,
// no clock (time is each call's nowMs), no network. It is not safe for
// concurrent use; the driver serializes calls. See the package doc for the
// rules.
type Controller struct {
	cfg      Config
	store    Store
	image    *Image
	sessions map[int32]*session
	err      error
	// nextProducerID is the next producer id InitProducerID hands out,
	// inside the block the image's NextProducerID ends; at Open it is that
	// end, so the first call allocates a fresh block.
	nextProducerID int64
	// nextBalanceMs is when the periodic preferred-leader check is due,
	// or Never (elect_preferred.go).
	nextBalanceMs int64
}

// Open replays store into a new Controller. Every registered broker that is
// unfenced gets a fresh session running from nowMs; a fenced one has none
// until it heartbeats. The caller keeps ownership of
// store and closes it after the controller. Errors: ErrInvalidConfig, the
// store's own, or ErrBadRecord/ErrInvariant for a metadata log that does not
// replay.
func Open(store Store, cfg Config, nowMs int64) (*Controller, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	img := NewImage()
	end := store.EndOffset()
	var buf []byte
	for img.end < end {
		buf, err = store.Read(buf[:0], img.end, replayChunkBytes)
		if err != nil {
			return nil, fmt.Errorf("controller: replaying the store from offset %d: %w", img.end, err)
		}
		if len(buf) == 0 {
			return nil, fmt.Errorf("%w: the store ends at offset %d but reads nothing from %d", ErrBadRecord, end, img.end)
		}
		before := img.end
		if err := img.ApplyBatches(buf); err != nil {
			return nil, err
		}
		if img.end == before {
			return nil, fmt.Errorf("%w: the store reads no record at offset %d", ErrBadRecord, img.end)
		}
	}
	if img.end != end {
		return nil, fmt.Errorf("%w: replay reached offset %d, the store ends at %d", ErrBadRecord, img.end, end)
	}
	c := &Controller{cfg: cfg, store: store, image: img, sessions: map[int32]*session{}, nextProducerID: img.nextProducerID, nextBalanceMs: Never}
	for id, b := range img.brokers {
		s := &session{lastContactMs: nowMs}
		if b.InControlledShutdown && !b.Fenced {
			s.shutdownOffset = img.end // conservative: every active broker must reach today's end
		}
		// A fenced broker's process may be long gone: it has no session to
		// defend against a new incarnation until it heartbeats again.
		s.ended = b.Fenced
		c.sessions[id] = s
	}
	c.scheduleBalance(nowMs)
	return c, nil
}

// Failed returns nil, or the error that failed the controller: a store
// Append that did not succeed. It matches ErrFailed. A failed controller
// answers every request with wire.CodeNotController and changes nothing;
// only Open on the store clears it.
func (c *Controller) Failed() error { return c.err }

// Image returns a copy of the controller's metadata image, the state its
// committed records build: read-only for tests and the simulator.
func (c *Controller) Image() *Image { return c.image.Clone() }

// MetadataEndOffset is the end of the metadata log: the offset of the next
// record.
func (c *Controller) MetadataEndOffset() uint64 { return c.image.end }

// ReadMetadata appends whole batches of the metadata log from offset from to
// dst, up to about maxBytes and at least one batch if any, as a fetch of
// MetadataTopic partition 0 with high-watermark isolation would (every
// record in the store is committed). Brokers apply them with
// Image.ApplyBatches. from at MetadataEndOffset returns dst unchanged.
// Errors: ErrFailed, or wire.ErrOffsetOutOfRange for from beyond the end.
func (c *Controller) ReadMetadata(dst []byte, from uint64, maxBytes int) ([]byte, error) {
	if c.err != nil {
		return dst, c.err
	}
	if from > c.image.end {
		return dst, fmt.Errorf("controller: %w: metadata offset %d, the log ends at %d", wire.ErrOffsetOutOfRange, from, c.image.end)
	}
	return c.store.Read(dst, from, maxBytes)
}

// op is one controller operation under construction: the records it will
// append as one batch, applied as they are added to a scratch copy of the
// image so that each decision sees the previous ones.
type op struct {
	img  *Image
	recs []Record
	err  error // a record the scratch image refused: a bug, nothing is appended
}

func (c *Controller) begin() *op { return &op{img: c.image.Clone()} }

func (o *op) add(r Record) {
	if o.err != nil {
		return
	}
	if err := o.img.Apply(r); err != nil {
		// %v, not %w: a bug is UNKNOWN_SERVER_ERROR, not the
		// CORRUPT_MESSAGE that ErrInvariant carries.
		o.err = fmt.Errorf("controller: internal error, refusing to write a bad record: %v", err)
		return
	}
	o.recs = append(o.recs, r)
}

// commit appends o's records as one batch and, only once the store has
// made it durable, applies them to the controller's image. A failed append
// fails the controller: it can no longer tell what is durable.
func (c *Controller) commit(o *op, nowMs int64) error {
	if o.err != nil {
		return o.err
	}
	if c.err != nil {
		return c.err
	}
	if len(o.recs) == 0 {
		return nil
	}
	base := c.image.end
	if end := c.store.EndOffset(); end != base {
		return c.fail(fmt.Sprintf("the store ends at offset %d, the image at %d", end, base))
	}
	batch := log.Batch{
		BaseOffset:    base,
		BaseTimestamp: nowMs,
		MaxTimestamp:  nowMs,
		ProducerID:    -1,
		ProducerEpoch: -1,
		BaseSequence:  -1,
		Records:       make([]log.Record, len(o.recs)),
	}
	for i, r := range o.recs {
		v, err := r.AppendTo(nil)
		if err != nil {
			return fmt.Errorf("controller: internal error, encoding %s: %v", r.Type(), err)
		}
		batch.Records[i] = log.Record{OffsetDelta: int32(i), Value: v}
	}
	buf, err := log.AppendBatch(nil, &batch)
	if err != nil {
		return fmt.Errorf("controller: internal error, encoding a batch: %v", err)
	}
	got, err := c.store.Append(buf)
	if err != nil {
		return c.fail(fmt.Sprintf("appending %d records at offset %d: %v", len(o.recs), base, err))
	}
	if got != base {
		return c.fail(fmt.Sprintf("the store appended at offset %d, want %d", got, base))
	}
	for _, r := range o.recs {
		if err := c.image.Apply(r); err != nil {
			return c.fail(fmt.Sprintf("applying a committed record: %v", err))
		}
	}
	c.scheduleBalance(nowMs)
	return nil
}

func (c *Controller) fail(detail string) error {
	if c.err == nil {
		c.err = failed("%s", detail)
	}
	return c.err
}

// codeOf turns a commit error into a response code.
func codeOf(err error) wire.ErrorCode { return wire.CodeOf(err) }

// NextTickMs is when Tick next has work: the first millisecond at which an
// unfenced broker's session has expired or the periodic preferred-leader
// check is due, or Never.
func (c *Controller) NextTickMs() int64 {
	next := Never
	if c.err != nil {
		return next
	}
	next = c.nextBalanceMs
	for id, s := range c.sessions {
		if b, ok := c.image.brokers[id]; ok && !b.Fenced {
			next = min(next, c.expiresMs(s))
		}
	}
	return next
}

// expiresMs is the first millisecond at which s has expired: a session is
// valid while nowMs <= lastContact + timeout, as in Kafka's
// BrokerHeartbeatManager.hasValidSession.
func (c *Controller) expiresMs(s *session) int64 {
	if s.lastContactMs > Never-c.cfg.SessionTimeoutMs-1 {
		return Never
	}
	return s.lastContactMs + c.cfg.SessionTimeoutMs + 1
}

// Tick fences every unfenced broker whose session has expired at nowMs,
// oldest contact first, one operation each (as Kafka fences one stale
// broker at a time): a BrokerRegistrationChangeRecord, then its removal
// from every ISR, with a new leader wherever it led. Then, when it is due,
// it runs the periodic preferred-leader check (see the package doc). A
// driver calls it at NextTickMs.
func (c *Controller) Tick(nowMs int64) {
	if c.err != nil {
		return
	}
	var stale []int32
	for id, s := range c.sessions {
		if b, ok := c.image.brokers[id]; ok && !b.Fenced && nowMs >= c.expiresMs(s) {
			stale = append(stale, id)
		}
	}
	slices.SortFunc(stale, func(a, b int32) int {
		return cmp.Or(cmp.Compare(c.sessions[a].lastContactMs, c.sessions[b].lastContactMs), cmp.Compare(a, b))
	})
	for _, id := range stale {
		o := c.begin()
		c.fence(o, id)
		if err := c.commit(o, nowMs); err != nil {
			return
		}
		c.sessions[id].ended = true
	}
	c.balance(nowMs)
}
