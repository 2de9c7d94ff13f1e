package kafkatest

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sync"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/kaenlog/kaenlog/replica/server"
)

// Defaults of Config's zero fields.
const (
	// DefaultBrokers is how many brokers a Cluster starts.
	DefaultBrokers = 3
	// DefaultMinISR is the min.insync.replicas of CreateTopic's topics
	// (at most their replication factor).
	DefaultMinISR = 2
	// DefaultSessionTimeoutMs is broker.session.timeout.ms (Kafka's is
	// 9000).
	DefaultSessionTimeoutMs = 2000
	// DefaultWaitMs bounds each wait of the Cluster's methods.
	DefaultWaitMs = 60_000
)

// Config configures a Cluster. The zero Config is a cluster of three
// brokers, RF 3 and min ISR 2, on in-memory disks and the wall clock.
type Config struct {
	// Brokers is how many brokers to start, ids 1 to Brokers; 0 means
	// DefaultBrokers.
	Brokers int
	// ReplicationFactor is the RF of CreateTopic's topics; 0 means
	// min(3, Brokers).
	ReplicationFactor int16
	// MinISR is the min.insync.replicas of CreateTopic's topics; 0 means
	// min(DefaultMinISR, ReplicationFactor).
	MinISR int32
	// Dir, if set, keeps the nodes' data in the OS's files under it
	// (Dir/controller, Dir/broker-1, ...) instead of in memory. The
	// directory must be empty or hold what a Cluster with the same Dir
	// left.
	Dir string
	// Clock drives every node (each broker's own clock is this one plus
	// what AdvanceClock added to it) and every wait of the Cluster's
	// methods; nil means the wall clock. A clock.Manual moves only when
	// its owner advances it: heartbeats, sessions, timeouts and the
	// methods' bounded waits then wait for that, NewCluster's among them:
	// advance it from another goroutine.
	Clock clock.Clock
	// ReplicaLagMs is replica.lag.time.max.ms: a follower not caught up
	// for this long on its leader's clock leaves the ISR; 0 means
	// Kafka's 30000.
	ReplicaLagMs int64
	// SessionTimeoutMs is broker.session.timeout.ms: a broker silent this
	// long is fenced and its leaderships move; 0 means
	// DefaultSessionTimeoutMs, shorter than Kafka's 9000 so that a
	// crashed leader is replaced, and can restart, quickly.
	SessionTimeoutMs int64
	// WaitMs bounds every wait of the Cluster's methods, on Clock; 0
	// means DefaultWaitMs.
	WaitMs int64
	// Kafka configures every broker's Kafka listener.
	Kafka kafka.Config
}

// Cluster is a controller and brokers replicating over loopback TCP in
// this process, each broker with a Kafka listener: a kaenlog cluster for
// the tests of code that talks to Kafka. Its methods are safe for
// concurrent use.
type Cluster struct {
	cfg   Config
	clk   clock.Clock
	ev    chan struct{}
	store controller.Store
	ctl   *replica.ControllerNode
	ctlH  *server.Host

	mu      sync.Mutex
	closed  bool
	brokers map[int32]*node    // every broker ever started, by id
	links   map[[2]int32]*link // from, to
	mem     map[int32]*vfs.Mem // in-memory disks, by broker id; outlive the brokers
}

// node is one broker and what outlives its runs.
type node struct {
	id    int32
	clk   *skewClock
	kafka string // the Kafka listener's address, kept across restarts

	// Set while it runs (nil when stopped or crashed).
	b    *replica.Broker
	h    *server.Host
	addr string  // its kaenlog listener
	osd  *osDisk // with Config.Dir: what a crash drops
}

