package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The -groups mode (issue 18 §4): consumer groups through one kgo client
// with its defaults (the classic protocol, the cooperative-sticky
// balancer, heartbeats every 3 s), against kaenlog's Kafka listener (a
// controller and three kafka-broker processes; __consumer_offsets is
// created at the first FindCoordinator with 50 partitions, RF 3 and min
// ISR 2, and every commit is an acks=all write to it) and against kfake
// in a child process of its own (three brokers, offsets in memory), the
// two interleaved with the floors. Three measures:
//
//   - commit: a member of a stable group commits one offset with
//     CommitOffsetsSync, -group-commits times: p50, p99 and the brokers'
//     CPU per commit, beside the message floor (a commit's 4 hops between
//     4 processes, floor.go: kaenlog's replicated write) and a loopback
//     round trip (2 hops: kfake's answer from memory);
//   - join: -group-members members (10) started at once, to a stable
//     group: every member's OnPartitionsAssigned fired, the partitions
//     of a topic with as many partitions owned once each, and
//     DescribeGroups answering Stable with every member assigned; beside
//     it the group.initial.rebalance.delay.ms kaenlog's coordinators wait
//     (kfake has none);
//   - chain: group A consumes t0 and produces to t1, group B consumes t1
//     and produces to t2, each member producing what a poll returned,
//     flushing, then committing it (CommitUncommittedOffsets); the time
//     from the first record produced to t0 until a reader of t2 has seen
//     every one of -group-chain-records, beside the throughput floor for
//     the chain's three writes of every record.
//
// The same measures run with kaenlog's own client against the same
// kaenlog clusters, in the same rounds (groups_kaenlog_client.go).

// groupsConfig is the -groups mode's flags.
type groupsConfig struct {
	on             bool
	commits        int
	members        int
	chainRecords   int
	initialDelayMs int
	rows           map[string]bool
}

var allGroupRows = []string{"commit", "join", "chain"}

// The topics' partitions in the chain, and their names' prefixes.
const (
	chainPartitions = 3
	topicCommit     = "gcommit"
	// topicGroupProduce takes the commit measure's single-record
	// produces: the same acks=all replication with no coordinator.
	topicGroupProduce = "gproduce"
)

// register adds the mode's flags to fs; check reads them once parsed.
func (g *groupsConfig) register(fs *flag.FlagSet) func() string {
	fs.BoolVar(&g.on, "groups", false, "instead of the rows above, run consumer groups through kgo with its defaults against kaenlog's Kafka listener (3 broker processes, __consumer_offsets RF 3, min ISR 2) and against kfake in its own process, and through kaenlog's own client against the same kaenlog cluster, interleaved with the floors (groups.go)")
	fs.IntVar(&g.commits, "group-commits", 5000, "with -groups, CommitOffsetsSync calls of one offset per commit run")
	fs.IntVar(&g.members, "group-members", 10, "with -groups, members started at once in a join run (the topic has as many partitions)")
	fs.IntVar(&g.chainRecords, "group-chain-records", 100_000, "with -groups, records through the chain of two groups per chain run (1000000 for issue 18's figure)")
	fs.IntVar(&g.initialDelayMs, "group-initial-delay-ms", 3000, "with -groups, kaenlog's group.initial.rebalance.delay.ms (3000 is Kafka's default; kfake has no such delay)")
	rows := fs.String("group-rows", strings.Join(allGroupRows, ","), "with -groups, the measures to run, comma-separated: "+strings.Join(allGroupRows, ", "))
	return func() string {
		g.rows = map[string]bool{}
		for _, r := range strings.Split(*rows, ",") {
			if r = strings.TrimSpace(r); r == "" {
				continue
			}
			if !slices.Contains(allGroupRows, r) {
				return fmt.Sprintf("-group-rows: unknown measure %q", r)
			}
			g.rows[r] = true
		}
		switch {
		case len(g.rows) == 0:
			return "-group-rows: no measure"
		case g.commits < 1 || g.chainRecords < 1:
			return "-group-commits and -group-chain-records must be at least 1"
		case g.members < 1 || g.members > 1000:
			return fmt.Sprintf("-group-members %d is not in [1, 1000]", g.members)
		case g.initialDelayMs < 0:
			return fmt.Sprintf("-group-initial-delay-ms %d is negative", g.initialDelayMs)
		}
		return ""
	}
}

