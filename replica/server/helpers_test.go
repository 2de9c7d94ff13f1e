package server_test

import (
	"bufio"
	"crypto/rand"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// waitLimit bounds every wait of these tests: a condition not met by then
// fails the test. It is a bound, not a pause: waits end as soon as the
// condition holds, woken by the hosts after every event.
const waitLimit = 60 * time.Second

// events is signalled by every host of a test after every event it
// handled; await re-checks its condition each time.
type events struct{ ch chan struct{} }

func newEvents() *events { return &events{ch: make(chan struct{}, 1)} }

// signal is a host's OnEvent: it never blocks.
func (e *events) signal() {
	select {
	case e.ch <- struct{}{}:
	default:
	}
}

// await waits until cond holds, re-checking it after every event of any
// host; it fails the test after waitLimit.
func (e *events) await(t testing.TB, what string, cond func() bool) {
	t.Helper()
	limit := time.NewTimer(waitLimit)
	defer limit.Stop()
	for !cond() {
		select {
		case <-e.ch:
		case <-limit.C:
			t.Fatalf("still waiting, after %v, for %s", waitLimit, what)
		}
	}
}

// cluster is a controller and brokers, each on its own Host over loopback
// TCP, on the wall clock.
type cluster struct {
	t      testing.TB
	dir    string
	ev     *events
	clk    wallclock.Clock
	store  controller.Store
	ctl    *replica.ControllerNode
	ctlH   *server.Host
	ctlCfg controller.Config

	mu      sync.Mutex
	brokers map[int32]*broker
	// hostCfg adjusts each broker's host configuration (a Resolve through
	// a proxy, MaxInFlight).
	hostCfg func(id int32, cfg *server.Config)
	// wrap, if set, wraps each broker before it is hosted.
	wrap func(b *replica.Broker) replica.Node
	// brokerCfg adjusts each broker's configuration.
	brokerCfg func(cfg *replica.BrokerConfig)
}

// broker is one broker and its host.
type broker struct {
	id   int32
	b    *replica.Broker
	node replica.Node
	h    *server.Host
	dir  string
}

// clusterOptions shape a test cluster.
type clusterOptions struct {
	brokers   int
	ctl       controller.Config
	hostCfg   func(id int32, cfg *server.Config)
	wrap      func(b *replica.Broker) replica.Node
	brokerCfg func(cfg *replica.BrokerConfig)
}

// startCluster starts the controller and brokers 1..n and waits until every
// broker is registered, unfenced and caught up with the metadata.
func startCluster(t testing.TB, o clusterOptions) *cluster {
	t.Helper()
	c := &cluster{
		t: t, dir: t.TempDir(), ev: newEvents(), ctlCfg: o.ctl,
		brokers: map[int32]*broker{}, hostCfg: o.hostCfg, wrap: o.wrap, brokerCfg: o.brokerCfg,
	}
	store, err := controller.OpenLogStore(filepath.Join(c.dir, "controller"), log.Options{Sync: log.SyncEveryAppend})
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := controller.Open(store, o.ctl, c.clk.NowMs())
	if err != nil {
		t.Fatal(err)
	}
	c.store, c.ctl = store, replica.NewControllerNode(ctl)
	ln := listen(t)
	c.ctlH, err = server.Serve(ln, c.ctl, server.Config{Clock: c.clk, OnEvent: c.ev.signal, Logf: logf(t, "controller")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.stop)
	for id := int32(1); id <= int32(o.brokers); id++ {
		c.startBroker(id)
	}
	c.awaitBrokers()
	return c
}

func listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// logf sends a host's log lines to the test's log.
func logf(t testing.TB, who string) func(string, ...any) {
	return func(format string, args ...any) { t.Logf(who+": "+format, args...) }
}

// startBroker opens broker id from its directory and hosts it.
func (c *cluster) startBroker(id int32) *broker {
	c.t.Helper()
	ln := listen(c.t)
	cfg := replica.BrokerConfig{
		ID: id, Dir: filepath.Join(c.dir, fmt.Sprintf("broker-%d", id)), Endpoint: ln.Addr().String(),
		ContinuousFetch: true, ReplicaFetchWaitMs: 500, HeartbeatIntervalMs: 500,
	}
	rand.Read(cfg.IncarnationID[:])
	if c.brokerCfg != nil {
		c.brokerCfg(&cfg)
	}
	b, err := replica.OpenBroker(cfg, c.clk.NowMs())
	if err != nil {
		c.t.Fatal(err)
	}
	var node replica.Node = b
	if c.wrap != nil {
		node = c.wrap(b)
	}
	hcfg := server.Config{Clock: c.clk, Controller: c.ctlH.Addr().String(), OnEvent: c.ev.signal, Logf: logf(c.t, fmt.Sprintf("broker %d", id))}
	if c.hostCfg != nil {
		c.hostCfg(id, &hcfg)
	}
	h, err := server.Serve(ln, node, hcfg)
	if err != nil {
		c.t.Fatal(err)
	}
	br := &broker{id: id, b: b, node: node, h: h, dir: cfg.Dir}
	c.mu.Lock()
	c.brokers[id] = br
	c.mu.Unlock()
	return br
}

// broker returns broker id.
func (c *cluster) broker(id int32) *broker {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.brokers[id]
}

// stop closes every host that is still running, then the controller's
// store.
func (c *cluster) stop() {
	c.mu.Lock()
	bs := c.brokers
	c.brokers = map[int32]*broker{}
	c.mu.Unlock()
	for _, b := range bs {
		b.h.Kill() // no controlled shutdown to wait for at the end of a test
	}
	c.ctlH.Kill()
	c.store.Close()
}

// image returns a copy of the controller's metadata image.
func (c *cluster) image() *controller.Image {
	var im *controller.Image
	c.ctlH.Do(func(int64) { im = c.ctl.Controller().Image() })
	return im
}

// awaitBrokers waits until every running broker is registered, unfenced and
// has applied the controller's whole metadata log.
func (c *cluster) awaitBrokers() {
	c.t.Helper()
	c.ev.await(c.t, "every broker registered, unfenced and caught up", func() bool {
		var end uint64
		c.ctlH.Do(func(int64) { end = c.ctl.Controller().MetadataEndOffset() })
		c.mu.Lock()
		bs := c.brokers
		c.mu.Unlock()
		for _, b := range bs {
			ok := false
			b.h.Do(func(int64) { ok = !b.b.Fenced() && b.b.Image().EndOffset() == end })
			if !ok {
				return false
			}
		}
		return true
	})
}

// createTopic creates a topic through a client connection to the
// controller and waits until every running broker has applied it.
func (c *cluster) createTopic(name string, partitions int32, rf int16, minISR int32) {
	c.t.Helper()
	cl := dial(c.t, c.ctlH.Addr().String())
	defer cl.close()
	resp := cl.call(&wire.CreateTopicsRequest{Name: name, Partitions: partitions, ReplicationFactor: rf, MinISR: minISR}).(*wire.CreateTopicsResponse)
	if resp.ErrorCode != wire.CodeNone {
		c.t.Fatalf("create topic %s: %v %s", name, resp.ErrorCode, resp.ErrorMessage)
	}
	c.awaitBrokers()
}

// leader returns the leader the controller committed for tp, and its
// leader epoch.
func (c *cluster) leader(tp replica.TopicPartition) (int32, int32) {
	p, ok := c.image().Partition(tp.Topic, tp.Partition)
	if !ok {
		return wire.NoLeader, -1
	}
	return p.Leader, p.LeaderEpoch
}

// hw returns broker id's high watermark and log end of tp (0, 0 if it
// does not host it).
func (c *cluster) hw(id int32, tp replica.TopicPartition) (hw, leo uint64) {
	b := c.broker(id)
	b.h.Do(func(int64) {
		if r, ok := b.b.Replica(tp); ok {
			hw, leo = r.HighWatermark(), r.LEO()
		}
	})
	return hw, leo
}

// batch returns one record batch holding values.
func batch(t testing.TB, values ...string) []byte {
	t.Helper()
	recs := make([]log.Record, len(values))
	for i, v := range values {
		recs[i] = log.Record{OffsetDelta: int32(i), Value: []byte(v)}
	}
	b, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// produceRequest is a produce of values to tp.
func produceRequest(t testing.TB, tp replica.TopicPartition, acks int16, values ...string) *wire.ProduceRequest {
	return &wire.ProduceRequest{Acks: acks, TimeoutMs: 30_000, Partitions: []wire.ProducePartition{
		{Topic: tp.Topic, Partition: tp.Partition, Records: batch(t, values...)},
	}}
}

// client is a raw client connection: frames written and read by hand, as
// the client library will.
type client struct {
	t    testing.TB
	nc   net.Conn
	br   *bufio.Reader
	corr int32
	// keys remembers each request's key by correlation id, to decode its
	// response by (responses carry no trusted key).
	keys map[int32]wire.APIKey
}

func dial(t testing.TB, addr string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, nc: nc, br: bufio.NewReader(nc), keys: map[int32]wire.APIKey{}}
}

func (c *client) close() { c.nc.Close() }

// send writes req with the next correlation id and returns that id.
func (c *client) send(req wire.Message) int32 {
	c.t.Helper()
	c.corr++
	wire.SetCorrelation(req, c.corr)
	c.keys[c.corr] = req.APIKey()
	var bufs net.Buffers
	bufs, _, err := wire.AppendFrameBuffers(bufs, nil, req)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := bufs.WriteTo(c.nc); err != nil {
		c.t.Fatal(err)
	}
	return c.corr
}

// receive reads the next response, within waitLimit.
func (c *client) receive() wire.Message {
	c.t.Helper()
	m, err := c.tryReceive(waitLimit)
	if err != nil {
		c.t.Fatal(err)
	}
	return m
}

// tryReceive reads the next response within d.
func (c *client) tryReceive(d time.Duration) (wire.Message, error) {
	c.nc.SetReadDeadline(time.Now().Add(d))
	payload, err := wire.ReadFrame(c.br, nil, 0)
	if err != nil {
		return nil, err
	}
	_, corr, err := wire.PeekHeader(payload)
	if err != nil {
		return nil, err
	}
	if _, ok := c.keys[corr]; !ok {
		return nil, fmt.Errorf("a response with correlation id %d, which no request had", corr)
	}
	delete(c.keys, corr)
	return wire.DecodeResponse(payload)
}

// call sends req and returns its response.
func (c *client) call(req wire.Message) wire.Message {
	c.t.Helper()
	corr := c.send(req)
	m := c.receive()
	if m.Correlation() != corr {
		c.t.Fatalf("response %d to request %d", m.Correlation(), corr)
	}
	return m
}

// produce sends one batch of values to tp's leader and returns the answer.
func (c *cluster) produce(tp replica.TopicPartition, acks int16, values ...string) wire.ProducePartitionResponse {
	c.t.Helper()
	leader, _ := c.leader(tp)
	cl := dial(c.t, c.broker(leader).h.Addr().String())
	defer cl.close()
	resp := cl.call(produceRequest(c.t, tp, acks, values...)).(*wire.ProduceResponse)
	if len(resp.Partitions) != 1 {
		c.t.Fatalf("produce response with %d partitions", len(resp.Partitions))
	}
	return resp.Partitions[0]
}
