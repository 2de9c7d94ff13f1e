package client

import (
	"bufio"
	"context"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A scripted fake cluster on loopback listeners: a controller that answers
// Metadata and InitProducerId from a table the test sets, and brokers whose
// requests the test receives one by one and answers itself. The client
// under test runs on a clock.Manual; the fakes run on real goroutines, and
// the test waits for their requests on channels (with a generous real-time
// guard, never a sleep).

// waitGuard bounds every wait of a test for something the client does.
const waitGuard = 10 * time.Second

// fakeReq is one request a fake server received.
type fakeReq struct {
	conn    *fakeConn
	key     wire.APIKey
	corr    int32
	msg     wire.Message // decoded
	payload []byte
}

// reply answers r with m, whose correlation id it sets.
func (r *fakeReq) reply(m wire.Message) {
	setResponseCorrelation(m, r.corr)
	payload, err := m.AppendTo(nil)
	if err != nil {
		panic(err)
	}
	r.conn.write(payload)
}

// produce returns r as a produce request.
func (r *fakeReq) produce(t *testing.T) *wire.ProduceRequest {
	t.Helper()
	m, ok := r.msg.(*wire.ProduceRequest)
	if !ok {
		t.Fatalf("request %s, want Produce", r.key)
	}
	return m
}

// answerProduce answers a produce with one code and base offset per
// partition.
func (r *fakeReq) answerProduce(t *testing.T, code wire.ErrorCode, base uint64) {
	t.Helper()
	req := r.produce(t)
	resp := &wire.ProduceResponse{}
	for _, p := range req.Partitions {
		resp.Partitions = append(resp.Partitions, wire.ProducePartitionResponse{
			Topic: p.Topic, Partition: p.Partition, ErrorCode: code,
			BaseOffset: base, HasBaseOffset: code == wire.CodeNone || code == wire.CodeNotEnoughReplicasAfterAppend || code == wire.CodeRequestTimedOut,
		})
	}
	r.reply(resp)
}

func setResponseCorrelation(m wire.Message, corr int32) {
	switch r := m.(type) {
	case *wire.ProduceResponse:
		r.CorrelationID = corr
	case *wire.FetchResponse:
		r.CorrelationID = corr
	case *wire.ListOffsetsResponse:
		r.CorrelationID = corr
	case *wire.MetadataResponse:
		r.CorrelationID = corr
	case *wire.CreateTopicsResponse:
		r.CorrelationID = corr
	case *wire.InitProducerIDResponse:
		r.CorrelationID = corr
	default:
		wire.SetCorrelation(m, corr) // the group APIs' answers
	}
}

// fakeConn is one accepted connection.
type fakeConn struct {
	nc  net.Conn
	mu  sync.Mutex
	eof chan struct{} // closed when the client closed it
}

func (c *fakeConn) write(payload []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = wire.WriteFrame(c.nc, payload)
}

// fakeServer accepts connections and hands their requests to handle.
type fakeServer struct {
	ln     net.Listener
	handle func(*fakeReq)
	mu     sync.Mutex
	conns  []*fakeConn
	wg     sync.WaitGroup
}

func newFakeServer(t testing.TB, handle func(*fakeReq)) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{ln: ln, handle: handle}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.close)
	return s
}

func (s *fakeServer) addr() string { return s.ln.Addr().String() }

func (s *fakeServer) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		c := &fakeConn{nc: nc, eof: make(chan struct{})}
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		s.wg.Add(1)
		go s.read(c)
	}
}

func (s *fakeServer) read(c *fakeConn) {
	defer s.wg.Done()
	defer close(c.eof)
	br := bufio.NewReader(c.nc)
	for {
		payload, err := wire.ReadFrame(br, nil, 0)
		if err != nil {
			return
		}
		key, corr, err := wire.PeekHeader(payload)
		if err != nil {
			panic(err)
		}
		r := &fakeReq{conn: c, key: key, corr: corr, payload: payload}
		if r.msg, err = wire.DecodeRequest(payload); err != nil {
			panic(err)
		}
		s.handle(r)
	}
}

// closeConns closes every accepted connection (a broker that went away).
func (s *fakeServer) closeConns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.nc.Close()
	}
	s.conns = nil
}

