package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The -groups mode's measures with kaenlog's own client (replica/client)
// instead of kgo, against the same kaenlog clusters through their kaenlog
// listeners (the controller's address; the client finds the coordinator
// and the leaders from there), in the same interleaved rounds:
//
//   - commit: a GroupConsumer (its defaults: eager range assignment,
//     heartbeats every 3 s) of a fresh group reads record i of a
//     one-partition topic and calls Commit, which commits offset i+1, for
//     i = 0..n-1; only Commit is timed. GroupConsumer commits what it
//     handed out, so the topic holds -group-commits records (kgo commits
//     offsets of an empty topic). Then single-record Producer.Produce
//     calls, acks=all, to the same topic as kgo's produce measure;
//   - join: -group-members GroupConsumers, each on a client of its own,
//     started at once; stable as for kgo (every OnAssigned told, each
//     partition owned once, in one generation, DescribeGroups Stable);
//   - chain: as kgo's, each stage a GroupConsumer and a Producer: every
//     record read is handed to the producer with Send (to the same
//     partition of the next topic); every ownChainCommitRecords records
//     the stage flushes and commits. The source sends the records round
//     robin over t0's partitions; the reader of t2 is a Consumer per
//     partition.
//
// DescribeGroups and the final OffsetFetch go through the Kafka listener
// with kgo (one coordinator serves both protocols): replica/client has no
// admin call for them.

// ownChainCommitRecords is how many records a chain stage reads between
// its flush and commit: kgo's stage commits once a poll, every 7,000 to
// 30,000 records of 100 bytes in these runs.
const ownChainCommitRecords = 10_000

// ownFirstHeartbeat is when a GroupConsumer sends its first heartbeat
// after an assignment: its heartbeat interval (default 3 s), the join's
// counterpart of kgoCooperativeFirstHeartbeat.
const ownFirstHeartbeat = client.DefaultHeartbeatIntervalMs * time.Millisecond

// ownPrefix names the own client's groups and topics, apart from kgo's on
// the same cluster.
const ownPrefix = "own-"

// addOwnClientSides adds kaenlog's own client's sides: against k (ks's
// cluster), and for the join against zk (zs's, no initial rebalance
// delay) when there is one.
func (b *bench) addOwnClientSides(k *kcluster, ks *groupSide, zk *kcluster, zs *groupSide) {
	g := b.groups
	g.own = &groupSide{name: "kaenlog, own client", addrs: ks.addrs, cpu: ks.cpu, own: k}
	g.sides = append(g.sides, g.own)
	if zk != nil {
		g.ownZero = &groupSide{name: "kaenlog, initial delay 0, own client", addrs: zs.addrs, cpu: zs.cpu, own: zk, joinOnly: true}
		g.sides = append(g.sides, g.ownZero)
	}
}

// ownWarmUpCommits is the commits of ownGroupsPrepare's uncounted run.
const ownWarmUpCommits = 10

// ownCommitTopic holds the records the own client's commit runs read.
const ownCommitTopic = ownPrefix + topicCommit

// ownGroupsPrepare fills ownCommitTopic with -group-commits records and
// runs one group through a join and a commit, not counted, as
// groupsPrepare does for kgo.
func (b *bench) ownGroupsPrepare(ctx context.Context, s *groupSide) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if _, err := s.own.createTopic(ctx, ownCommitTopic); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	n := ownWarmUpCommits
	if !s.joinOnly && b.cfg.groups.rows["commit"] {
		n = max(n, b.cfg.groups.commits)
	}
	if got, _, err := s.own.produceAsync(ctx, ownCommitTopic, b.value, n, 0, 0, time.Now().Add(time.Minute)); err != nil || got != n {
		return fmt.Errorf("%s: %d of %d records to %s: %v", s.name, got, n, ownCommitTopic, err)
	}
	b.logf("%s: a group's first join and commit, not counted", s.name)
	start := time.Now()
	if _, err := b.ownCommitRun(ctx, s, "warm-up", ownWarmUpCommits); err != nil {
		return fmt.Errorf("%s: warm-up: %w", s.name, err)
	}
	b.logf("%s: the first group joined and committed in %v", s.name, time.Since(start).Round(time.Millisecond))
	return nil
}