// idleWindow is how long the brokers' idle CPU is measured before a
// commit run.
const idleWindow = time.Second

// envGroupInitialDelay carries -group-initial-delay-ms to the
// kafka-broker children (kafka_broker.go).
const envGroupInitialDelay = "KFAKEBENCH_GROUP_INITIAL_DELAY_MS"

// groupSide is one cluster's figures in the -groups mode, one per run.
type groupSide struct {
	name      string
	addrs     []string
	cpu       func() (int64, error) // the broker processes' CPU time so far, ns
	p50, p99  []time.Duration       // CommitOffsetsSync
	commitCPU []float64             // CPU µs per commit, the brokers together
	prodP50   []time.Duration       // ProduceSync of one record to a topic like the commit's partition
	prodCPU   []float64             // CPU µs per such produce, the brokers together
	idleCPU   []float64             // the brokers' CPU while no client asks anything, % of a core
	join      []time.Duration       // first member started to a stable group
	joinGen   []int32               // the generation the group was stable in
	chain     []float64             // records/s through the chain
	source    []float64             // records/s of t0's produce alone (while the chain ran)
	dups      []int                 // records the end of the chain saw twice
	chainCmt  []int                 // commits the chain's members made
	rounds    int
	joinOnly  bool // runs the join measure only (kaenlog with no initial rebalance delay)
	// own, when set, is the cluster this side reaches through its
	// kaenlog listener with kaenlog's own client (groups_kaenlog_client.go)
	// instead of kgo.
	own *kcluster
}

// groupsRun is the mode's state beside bench's.
type groupsRun struct {
	sides            []*groupSide
	rtt, floorP50    []time.Duration // per run: the RTT's and the message floor's p50
	rttP99, floorP99 []time.Duration
	tfloor           []float64 // the throughput floor for 3 writes of a record, records/s
	echoAddr         string
	own, ownZero     *groupSide // kaenlog's own client, against ks's and zs's clusters
}

func (b *bench) runGroups(ctx context.Context) error {
	cfg := b.cfg
	g := &groupsRun{}
	b.groups = g
	if cfg.groups.rows["commit"] {
		var err error
		if b.relay, err = startRelay(b.self, b.dir); err != nil {
			return fmt.Errorf("message floor: %w", err)
		}
		defer b.relay.close()
		echo, err := startChild(b.self, roleEcho, "echo", logPathIn(b.dir, "echo"), nil)
		if err != nil {
			return err
		}
		defer echo.kill()
		line, err := echo.await(lineEcho, startLimit)
		if err != nil {
			return err
		}
		g.echoAddr = strings.TrimPrefix(line, lineEcho)
	}
	k, ks, err := b.startGroupsKaenlog(b.dir, "kaenlog", cfg.groups.initialDelayMs)
	if err != nil {
		return err
	}
	defer k.close()
	p, err := startPeer(b.self, b.dir)
	if err != nil {
		return fmt.Errorf("kfake: %w", err)
	}
	defer p.close()
	fs := &groupSide{name: "kfake", addrs: p.addrs, cpu: func() (int64, error) { return p.childCPUNanos(), nil }}
	g.sides = []*groupSide{ks, fs}
	var zs *groupSide // kaenlog with no initial rebalance delay, for the join measure
	var zk *kcluster
	if cfg.groups.rows["join"] && cfg.groups.initialDelayMs > 0 {
		dir := filepath.Join(b.dir, "no-initial-delay")
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		if zk, zs, err = b.startGroupsKaenlog(dir, "kaenlog, initial delay 0", 0); err != nil {
			return err
		}
		defer zk.close()
		zs.joinOnly = true
		g.sides = append(g.sides, zs)
	}
	b.addOwnClientSides(k, ks, zk, zs)
	for _, s := range g.sides {
		prepare := b.groupsPrepare
		if s.own != nil {
			prepare = b.ownGroupsPrepare
		}
		if err := prepare(ctx, s); err != nil {
			return err
		}
	}
	if cfg.profileDir != "" && cfg.groups.rows["commit"] {
		if err := b.profiledCommits(ctx, k, ks); err != nil {
			return err
		}
	}
	for i := range cfg.count {
		sides := []func() error{
			func() error { return b.groupsRound(ctx, ks) },
			func() error { return b.groupsRound(ctx, fs) },
		}
		if zs != nil {
			sides = append(sides, func() error { return b.groupsRound(ctx, zs) })
		}
		for _, s := range []*groupSide{g.own, g.ownZero} {
			if s != nil {
				sides = append(sides, func() error { return b.groupsRound(ctx, s) })
			}
		}
		if cfg.groups.rows["commit"] {
			sides = append(sides, b.groupsFloorRound)
		}
		if cfg.groups.rows["chain"] {
			sides = append(sides, func() error {
				b.logf("the throughput floor: a chain's bytes (each record written 3 times) over raw TCP between four processes")
				r, err := b.throughputFloor(3*cfg.groups.chainRecords, cfg.recordBytes)
				if err != nil {
					return err
				}
				g.tfloor = append(g.tfloor, r/3)
				return nil
			})
		}
		r := i % len(sides)
		for _, side := range append(sides[r:], sides[:r]...) {
			if err := side(); err != nil {
				return err
			}
		}
	}
	return nil
}