func (s *fakeServer) close() {
	s.ln.Close()
	s.closeConns()
	s.wg.Wait()
}

// fakeCluster is a fake controller and brokers.
type fakeCluster struct {
	t          testing.TB
	controller *fakeServer
	brokers    map[int32]*fakeBroker

	mu      sync.Mutex
	leaders map[TopicPartition]wire.LeaderAndEpoch
	parts   map[string]int32
	nextPID int64
	// endpoints, if set, adds brokers the fakes are not.
	endpoints map[int32]string
	// metadataRequests counts the Metadata requests answered.
	metadataRequests int
}

// fakeBroker is a broker whose requests the test answers.
type fakeBroker struct {
	*fakeServer
	id   int32
	reqs chan *fakeReq
}

// next returns the broker's next request.
func (b *fakeBroker) next(t *testing.T) *fakeReq {
	t.Helper()
	select {
	case r := <-b.reqs:
		return r
	case <-time.After(waitGuard):
		t.Fatalf("broker %d: no request within %s", b.id, waitGuard)
		return nil
	}
}

// none checks that no request is waiting now.
func (b *fakeBroker) none(t *testing.T) {
	t.Helper()
	select {
	case r := <-b.reqs:
		t.Fatalf("broker %d: unexpected %s request", b.id, r.key)
	default:
	}
}

// newFakeCluster starts a controller and brokers 1..n; every partition of
// topic "t" (parts partitions) is led by broker 1 at epoch 0.
func newFakeCluster(t testing.TB, n int, parts int32) *fakeCluster {
	fc := &fakeCluster{t: t, brokers: map[int32]*fakeBroker{}, leaders: map[TopicPartition]wire.LeaderAndEpoch{},
		parts: map[string]int32{"t": parts}, nextPID: 1000}
	for id := int32(1); id <= int32(n); id++ {
		b := &fakeBroker{id: id, reqs: make(chan *fakeReq, 100)}
		b.fakeServer = newFakeServer(t, func(r *fakeReq) { b.reqs <- r })
		fc.brokers[id] = b
	}
	for p := int32(0); p < parts; p++ {
		fc.leaders[TopicPartition{"t", p}] = wire.LeaderAndEpoch{LeaderID: 1}
	}
	fc.controller = newFakeServer(t, fc.control)
	return fc
}

// setLeader makes broker id lead tp at epoch.
func (fc *fakeCluster) setLeader(tp TopicPartition, id, epoch int32) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.leaders[tp] = wire.LeaderAndEpoch{LeaderID: id, LeaderEpoch: epoch}
}

// control is the fake controller.
func (fc *fakeCluster) control(r *fakeReq) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	switch m := r.msg.(type) {
	case *wire.MetadataRequest:
		fc.metadataRequests++
		resp := &wire.MetadataResponse{}
		for id := int32(1); id <= int32(len(fc.brokers)); id++ {
			resp.Brokers = append(resp.Brokers, wire.MetadataBroker{ID: id, Endpoint: fc.brokers[id].addr()})
		}
		for id, addr := range fc.endpoints {
			resp.Brokers = append(resp.Brokers, wire.MetadataBroker{ID: id, Endpoint: addr})
		}
		for _, topic := range m.Topics {
			n, ok := fc.parts[topic]
			if !ok {
				resp.Topics = append(resp.Topics, wire.MetadataTopic{Name: topic, ErrorCode: wire.CodeUnknownTopicOrPartition})
				continue
			}
			mt := wire.MetadataTopic{Name: topic}
			for p := int32(0); p < n; p++ {
				l := fc.leaders[TopicPartition{topic, p}]
				mt.Partitions = append(mt.Partitions, wire.MetadataPartition{Partition: p, Leader: l.LeaderID, LeaderEpoch: l.LeaderEpoch})
			}
			resp.Topics = append(resp.Topics, mt)
		}
		r.reply(resp)
	case *wire.InitProducerIDRequest:
		if m.ProducerID != wire.NoProducerID || m.ProducerEpoch != wire.NoProducerEpoch {
			panic("fake controller: InitProducerId of a known producer")
		}
		fc.nextPID++
		r.reply(&wire.InitProducerIDResponse{ProducerID: fc.nextPID})
	default:
		panic("fake controller: unexpected " + r.key.String())
	}
}

