package client_test

import (
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// A real cluster for the client's tests: a controller and brokers, each on
// its own replica/server Host over loopback TCP, in the test process, on
// the wall clock. Waits are bounded (clusterWait), never sleeps: the hosts
// signal after every event they handle, and a wait looks again then.

// clusterWait bounds every wait for the cluster.
const clusterWait = 60 * time.Second

// tb is what the harness needs of a test; exampleTB provides it for
// Examples, which have no *testing.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
	TempDir() string
}

// events is signalled by the hosts after every event.
type events struct{ ch chan struct{} }

func (e *events) signal() {
	select {
	case e.ch <- struct{}{}:
	default:
	}
}

// await waits until cond holds, looking again after every host event.
func (e *events) await(t tb, what string, cond func() bool) {
	t.Helper()
	limit := time.NewTimer(clusterWait)
	defer limit.Stop()
	for !cond() {
		select {
		case <-e.ch:
		case <-limit.C:
			t.Fatalf("still waiting, after %v, for %s", clusterWait, what)
		}
	}
}

// clusterOptions shape a test cluster.
type clusterOptions struct {
	brokers   int
	lagMs     int64 // replica.lag.time.max.ms
	sessionMs int64 // the controller's broker session timeout
}

// cluster is a controller and brokers.
type cluster struct {
	t     tb
	dir   string
	ev    *events
	clk   wallclock.Clock
	store controller.Store
	ctl   *replica.ControllerNode
	ctlH  *server.Host
	o     clusterOptions

	mu      sync.Mutex
	brokers map[int32]*clusterBroker
}

// clusterBroker is one broker and its host.
type clusterBroker struct {
	b *replica.Broker
	h *server.Host
}

// startCluster starts the controller and brokers 1..o.brokers and waits
// until every broker is registered, unfenced and caught up.
func startCluster(t tb, o clusterOptions) *cluster {
	t.Helper()
	c := &cluster{t: t, dir: t.TempDir(), ev: &events{ch: make(chan struct{}, 1)}, o: o, brokers: map[int32]*clusterBroker{}}
	store, err := controller.OpenLogStore(filepath.Join(c.dir, "controller"), log.Options{Sync: log.SyncEveryAppend})
	if err != nil {
		t.Fatalf("%v", err)
	}
	ctl, err := controller.Open(store, controller.Config{SessionTimeoutMs: o.sessionMs}, c.clk.NowMs())
	if err != nil {
		t.Fatalf("%v", err)
	}
	c.store, c.ctl = store, replica.NewControllerNode(ctl)
	c.ctlH, err = server.Serve(listen(t), c.ctl, server.Config{Clock: c.clk, OnEvent: c.ev.signal})
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(c.stop)
	for id := int32(1); id <= int32(o.brokers); id++ {
		c.startBroker(id)
	}
	c.awaitBrokers()
	return c
}

func listen(t tb) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("%v", err)
	}
	return ln
}

// controller returns the controller's address, the client's one address.
func (c *cluster) controller() string { return c.ctlH.Addr().String() }

// startBroker opens broker id from its directory and hosts it.
func (c *cluster) startBroker(id int32) {
	c.t.Helper()
	ln := listen(c.t)
	cfg := replica.BrokerConfig{
		ID: id, Dir: filepath.Join(c.dir, fmt.Sprintf("broker-%d", id)), Endpoint: ln.Addr().String(),
		ContinuousFetch: true, ReplicaFetchWaitMs: 500, HeartbeatIntervalMs: 250,
		Replica: replica.Options{LagMaxMs: c.o.lagMs},
	}
	rand.Read(cfg.IncarnationID[:])
	b, err := replica.OpenBroker(cfg, c.clk.NowMs())
	if err != nil {
		c.t.Fatalf("%v", err)
	}
	h, err := server.Serve(ln, b, server.Config{Clock: c.clk, Controller: c.controller(), OnEvent: c.ev.signal, ShutdownTimeoutMs: 5000})
	if err != nil {
		c.t.Fatalf("%v", err)
	}
	c.mu.Lock()
	c.brokers[id] = &clusterBroker{b: b, h: h}
	c.mu.Unlock()
}