// NewCluster starts a controller and cfg.Brokers brokers and returns once
// every broker is registered, unfenced and has applied the controller's
// metadata. Close it when done.
func NewCluster(cfg Config) (*Cluster, error) {
	if cfg.Brokers == 0 {
		cfg.Brokers = DefaultBrokers
	}
	if cfg.ReplicationFactor == 0 {
		cfg.ReplicationFactor = int16(min(3, cfg.Brokers))
	}
	if cfg.MinISR == 0 {
		cfg.MinISR = min(DefaultMinISR, int32(cfg.ReplicationFactor))
	}
	if cfg.SessionTimeoutMs == 0 {
		cfg.SessionTimeoutMs = DefaultSessionTimeoutMs
	}
	if cfg.WaitMs == 0 {
		cfg.WaitMs = DefaultWaitMs
	}
	switch {
	case cfg.Brokers < 1 || cfg.Brokers > 1000:
		return nil, fmt.Errorf("kafkatest: Brokers %d: give 1 to 1000", cfg.Brokers)
	case cfg.ReplicationFactor < 1 || int(cfg.ReplicationFactor) > cfg.Brokers:
		return nil, fmt.Errorf("kafkatest: ReplicationFactor %d: give 1 to Brokers (%d)", cfg.ReplicationFactor, cfg.Brokers)
	case cfg.MinISR < 1 || cfg.MinISR > int32(cfg.ReplicationFactor):
		return nil, fmt.Errorf("kafkatest: MinISR %d: give 1 to ReplicationFactor (%d)", cfg.MinISR, cfg.ReplicationFactor)
	case cfg.SessionTimeoutMs < 0 || cfg.WaitMs < 0 || cfg.ReplicaLagMs < 0:
		return nil, errors.New("kafkatest: negative SessionTimeoutMs, WaitMs or ReplicaLagMs")
	}
	c := &Cluster{cfg: cfg, clk: cfg.Clock, ev: make(chan struct{}, 1),
		brokers: map[int32]*node{}, links: map[[2]int32]*link{}, mem: map[int32]*vfs.Mem{}}
	if c.clk == nil {
		c.clk = wallclock.New()
	}
	ctlOpts := log.Options{Sync: log.SyncEveryAppend, FS: vfs.NewMem()}
	ctlDir := "/controller"
	if cfg.Dir != "" {
		ctlOpts.FS, ctlDir = nil, filepath.Join(cfg.Dir, "controller")
	}
	store, err := controller.OpenLogStore(ctlDir, ctlOpts)
	if err != nil {
		return nil, fmt.Errorf("kafkatest: controller: %w", err)
	}
	ctl, err := controller.Open(store, controller.Config{SessionTimeoutMs: cfg.SessionTimeoutMs, DefaultMinISR: cfg.MinISR}, c.clk.NowMs())
	if err != nil {
		return nil, errors.Join(fmt.Errorf("kafkatest: controller: %w", err), store.Close())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(err, store.Close())
	}
	c.store, c.ctl = store, replica.NewControllerNode(ctl)
	if c.ctlH, err = server.Serve(ln, c.ctl, server.Config{Clock: c.clk, OnEvent: c.signal}); err != nil {
		return nil, errors.Join(err, store.Close())
	}
	for id := int32(1); id <= int32(cfg.Brokers); id++ {
		c.brokers[id] = &node{id: id, clk: newSkewClock(c.clk)}
		if err := c.start(id); err != nil {
			return nil, errors.Join(err, c.Close())
		}
	}
	if err := c.AwaitBrokers(); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

func (c *Cluster) signal() {
	select {
	case c.ev <- struct{}{}:
	default:
	}
}

// node returns broker id, or an error naming it.
func (c *Cluster) node(id int32) (*node, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.brokers[id]
	if !ok {
		return nil, fmt.Errorf("kafkatest: no broker %d (brokers are 1 to %d)", id, c.cfg.Brokers)
	}
	return n, nil
}

// start opens broker id from its disk (what its last run left) and
// serves it on its kaenlog listener and its Kafka listener, the same
// Kafka address as before if it ran before.
func (c *Cluster) start(id int32) error {
	n, err := c.node(id)
	if err != nil {
		return err
	}
	c.mu.Lock()
	running, kaddr := n.h != nil, n.kafka
	c.mu.Unlock()
	if running {
		return fmt.Errorf("kafkatest: broker %d is running", id)
	}
	var fsys vfs.FS
	var osd *osDisk
	dir := fmt.Sprintf("/broker-%d", id)
	if c.cfg.Dir != "" {
		osd = newOSDisk()
		fsys, dir = osd, filepath.Join(c.cfg.Dir, fmt.Sprintf("broker-%d", id))
	} else {
		c.mu.Lock()
		m := c.mem[id]
		if m == nil {
			m = vfs.NewMem()
			c.mem[id] = m
		}
		c.mu.Unlock()
		fsys = m
	}
	if kaddr == "" {
		kaddr = "127.0.0.1:0"
	}
	kln, err := net.Listen("tcp", kaddr)
	if err != nil {
		return fmt.Errorf("kafkatest: broker %d: Kafka listener: %w", id, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		kln.Close()
		return fmt.Errorf("kafkatest: broker %d: %w", id, err)
	}
	bcfg := replica.BrokerConfig{
		ID: id, Dir: dir, Endpoint: ln.Addr().String(), KafkaEndpoint: kln.Addr().String(),
		SessionTimeoutMs: c.cfg.SessionTimeoutMs, ContinuousFetch: true, ReplicaFetchWaitMs: 500, HeartbeatIntervalMs: 250,
		Replica: replica.Options{Log: log.Options{FS: fsys}, LagMaxMs: c.cfg.ReplicaLagMs},
	}
	rand.Read(bcfg.IncarnationID[:])
	b, err := replica.OpenBroker(bcfg, n.clk.NowMs())
	if err != nil {
		ln.Close()
		kln.Close()
		return fmt.Errorf("kafkatest: broker %d: %w", id, err)
	}
	h, err := server.Serve(ln, b, server.Config{
		Clock: n.clk, Controller: c.ctlH.Addr().String(), OnEvent: c.signal, ShutdownTimeoutMs: c.cfg.WaitMs,
		Resolve:   func(peer replica.Addr) (string, bool) { return c.resolve(id, peer) },
		Listeners: []server.Listener{{Listener: kln, Codec: kafka.NewCodec(b, c.cfg.Kafka)}},
	})
	if err != nil {
		kln.Close()
		return fmt.Errorf("kafkatest: broker %d: %w", id, err)
	}
	c.mu.Lock()
	n.b, n.h, n.addr, n.osd, n.kafka = b, h, ln.Addr().String(), osd, kln.Addr().String()
	c.mu.Unlock()
	return nil
}

// resolve routes broker from's connections to another broker through
// their link. It runs with from's node lock held.
func (c *Cluster) resolve(from int32, peer replica.Addr) (string, bool) {
	if peer.Kind != replica.BrokerAddr {
		return "", false
	}
	l, err := c.link(from, peer.ID)
	if err != nil {
		return "", false
	}
	return l.addr(), true
}

// link returns the link from broker from to broker to, opening it the
// first time.
func (c *Cluster) link(from, to int32) (*link, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("kafkatest: closed")
	}
	k := [2]int32{from, to}
	if l, ok := c.links[k]; ok {
		return l, nil
	}
	l, err := newLink(func() (string, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		n, ok := c.brokers[to]
		return n.addrIfRunning(ok)
	})
	if err != nil {
		return nil, err
	}
	c.links[k] = l
	return l, nil
}

func (n *node) addrIfRunning(ok bool) (string, bool) {
	if !ok || n.h == nil {
		return "", false
	}
	return n.addr, true
}

// ListenAddrs returns the Kafka listeners of the running brokers, in
// broker id order: the seeds to give a Kafka client
// (kgo.SeedBrokers(c.ListenAddrs()...)). A broker keeps its Kafka address
// across restarts.
func (c *Cluster) ListenAddrs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, id := range c.ids() {
		if n := c.brokers[id]; n.h != nil {
			out = append(out, n.kafka)
		}
	}
	return out
}

// ids returns the broker ids in order; c.mu is held.
func (c *Cluster) ids() []int32 {
	ids := make([]int32, 0, len(c.brokers))
	for id := range c.brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ControllerAddr returns the controller's kaenlog listener, for
// kaenlog's own clients (wire requests such as CreateTopics).
func (c *Cluster) ControllerAddr() string { return c.ctlH.Addr().String() }

// Close stops every running broker at once, with no controlled shutdown,
// then the controller, and closes the controller's metadata log. In
// memory the data is gone with the Cluster; with Config.Dir the brokers'
// files keep what they had fsynced, as after a Crash of each, and a new
// Cluster can open them. Calls after the first return nil.
func (c *Cluster) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	var runs []node
	for _, n := range c.brokers {
		if n.h != nil {
			runs = append(runs, *n)
			n.b, n.h, n.osd = nil, nil, nil
		}
	}
	links := c.links
	c.mu.Unlock()
	for _, n := range runs {
		n.h.Kill()
		if n.osd != nil {
			n.osd.crash()
		}
	}
	for _, l := range links {
		l.close()
	}
	c.ctlH.Kill()
	return c.store.Close()
}