// startGroupsKaenlog starts a kaenlog cluster with Kafka listeners in dir,
// its coordinators' group.initial.rebalance.delay.ms delayMs, and returns
// it with its side.
func (b *bench) startGroupsKaenlog(dir, name string, delayMs int) (*kcluster, *groupSide, error) {
	b.logf("starting %s: a controller and %d brokers with Kafka listeners, each a process (group.initial.rebalance.delay.ms %d)", name, brokers, delayMs)
	env := append(b.cfg.nodeEnv(), fmt.Sprintf("%s=%d", envGroupInitialDelay, delayMs))
	k, err := startKaenlog(b.self, dir, env, true)
	if err != nil {
		if k != nil {
			k.close()
		}
		return nil, nil, fmt.Errorf("%s cluster: %w", name, err)
	}
	return k, &groupSide{name: name, addrs: k.kafka, cpu: func() (int64, error) {
		var sum int64
		for id := int32(1); id <= brokers; id++ {
			s, err := k.broker(id).stats()
			if err != nil {
				return 0, err
			}
			sum += s.cpuNs
		}
		return sum, nil
	}}, nil
}

// groupsPrepare creates the commit measure's topic and runs one group
// through a join and a commit, not counted: kaenlog creates
// __consumer_offsets at the first FindCoordinator, and the first join
// waits for its 50 partitions' leaders and loads.
func (b *bench) groupsPrepare(ctx context.Context, s *groupSide) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	adm, err := kgo.NewClient(kgo.SeedBrokers(s.addrs...))
	if err != nil {
		return err
	}
	defer adm.Close()
	if err := createTopics(ctx, adm, 1, topicCommit, topicGroupProduce); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	b.logf("%s: a group's first join and commit, not counted (creates __consumer_offsets)", s.name)
	start := time.Now()
	_, err = b.commitRun(ctx, s, "warm-up", 10)
	if err != nil {
		return fmt.Errorf("%s: warm-up: %w", s.name, err)
	}
	b.logf("%s: the first group joined and committed in %v", s.name, time.Since(start).Round(time.Millisecond))
	return nil
}

// profiledCommits runs a commit run against kaenlog, not counted, with
// CPU profiles of the brokers and the harness (-profile).
func (b *bench) profiledCommits(ctx context.Context, k *kcluster, s *groupSide) error {
	const group = "profiled"
	adm, err := kgo.NewClient(kgo.SeedBrokers(s.addrs...))
	if err != nil {
		return err
	}
	defer adm.Close()
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorKey, req.CoordinatorKeys = group, []string{group}
	resp, err := req.RequestWith(ctx, adm)
	if err != nil {
		return fmt.Errorf("find coordinator: %w", err)
	}
	coord := resp.NodeID
	if len(resp.Coordinators) > 0 {
		coord = resp.Coordinators[0].NodeID
	}
	b.logf("a profiled commit run against kaenlog (the coordinator: broker %d), not counted", coord)
	stop, err := b.startProfiles(k, true, "commit", coord)
	if err != nil {
		return err
	}
	_, err = b.commitRun(ctx, s, group, b.cfg.groups.commits)
	return errors.Join(err, stop())
}