// newOwnClient is a client of kaenlog's own protocol on s's cluster.
func newOwnClient(s *groupSide) (*client.Client, error) {
	return client.New(client.Config{Controller: s.own.ctlAddr, Clock: wallclock.New()})
}

// ownMember is a GroupConsumer on a client of its own, with what its
// OnAssigned said last.
type ownMember struct {
	cl *client.Client
	gc *client.GroupConsumer
	mu sync.Mutex
	// gen and owned are the last assignment OnAssigned told.
	gen   int32
	owned []client.TopicPartition
}

// newOwnMember starts a member of group on topics; changed is signalled
// and lastChange set (if not nil) after every assignment.
func newOwnMember(s *groupSide, group string, topics []string, changed chan<- struct{}, lastChange *atomic.Int64) (*ownMember, error) {
	cl, err := newOwnClient(s)
	if err != nil {
		return nil, err
	}
	m := &ownMember{cl: cl, gen: -1}
	m.gc, err = cl.NewGroupConsumer(client.GroupConfig{Group: group, Topics: topics, Reset: client.ResetEarliest,
		OnAssigned: func(gen int32, ps []client.TopicPartition) {
			m.mu.Lock()
			m.gen, m.owned = gen, ps
			m.mu.Unlock()
			if lastChange != nil {
				lastChange.Store(time.Now().UnixNano())
			}
			select {
			case changed <- struct{}{}:
			default:
			}
		}})
	if err != nil {
		cl.Close()
		return nil, err
	}
	return m, nil
}

func (m *ownMember) assignment() (int32, []client.TopicPartition) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen, m.owned
}

func (m *ownMember) close() {
	m.gc.Close()
	m.cl.Close()
}

// ownCommitRun is commitRun with a GroupConsumer: it reads record i of
// ownCommitTopic and commits (offset i+1), n times, and returns each
// Commit's latency; OffsetFetch must then answer n.
func (b *bench) ownCommitRun(ctx context.Context, s *groupSide, group string, n int) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	group = ownPrefix + group
	m, err := newOwnMember(s, group, []string{ownCommitTopic}, make(chan struct{}, 1), nil)
	if err != nil {
		return nil, err
	}
	defer m.close()
	lat := make([]time.Duration, 0, n)
	for rec, err := range m.gc.Records(ctx) {
		if err != nil {
			return nil, fmt.Errorf("group %s: record %d: %w", group, len(lat), err)
		}
		if rec.Offset != uint64(len(lat)) {
			return nil, fmt.Errorf("group %s: record %d at offset %d", group, len(lat), rec.Offset)
		}
		start := time.Now()
		if err := m.gc.Commit(ctx); err != nil {
			return nil, fmt.Errorf("group %s: commit %d: %w", group, len(lat)+1, err)
		}
		if lat = append(lat, time.Since(start)); len(lat) == n {
			break
		}
	}
	adm, err := kgo.NewClient(kgo.SeedBrokers(s.addrs...))
	if err != nil {
		return nil, err
	}
	defer adm.Close()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = group
	rt := kmsg.NewOffsetFetchRequestTopic()
	rt.Topic, rt.Partitions = ownCommitTopic, []int32{0}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, adm)
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

