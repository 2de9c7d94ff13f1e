package client

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// metadata is the client's view of the cluster: brokers' endpoints and
// each partition's leader and leader epoch, as the controller last said
// (or a broker told more recently: a fetch's CurrentLeader). One refresh
// is in flight at a time, for every topic the client has used; refreshes
// are at least RetryBackoffMs apart, and back off exponentially while
// they fail. Producers are told after each refresh; consumers wait for it.
type metadata struct {
	c *Client

	mu        sync.Mutex
	brokers   map[int32]string
	topics    map[string]topicMeta
	parts     map[TopicPartition]partMeta
	want      map[string]struct{}
	inflight  bool
	again     bool        // a refresh was asked for while one was in flight
	timer     clock.Timer // a refresh waiting for notBefore
	notBefore int64
	failures  int
	back      *backoff
	changed   chan struct{} // closed and replaced after every refresh, failed or not
	lastErr   error         // why the last refresh failed
	answers   uint64        // refreshes that succeeded, counted
	closed    bool
	listeners map[*Producer]struct{}
	// ageTimer refreshes the metadata once it is MetadataMaxAgeMs old;
	// ageGen tells its call from a stopped one's (metadata_age.go).
	ageTimer clock.Timer
	ageGen   uint64
}

// topicMeta is one topic's state.
type topicMeta struct {
	code       wire.ErrorCode
	partitions int32
}

// partMeta is one partition's leader.
type partMeta struct {
	code   wire.ErrorCode
	leader int32
	epoch  int32
}

// errNoMetadata is the lookup of a partition the client has no metadata
// for yet.
var errNoMetadata = errors.New("client: no metadata yet")

func (m *metadata) init(c *Client) {
	m.c = c
	m.brokers = map[int32]string{}
	m.topics = map[string]topicMeta{}
	m.parts = map[TopicPartition]partMeta{}
	m.want = map[string]struct{}{}
	m.changed = make(chan struct{})
	m.listeners = map[*Producer]struct{}{}
	m.back = c.newBackoff()
}

// leader returns tp's leader, its epoch and its address. The error is
// errNoMetadata if the client knows nothing of tp's topic yet, or what the
// controller said: wire.ErrUnknownTopicOrPartition (also for a partition
// index the topic does not have), wire.ErrLeaderNotAvailable.
func (m *metadata) leader(tp TopicPartition) (id, epoch int32, addr string, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.topics[tp.Topic]
	if !ok {
		return 0, 0, "", errNoMetadata
	}
	if t.code != wire.CodeNone {
		return 0, 0, "", refusal(tp, "controller", t.code)
	}
	if tp.Partition < 0 || tp.Partition >= t.partitions {
		return 0, 0, "", fmt.Errorf("client: %s: topic has %d partitions: %w", tp, t.partitions, wire.ErrUnknownTopicOrPartition)
	}
	p := m.parts[tp]
	if p.code != wire.CodeNone {
		return 0, 0, "", refusal(tp, "controller", p.code)
	}
	if p.leader == wire.NoLeader {
		return 0, 0, "", fmt.Errorf("client: %s: %w", tp, wire.ErrLeaderNotAvailable)
	}
	addr, ok = m.brokers[p.leader]
	if !ok {
		return 0, 0, "", fmt.Errorf("client: %s: leader %d has no endpoint: %w", tp, p.leader, wire.ErrLeaderNotAvailable)
	}
	return p.leader, p.epoch, addr, nil
}

// partitions returns what the last answer said of topic: its partition
// count (ok), or, when it said the topic does not exist or is invalid,
// the refusal. answers counts the successful refreshes so far, so a
// caller can tell a fresh answer from one it has seen. Neither (n 0, err
// nil, ok false) means no answer named the topic yet.
func (m *metadata) partitions(topic string) (n int32, ok bool, answers uint64, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, known := m.topics[topic]
	switch {
	case !known:
		return 0, false, m.answers, nil
	case t.code != wire.CodeNone:
		return 0, false, m.answers, t.code.Err()
	}
	return t.partitions, true, m.answers, nil
}

// timeoutError is ErrMetadataTimeout for subject, which waited ms (the
// config field named) for the metadata: it names the controller's
// address and wraps the last cause — cause, what the metadata says of
// subject, if it says anything, or else the last refresh's error.
func (m *metadata) timeoutError(subject, field string, ms int64, cause error) error {
	m.mu.Lock()
	last, failures := m.lastErr, m.failures
	m.mu.Unlock()
	addr := m.c.cfg.Controller
	switch {
	case cause != nil && !errors.Is(cause, errNoMetadata):
		return fmt.Errorf("client: %s: %w after %d ms (%s): the controller at %s answers: %w", subject, ErrMetadataTimeout, ms, field, addr, cause)
	case last != nil:
		return fmt.Errorf("client: %s: %w after %d ms (%s): no answer from the controller at %s (failed %d times in a row), the last: %w", subject, ErrMetadataTimeout, ms, field, addr, failures, last)
	}
	return fmt.Errorf("client: %s: %w after %d ms (%s): no answer yet from the controller at %s", subject, ErrMetadataTimeout, ms, field, addr)
}

// lastError returns why the last refresh failed, or nil.
func (m *metadata) lastError() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastErr
}