// kill stops broker id at once: no controlled shutdown, no clean close.
func (c *cluster) kill(id int32) {
	c.mu.Lock()
	br := c.brokers[id]
	delete(c.brokers, id)
	c.mu.Unlock()
	br.h.Kill()
}

// stop closes every host still running, then the controller's store.
func (c *cluster) stop() {
	c.mu.Lock()
	bs := c.brokers
	c.brokers = map[int32]*clusterBroker{}
	c.mu.Unlock()
	for _, br := range bs {
		br.h.Kill()
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

// partition returns what the controller committed for topic's partition.
func (c *cluster) partition(topic string, partition int32) replica.PartitionState {
	p, _ := c.image().Partition(topic, partition)
	return replica.PartitionState{Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, ISR: p.ISR}
}

// describe tells what each running broker holds of topic's partition:
// its role, leader and epoch, ISR, LEO and HW, and the produce requests
// it parks; for a test that waited in vain.
func (c *cluster) describe(topic string, partition int32) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]int32, 0, len(c.brokers))
	for id := range c.brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []string
	for _, id := range ids {
		br := c.brokers[id]
		s := fmt.Sprintf("broker %d: no replica", id)
		br.h.Do(func(int64) {
			fenced := br.b.Fenced()
			if r, ok := br.b.Replica(replica.TopicPartition{Topic: topic, Partition: partition}); ok {
				s = fmt.Sprintf("broker %d (fenced %t): role %v leader %d epoch %d ISR %v LEO %d HW %d parked %d",
					id, fenced, r.Role(), r.LeaderID(), r.LeaderEpoch(), r.ISR(), r.LEO(), r.HighWatermark(), r.Parked())
			}
		})
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// awaitBrokers waits until every running broker is registered, unfenced
// and has applied the controller's whole metadata log.
func (c *cluster) awaitBrokers() {
	c.t.Helper()
	c.ev.await(c.t, "every broker registered, unfenced and caught up", func() bool {
		var end uint64
		c.ctlH.Do(func(int64) { end = c.ctl.Controller().MetadataEndOffset() })
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, br := range c.brokers {
			ok := false
			br.h.Do(func(int64) { ok = !br.b.Fenced() && br.b.Image().EndOffset() == end })
			if !ok {
				return false
			}
		}
		return true
	})
}

// createTopic creates a topic with a raw request to the controller (the
// harness does not lean on the client it tests) and waits until every
// broker has applied it.
func (c *cluster) createTopic(name string, partitions int32, rf int16, minISR int32) {
	c.t.Helper()
	nc, err := net.Dial("tcp", c.controller())
	if err != nil {
		c.t.Fatalf("%v", err)
	}
	defer nc.Close()
	payload, err := (&wire.CreateTopicsRequest{CorrelationID: 1, Name: name, Partitions: partitions, ReplicationFactor: rf, MinISR: minISR}).AppendTo(nil)
	if err == nil {
		err = wire.WriteFrame(nc, payload)
	}
	if err == nil {
		payload, err = wire.ReadFrame(nc, nil, 0)
	}
	var resp wire.CreateTopicsResponse
	if err == nil {
		resp, err = wire.DecodeCreateTopicsResponse(payload)
	}
	if err == nil && resp.ErrorCode != wire.CodeNone {
		err = fmt.Errorf("%v: %s", resp.ErrorCode, resp.ErrorMessage)
	}
	if err != nil {
		c.t.Fatalf("create topic %s: %v", name, err)
	}
	c.awaitBrokers()
}

// exampleTB is the harness's tb for an Example: a failure panics, and
// Cleanup's functions run when done is called.
type exampleTB struct {
	mu       sync.Mutex
	cleanups []func()
	dirs     []string
}

func (*exampleTB) Helper() {}

func (*exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func (e *exampleTB) Cleanup(f func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cleanups = append(e.cleanups, f)
}

func (e *exampleTB) TempDir() string {
	dir, err := os.MkdirTemp("", "kaenlog-example-")
	if err != nil {
		panic(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.dirs = append(e.dirs, dir)
	return dir
}

// done runs the cleanups, last first, and removes the directories.
func (e *exampleTB) done() {
	e.mu.Lock()
	cleanups, dirs := e.cleanups, e.dirs
	e.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	for _, d := range dirs {
		os.RemoveAll(d)
	}
}

var _ tb = (*testing.T)(nil)
