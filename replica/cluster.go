package replica

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/wire"
)

// ClusterConfig configures a Cluster.
type ClusterConfig struct {
	// Dir holds every node's files: Dir/broker-<id> for each broker,
	// Dir/controller for the controller's metadata log.
	Dir string
	// Brokers are the broker ids, 1 to 7 of them, any non-negative ids.
	Brokers []int32
	// StartMs is the clock's time when the cluster opens.
	StartMs int64
	// Seed drives everything random: link faults and the brokers'
	// incarnation ids. The same seed and the same calls give the same run.
	Seed uint64
	// Controller configures the controller.
	Controller controller.Config
	// Broker is the template every broker starts from; ID, Dir,
	// Endpoint and IncarnationID are the cluster's to set.
	Broker BrokerConfig
	// Faults are the default faults of every link (LinkFaults{} is a
	// perfect network).
	Faults LinkFaults
	// Log configures the controller's store (its Sync is always
	// SyncEveryAppend: the controller answers only what is durable).
	Log log.Options
	// InMemory keeps every node's files on a vfs.Mem of its own instead of
	// under Dir: deterministic and fast, and a crash can lose what the node
	// did not fsync (CrashBroker with vfs.LoseUnsynced), as a power cut
	// would.
	InMemory bool
}

// Cluster is N brokers and the controller in one process, joined by an
// in-memory Network on one Manual clock, driven by the caller: nothing
// happens between calls, and every run of the same calls (and seed) gives
// the same results. Brokers register, heartbeat and follow the metadata log
// over the network as they would over TCP, ISR changes go through the
// controller, and time — heartbeats, session expiry, the ISR time rule,
// produce deadlines — advances only when the caller advances the clock
// (Advance), each node's timed work run by its own clock.Driver.
//
// Replication is driven in fetch rounds (FetchRound): every broker sends
// one fetch to each leader it follows, the way the chapter's harness drives
// one round at a time; the network runtime fetches continuously instead.
// Brokers can crash (with or without losing what their files did not
// fsync) and restart, links can drop, delay, duplicate and cut messages,
// and the controller can restart from its log.
type Cluster struct {
	cfg   ClusterConfig
	clock *clock.Manual
	net   *Network

	ctl   *ControllerNode
	store controller.Store
	// mems holds each node's in-memory file system (InMemory), by broker
	// id; the controller's is ctlMem.
	mems    map[int32]*vfs.Mem
	faults  map[int32]*vfs.FaultyFS
	ctlMem  *vfs.Mem
	ctlDrv  *clock.Driver
	brokers map[int32]*clusterBroker
	ids     []int32

	clientCorr int32
	responses  map[int32]wire.Message
	// watch, when set, sees every envelope delivered (the chapter harness
	// reads its reports from it); so do watchers.
	watch    func(Envelope)
	watchers []func(Envelope)
}

// clusterBroker is a broker slot: its running Broker (nil while down) and
// its Driver.
type clusterBroker struct {
	b           *Broker
	drv         *clock.Driver
	incarnation uint64
}