// groupsRound runs the measures once against one side.
func (b *bench) groupsRound(ctx context.Context, s *groupSide) error {
	cfg := b.cfg
	s.rounds++
	commitRun, joinRun, chainRun := b.commitRun, b.joinRun, b.chainRun
	produceSync := (&peer{addrs: s.addrs}).produceSync
	if s.own != nil { // kaenlog's own client (groups_kaenlog_client.go)
		commitRun, joinRun, chainRun = b.ownCommitRun, b.ownJoinRun, b.ownChainRun
		produceSync = s.own.produceSync
	}
	if cfg.groups.rows["commit"] && !s.joinOnly {
		// What the brokers spend with no request at all (replication of
		// idle partitions, timers), beside what a commit costs.
		idle0, err := s.cpu()
		if err != nil {
			return err
		}
		t0 := time.Now()
		time.Sleep(idleWindow)
		idle1, err := s.cpu()
		if err != nil {
			return err
		}
		s.idleCPU = append(s.idleCPU, float64(idle1-idle0)/float64(time.Since(t0).Nanoseconds())*100)
		cpu0, err := s.cpu()
		if err != nil {
			return err
		}
		lat, err := commitRun(ctx, s, fmt.Sprintf("commit-%d", s.rounds), cfg.groups.commits)
		if err != nil {
			return fmt.Errorf("%s: commit: %w", s.name, err)
		}
		cpu1, err := s.cpu()
		if err != nil {
			return err
		}
		p50, p99 := percentiles(lat)
		s.p50, s.p99 = append(s.p50, p50), append(s.p99, p99)
		s.commitCPU = append(s.commitCPU, float64(cpu1-cpu0)/1e3/float64(len(lat)))
		b.logf("%s: %d CommitOffsetsSync: p50 %v, p99 %v, brokers %.1f CPU µs a commit (idle: %.1f%% of a core)", s.name, len(lat), p50, p99, s.commitCPU[len(s.commitCPU)-1], s.idleCPU[len(s.idleCPU)-1])
		// The same count of single-record acks=all produces to a
		// one-partition topic of 3 replicas and min ISR 2, as
		// __consumer_offsets' partitions are: the replication a commit
		// rides on, without the coordinator.
		if cpu0, err = s.cpu(); err != nil {
			return err
		}
		lat, err = produceSync(ctx, topicGroupProduce, b.value, cfg.groups.commits, time.Now().Add(cfg.duration))
		if err != nil {
			return fmt.Errorf("%s: produce: %w", s.name, err)
		}
		if cpu1, err = s.cpu(); err != nil {
			return err
		}
		p50, _ = percentiles(lat)
		s.prodP50 = append(s.prodP50, p50)
		s.prodCPU = append(s.prodCPU, float64(cpu1-cpu0)/1e3/float64(len(lat)))
		b.logf("%s: %d single-record ProduceSync: p50 %v, brokers %.1f CPU µs a produce", s.name, len(lat), p50, s.prodCPU[len(s.prodCPU)-1])
	}
	if cfg.groups.rows["join"] {
		d, gen, err := joinRun(ctx, s, s.rounds)
		if err != nil {
			return fmt.Errorf("%s: join: %w", s.name, err)
		}
		s.join, s.joinGen = append(s.join, d), append(s.joinGen, gen)
		b.logf("%s: %d members to a stable group in %v (generation %d)", s.name, cfg.groups.members, d.Round(time.Microsecond), gen)
	}
	if cfg.groups.rows["chain"] && !s.joinOnly {
		r, err := chainRun(ctx, s, s.rounds)
		if err != nil {
			return fmt.Errorf("%s: chain: %w", s.name, err)
		}
		s.chain, s.source = append(s.chain, r.rate), append(s.source, r.sourceRate)
		s.dups, s.chainCmt = append(s.dups, r.dups), append(s.chainCmt, r.commits)
		b.logf("%s: chain of 2 groups: %d records in %v: %.0f records/s (t0's produce alone %.0f records/s; %d commits, %d records seen twice at the end)", s.name, cfg.groups.chainRecords, r.elapsed.Round(time.Millisecond), r.rate, r.sourceRate, r.commits, r.dups)
	}
	return nil
}

// groupsFloorRound measures the commit measure's two floors, as many
// messages as its commits: the message floor (4 hops) and the RTT (2).
func (b *bench) groupsFloorRound() error {
	g, n := b.groups, b.cfg.groups.commits
	l, err := b.relay.commits(n)
	if err != nil {
		return err
	}
	p50, p99 := percentiles(l)
	g.floorP50, g.floorP99 = append(g.floorP50, p50), append(g.floorP99, p99)
	rtt, err := roundTrips(g.echoAddr, n)
	if err != nil {
		return err
	}
	r50, r99 := percentiles(rtt)
	g.rtt, g.rttP99 = append(g.rtt, r50), append(g.rttP99, r99)
	b.logf("message floor: %d commits, p50 %v, p99 %v; RTT p50 %v, p99 %v", n, p50, p99, r50, r99)
	return nil
}

