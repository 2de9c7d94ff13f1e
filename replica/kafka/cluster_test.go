package kafka_test

import (
	"crypto/rand"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// A real cluster for the listener's tests, built from exported API only:
// a controller and brokers, each on its own server.Host over loopback TCP
// in the test process, on the wall clock, every broker with a Kafka
// listener beside its kaenlog one. Waits are bounded (clusterWait) and
// never sleep: the hosts signal after every event, and a wait looks again.

const clusterWait = 60 * time.Second

// sessionMs is the controller's broker session timeout in these tests
// (Kafka's broker.session.timeout.ms, 9 s by default): short, because a
// killed broker's partitions move only when its session expires, and a
// restarted broker registers only once its old session has expired.
const sessionMs = 2000

type cluster struct {
	t     testing.TB
	dir   string
	ev    chan struct{}
	clk   wallclock.Clock
	store controller.Store
	ctl   *replica.ControllerNode
	ctlH  *server.Host

	mu      sync.Mutex
	brokers map[int32]*clusterBroker
	// kcfg configures every broker's Kafka listener.
	kcfg kafka.Config
	// disks are the brokers' file systems, by id: in memory, so that
	// kill can cut a broker's power (vfs.Mem.Crash) and startBroker can
	// open what the cut left. They outlive the brokers.
	disks map[int32]*vfs.Mem
	// hostCfg, if set, adjusts each broker's host config (budgets, say).
	hostCfg func(*server.Config)
}

type clusterBroker struct {
	b     *replica.Broker
	h     *server.Host
	kafka string // the Kafka listener's address
}

func (c *cluster) signal() {
	select {
	case c.ev <- struct{}{}:
	default:
	}
}

// await waits until cond holds, looking again after every host event.
func (c *cluster) await(what string, cond func() bool) {
	c.t.Helper()
	limit := time.NewTimer(clusterWait)
	defer limit.Stop()
	for !cond() {
		select {
		case <-c.ev:
		case <-limit.C:
			c.t.Fatalf("still waiting, after %v, for %s", clusterWait, what)
		}
	}
}

func listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// startCluster starts the controller and brokers 1..n and waits until
// every broker is registered, unfenced and caught up.
func startCluster(t testing.TB, n int) *cluster {
	t.Helper()
	return startClusterWith(t, n, nil)
}

// startClusterWith is startCluster with hostCfg adjusting each broker's
// host config.
func startClusterWith(t testing.TB, n int, hostCfg func(*server.Config)) *cluster {
	t.Helper()
	return startClusterOf(t, n, hostCfg, kafka.Config{})
}

// startKafkaCluster is startCluster with kcfg for every Kafka listener.
func startKafkaCluster(t testing.TB, n int, kcfg kafka.Config) *cluster {
	t.Helper()
	return startClusterOf(t, n, nil, kcfg)
}

func startClusterOf(t testing.TB, n int, hostCfg func(*server.Config), kcfg kafka.Config) *cluster {
	t.Helper()
	c := &cluster{t: t, dir: t.TempDir(), ev: make(chan struct{}, 1), brokers: map[int32]*clusterBroker{}, disks: map[int32]*vfs.Mem{}, hostCfg: hostCfg, kcfg: kcfg}
	store, err := controller.OpenLogStore(filepath.Join(c.dir, "controller"), log.Options{Sync: log.SyncEveryAppend})
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := controller.Open(store, controller.Config{SessionTimeoutMs: sessionMs}, c.clk.NowMs())
	if err != nil {
		t.Fatal(err)
	}
	c.store, c.ctl = store, replica.NewControllerNode(ctl)
	if c.ctlH, err = server.Serve(listen(t), c.ctl, server.Config{Clock: c.clk, OnEvent: c.signal}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.stop)
	for id := int32(1); id <= int32(n); id++ {
		c.startBroker(id)
	}
	c.awaitBrokers()
	return c
}

// startBroker opens broker id from its directory on its disk (what a
// kill left of it, if it ran before) and serves it on two listeners:
// kaenlog's and Kafka's. A restarted broker registers once its old session
// has expired (sessionMs); its broker waits for that by itself.
func (c *cluster) startBroker(id int32) {
	c.t.Helper()
	c.mu.Lock()
	disk := c.disks[id]
	if disk == nil {
		disk = vfs.NewMem()
		c.disks[id] = disk
	}
	c.mu.Unlock()
	ln, kln := listen(c.t), listen(c.t)
	cfg := replica.BrokerConfig{
		ID: id, Dir: fmt.Sprintf("/broker-%d", id),
		Endpoint: ln.Addr().String(), KafkaEndpoint: kln.Addr().String(),
		ContinuousFetch: true, ReplicaFetchWaitMs: 500, HeartbeatIntervalMs: 250,
		Replica: replica.Options{Log: log.Options{FS: disk}},
	}
	rand.Read(cfg.IncarnationID[:])
	b, err := replica.OpenBroker(cfg, c.clk.NowMs())
	if err != nil {
		c.t.Fatal(err)
	}
	hcfg := server.Config{
		Clock: c.clk, Controller: c.ctlH.Addr().String(), OnEvent: c.signal, ShutdownTimeoutMs: 5000,
		Listeners: []server.Listener{{Listener: kln, Codec: kafka.NewCodec(b, c.kcfg)}},
	}
	if c.hostCfg != nil {
		c.hostCfg(&hcfg)
	}
	h, err := server.Serve(ln, b, hcfg)
	if err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.brokers[id] = &clusterBroker{b: b, h: h, kafka: kln.Addr().String()}
	c.mu.Unlock()
}

// kill stops broker id at once, as a hard crash does: no controlled
// shutdown, no clean close, and its disk keeps what mode says
// (vfs.LoseUnsynced: a power cut, losing every byte not fsynced;
// vfs.KeepUnsynced: a kill -9). Its files and its directory lock die with
// it, so startBroker can open the directory again.
func (c *cluster) kill(id int32, mode vfs.CrashMode) {
	c.mu.Lock()
	br, disk := c.brokers[id], c.disks[id]
	delete(c.brokers, id)
	c.mu.Unlock()
	br.h.Kill()
	disk.Crash(mode, uint64(id))
}

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

// seeds returns the running brokers' Kafka listeners.
func (c *cluster) seeds() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, br := range c.brokers {
		out = append(out, br.kafka)
	}
	return out
}