// OpenCluster opens a cluster: the controller from its log under Dir,
// then every broker, and runs until every broker is registered, unfenced and
// caught up with the metadata.
func OpenCluster(cfg ClusterConfig) (*Cluster, error) {
	if len(cfg.Brokers) == 0 || len(cfg.Brokers) > 7 {
		return nil, fmt.Errorf("replica: a cluster has 1 to 7 brokers, not %d: %w", len(cfg.Brokers), ErrInvalidConfig)
	}
	ids := slices.Sorted(slices.Values(cfg.Brokers))
	for i, id := range ids {
		if id < 0 || (i > 0 && id == ids[i-1]) {
			return nil, fmt.Errorf("replica: broker ids %v must be distinct and >= 0: %w", cfg.Brokers, ErrInvalidConfig)
		}
	}
	c := &Cluster{
		cfg: cfg, clock: clock.NewManual(cfg.StartMs), brokers: map[int32]*clusterBroker{}, ids: ids,
		responses: map[int32]wire.Message{}, mems: map[int32]*vfs.Mem{}, faults: map[int32]*vfs.FaultyFS{},
	}
	if cfg.InMemory {
		c.ctlMem = vfs.NewMem()
		for _, id := range ids {
			c.mems[id] = vfs.NewMem()
			c.faults[id] = vfs.Faulty(c.mems[id])
		}
	}
	c.net = NewNetwork(c.clock, cfg.Seed)
	c.net.SetDefaultFaults(cfg.Faults)
	c.net.Attach(ClientAt(0), func(env Envelope) {
		c.observe(env)
		c.responses[env.Msg.Correlation()] = env.Msg
	})
	if err := c.openController(); err != nil {
		return nil, err
	}
	for _, id := range ids {
		c.brokers[id] = &clusterBroker{}
		if err := c.StartBroker(id); err != nil {
			return nil, errors.Join(err, c.Close())
		}
	}
	if err := c.AwaitBrokers(30_000); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

// Clock returns the cluster's clock.
func (c *Cluster) Clock() *clock.Manual { return c.clock }

// NowMs returns the cluster's time.
func (c *Cluster) NowMs() int64 { return c.clock.NowMs() }

// Network returns the network, for faults and cuts.
func (c *Cluster) Network() *Network { return c.net }

// Controller returns the controller.
func (c *Cluster) Controller() *controller.Controller { return c.ctl.Controller() }

// BrokerIDs returns the broker ids, sorted.
func (c *Cluster) BrokerIDs() []int32 { return slices.Clone(c.ids) }

// Broker returns broker id, or nil while it is down.
func (c *Cluster) Broker(id int32) *Broker {
	if s, ok := c.brokers[id]; ok {
		return s.b
	}
	return nil
}

// Replica returns broker id's replica of tp, if the broker is up and hosts
// it.
func (c *Cluster) Replica(id int32, tp TopicPartition) (*Replica, bool) {
	b := c.Broker(id)
	if b == nil {
		return nil, false
	}
	return b.Replica(tp)
}

// LeaderOf returns the leader the controller has committed for tp, or -1.
func (c *Cluster) LeaderOf(tp TopicPartition) int32 {
	if p, ok := c.Controller().Image().Partition(tp.Topic, tp.Partition); ok {
		return p.Leader
	}
	return -1
}

// openController opens the controller's store and replays it.
func (c *Cluster) openController() error {
	opts := c.cfg.Log
	opts.Sync = log.SyncEveryAppend
	if c.ctlMem != nil {
		opts.FS = c.ctlMem
	}
	store, err := controller.OpenLogStore(filepath.Join(c.cfg.Dir, "controller"), opts)
	if err != nil {
		return fmt.Errorf("replica: controller: %w", err)
	}
	ctl, err := controller.Open(store, c.cfg.Controller, c.clock.NowMs())
	if err != nil {
		return errors.Join(fmt.Errorf("replica: controller: %w", err), store.Close())
	}
	c.store, c.ctl = store, NewControllerNode(ctl)
	c.attach(ControllerAt(), c.ctl, func() *clock.Driver { return c.ctlDrv })
	c.ctlDrv = clock.NewDriver(c.clock, clock.NoLock{}, c.ctl, func() { c.flush(c.ctl) })
	return nil
}

// RestartController stops the controller — its parked fetches and every
// message on its way to it are lost — and opens it again from its log.
func (c *Cluster) RestartController() error {
	c.ctlDrv.Stop()
	c.net.Detach(ControllerAt())
	if err := c.store.Close(); err != nil {
		return err
	}
	return c.openController()
}

// attach puts node on the network at a: a delivery runs Receive, sends
// what it produced and lets its driver see any new deadline.
func (c *Cluster) attach(a Addr, node Node, drv func() *clock.Driver) {
	c.net.Attach(a, func(env Envelope) {
		c.observe(env)
		node.Receive(env, c.clock.NowMs())
		c.flush(node)
		if d := drv(); d != nil {
			d.Kick()
		}
	})
}

func (c *Cluster) observe(env Envelope) {
	if c.watch != nil {
		c.watch(env)
	}
	for _, f := range c.watchers {
		f(env)
	}
}

// Disconnect breaks the connection between a and b, as a socket that
// closes: both ends are told at once (their Disconnected), and messages
// already on their way still arrive. The link stays up; Network.Cut is
// the partition that silently loses messages.
func (c *Cluster) Disconnect(a, b Addr) {
	for _, end := range [2][2]Addr{{a, b}, {b, a}} {
		switch self, peer := end[0], end[1]; self.Kind {
		case ControllerAddr:
			c.ctl.Disconnected(peer, c.clock.NowMs())
			c.flush(c.ctl)
			c.ctlDrv.Kick()
		case BrokerAddr:
			if s, ok := c.brokers[self.ID]; ok && s.b != nil {
				s.b.Disconnected(peer, c.clock.NowMs())
				c.flush(s.b)
				s.drv.Kick()
			}
		}
	}
}

// Watch makes f see every envelope the network delivers, as it is
// delivered: tests count messages with it, a simulator records them. f must
// not call back into the cluster.
func (c *Cluster) Watch(f func(Envelope)) { c.watchers = append(c.watchers, f) }

// flush sends what node has to send.
func (c *Cluster) flush(node Node) {
	for _, env := range node.Outbox() {
		if env.Close {
			continue // the in-memory network has no connections to close
		}
		c.net.Send(env)
	}
}

// StartBroker starts broker id from its directory, as a new incarnation:
// it recovers its partitions' logs and registers with the controller. The
// broker must be down (not yet started, crashed or stopped).
func (c *Cluster) StartBroker(id int32) error {
	s, ok := c.brokers[id]
	if !ok || s.b != nil {
		return fmt.Errorf("replica: broker %d is not a stopped broker of this cluster: %w", id, ErrInvalidState)
	}
	s.incarnation++
	cfg := c.cfg.Broker
	cfg.ID = id
	cfg.Dir = filepath.Join(c.cfg.Dir, fmt.Sprintf("broker-%d", id))
	cfg.Endpoint = fmt.Sprintf("broker-%d", id)
	if cfg.SessionTimeoutMs == 0 {
		cfg.SessionTimeoutMs = c.cfg.Controller.SessionTimeoutMs
	}
	if f := c.faults[id]; f != nil {
		cfg.Replica.Log.FS = f
	}
	binary.BigEndian.PutUint64(cfg.IncarnationID[:8], c.cfg.Seed^uint64(id)<<32)
	binary.BigEndian.PutUint64(cfg.IncarnationID[8:], s.incarnation)
	b, err := OpenBroker(cfg, c.clock.NowMs())
	if err != nil {
		return err
	}
	s.b = b
	c.attach(BrokerAt(id), b, func() *clock.Driver { return s.drv })
	s.drv = clock.NewDriver(c.clock, clock.NoLock{}, b, func() { c.flush(b) })
	c.flush(b)
	c.Run()
	return nil
}

// DiskFaults returns the fault injector in front of broker id's files
// (InMemory clusters only): make its next write or fsync fail and watch the
// broker halt rather than lie.
func (c *Cluster) DiskFaults(id int32) *vfs.FaultyFS { return c.faults[id] }

// CrashBroker kills broker id: no clean shutdown, every message on its way
// to it lost. mode says what its files keep: vfs.KeepUnsynced is a killed
// process (what it wrote is in the page cache, so it survives);
// vfs.LoseUnsynced is a power cut (only what it fsynced survives), and
// vfs.TornUnsynced a power cut mid-write. Anything but KeepUnsynced needs
// an InMemory cluster.
func (c *Cluster) CrashBroker(id int32, mode vfs.CrashMode) error {
	s, ok := c.brokers[id]
	if !ok || s.b == nil {
		return fmt.Errorf("replica: broker %d is not running: %w", id, ErrInvalidState)
	}
	m := c.mems[id]
	if m == nil && mode != vfs.KeepUnsynced {
		return fmt.Errorf("replica: broker %d: a %v crash needs an in-memory cluster: %w", id, mode, ErrInvalidState)
	}
	s.drv.Stop()
	c.net.Detach(BrokerAt(id))
	if m != nil {
		m.Crash(mode, c.cfg.Seed^uint64(id)^s.incarnation<<20)
	}
	s.b.crash()
	s.b, s.drv = nil, nil
	return nil
}

// StopBroker shuts broker id down cleanly: its logs close cleanly and it
// leaves its clean-shutdown marker, so it restarts as a clean broker.
func (c *Cluster) StopBroker(id int32) error {
	s, ok := c.brokers[id]
	if !ok || s.b == nil {
		return fmt.Errorf("replica: broker %d is not running: %w", id, ErrInvalidState)
	}
	s.drv.Stop()
	c.net.Detach(BrokerAt(id))
	err := s.b.Close()
	s.b, s.drv = nil, nil
	return err
}

// Run delivers every message and runs every timer due now, including what
// they cause, without moving the clock.
func (c *Cluster) Run() { c.clock.AdvanceTo(c.clock.NowMs()) }

// Advance moves the clock forward by ms, running every timer and delivery
// on the way in order.
func (c *Cluster) Advance(ms int64) { c.clock.Advance(ms) }

// AdvanceTo moves the clock to nowMs (never backwards), running what falls
// due on the way.
func (c *Cluster) AdvanceTo(nowMs int64) { c.clock.AdvanceTo(nowMs) }

// Await advances the clock, timer by timer, until cond holds; it gives up
// with an error once maxMs have passed.
func (c *Cluster) Await(cond func() bool, maxMs int64) error {
	deadline := c.clock.NowMs() + maxMs
	c.Run()
	for !cond() {
		next, ok := c.clock.NextMs()
		if !ok || next > deadline {
			c.clock.AdvanceTo(deadline)
			if cond() {
				return nil
			}
			return fmt.Errorf("replica: cluster: condition not met within %d ms", maxMs)
		}
		c.clock.AdvanceTo(next)
	}
	return nil
}

// AwaitBrokers waits until every running broker is registered, unfenced and
// has applied the controller's whole metadata log.
func (c *Cluster) AwaitBrokers(maxMs int64) error {
	return c.Await(func() bool {
		end := c.Controller().MetadataEndOffset()
		for _, id := range c.ids {
			b := c.Broker(id)
			if b != nil && (b.Fenced() || b.Image().EndOffset() != end) {
				return false
			}
		}
		return true
	}, maxMs)
}

// FetchRound has every running broker send one fetch (or epoch question)
// to each leader it follows, and delivers everything that follows from it.
func (c *Cluster) FetchRound() {
	now := c.clock.NowMs()
	for _, id := range c.ids {
		if b := c.Broker(id); b != nil {
			b.FetchRound(now)
			c.flush(b)
		}
	}
	c.Run()
}

// Call sends a request from the cluster's client to addr and runs until it
// is answered or maxMs pass. A request that gets no answer (acks=0, a lost
// message) returns nil and no error only when wait is false.
func (c *Cluster) Call(to Addr, req wire.Message, maxMs int64) (wire.Message, error) {
	corr := req.Correlation()
	c.net.Send(Envelope{From: ClientAt(0), To: to, Msg: req})
	if err := c.Await(func() bool { _, ok := c.responses[corr]; return ok }, maxMs); err != nil {
		return nil, fmt.Errorf("replica: cluster: no answer from %s to %v %d: %w", to, req.APIKey(), corr, err)
	}
	resp := c.responses[corr]
	delete(c.responses, corr)
	return resp, nil
}

// NextCorrelation returns a correlation id for a request of the cluster's
// client.
func (c *Cluster) NextCorrelation() int32 {
	c.clientCorr++
	return c.clientCorr
}

// CreateTopic creates a topic through the controller and waits until every
// running broker has applied it. assignment, if not nil, gives each
// partition's replicas in preference order.
func (c *Cluster) CreateTopic(name string, partitions int32, replicationFactor int16, minISR int32, assignment [][]int32) error {
	resp, err := c.Call(ControllerAt(), &wire.CreateTopicsRequest{CorrelationID: c.NextCorrelation(), Topics: []wire.CreatableTopic{{Name: name, Partitions: partitions, ReplicationFactor: replicationFactor, Assignment: assignment, Configs: wire.MinInsyncReplicas(minISR)}}}, 10_000)
	if err != nil {
		return err
	}
	if err := resp.(*wire.CreateTopicsResponse).Err(); err != nil {
		return fmt.Errorf("replica: create topic %s: %w", name, err)
	}
	return c.AwaitBrokers(10_000)
}

// Close shuts every running broker down cleanly and closes the controller.
func (c *Cluster) Close() error {
	var errs []error
	for _, id := range c.ids {
		if c.Broker(id) != nil {
			errs = append(errs, c.StopBroker(id))
		}
	}
	if c.ctlDrv != nil {
		c.ctlDrv.Stop()
	}
	if c.store != nil {
		errs = append(errs, c.store.Close())
		c.store = nil
	}
	return errors.Join(errs...)
}

// ProduceCall is a produce request of the cluster's client on its way to a
// leader: Done reports whether its answer has arrived.
type ProduceCall struct {
	c    *Cluster
	corr int32
	acks int16
}

// SendProduce sends values as one batch to the leader the controller has
// committed for tp, from the cluster's client, and returns without waiting.
// The request crosses the network like any other: it can be lost, delayed
// or refused. timeoutMs bounds an acks=all wait at the leader.
func (c *Cluster) SendProduce(tp TopicPartition, acks int16, timeoutMs int32, values ...[]byte) (*ProduceCall, error) {
	return c.SendProduceTo(c.LeaderOf(tp), tp, acks, timeoutMs, values...)
}

// SendProduceTo is SendProduce to broker id, whatever the controller says
// leads: a client with stale metadata.
func (c *Cluster) SendProduceTo(id int32, tp TopicPartition, acks int16, timeoutMs int32, values ...[]byte) (*ProduceCall, error) {
	recs := make([]log.Record, len(values))
	for i, v := range values {
		recs[i] = log.Record{OffsetDelta: int32(i), Value: v}
	}
	now := c.clock.NowMs()
	batch, err := log.AppendBatch(nil, &log.Batch{
		BaseTimestamp: now, MaxTimestamp: now, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs,
	})
	if err != nil {
		return nil, err
	}
	call := &ProduceCall{c: c, corr: c.NextCorrelation(), acks: acks}
	c.net.Send(Envelope{From: ClientAt(0), To: BrokerAt(id), Msg: &wire.ProduceRequest{
		CorrelationID: call.corr, Acks: acks, TimeoutMs: timeoutMs,
		Partitions: []wire.ProducePartition{{Topic: tp.Topic, Partition: tp.Partition, Records: batch}},
	}})
	c.Run()
	return call, nil
}

// Done reports whether the answer arrived.
func (p *ProduceCall) Done() bool {
	_, ok := p.c.responses[p.corr]
	return ok
}

// Result returns the partition's answer: where the records went, or the
// refusal as an error matching its wire sentinel. ok is false while the
// answer has not arrived (and for acks=0, which has none).
func (p *ProduceCall) Result() (resp wire.ProducePartitionResponse, ok bool, err error) {
	m, ok := p.c.responses[p.corr]
	if !ok {
		return resp, false, nil
	}
	pr := m.(*wire.ProduceResponse)
	if len(pr.Partitions) != 1 {
		return resp, true, fmt.Errorf("replica: cluster: produce response with %d partitions", len(pr.Partitions))
	}
	resp = pr.Partitions[0]
	return resp, true, resp.ErrorCode.Err()
}

// Produce sends values as one batch to tp's leader and waits for the answer
// — for acks=all, until the records commit or the leader gives up — running
// the clock, heartbeats, fetch rounds and all, for at most maxMs. It returns
// the first offset, or the refusal.
func (c *Cluster) Produce(tp TopicPartition, acks int16, maxMs int64, values ...[]byte) (uint64, error) {
	call, err := c.SendProduce(tp, acks, int32(min(maxMs, 1<<31-1)), values...)
	if err != nil {
		return 0, err
	}
	deadline := c.clock.NowMs() + maxMs
	for !call.Done() {
		// Fetch rounds at this instant while they move anything; only then
		// let time pass.
		delivered := c.net.Delivered
		c.FetchRound()
		if call.Done() || c.net.Delivered != delivered {
			continue
		}
		next, ok := c.clock.NextMs()
		if !ok || next > deadline {
			return 0, fmt.Errorf("replica: cluster: no answer to a produce within %d ms", maxMs)
		}
		c.clock.AdvanceTo(next)
	}
	resp, _, err := call.Result()
	return resp.BaseOffset, err
}

// Consume reads tp as a consumer would, from the leader the controller has
// committed: committed records only, from offset from, at most maxBytes.
// It returns the record values with their offsets.
func (c *Cluster) Consume(tp TopicPartition, from uint64, maxBytes int32) ([]ConsumedRecord, error) {
	corr := c.NextCorrelation()
	resp, err := c.Call(BrokerAt(c.LeaderOf(tp)), &wire.FetchRequest{
		CorrelationID: corr, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1, MaxBytes: maxBytes,
		Partitions: []wire.FetchPartition{{Topic: tp.Topic, Partition: tp.Partition, CurrentLeaderEpoch: wire.NoEpoch,
			FetchOffset: from, LastFetchedEpoch: wire.NoEpoch, MaxBytes: maxBytes}},
	}, 10_000)
	if err != nil {
		return nil, err
	}
	fr := resp.(*wire.FetchResponse)
	if len(fr.Partitions) != 1 {
		return nil, fmt.Errorf("replica: cluster: fetch response with %d partitions", len(fr.Partitions))
	}
	p := fr.Partitions[0]
	if err := p.ErrorCode.Err(); err != nil {
		return nil, err
	}
	batches, err := log.DecodeBatches(p.Records)
	if err != nil {
		return nil, err
	}
	var out []ConsumedRecord
	for _, b := range batches {
		for _, r := range b.Records {
			if off := b.BaseOffset + uint64(r.OffsetDelta); off >= from {
				out = append(out, ConsumedRecord{Offset: off, Value: r.Value})
			}
		}
	}
	return out, nil
}

// ConsumedRecord is one record a consumer read, with its absolute offset.
type ConsumedRecord struct {
	Offset uint64 // the record's offset in the partition
	Value  []byte // its value (nil for a null value)
}