// groupMember is a kgo group member and what its callbacks saw.
type groupMember struct {
	cl *kgo.Client
	mu sync.Mutex
	// owned is what OnPartitionsAssigned gave it, less what
	// OnPartitionsRevoked and OnPartitionsLost took.
	owned map[string]map[int32]bool
	// changed is told of every callback (never blocking).
	changed chan<- struct{}
	// lastChange is when the last callback ran.
	lastChange *atomic.Int64
}

// newMember starts a kgo client in group consuming topic, with opts
// added to kgo's defaults.
func newMember(addrs []string, group, topic string, changed chan<- struct{}, lastChange *atomic.Int64, opts ...kgo.Opt) (*groupMember, error) {
	m := &groupMember{owned: map[string]map[int32]bool{}, changed: changed, lastChange: lastChange}
	note := func(ps map[string][]int32, add bool) {
		m.mu.Lock()
		for t, parts := range ps {
			if m.owned[t] == nil {
				m.owned[t] = map[int32]bool{}
			}
			for _, p := range parts {
				if add {
					m.owned[t][p] = true
				} else {
					delete(m.owned[t], p)
				}
			}
		}
		m.mu.Unlock()
		if m.lastChange != nil {
			m.lastChange.Store(time.Now().UnixNano())
		}
		select {
		case m.changed <- struct{}{}:
		default:
		}
	}
	all := append([]kgo.Opt{
		kgo.SeedBrokers(addrs...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { note(ps, true) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { note(ps, false) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { note(ps, false) }),
	}, opts...)
	cl, err := kgo.NewClient(all...)
	if err != nil {
		return nil, err
	}
	m.cl = cl
	return m, nil
}

// ownedOf returns the partitions of topic the member owns.
func (m *groupMember) ownedOf(topic string) []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ps []int32
	for p := range m.owned[topic] {
		ps = append(ps, p)
	}
	return ps
}

// commitRun joins a fresh group as its one member (consuming topicCommit,
// auto-commit off), waits for its assignment, then commits offsets 1 to n
// of the partition one at a time with CommitOffsetsSync and returns each
// commit's latency.
func (b *bench) commitRun(ctx context.Context, s *groupSide, group string, n int) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	changed := make(chan struct{}, 1)
	m, err := newMember(s.addrs, group, topicCommit, changed, nil, kgo.DisableAutoCommit())
	if err != nil {
		return nil, err
	}
	defer m.cl.Close()
	for len(m.ownedOf(topicCommit)) == 0 {
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("group %s: no assignment of %s: %w", group, topicCommit, ctx.Err())
		}
	}
	lat := make([]time.Duration, 0, n)
	for i := 1; i <= n; i++ {
		var cerr error
		start := time.Now()
		m.cl.CommitOffsetsSync(ctx, map[string]map[int32]kgo.EpochOffset{topicCommit: {0: {Epoch: -1, Offset: int64(i)}}},
			func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
				cerr = err
				for _, t := range resp.Topics {
					for _, p := range t.Partitions {
						if e := kerr.ErrorForCode(p.ErrorCode); e != nil && cerr == nil {
							cerr = fmt.Errorf("%s-%d: %w", t.Topic, p.Partition, e)
						}
					}
				}
			})
		d := time.Since(start)
		if cerr != nil {
			return nil, fmt.Errorf("group %s: commit %d: %w", group, i, cerr)
		}
		lat = append(lat, d)
	}
	// The last commit is what the coordinator answers for the group.
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = group
	rt := kmsg.NewOffsetFetchRequestTopic()
	rt.Topic, rt.Partitions = topicCommit, []int32{0}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, m.cl)
	if err != nil {
		return nil, fmt.Errorf("group %s: offset fetch: %w", group, err)
	}
	if e := kerr.ErrorForCode(resp.ErrorCode); e != nil {
		return nil, fmt.Errorf("group %s: offset fetch: %w", group, e)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || resp.Topics[0].Partitions[0].Offset != int64(n) {
		return nil, fmt.Errorf("group %s: offset fetch after %d commits answered %+v", group, n, resp.Topics)
	}
	return lat, nil
}

