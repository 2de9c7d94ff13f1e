package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// DefaultRequestTimeoutMs is Config.RequestTimeoutMs when 0: Kafka's
// request.timeout.ms.
const DefaultRequestTimeoutMs = 30000

// Config configures a Client. Controller and Clock are required; every
// other field has a default, taken when it is zero.
type Config struct {
	// Controller is the controller's address, host:port. kaenlog's
	// controller answers metadata (brokers, leaders, leader epochs) and
	// hands out producer ids, so it is the only address a client needs.
	Controller string
	// Clock drives every timer of the client: linger, backoff, request and
	// delivery timeouts. Tests pass a *clock.Manual; a program passes the
	// wall clock (examples/wallclock).
	Clock clock.Clock
	// Dial opens connections. nil uses a net.Dialer. The client bounds
	// each dial by RequestTimeoutMs on Clock.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// RequestTimeoutMs bounds the wait for any answer, on top of the time
	// the request itself lets the broker take (a produce's
	// ProducerConfig.AckTimeoutMs, a fetch's ConsumerConfig.MaxWaitMs).
	// A request not answered in time fails with an error matching
	// wire.ErrRequestTimedOut and, as in Kafka, closes its connection:
	// the order of the answers on it can no longer be trusted. Default
	// DefaultRequestTimeoutMs.
	RequestTimeoutMs int64
	// RetryBackoffMs and RetryBackoffMaxMs bound the backoff between
	// retries (produce, fetch, metadata, producer id): exponential from
	// the first to the second, ±20% jitter. Defaults DefaultRetryBackoffMs
	// and DefaultRetryBackoffMaxMs (Kafka's retry.backoff.ms and
	// retry.backoff.max.ms).
	RetryBackoffMs, RetryBackoffMaxMs int64
	// MaxFrameSize bounds every frame read from the network before
	// anything is allocated for it. Default wire.DefaultMaxFrameSize: the
	// same limit, under the same name, as a broker's server.Config.
	MaxFrameSize int
	// MetadataMaxAgeMs is how old the metadata may grow before the client
	// refreshes it unasked (Kafka's metadata.max.age.ms), so that it
	// learns of new brokers, partitions and leaders even when no error
	// tells it. Default DefaultMetadataMaxAgeMs.
	MetadataMaxAgeMs int64
	// Seed seeds the backoff jitter, so a run on a manual clock replays.
	// 0 picks a random seed; give each client of a fleet its own.
	Seed uint64
}

// TopicPartition names a partition.
type TopicPartition struct {
	// Topic is the partition's topic.
	Topic string
	// Partition is the partition's index in its topic, from 0.
	Partition int32
}

// String returns "topic-partition", Kafka's spelling ("orders-0").
func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// Header is a record header: a key, never null, and a value (nil is null).
type Header = log.Header

// Record is a record to produce, or one consumed.
type Record struct {
	// Topic is the topic the record goes to or came from.
	Topic string
	// Partition is the partition the record goes to or came from. The
	// producer does not choose partitions: this is the one written.
	Partition int32
	// Key and Value are the record's bytes; nil is null. The producer
	// copies them before Produce or ProduceAsync returns. A consumer's
	// records alias the fetch response they came in, which the client
	// never reuses: they stay valid.
	Key, Value []byte
	// Headers are optional.
	Headers []Header
	// TimestampMs is the record's time in milliseconds since the Unix
	// epoch. Produce stamps a record whose TimestampMs is 0 with the
	// client's clock, and refuses a negative one (wire.ErrInvalidRecord),
	// as Kafka's producer does.
	TimestampMs int64
	// Offset is where a consumed record is in its partition. The producer
	// ignores it.
	Offset uint64
	// LeaderEpoch is the epoch of the leader that appended a consumed
	// record. The producer ignores it.
	LeaderEpoch int32
}

// Offset is where a produced record landed.
type Offset struct {
	// Topic is the record's topic.
	Topic string
	// Partition is the record's partition.
	Partition int32
	// Offset is the record's offset in its partition, meaningful only when
	// HasOffset.
	Offset uint64
	// HasOffset is false for acks=0: no broker answered, so nobody knows.
	HasOffset bool
}

// Client talks to a kaenlog cluster: it keeps the connections (one per
// broker for producing, one to the controller), the metadata, and the
// producers and consumers made from it. It is safe for concurrent use.
type Client struct {
	cfg   Config
	clock trackedClock
	track *tracker

	mu         sync.Mutex
	closed     bool
	conns      map[connKey]*conn
	private    map[*conn]struct{} // consumers' connections
	producers  map[*Producer]struct{}
	meta       metadata
	seedSource *rand.Rand // seeds each backoff the client makes

	fetches   atomic.Int64   // fetch requests sent, for tests
	fetchSent chan struct{}  // closed at the next fetch, made by a test waiting for one
	onSleep   func(ms int64) // told when a consumer backs off, for tests
	// onMetadataWait is told when a consumer starts its bounded wait for
	// its partition's metadata, for tests.
	onMetadataWait func()
}