// newTestClient returns a client of fc on a manual clock.
func newTestClient(t *testing.T, fc *fakeCluster, clk *clock.Manual) *Client {
	t.Helper()
	c, err := New(Config{Controller: fc.controller.addr(), Clock: clk, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// outcome collects one record's outcome.
type outcome struct {
	off Offset
	err error
}

// produceAsync produces value to tp and returns the channel its outcome
// arrives on.
func produceAsync(t *testing.T, p *Producer, tp TopicPartition, value string) chan outcome {
	t.Helper()
	ch := make(chan outcome, 1)
	if err := p.ProduceAsync(Record{Topic: tp.Topic, Partition: tp.Partition, Value: []byte(value)}, func(off Offset, err error) {
		ch <- outcome{off, err}
	}); err != nil {
		t.Fatal(err)
	}
	return ch
}

// await returns the outcome on ch.
func await(t *testing.T, ch chan outcome) outcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(waitGuard):
		t.Fatalf("no outcome within %s", waitGuard)
		return outcome{}
	}
}

// batchOf decodes the one batch of a produce request's partition.
func batchOf(t *testing.T, p wire.ProducePartition) log.Batch {
	t.Helper()
	b, n, err := log.DecodeBatch(p.Records)
	if err != nil || n != len(p.Records) {
		t.Fatalf("%s-%d: batch does not decode whole: n %d of %d, %v", p.Topic, p.Partition, n, len(p.Records), err)
	}
	return b
}

// values returns a batch's record values.
func values(b log.Batch) []string {
	var vs []string
	for _, r := range b.Records {
		vs = append(vs, string(r.Value))
	}
	return vs
}

// primeMetadata waits until the client knows tp's leader.
func primeMetadata(t testing.TB, c *Client, tp TopicPartition) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitGuard)
	defer cancel()
	for {
		seen := c.meta.next()
		if _, _, _, err := c.meta.leader(tp); err == nil {
			return
		}
		c.meta.refresh(tp.Topic)
		if err := c.meta.wait(ctx, seen); err != nil {
			t.Fatalf("metadata for %s: %v", tp, err)
		}
	}
}

// inPartition runs f on tp's state under the producer's lock.
func inPartition(p *Producer, tp TopicPartition, f func(*partition)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p.parts[tp])
}

// clientGoroutines returns the stacks of goroutines running this
// package's code, the tests' own and the fake servers' aside.
func clientGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var found []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "kaenlog/replica/client.") && !strings.Contains(g, "testing.tRunner") && !strings.Contains(g, "helpers_test.go") {
			found = append(found, g)
		}
	}
	return found
}

// noClientGoroutines fails if a goroutine of the client is still running.
// A goroutine that has finished its work may still be on its way out, so
// it yields to the scheduler a bounded number of times first.
func noClientGoroutines(t *testing.T) {
	t.Helper()
	var left []string
	for range 10000 {
		if left = clientGoroutines(); len(left) == 0 {
			return
		}
		runtime.Gosched()
	}
	t.Fatalf("%d goroutines of the client outlive Close:\n%s", len(left), strings.Join(left, "\n\n"))
}

// waitProducer waits until cond, run under the producer's lock, holds; it
// looks again after each of the producer's events.
func waitProducer(t *testing.T, p *Producer, cond func() bool) {
	t.Helper()
	for {
		p.mu.Lock()
		ok := cond()
		ch := p.nextEvent()
		p.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-time.After(waitGuard):
			t.Fatalf("producer: condition not reached within %s", waitGuard)
		}
	}
}

// waitLeader waits until the client's metadata names leader for tp.
func waitLeader(t *testing.T, c *Client, tp TopicPartition, leader int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitGuard)
	defer cancel()
	for {
		seen := c.meta.next()
		if id, _, _, err := c.meta.leader(tp); err == nil && id == leader {
			return
		}
		if err := c.meta.wait(ctx, seen); err != nil {
			t.Fatalf("metadata for %s never named leader %d: %v", tp, leader, err)
		}
	}
}