// joinRun starts the members of a fresh group at once on a topic of as
// many partitions, and returns the time from the first member's start
// until the group is stable: every member's OnPartitionsAssigned has
// fired, every partition is owned by exactly one member, and
// DescribeGroups answers Stable with every member holding an assignment
// (polled from the moment the callbacks say so; the time is the last
// callback's if the first answer after it is Stable, else that answer's
// request's). It returns the generation the group was stable in too.
func (b *bench) joinRun(ctx context.Context, s *groupSide, round int) (time.Duration, int32, error) {
	n := b.cfg.groups.members
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	topic, group := fmt.Sprintf("gjoin-%d", round), fmt.Sprintf("join-%d", round)
	adm, err := kgo.NewClient(kgo.SeedBrokers(s.addrs...))
	if err != nil {
		return 0, 0, err
	}
	defer adm.Close()
	if err := createTopics(ctx, adm, int32(n), topic); err != nil {
		return 0, 0, err
	}
	defer b.deleteTopics(adm, topic)
	changed := make(chan struct{}, 1)
	var lastChange atomic.Int64
	members := make([]*groupMember, 0, n)
	defer func() {
		var wg sync.WaitGroup
		for _, m := range members {
			wg.Go(m.cl.Close)
		}
		wg.Wait()
	}()
	start := time.Now()
	for range n {
		m, err := newMember(s.addrs, group, topic, changed, &lastChange)
		if err != nil {
			return 0, 0, err
		}
		members = append(members, m)
		go func() {
			for !m.cl.PollFetches(ctx).IsClientClosed() && ctx.Err() == nil {
			}
		}()
	}
	// assigned says whether the callbacks give every member a share and
	// every partition one owner.
	assigned := func() bool {
		owners := map[int32]int{}
		for _, m := range members {
			ps := m.ownedOf(topic)
			if len(ps) == 0 {
				return false
			}
			for _, p := range ps {
				owners[p]++
			}
		}
		for p := range int32(n) {
			if owners[p] != 1 {
				return false
			}
		}
		return len(owners) == n
	}
	for {
		for !assigned() {
			select {
			case <-changed:
			case <-ctx.Done():
				return 0, 0, fmt.Errorf("group %s: the callbacks never gave each of %d members a share of %d partitions: %w", group, n, n, ctx.Err())
			}
		}
		seen := lastChange.Load()
		for first := true; ; first = false {
			asked := time.Now()
			stable, err := describeStable(ctx, adm, group, n)
			if err != nil {
				return 0, 0, err
			}
			if lastChange.Load() != seen {
				break // a callback ran meanwhile: look again
			}
			if stable {
				at := asked
				if first {
					at = time.Unix(0, seen)
				}
				_, gen := members[0].cl.GroupMetadata()
				return at.Sub(start), gen, nil
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return 0, 0, fmt.Errorf("group %s: every member assigned but DescribeGroups never Stable: %w", group, ctx.Err())
			case <-time.After(2 * time.Millisecond): // DescribeGroups polling interval
			}
		}
	}
}

// describeStable asks the group's coordinator whether the group is Stable
// with n members, each with an assignment.
func describeStable(ctx context.Context, cl *kgo.Client, group string, n int) (bool, error) {
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{group}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return false, fmt.Errorf("describe groups: %w", err)
	}
	if len(resp.Groups) != 1 {
		return false, fmt.Errorf("describe groups: %d groups answered", len(resp.Groups))
	}
	d := resp.Groups[0]
	if e := kerr.ErrorForCode(d.ErrorCode); e != nil {
		if errors.Is(e, kerr.CoordinatorLoadInProgress) {
			return false, nil
		}
		return false, fmt.Errorf("describe group %s: %w", group, e)
	}
	if d.State != "Stable" || len(d.Members) != n {
		return false, nil
	}
	for _, m := range d.Members {
		var a kmsg.ConsumerMemberAssignment
		if err := a.ReadFrom(m.MemberAssignment); err != nil {
			return false, fmt.Errorf("describe group %s: member %s's assignment: %w", group, m.MemberID, err)
		}
		parts := 0
		for _, t := range a.Topics {
			parts += len(t.Partitions)
		}
		if parts == 0 {
			return false, nil
		}
	}
	return true, nil
}

// chainResult is one chain run's figures.
type chainResult struct {
	elapsed          time.Duration
	rate, sourceRate float64
	commits, dups    int
}