// ownJoinRun is joinRun with GroupConsumers, each on a client of its own.
func (b *bench) ownJoinRun(ctx context.Context, s *groupSide, round int) (time.Duration, int32, error) {
	n := b.cfg.groups.members
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	topic, group := fmt.Sprintf("%sgjoin-%d", ownPrefix, round), fmt.Sprintf("%sjoin-%d", ownPrefix, round)
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
	members := make([]*ownMember, 0, n)
	defer func() {
		var wg sync.WaitGroup
		for _, m := range members {
			wg.Go(m.close)
		}
		wg.Wait()
	}()
	start := time.Now()
	for range n {
		m, err := newOwnMember(s, group, []string{topic}, changed, &lastChange)
		if err != nil {
			return 0, 0, err
		}
		members = append(members, m)
		go func() {
			for _, err := range m.gc.Records(ctx) {
				if err != nil {
					return
				}
			}
		}()
	}
	// assigned says whether the callbacks give every member a share, all
	// in one generation, and every partition one owner; and which.
	assigned := func() (int32, bool) {
		owners := map[int32]int{}
		gen := int32(-1)
		for i, m := range members {
			g, ps := m.assignment()
			if len(ps) == 0 || (i > 0 && g != gen) {
				return 0, false
			}
			gen = g
			for _, p := range ps {
				owners[p.Partition]++
			}
		}
		for p := range int32(n) {
			if owners[p] != 1 {
				return 0, false
			}
		}
		return gen, len(owners) == n
	}
	for {
		gen, ok := assigned()
		for ; !ok; gen, ok = assigned() {
			select {
			case <-changed:
			case <-ctx.Done():
				return 0, 0, fmt.Errorf("group %s: the callbacks never gave each of %d members a share of %d partitions in one generation: %w", group, n, n, ctx.Err())
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

// ownChainRun is chainRun with kaenlog's own client: each stage a
// GroupConsumer and a Producer, the source a Producer, the reader a
// Consumer per partition of t2.
func (b *bench) ownChainRun(ctx context.Context, s *groupSide, round int) (chainResult, error) {
	n := b.cfg.groups.chainRecords
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	t := []string{fmt.Sprintf("%schain-%d-0", ownPrefix, round), fmt.Sprintf("%schain-%d-1", ownPrefix, round), fmt.Sprintf("%schain-%d-2", ownPrefix, round)}
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
	failed := make(chan error, 1)
	fail := func(err error) {
		select {
		case failed <- err:
		default:
		}
		cancel()
	}
	var stages sync.WaitGroup
	var closers []func()
	defer func() {
		cancel()
		stages.Wait()
		for _, c := range slices.Backward(closers) {
			c()
		}
	}()
	for i, group := range []string{fmt.Sprintf("%schain-a-%d", ownPrefix, round), fmt.Sprintf("%schain-b-%d", ownPrefix, round)} {
		from, to := t[i], t[i+1]
		changed := make(chan struct{}, 1)
		m, err := newOwnMember(s, group, []string{from}, changed, nil)
		if err != nil {
			return chainResult{}, err
		}
		closers = append(closers, m.close)
		p, err := m.cl.NewProducer(client.ProducerConfig{})
		if err != nil {
			return chainResult{}, err
		}
		closers = append(closers, p.Close)
		for _, ps := m.assignment(); len(ps) < chainPartitions; _, ps = m.assignment() {
			select {
			case <-changed:
			case <-ctx.Done():
				return chainResult{}, fmt.Errorf("group %s: not assigned %s's %d partitions: %w", group, from, chainPartitions, ctx.Err())
			}
		}
		// Hand each record to the producer, and every
		// ownChainCommitRecords flush and commit: at least once, a
		// record committed only once the next topic has it.
		var perr atomic.Pointer[error]
		onOutcome := func(_ client.Offset, err error) {
			if err != nil {
				perr.CompareAndSwap(nil, &err)
			}
		}
		stages.Go(func() {
			read := 0
			for rec, err := range m.gc.Records(ctx) {
				if err != nil {
					if ctx.Err() == nil {
						fail(fmt.Errorf("group %s: read: %w", group, err))
					}
					return
				}
				if err := p.Send(ctx, client.Record{Topic: to, Partition: rec.Partition, Key: rec.Key, Value: rec.Value}, onOutcome); err != nil {
					if ctx.Err() == nil {
						fail(fmt.Errorf("group %s: produce to %s: %w", group, to, err))
					}
					return
				}
				if read++; read%ownChainCommitRecords != 0 {
					continue
				}
				if err := p.Flush(ctx); err != nil {
					if ctx.Err() == nil {
						fail(fmt.Errorf("group %s: flush to %s: %w", group, to, err))
					}
					return
				}
				if e := perr.Load(); e != nil {
					fail(fmt.Errorf("group %s: produce to %s: %w", group, to, *e))
					return
				}
				if err := m.gc.Commit(ctx); err != nil {
					if ctx.Err() == nil {
						fail(fmt.Errorf("group %s: commit: %w", group, err))
					}
					return
				}
				commits.Add(1)
			}
		})
	}
	rd, err := newOwnClient(s)
	if err != nil {
		return chainResult{}, err
	}
	closers = append(closers, func() { rd.Close() })
	reader, err := rd.NewConsumer(client.ConsumerConfig{})
	if err != nil {
		return chainResult{}, err
	}
	sc, err := newOwnClient(s)
	if err != nil {
		return chainResult{}, err
	}
	closers = append(closers, func() { sc.Close() })
	src, err := sc.NewProducer(client.ProducerConfig{})
	if err != nil {
		return chainResult{}, err
	}
	closers = append(closers, src.Close)

	seen := make([]atomic.Bool, n)
	var got, dups atomic.Int64
	all := make(chan struct{})
	for part := range int32(chainPartitions) {
		stages.Go(func() {
			tp := client.TopicPartition{Topic: t[2], Partition: part}
			for rec, err := range reader.Records(ctx, tp, client.FromStart()) {
				if err != nil {
					if ctx.Err() == nil {
						fail(fmt.Errorf("reading %s: %w", tp, err))
					}
					return
				}
				var bad error
				if len(rec.Value) < 8 {
					bad = fmt.Errorf("%s@%d: a %d-byte value", tp, rec.Offset, len(rec.Value))
				} else if i := binary.BigEndian.Uint64(rec.Value); i >= uint64(n) {
					bad = fmt.Errorf("%s@%d: index %d of %d records", tp, rec.Offset, i, n)
				} else if !seen[i].CompareAndSwap(false, true) {
					dups.Add(1)
				} else if got.Add(1) == int64(n) {
					close(all)
				}
				if bad != nil {
					fail(bad)
					return
				}
			}
		})
	}

	value := make([]byte, max(8, b.cfg.recordBytes))
	copy(value[8:], b.value)
	start := time.Now()
	sourceDone := make(chan time.Duration, 1)
	stages.Go(func() {
		var perr atomic.Pointer[error]
		onOutcome := func(_ client.Offset, err error) {
			if err != nil {
				perr.CompareAndSwap(nil, &err)
			}
		}
		for i := range n {
			binary.BigEndian.PutUint64(value, uint64(i)) // Send copies the value
			if err := src.Send(ctx, client.Record{Topic: t[0], Partition: int32(i % chainPartitions), Value: value}, onOutcome); err != nil {
				if ctx.Err() == nil {
					fail(fmt.Errorf("produce to %s: %w", t[0], err))
				}
				return
			}
		}
		if err := src.Flush(ctx); err != nil {
			if ctx.Err() == nil {
				fail(fmt.Errorf("produce to %s: %w", t[0], err))
			}
			return
		}
		if e := perr.Load(); e != nil {
			fail(fmt.Errorf("produce to %s: %w", t[0], *e))
			return
		}
		sourceDone <- time.Since(start)
	})
	select {
	case <-all:
	case err := <-failed:
		return chainResult{}, err
	case <-ctx.Done():
		select {
		case err := <-failed:
			return chainResult{}, err
		default:
		}
		return chainResult{}, fmt.Errorf("the end of the chain saw %d of %d records: %w", got.Load(), n, ctx.Err())
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
		commits: int(commits.Load()), dups: int(dups.Load())}, nil
}

// zero is the side of kgo against kaenlog with no initial rebalance
// delay, nil when the run has none.
func (g *groupsRun) zero() *groupSide {
	for _, s := range g.sides {
		if s.joinOnly && s.own == nil {
			return s
		}
	}
	return nil
}

// reportOwnClient prints the own client's table: each measure beside
// kgo's against the same cluster and kgo's against kfake, ratios of the
// medians of the same run.
func (b *bench) reportOwnClient() {
	cfg, g, w := b.cfg, b.groups, b.out
	o, k, f := g.own, g.sides[0], g.sides[1]
	if o == nil {
		return
	}
	mu := func(d time.Duration) string { return us(d) }
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1e3) }
	mc := func(x float64) string { return fmt.Sprintf("%.1f µs", x) }
	mr := func(x float64) string { return rate(x) }
	fmt.Fprintf(w, "\nkaenlog's own client (replica/client: GroupConsumer with its defaults, eager range assignment, heartbeats every 3 s, session 45 s; Commit; Producer, acks=all, idempotent) against the same kaenlog cluster through its kaenlog listener, in the same rounds:\n\n")
	fmt.Fprintln(w, "| measure | kaenlog's own client, median (min to max) | kgo, kaenlog's Kafka listener | own / kgo (medians) | kgo, kfake | own / kfake |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	row := func(name string, own, kg, kf string, rk, rf string) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", name, own, kg, rk, kf, rf)
	}
	if cfg.groups.rows["commit"] {
		row(fmt.Sprintf("OffsetCommit (GroupConsumer.Commit of one offset, %d a run; kgo: CommitOffsetsSync), p50", cfg.groups.commits),
			spread(o.p50, mu), spread(k.p50, mu), spread(f.p50, mu), ratioOf(o.p50, k.p50), ratioOf(o.p50, f.p50))
		row("OffsetCommit, p99", spread(o.p99, mu), spread(k.p99, mu), spread(f.p99, mu), ratioOf(o.p99, k.p99), ratioOf(o.p99, f.p99))
		row("CPU per OffsetCommit, the brokers together", spread(o.commitCPU, mc), spread(k.commitCPU, mc), spread(f.commitCPU, mc), ratioOf(o.commitCPU, k.commitCPU), ratioOf(o.commitCPU, f.commitCPU))
		row("single-record acks=all produce (Producer.Produce; kgo: ProduceSync), p50", spread(o.prodP50, mu), spread(k.prodP50, mu), spread(f.prodP50, mu), ratioOf(o.prodP50, k.prodP50), ratioOf(o.prodP50, f.prodP50))
		row("CPU per such produce, the brokers together", spread(o.prodCPU, mc), spread(k.prodCPU, mc), spread(f.prodCPU, mc), ratioOf(o.prodCPU, k.prodCPU), ratioOf(o.prodCPU, f.prodCPU))
		row("OffsetCommit p50 / produce p50", ratioOf(o.p50, o.prodP50), ratioOf(k.p50, k.prodP50), ratioOf(f.p50, f.prodP50), "-", "-")
	}
	if cfg.groups.rows["join"] {
		row(fmt.Sprintf("%d members started at once to a stable group (kaenlog: group.initial.rebalance.delay.ms %d)", cfg.groups.members, cfg.groups.initialDelayMs),
			spread(o.join, ms), spread(k.join, ms), spread(f.join, ms), ratioOf(o.join, k.join), ratioOf(o.join, f.join))
		if oz, z := g.ownZero, g.zero(); oz != nil && z != nil {
			row("the same, kaenlog's brokers with group.initial.rebalance.delay.ms 0", spread(oz.join, ms), spread(z.join, ms), spread(f.join, ms), ratioOf(oz.join, z.join), ratioOf(oz.join, f.join))
		}
	}
	if cfg.groups.rows["chain"] {
		row(fmt.Sprintf("chain of 2 groups (t0 → A → t1 → B → t2), %d records of %d bytes, records/s (own client: flush and commit every %d records)", cfg.groups.chainRecords, cfg.recordBytes, ownChainCommitRecords),
			spread(o.chain, mr), spread(k.chain, mr), spread(f.chain, mr), ratioOf(o.chain, k.chain), ratioOf(o.chain, f.chain))
		row("the chain's source: t0's produce alone (while the chain ran), records/s", spread(o.source, mr), spread(k.source, mr), spread(f.source, mr), ratioOf(o.source, k.source), ratioOf(o.source, f.source))
	}
}
