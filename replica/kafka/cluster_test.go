package kafka_test

import (
	"net"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/kaenlog/kaenlog/replica/server"
)

// A real cluster for the listener's tests: replica/internal/clustertest's
// (a controller and brokers, each on its own server.Host over loopback TCP
// in the test process, on the wall clock, disks in memory), every broker
// with a Kafka listener beside its kaenlog one. Waits are bounded
// (clusterWait) and never sleep: the hosts signal after every event, and
// a wait looks again.

const clusterWait = clustertest.WaitLimit

// sessionMs is the controller's broker session timeout in these tests
// (Kafka's broker.session.timeout.ms, 9 s by default): short, because a
// killed broker's partitions move only when its session expires, and a
// restarted broker registers only once its old session has expired.
const sessionMs = 2000

type cluster struct {
	*clustertest.Cluster
	t testing.TB
	// o shapes each broker: its Kafka listener's config, its host's
	// budgets, its group coordinators.
	o clusterOptions

	mu sync.Mutex
	// kafka are the running brokers' Kafka listeners, by id.
	kafka map[int32]string
	// pending holds a starting broker's Kafka listener between its
	// configuration and its host.
	pending map[int32]net.Listener
	// disks are the brokers' file systems in memory, by id: they outlive
	// the brokers, so that kill can cut a broker's power and startBroker
	// open what the cut left.
	disks map[int32]*vfs.Mem
}

// clusterOptions shape a test cluster's brokers.
type clusterOptions struct {
	// kafka configures every broker's Kafka listener.
	kafka kafka.Config
	// host, if set, adjusts each broker's host config (budgets, say).
	host func(*server.Config)
	// broker, if set, adjusts each broker's config (its group
	// coordinators' timeouts, say).
	broker func(*replica.BrokerConfig)
}

// startCluster starts the controller and brokers 1..n and waits until
// every broker is registered, unfenced and caught up.
func startCluster(t testing.TB, n int) *cluster {
	t.Helper()
	return startClusterOf(t, n, clusterOptions{})
}

// startClusterWith is startCluster with hostCfg adjusting each broker's
// host config.
func startClusterWith(t testing.TB, n int, hostCfg func(*server.Config)) *cluster {
	t.Helper()
	return startClusterOf(t, n, clusterOptions{host: hostCfg})
}

// startKafkaCluster is startCluster with kcfg for every Kafka listener.
func startKafkaCluster(t testing.TB, n int, kcfg kafka.Config) *cluster {
	t.Helper()
	return startClusterOf(t, n, clusterOptions{kafka: kcfg})
}

func startClusterOf(t testing.TB, n int, o clusterOptions) *cluster {
	t.Helper()
	c := &cluster{t: t, o: o, kafka: map[int32]string{}, pending: map[int32]net.Listener{}, disks: map[int32]*vfs.Mem{}}
	c.Cluster = clustertest.Start(t, clustertest.Options{
		Brokers:    n,
		Controller: controller.Config{SessionTimeoutMs: sessionMs},
		MemDisks:   true,
		Broker:     c.configure,
		Host:       c.host,
	})
	return c
}

// configure gives a starting broker its Kafka listener (a new port each
// run) and keeps its disk.
func (c *cluster) configure(cfg *replica.BrokerConfig) {
	kln := clustertest.Listen(c.t)
	cfg.KafkaEndpoint = kln.Addr().String()
	if c.o.broker != nil {
		c.o.broker(cfg)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[cfg.ID] = kln
	if disk, ok := cfg.Replica.Log.FS.(*vfs.Mem); ok {
		c.disks[cfg.ID] = disk
	}
}

// host serves broker id's Kafka listener on its host.
func (c *cluster) host(id int32, b *replica.Broker, hcfg *server.Config) {
	c.mu.Lock()
	kln := c.pending[id]
	delete(c.pending, id)
	c.kafka[id] = kln.Addr().String()
	c.mu.Unlock()
	hcfg.Listeners = append(hcfg.Listeners, server.Listener{Listener: kln, Codec: kafka.NewCodec(b, c.o.kafka)})
	if c.o.host != nil {
		c.o.host(hcfg)
	}
}

// await waits until cond holds, looking again after every host event.
func (c *cluster) await(what string, cond func() bool) {
	c.t.Helper()
	c.Await(what, cond)
}

// startBroker opens broker id from its disk (what a kill left of it, if it
// ran before) and serves it on two listeners: kaenlog's and Kafka's. A
// restarted broker registers once its old session has expired
// (sessionMs); its broker waits for that by itself.
func (c *cluster) startBroker(id int32) {
	c.t.Helper()
	c.StartBroker(id)
}

// kill stops broker id at once, as a hard crash does: no controlled
// shutdown, no clean close, and its disk keeps what mode says
// (vfs.LoseUnsynced: a power cut, losing every byte not fsynced;
// vfs.KeepUnsynced: a kill -9). Its files and its directory lock die with
// it, so startBroker can open the directory again.
func (c *cluster) kill(id int32, mode vfs.CrashMode) {
	c.mu.Lock()
	delete(c.kafka, id)
	c.mu.Unlock()
	c.Crash(id, mode)
}

// kafkaAddr returns running broker id's Kafka listener.
func (c *cluster) kafkaAddr(id int32) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kafka[id]
}

// seeds returns the running brokers' Kafka listeners.
func (c *cluster) seeds() []string {
	var out []string
	for _, br := range c.Brokers() {
		out = append(out, c.kafkaAddr(br.ID))
	}
	return out
}

// image returns the controller's metadata image.
func (c *cluster) image() *controller.Image { return c.Image() }

// awaitBrokers waits until every running broker is registered, unfenced
// and has applied the controller's whole metadata log.
func (c *cluster) awaitBrokers() {
	c.t.Helper()
	c.AwaitBrokers()
}

// createTopic creates a topic with a raw request to the controller and
// waits until every broker has applied it.
func (c *cluster) createTopic(name string, partitions int32, rf int16, minISR int32) {
	c.t.Helper()
	c.CreateTopic(name, partitions, rf, minISR)
}

// partition returns what the controller committed for a partition.
func (c *cluster) partition(topic string, p int32) controller.PartitionState {
	ps, _ := c.Partition(topic, p)
	return ps
}