// chainRun runs the chain once on fresh topics and groups: group A
// (t0 → t1) and group B (t1 → t2), one member each, both assigned before
// the clock starts; then -group-chain-records records of -record-bytes
// (each one's index in its first 8 bytes) produced to t0, and a reader of
// t2 (a direct consumer) counts each index; the clock stops when it has
// seen every one.
func (b *bench) chainRun(ctx context.Context, s *groupSide, round int) (chainResult, error) {
	n := b.cfg.groups.chainRecords
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	t := []string{fmt.Sprintf("chain-%d-0", round), fmt.Sprintf("chain-%d-1", round), fmt.Sprintf("chain-%d-2", round)}
	adm, err := kgo.NewClient(kgo.SeedBrokers(s.addrs...))
	if err != nil {
		return chainResult{}, err
	}
	defer adm.Close()
	if err := createTopics(ctx, adm, chainPartitions, t...); err != nil {
		return chainResult{}, err
	}
	defer b.deleteTopics(adm, t...)

	var commits atomic.Int64
	// The first failure of a stage or the source ends the run: it
	// cancels ctx, which the reader's poll below waits on.
	failed := make(chan error, 1)
	fail := func(err error) {
		select {
		case failed <- err:
		default:
		}
		cancel()
	}
	var stages []*groupMember
	defer func() {
		for _, m := range stages {
			m.cl.Close()
		}
	}()
	for i, group := range []string{fmt.Sprintf("chain-a-%d", round), fmt.Sprintf("chain-b-%d", round)} {
		from, to := t[i], t[i+1]
		changed := make(chan struct{}, 1)
		m, err := newMember(s.addrs, group, from, changed, nil, kgo.DisableAutoCommit(), kgo.DefaultProduceTopic(to))
		if err != nil {
			return chainResult{}, err
		}
		stages = append(stages, m)
		for len(m.ownedOf(from)) < chainPartitions {
			select {
			case <-changed:
			case <-ctx.Done():
				return chainResult{}, fmt.Errorf("group %s: not assigned %s's %d partitions: %w", group, from, chainPartitions, ctx.Err())
			}
		}
		// Consume a poll, produce it downstream, flush, commit it: what
		// an at-least-once stage does (a record is committed only once
		// the next topic has it).
		go func() {
			var out []*kgo.Record
			for {
				fs := m.cl.PollFetches(ctx)
				if fs.IsClientClosed() || ctx.Err() != nil {
					return
				}
				if err := fs.Err0(); err != nil {
					fail(fmt.Errorf("group %s: poll: %w", group, err))
					return
				}
				out = out[:0]
				fs.EachRecord(func(r *kgo.Record) { out = append(out, &kgo.Record{Topic: to, Key: r.Key, Value: r.Value}) })
				if len(out) == 0 {
					continue
				}
				if err := m.cl.ProduceSync(ctx, out...).FirstErr(); err != nil {
					fail(fmt.Errorf("group %s: produce to %s: %w", group, to, err))
					return
				}
				if err := m.cl.CommitUncommittedOffsets(ctx); err != nil {
					fail(fmt.Errorf("group %s: commit: %w", group, err))
					return
				}
				commits.Add(1)
			}
		}()
	}
	reader, err := kgo.NewClient(kgo.SeedBrokers(s.addrs...), kgo.ConsumeTopics(t[2]))
	if err != nil {
		return chainResult{}, err
	}
	defer reader.Close()
	src, err := kgo.NewClient(kgo.SeedBrokers(s.addrs...), kgo.DefaultProduceTopic(t[0]))
	if err != nil {
		return chainResult{}, err
	}
	defer src.Close()

	value := make([]byte, max(8, b.cfg.recordBytes))
	copy(value[8:], b.value)
	start := time.Now()
	sourceDone := make(chan time.Duration, 1)
	go func() {
		var perr atomic.Pointer[error]
		for i := range n {
			v := slices.Clone(value)
			binary.BigEndian.PutUint64(v, uint64(i))
			src.Produce(ctx, &kgo.Record{Value: v}, func(_ *kgo.Record, err error) {
				if err != nil {
					perr.CompareAndSwap(nil, &err)
				}
			})
		}
		if err := src.Flush(ctx); err != nil {
			fail(fmt.Errorf("produce to %s: %w", t[0], err))
			return
		}
		if e := perr.Load(); e != nil {
			fail(fmt.Errorf("produce to %s: %w", t[0], *e))
			return
		}
		sourceDone <- time.Since(start)
	}()
	seen := make([]bool, n)
	got, dups := 0, 0
	for got < n {
		select {
		case err := <-failed:
			return chainResult{}, err
		default:
		}
		fs := reader.PollFetches(ctx)
		if ctx.Err() != nil {
			select {
			case err := <-failed:
				return chainResult{}, err
			default:
			}
			return chainResult{}, fmt.Errorf("the end of the chain saw %d of %d records: %w", got, n, ctx.Err())
		}
		if err := fs.Err0(); err != nil {
			return chainResult{}, fmt.Errorf("reading %s: %w", t[2], err)
		}
		var bad error
		fs.EachRecord(func(r *kgo.Record) {
			if len(r.Value) < 8 {
				bad = fmt.Errorf("%s-%d@%d: a %d-byte value", t[2], r.Partition, r.Offset, len(r.Value))
				return
			}
			i := binary.BigEndian.Uint64(r.Value)
			switch {
			case i >= uint64(n):
				bad = fmt.Errorf("%s-%d@%d: index %d of %d records", t[2], r.Partition, r.Offset, i, n)
			case seen[i]:
				dups++
			default:
				seen[i] = true
				got++
			}
		})
		if bad != nil {
			return chainResult{}, bad
		}
	}
	elapsed := time.Since(start)
	var source time.Duration
	select {
	case source = <-sourceDone:
	case err := <-failed:
		return chainResult{}, err
	case <-ctx.Done():
		return chainResult{}, fmt.Errorf("the source's flush never returned: %w", ctx.Err())
	}
	return chainResult{elapsed: elapsed, rate: float64(n) / elapsed.Seconds(), sourceRate: float64(n) / source.Seconds(),
		commits: int(commits.Load()), dups: dups}, nil
}