// image returns the controller's metadata image.
func (c *cluster) image() *controller.Image {
	var im *controller.Image
	c.ctlH.Do(func(int64) { im = c.ctl.Controller().Image() })
	return im
}

// awaitBrokers waits until every running broker is registered, unfenced
// and has applied the controller's whole metadata log.
func (c *cluster) awaitBrokers() {
	c.t.Helper()
	c.await("every broker registered, unfenced and caught up", func() bool {
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

// createTopic creates a topic with a raw request to the controller and
// waits until every broker has applied it.
func (c *cluster) createTopic(name string, partitions int32, rf int16, minISR int32) {
	c.t.Helper()
	nc, err := net.Dial("tcp", c.ctlH.Addr().String())
	if err != nil {
		c.t.Fatal(err)
	}
	defer nc.Close()
	payload, err := (&wire.CreateTopicsRequest{CorrelationID: 1, Topics: []wire.CreatableTopic{{Name: name, Partitions: partitions, ReplicationFactor: rf, Configs: wire.MinInsyncReplicas(minISR)}}}).AppendTo(nil)
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
	if err == nil {
		err = resp.Err()
	}
	if err != nil {
		c.t.Fatalf("create topic %s: %v", name, err)
	}
	c.awaitBrokers()
}

// partition returns what the controller committed for a partition.
func (c *cluster) partition(topic string, p int32) controller.PartitionState {
	ps, _ := c.image().Partition(topic, p)
	return ps
}