// connKey names a shared connection: the controller's, or a broker's
// produce connection.
type connKey struct {
	controller bool
	broker     int32
}

// New returns a client for the cluster whose controller is at
// cfg.Controller. It connects lazily, on the first request.
func New(cfg Config) (*Client, error) {
	if err := checkAddress(cfg.Controller); err != nil {
		return nil, configError("Config.Controller", "%v", err)
	}
	if cfg.Clock == nil {
		return nil, configError("Config.Clock", "nil: a program passes the wall clock (examples/wallclock), a test a *clock.Manual")
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"RequestTimeoutMs", cfg.RequestTimeoutMs}, {"RetryBackoffMs", cfg.RetryBackoffMs},
		{"RetryBackoffMaxMs", cfg.RetryBackoffMaxMs}, {"MaxFrameSize", int64(cfg.MaxFrameSize)},
		{"MetadataMaxAgeMs", cfg.MetadataMaxAgeMs},
	} {
		if f.v < 0 {
			return nil, configError("Config."+f.name, "%d is negative (0 takes the default)", f.v)
		}
	}
	if cfg.RetryBackoffMs > 0 && cfg.RetryBackoffMaxMs > 0 && cfg.RetryBackoffMaxMs < cfg.RetryBackoffMs {
		return nil, configError("Config.RetryBackoffMaxMs", "%d is below RetryBackoffMs %d", cfg.RetryBackoffMaxMs, cfg.RetryBackoffMs)
	}
	if cfg.MaxFrameSize > 0 && cfg.MaxFrameSize < minFrameSize {
		return nil, configError("Config.MaxFrameSize", "%d is below %d: no answer with a record would fit", cfg.MaxFrameSize, minFrameSize)
	}
	if cfg.MetadataMaxAgeMs == 0 {
		cfg.MetadataMaxAgeMs = DefaultMetadataMaxAgeMs
	}
	if cfg.RequestTimeoutMs == 0 {
		cfg.RequestTimeoutMs = DefaultRequestTimeoutMs
	}
	if cfg.RetryBackoffMs == 0 {
		cfg.RetryBackoffMs = DefaultRetryBackoffMs
	}
	if cfg.RetryBackoffMaxMs == 0 {
		cfg.RetryBackoffMaxMs = max(DefaultRetryBackoffMaxMs, cfg.RetryBackoffMs)
	}
	if cfg.MaxFrameSize == 0 {
		cfg.MaxFrameSize = wire.DefaultMaxFrameSize
	}
	if cfg.Seed == 0 {
		cfg.Seed = rand.Uint64()
	}
	if cfg.Dial == nil {
		var d net.Dialer
		cfg.Dial = d.DialContext
	}
	t := newTracker()
	c := &Client{
		cfg:        cfg,
		clock:      trackedClock{Clock: cfg.Clock, t: t},
		track:      t,
		conns:      map[connKey]*conn{},
		private:    map[*conn]struct{}{},
		producers:  map[*Producer]struct{}{},
		seedSource: rand.New(rand.NewPCG(cfg.Seed, 1)),
	}
	c.meta.init(c)
	return c, nil
}

// minFrameSize is the least Config.MaxFrameSize: room for an answer's
// fixed fields and a small batch.
const minFrameSize = 1024

// checkAddress checks that addr is host:port with a host and a port
// number, as Kafka's clients check bootstrap.servers: an address that
// cannot be dialled is refused at New, not by every later request.
func checkAddress(addr string) error {
	if addr == "" {
		return errors.New("no address: give the controller's host:port")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			err = errors.New(ae.Err)
		}
		return fmt.Errorf("%q is not host:port: %v", addr, err)
	}
	if host == "" {
		return fmt.Errorf("%q has no host", addr)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return fmt.Errorf("%q: port %q is not a number from 1 to 65535", addr, port)
	}
	return nil
}

// Close releases everything: it fails every record not yet acknowledged
// with ErrClosed (Flush first to wait for them), ends consumers'
// iterations with ErrClosed, closes the connections, stops the timers,
// and returns once every goroutine the client started has ended.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	producers := make([]*Producer, 0, len(c.producers))
	for p := range c.producers {
		producers = append(producers, p)
	}
	conns := make([]*conn, 0, len(c.conns)+len(c.private))
	for _, cn := range c.conns {
		conns = append(conns, cn)
	}
	for cn := range c.private {
		conns = append(conns, cn)
	}
	c.mu.Unlock()
	c.meta.close()
	c.track.shut()
	for _, p := range producers {
		p.Close()
	}
	for _, cn := range conns {
		cn.fail(ErrClosed)
	}
	c.track.wait()
	return nil
}