// createTopics creates each topic (one CreateTopics request each, as
// kaenlog's listener takes them) with partitions partitions, 3 replicas
// and min.insync.replicas 2, and waits until the metadata shows every
// partition with a leader and all 3 replicas in sync.
func createTopics(ctx context.Context, cl *kgo.Client, partitions int32, topics ...string) error {
	for _, name := range topics {
		req := kmsg.NewPtrCreateTopicsRequest()
		t := kmsg.NewCreateTopicsRequestTopic()
		t.Topic, t.NumPartitions, t.ReplicationFactor = name, partitions, brokers
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = "min.insync.replicas", kmsg.StringPtr("2")
		t.Configs = append(t.Configs, c)
		req.Topics = append(req.Topics, t)
		req.TimeoutMillis = 30_000
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return fmt.Errorf("create topic %s: %w", name, err)
		}
		if len(resp.Topics) != 1 {
			return fmt.Errorf("create topic %s: %d topics answered", name, len(resp.Topics))
		}
		if e := kerr.ErrorForCode(resp.Topics[0].ErrorCode); e != nil {
			return fmt.Errorf("create topic %s: %w", name, e)
		}
	}
	for {
		req := kmsg.NewPtrMetadataRequest()
		for _, name := range topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(name)
			req.Topics = append(req.Topics, rt)
		}
		resp, err := req.RequestWith(ctx, cl)
		ready := err == nil && len(resp.Topics) == len(topics)
		for _, t := range resp.Topics {
			ready = ready && t.ErrorCode == 0 && len(t.Partitions) == int(partitions)
			for _, p := range t.Partitions {
				ready = ready && p.ErrorCode == 0 && p.Leader >= 0 && len(p.ISR) == brokers
			}
		}
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("topics %v: no leader with a full ISR for every partition: %w (last: %v)", topics, ctx.Err(), err)
		case <-time.After(20 * time.Millisecond): // metadata polling interval
		}
	}
}

// deleteTopics deletes the topics a run created, so that no later run
// meets more partitions (kaenlog's followers fetch each one they follow)
// or their data on disk.
func (b *bench) deleteTopics(cl *kgo.Client, topics ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TopicNames = topics
	for _, name := range topics {
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, t)
	}
	req.TimeoutMillis = 30_000
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		b.logf("delete topics %v: %v", topics, err)
		return
	}
	for _, t := range resp.Topics {
		if e := kerr.ErrorForCode(t.ErrorCode); e != nil && t.Topic != nil {
			b.logf("delete topic %s: %v", *t.Topic, e)
		}
	}
}