// hint records a leader a broker named (a fetch's CurrentLeader), if its
// epoch is newer than the one known.
func (m *metadata) hint(tp TopicPartition, leader, epoch int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.parts[tp]; ok && epoch > p.epoch {
		m.parts[tp] = partMeta{leader: leader, epoch: epoch}
	}
}

// next returns the channel the next refresh closes.
func (m *metadata) next() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changed
}

// refresh asks for new metadata, adding topics to those the client follows.
func (m *metadata) refresh(topics ...string) {
	m.mu.Lock()
	for _, t := range topics {
		m.want[t] = struct{}{}
	}
	req, ok := m.startLocked()
	m.mu.Unlock()
	if ok {
		m.send(req)
	}
}

// follow adds topic to those the client follows, refreshing the metadata
// if it is new.
func (m *metadata) follow(topic string) {
	m.mu.Lock()
	if _, ok := m.want[topic]; ok {
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	m.refresh(topic)
}

// startLocked begins a refresh and returns its request, unless one is in
// flight (it is then repeated once that one ends) or the last one was too
// recent (a timer then starts it when it may).
func (m *metadata) startLocked() (*wire.MetadataRequest, bool) {
	if m.closed {
		return nil, false
	}
	if m.inflight {
		m.again = true
		return nil, false
	}
	if m.timer != nil {
		return nil, false
	}
	if now := m.c.clock.NowMs(); now < m.notBefore {
		m.timer = m.c.clock.AfterFunc(m.notBefore-now, m.fire)
		return nil, false
	}
	m.inflight = true
	topics := make([]string, 0, len(m.want))
	for t := range m.want {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	return &wire.MetadataRequest{Topics: topics}, true
}

// fire is the timer's refresh.
func (m *metadata) fire() {
	m.mu.Lock()
	m.timer = nil
	req, ok := m.startLocked()
	m.mu.Unlock()
	if ok {
		m.send(req)
	}
}

// send puts the request on the controller's connection. Its caller may
// hold a producer's lock, which the listeners take: a failure to send is
// therefore handled on a goroutine of its own, like an answer.
func (m *metadata) send(req *wire.MetadataRequest) {
	cn, err := m.c.controllerConn()
	if err == nil {
		err = cn.send(req, 0, func(payload []byte, err error) bool {
			m.answered(payload, err)
			return false
		}, nil)
	}
	if err != nil && !m.c.track.goroutine(func() { m.answered(nil, err) }) {
		m.mu.Lock()
		m.inflight = false
		m.mu.Unlock()
	}
}

// answered applies a refresh's answer, or its failure, and tells everyone
// waiting.
func (m *metadata) answered(payload []byte, err error) {
	var resp wire.MetadataResponse
	if err == nil {
		resp, err = wire.DecodeMetadataResponse(payload)
	}
	if err == nil && resp.ErrorCode != wire.CodeNone {
		err = fmt.Errorf("client: metadata from controller: %w", resp.ErrorCode.Err())
	}
	now := m.c.clock.NowMs()
	m.mu.Lock()
	m.inflight = false
	if err != nil {
		m.failures++
		m.lastErr = err
		m.notBefore = now + m.back.delayMs(m.failures-1)
		m.again = true // whoever asked still needs it
	} else {
		m.failures = 0
		m.lastErr = nil
		m.answers++
		m.notBefore = now + m.c.cfg.RetryBackoffMs
		m.apply(&resp)
		m.restartAgeLocked()
	}
	var req *wire.MetadataRequest
	ok := false
	if m.again {
		m.again = false
		req, ok = m.startLocked()
	}
	// Waiters wake once the next refresh is armed (its timer set, or it
	// is in flight), so a test on a manual clock that waited for this
	// one finds the next one's timer.
	close(m.changed)
	m.changed = make(chan struct{})
	listeners := make([]*Producer, 0, len(m.listeners))
	for p := range m.listeners {
		listeners = append(listeners, p)
	}
	m.mu.Unlock()
	if ok {
		m.send(req)
	}
	for _, p := range listeners {
		p.metadataChanged()
	}
}

// apply takes a successful answer. A partition whose known leader epoch is
// newer than the answer's keeps what is known: the controller's answer was
// on its way while a broker told of a newer leader.
func (m *metadata) apply(resp *wire.MetadataResponse) {
	clear(m.brokers)
	for _, b := range resp.Brokers {
		m.brokers[b.ID] = b.Endpoint
	}
	for _, t := range resp.Topics {
		m.topics[t.Name] = topicMeta{code: t.ErrorCode, partitions: int32(len(t.Partitions))}
		for _, p := range t.Partitions {
			tp := TopicPartition{t.Name, p.Partition}
			if old, ok := m.parts[tp]; ok && old.epoch > p.LeaderEpoch {
				continue
			}
			m.parts[tp] = partMeta{code: p.ErrorCode, leader: p.Leader, epoch: p.LeaderEpoch}
		}
	}
}

// wait blocks until the next refresh after the one that closed seen has
// ended, or ctx ends, or the client closes.
func (m *metadata) wait(ctx context.Context, seen <-chan struct{}) error {
	select {
	case <-seen:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-m.c.track.closing():
		return ErrClosed
	}
}

// listen tells p after every refresh; forget stops it.
func (m *metadata) listen(p *Producer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.listeners[p] = struct{}{}
}

func (m *metadata) forget(p *Producer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.listeners, p)
}

// close stops refreshing.
func (m *metadata) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
	m.stopAgeLocked()
}
