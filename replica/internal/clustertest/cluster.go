package clustertest

import (
	"crypto/rand"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// Options shape a test cluster. The zero value is a controller alone.
type Options struct {
	// Brokers is how many brokers Start starts, with ids 1..Brokers.
	Brokers int
	// Controller is the controller's configuration (a short
	// SessionTimeoutMs, so that a killed broker's partitions move soon).
	Controller controller.Config
	// Broker, if set, adjusts each broker's configuration before it opens.
	Broker func(cfg *replica.BrokerConfig)
	// Host, if set, adjusts each broker's host configuration (a Resolve
	// through a proxy, MaxInFlight, another listener for b).
	Host func(id int32, b *replica.Broker, cfg *server.Config)
	// Wrap, if set, is the node each broker is hosted as (a recorder
	// around it).
	Wrap func(b *replica.Broker) replica.Node
	// MemDisks puts each broker's files on a file system in memory
	// (vfs.Mem) that outlives the broker, so that Crash can cut its power
	// and StartBroker can open what the cut left.
	MemDisks bool
}

// Cluster is a controller and brokers, each on its own Host.
type Cluster struct {
	T      testing.TB
	Dir    string // the test's directory: the controller's and brokers' files
	Events *Events
	Clock  wallclock.Clock
	// ControllerNode and ControllerHost are the controller and its host.
	ControllerNode *replica.ControllerNode
	ControllerHost *server.Host

	o     Options
	store controller.Store

	mu      sync.Mutex
	brokers map[int32]*Broker
	disks   map[int32]*vfs.Mem
}

// Broker is one running broker and its host.
type Broker struct {
	ID     int32
	Broker *replica.Broker
	Node   replica.Node // what the host serves: Broker, or Options.Wrap of it
	Host   *server.Host
	Dir    string
}

// Start starts the controller and brokers 1..o.Brokers and waits until
// every broker is registered, unfenced and caught up with the metadata.
// The cluster is killed when t ends.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	c := &Cluster{T: t, Dir: t.TempDir(), Events: NewEvents(), o: o, brokers: map[int32]*Broker{}, disks: map[int32]*vfs.Mem{}}
	store, err := controller.OpenLogStore(filepath.Join(c.Dir, "controller"), log.Options{Sync: log.SyncEveryAppend})
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := controller.Open(store, o.Controller, c.Clock.NowMs())
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	c.store, c.ControllerNode = store, replica.NewControllerNode(ctl)
	c.ControllerHost, err = server.Serve(Listen(t), c.ControllerNode, server.Config{Clock: c.Clock, OnEvent: c.Events.Signal, Logf: Logf(t, "controller")})
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	t.Cleanup(c.stop)
	for id := int32(1); id <= int32(o.Brokers); id++ {
		c.StartBroker(id)
	}
	c.AwaitBrokers()
	return c
}

// Listen listens on a free loopback port.
func Listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// Logf sends a host's log lines to t's log, prefixed with who.
func Logf(t testing.TB, who string) func(string, ...any) {
	return func(format string, args ...any) { t.Logf(who+": "+format, args...) }
}

// Controller returns the controller's address, a client's one address.
func (c *Cluster) Controller() string { return c.ControllerHost.Addr().String() }

// StartBroker opens broker id from its directory (what a Kill or Crash
// left of it, if it ran before) as a new incarnation and hosts it. A
// restarted broker registers once its old session has expired; it waits
// for that by itself.
func (c *Cluster) StartBroker(id int32) *Broker {
	c.T.Helper()
	ln := Listen(c.T)
	cfg := replica.BrokerConfig{
		ID: id, Dir: filepath.Join(c.Dir, fmt.Sprintf("broker-%d", id)), Endpoint: ln.Addr().String(),
		ContinuousFetch: true, ReplicaFetchWaitMs: 500, HeartbeatIntervalMs: 250,
	}
	if c.o.MemDisks {
		c.mu.Lock()
		disk := c.disks[id]
		if disk == nil {
			disk = vfs.NewMem()
			c.disks[id] = disk
		}
		c.mu.Unlock()
		cfg.Dir, cfg.Replica.Log.FS = fmt.Sprintf("/broker-%d", id), disk
	}
	rand.Read(cfg.IncarnationID[:])
	if c.o.Broker != nil {
		c.o.Broker(&cfg)
	}
	b, err := replica.OpenBroker(cfg, c.Clock.NowMs())
	if err != nil {
		c.T.Fatal(err)
	}
	var node replica.Node = b
	if c.o.Wrap != nil {
		node = c.o.Wrap(b)
	}
	hcfg := server.Config{
		Clock: c.Clock, Controller: c.Controller(), OnEvent: c.Events.Signal, ShutdownTimeoutMs: 5000,
		Logf: Logf(c.T, fmt.Sprintf("broker %d", id)),
	}
	if c.o.Host != nil {
		c.o.Host(id, b, &hcfg)
	}
	h, err := server.Serve(ln, node, hcfg)
	if err != nil {
		c.T.Fatal(err)
	}
	br := &Broker{ID: id, Broker: b, Node: node, Host: h, Dir: cfg.Dir}
	c.mu.Lock()
	c.brokers[id] = br
	c.mu.Unlock()
	return br
}

// Broker returns running broker id, nil if it is not running.
func (c *Cluster) Broker(id int32) *Broker {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.brokers[id]
}