// isClosed reports whether Close has begun.
func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// newSeed returns a seed for one more backoff.
func (c *Client) newSeed() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seedSource.Uint64()
}

// newBackoff returns a backoff with the client's bounds and its own seed.
func (c *Client) newBackoff() *backoff {
	return newBackoff(c.cfg.RetryBackoffMs, c.cfg.RetryBackoffMaxMs, c.newSeed())
}

// controllerConn returns the connection to the controller, dialling a new
// one if there is none or the last one broke.
func (c *Client) controllerConn() (*conn, error) {
	return c.sharedConn(connKey{controller: true}, c.cfg.Controller)
}

// produceConn returns the produce connection to broker id at addr.
func (c *Client) produceConn(id int32, addr string) (*conn, error) {
	return c.sharedConn(connKey{broker: id}, addr)
}

func (c *Client) sharedConn(k connKey, addr string) (*conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if cn := c.conns[k]; cn != nil && !cn.broken() && cn.addr == addr {
		return cn, nil
	}
	peer := "controller"
	if !k.controller {
		peer = brokerName(k.broker)
	}
	cn := newConn(c, peer, addr, !k.controller)
	if old := c.conns[k]; old != nil && !old.broken() {
		// The broker moved. Its requests fail from a goroutine of their
		// own: the caller may hold locks their handlers take.
		c.track.goroutine(func() { old.fail(networkError(peer, fmt.Errorf("moved from %s to %s", old.addr, addr))) })
	}
	c.conns[k] = cn
	cn.start()
	return cn, nil
}

// privateConn returns a new connection of a consumer's own to broker id.
func (c *Client) privateConn(id int32, addr string) (*conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	cn := newConn(c, fmt.Sprintf("broker %d", id), addr, true)
	c.private[cn] = struct{}{}
	cn.start()
	return cn, nil
}

// connBroken forgets cn and, for a broker's connection, refreshes the
// metadata: the broker may be gone and its partitions led elsewhere.
func (c *Client) connBroken(cn *conn) {
	c.mu.Lock()
	for k, x := range c.conns {
		if x == cn {
			delete(c.conns, k)
		}
	}
	delete(c.private, cn)
	closed := c.closed
	c.mu.Unlock()
	if cn.broker && !closed && !errors.Is(cn.cause(), errSessionEnded) {
		c.meta.refresh()
	}
}

// roundTrip sends m on cn and waits for its answer, for ctx, or for the
// client to close. The payload it returns is the caller's.
func (c *Client) roundTrip(ctx context.Context, cn *conn, m wire.Message, waitMs int64) ([]byte, error) {
	type answer struct {
		payload []byte
		err     error
	}
	ch := make(chan answer, 1)
	err := cn.send(m, waitMs, func(payload []byte, err error) bool {
		ch <- answer{payload, err}
		return true
	}, nil)
	if err != nil {
		return nil, err
	}
	select {
	case a := <-ch:
		return a.payload, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.track.closing():
		return nil, ErrClosed
	}
}

// TopicConfig describes a topic to create.
type TopicConfig struct {
	// Name is the topic's name, a valid Kafka topic name.
	Name string
	// Partitions is the number of partitions, at least 1.
	Partitions int32
	// ReplicationFactor is the number of replicas of each partition,
	// at most the number of brokers.
	ReplicationFactor int16
	// MinISR is the topic's min.insync.replicas; 0 takes the controller's
	// default.
	MinISR int32
}

// CreateTopic asks the controller to create a topic. A TopicConfig that
// cannot be valid (no partitions, no replicas, a negative MinISR) is
// refused before anything is sent, with ErrInvalidConfig naming the
// field; the controller's refusal matches its wire error
// (wire.ErrTopicAlreadyExists, wire.ErrInvalidReplicationFactor, ...) and
// says what was wrong. The topic's leaders
// are elected by the controller right after; a producer or consumer that
// asks before waits for them.
func (c *Client) CreateTopic(ctx context.Context, t TopicConfig) error {
	if err := wire.ValidateTopic(t.Name); err != nil {
		return err
	}
	switch {
	case t.Partitions < 1:
		return configError("TopicConfig.Partitions", "%d: a topic has at least 1 partition", t.Partitions)
	case t.ReplicationFactor < 1:
		return configError("TopicConfig.ReplicationFactor", "%d: a partition has at least 1 replica", t.ReplicationFactor)
	case t.MinISR < 0:
		return configError("TopicConfig.MinISR", "%d is negative (0 takes the controller's default)", t.MinISR)
	}
	cn, err := c.controllerConn()
	if err != nil {
		return err
	}
	payload, err := c.roundTrip(ctx, cn, &wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: t.Name, Partitions: t.Partitions, ReplicationFactor: t.ReplicationFactor, Configs: wire.MinInsyncReplicas(t.MinISR)}}}, 0)
	if err != nil {
		return err
	}
	resp, err := wire.DecodeCreateTopicsResponse(payload)
	if err != nil {
		return err
	}
	if err := resp.Err(); err != nil {
		// The controller's message says what was wrong; the code's own
		// description only names the kind.
		return fmt.Errorf("client: refused by the controller: %w", err)
	}
	c.meta.refresh(t.Name)
	return nil
}