// Brokers returns the running brokers, by id.
func (c *Cluster) Brokers() []*Broker {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Broker, 0, len(c.brokers))
	for _, br := range c.brokers {
		out = append(out, br)
	}
	slices.SortFunc(out, func(a, b *Broker) int { return int(a.ID - b.ID) })
	return out
}

// Forget drops broker id from the running ones without touching its host,
// for a test that stops the host itself (Close, a controlled shutdown),
// and returns it.
func (c *Cluster) Forget(id int32) *Broker {
	c.mu.Lock()
	defer c.mu.Unlock()
	br := c.brokers[id]
	delete(c.brokers, id)
	return br
}

// Kill stops broker id at once: no controlled shutdown, no clean close.
func (c *Cluster) Kill(id int32) { c.Forget(id).Host.Kill() }

// Crash kills broker id as a hard crash does, and its disk keeps what mode
// says (vfs.LoseUnsynced: a power cut; vfs.KeepUnsynced: a kill -9). It
// needs Options.MemDisks.
func (c *Cluster) Crash(id int32, mode vfs.CrashMode) {
	c.mu.Lock()
	disk := c.disks[id]
	c.mu.Unlock()
	if disk == nil {
		c.T.Fatalf("crash of broker %d: the cluster has no disks in memory (Options.MemDisks)", id)
	}
	c.Kill(id)
	disk.Crash(mode, uint64(id))
}

// stop kills every host still running, then closes the controller's store.
func (c *Cluster) stop() {
	c.mu.Lock()
	bs := c.brokers
	c.brokers = map[int32]*Broker{}
	c.mu.Unlock()
	for _, br := range bs {
		br.Host.Kill() // no controlled shutdown to wait for at the end of a test
	}
	c.ControllerHost.Kill()
	c.store.Close()
}

// Await waits until cond holds, looking again after every host event.
func (c *Cluster) Await(what string, cond func() bool) {
	c.T.Helper()
	c.Events.Await(c.T, what, cond)
}

// Image returns a copy of the controller's metadata image.
func (c *Cluster) Image() *controller.Image {
	var im *controller.Image
	c.ControllerHost.Do(func(int64) { im = c.ControllerNode.Controller().Image() })
	return im
}

// Partition returns what the controller committed for topic's partition.
func (c *Cluster) Partition(topic string, partition int32) (controller.PartitionState, bool) {
	return c.Image().Partition(topic, partition)
}

// Leader returns the leader the controller committed for tp and its
// leader epoch (wire.NoLeader, -1 for no such partition).
func (c *Cluster) Leader(tp replica.TopicPartition) (int32, int32) {
	p, ok := c.Partition(tp.Topic, tp.Partition)
	if !ok {
		return wire.NoLeader, -1
	}
	return p.Leader, p.LeaderEpoch
}

// HW returns broker id's high watermark and log end of tp (0, 0 if it
// does not host it).
func (c *Cluster) HW(id int32, tp replica.TopicPartition) (hw, leo uint64) {
	br := c.Broker(id)
	br.Host.Do(func(int64) {
		if r, ok := br.Broker.Replica(tp); ok {
			hw, leo = r.HighWatermark(), r.LEO()
		}
	})
	return hw, leo
}

// AwaitBrokers waits until every running broker is registered, unfenced
// and has applied the controller's whole metadata log.
func (c *Cluster) AwaitBrokers() {
	c.T.Helper()
	c.Await("every broker registered, unfenced and caught up", func() bool {
		var end uint64
		c.ControllerHost.Do(func(int64) { end = c.ControllerNode.Controller().MetadataEndOffset() })
		for _, br := range c.Brokers() {
			ok := false
			br.Host.Do(func(int64) { ok = !br.Broker.Fenced() && br.Broker.Image().EndOffset() == end })
			if !ok {
				return false
			}
		}
		return true
	})
}

// CreateTopic creates a topic with a raw request to the controller (the
// harness leans on no client it may be testing) and waits until every
// running broker has applied it.
func (c *Cluster) CreateTopic(name string, partitions int32, rf int16, minISR int32) {
	c.T.Helper()
	nc, err := net.Dial("tcp", c.Controller())
	if err != nil {
		c.T.Fatal(err)
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
		c.T.Fatalf("create topic %s: %v", name, err)
	}
	c.AwaitBrokers()
}

// Describe tells what each running broker holds of topic's partition: its
// role, leader and epoch, ISR, LEO and HW, and the produce requests it
// parks; for a test that waited in vain.
func (c *Cluster) Describe(topic string, partition int32) string {
	var out []string
	for _, br := range c.Brokers() {
		s := fmt.Sprintf("broker %d: no replica", br.ID)
		br.Host.Do(func(int64) {
			fenced := br.Broker.Fenced()
			if r, ok := br.Broker.Replica(replica.TopicPartition{Topic: topic, Partition: partition}); ok {
				s = fmt.Sprintf("broker %d (fenced %t): role %v leader %d epoch %d ISR %v LEO %d HW %d parked %d",
					br.ID, fenced, r.Role(), r.LeaderID(), r.LeaderEpoch(), r.ISR(), r.LEO(), r.HighWatermark(), r.Parked())
			}
		})
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// Batch returns one record batch holding values, without a producer id.
func Batch(t testing.TB, values ...string) []byte {
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