// tracker counts what runs on the client's behalf — its goroutines and
// pending timers — so Close can wait until all have ended. Once closed it
// starts nothing more, and it stops every timer still pending itself.
type tracker struct {
	mu     sync.Mutex
	n      int
	closed bool
	zero   chan struct{} // made by wait, closed when n reaches 0
	timers map[*trackedTimer]struct{}
	ending chan struct{} // closed when wait begins
}

func newTracker() *tracker {
	return &tracker{timers: map[*trackedTimer]struct{}{}, ending: make(chan struct{})}
}

// closing returns a channel closed once the client is closing.
func (t *tracker) closing() <-chan struct{} { return t.ending }

// add counts one more, unless the tracker is closed.
func (t *tracker) add() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.n++
	return true
}

// done counts one less.
func (t *tracker) done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n--
	if t.n == 0 && t.zero != nil {
		close(t.zero)
		t.zero = nil
	}
}

// goroutine runs f in a goroutine of its own, counted; false if closed.
func (t *tracker) goroutine(f func()) bool {
	if !t.add() {
		return false
	}
	go func() {
		defer t.done()
		f()
	}()
	return true
}

// shut closes the tracker: nothing new starts, and closing's channel is
// closed.
func (t *tracker) shut() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.closed {
		close(t.ending)
	}
	t.closed = true
}

// wait shuts the tracker, stops the pending timers and waits until
// everything counted has ended.
func (t *tracker) wait() {
	t.shut()
	t.mu.Lock()
	timers := make([]*trackedTimer, 0, len(t.timers))
	for tt := range t.timers {
		timers = append(timers, tt)
	}
	t.mu.Unlock()
	sort.Slice(timers, func(i, j int) bool { return timers[i].seq < timers[j].seq })
	for _, tt := range timers {
		tt.Stop()
	}
	t.mu.Lock()
	if t.n == 0 {
		t.mu.Unlock()
		return
	}
	zero := make(chan struct{})
	t.zero = zero
	t.mu.Unlock()
	<-zero
}

// trackedClock is the client's clock: every timer it starts is counted by
// the tracker until it has run or been stopped.
type trackedClock struct {
	clock.Clock
	t *tracker
}

// trackedTimer is a timer of a trackedClock.
type trackedTimer struct {
	t     *tracker
	inner clock.Timer
	seq   uint64
	mu    sync.Mutex
	ended bool
}

var timerSeq struct {
	sync.Mutex
	n uint64
}

// AfterFunc runs f after ms, counted; once the tracker is closed it
// schedules nothing and returns a stopped timer.
func (c trackedClock) AfterFunc(ms int64, f func()) clock.Timer {
	tt := &trackedTimer{t: c.t}
	if !c.t.add() {
		tt.ended = true
		return tt
	}
	timerSeq.Lock()
	timerSeq.n++
	tt.seq = timerSeq.n
	timerSeq.Unlock()
	c.t.mu.Lock()
	c.t.timers[tt] = struct{}{}
	c.t.mu.Unlock()
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.inner = c.Clock.AfterFunc(ms, func() {
		if !tt.end() {
			return
		}
		defer c.t.done()
		f()
	})
	return tt
}

// end marks the timer ended and forgets it; false if it already was.
func (tt *trackedTimer) end() bool {
	tt.mu.Lock()
	if tt.ended {
		tt.mu.Unlock()
		return false
	}
	tt.ended = true
	tt.mu.Unlock()
	tt.t.mu.Lock()
	delete(tt.t.timers, tt)
	tt.t.mu.Unlock()
	return true
}

// Stop cancels the timer; true if it had not run.
func (tt *trackedTimer) Stop() bool {
	tt.mu.Lock()
	inner := tt.inner
	tt.mu.Unlock()
	if inner == nil || !inner.Stop() {
		return false
	}
	if !tt.end() {
		return false
	}
	tt.t.done()
	return true
}

// maxRequestBatchBytes is the most a produce request's batches may hold:
// the frame bound less room for the request's other fields.
func (c *Client) maxRequestBatchBytes() int {
	n := c.cfg.MaxFrameSize
	return n - min(n/2, 64<<10)
}
