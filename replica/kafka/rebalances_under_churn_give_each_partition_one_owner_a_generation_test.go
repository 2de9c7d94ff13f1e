package kafka_test

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// gate stands between one kgo client and the cluster: paused, nothing it
// writes is sent and nothing it is sent is delivered, so the client
// cannot heartbeat, as though its process were stopped (SIGSTOP); cut
// closes every connection it has, as a network fault does.
type gate struct {
	mu    sync.Mutex
	open  chan struct{} // closed while the gate is open
	conns map[*gatedConn]bool
}

func newGate() *gate {
	g := &gate{open: make(chan struct{}), conns: map[*gatedConn]bool{}}
	close(g.open)
	return g
}

func (g *gate) pause() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = make(chan struct{})
}

func (g *gate) resume() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.open)
}

// cut closes every connection through the gate.
func (g *gate) cut() {
	g.mu.Lock()
	conns := slices.Collect(maps.Keys(g.conns))
	g.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// pass waits until the gate is open, or done.
func (g *gate) pass(done <-chan struct{}) error {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	select {
	case <-open:
		return nil
	case <-done:
		return net.ErrClosed
	}
}

// dial is the client's kgo.Dialer.
func (g *gate) dial(ctx context.Context, network, host string) (net.Conn, error) {
	if err := g.pass(ctx.Done()); err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	c := &gatedConn{Conn: nc, g: g, closed: make(chan struct{})}
	g.mu.Lock()
	g.conns[c] = true
	g.mu.Unlock()
	return c, nil
}

type gatedConn struct {
	net.Conn
	g      *gate
	closed chan struct{}
	once   sync.Once
}

func (c *gatedConn) Read(p []byte) (int, error) {
	if err := c.g.pass(c.closed); err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(p)
	if perr := c.g.pass(c.closed); perr != nil { // read while paused: held back
		return 0, perr
	}
	return n, err
}

func (c *gatedConn) Write(p []byte) (int, error) {
	if err := c.g.pass(c.closed); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

func (c *gatedConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.g.mu.Lock()
		delete(c.g.conns, c)
		c.g.mu.Unlock()
	})
	return c.Conn.Close()
}

// churnMember is one kgo member of the churn group and the partitions it
// owns, as its OnPartitionsAssigned, OnPartitionsRevoked and
// OnPartitionsLost hooks report them.
type churnMember struct {
	name string
	cl   *kgo.Client
	gate *gate

	mu         sync.Mutex
	owned      map[int32]bool
	heartbeats int // Heartbeat responses read
}

// churn is a consumer group under churn and what its members reported.
type churn struct {
	t          *testing.T
	c          *cluster
	topic      string
	partitions int32
	balancer   kgo.GroupBalancer
	events     chan struct{} // a member read a response or ran a hook
	adm        *kadm.Client

	mu sync.Mutex
	// claims are, by generation and partition, the members that reported
	// owning it in that generation.
	claims  map[int32]map[int32]map[string]bool
	members []*churnMember // running, in join order
	next    int
}

const churnGroup = "churners"

func (ch *churn) signal() {
	select {
	case ch.events <- struct{}{}:
	default:
	}
}

// OnBrokerRead is kgo's HookBrokerRead: every response a member reads is
// an event the waits look again after.
func (m *churnMember) hook(ch *churn) kgo.Hook {
	return brokerReadHook(func(key int16) {
		if key == 12 { // Heartbeat
			m.mu.Lock()
			m.heartbeats++
			m.mu.Unlock()
		}
		ch.signal()
	})
}

type brokerReadHook func(key int16)

func (h brokerReadHook) OnBrokerRead(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err == nil {
		h(key)
	}
}

// report records what m owns now in the generation its client is in.
func (ch *churn) report(m *churnMember, cl *kgo.Client) {
	_, gen := cl.GroupMetadata()
	m.mu.Lock()
	owned := slices.Collect(maps.Keys(m.owned))
	m.mu.Unlock()
	ch.mu.Lock()
	byPart := ch.claims[gen]
	if byPart == nil {
		byPart = map[int32]map[string]bool{}
		ch.claims[gen] = byPart
	}
	for _, p := range owned {
		if byPart[p] == nil {
			byPart[p] = map[string]bool{}
		}
		byPart[p][m.name] = true
	}
	ch.mu.Unlock()
	ch.signal()
}

// join starts a new member.
func (ch *churn) join() *churnMember {
	ch.t.Helper()
	ch.mu.Lock()
	ch.next++
	m := &churnMember{name: fmt.Sprintf("m%d", ch.next), gate: newGate(), owned: map[int32]bool{}}
	ch.members = append(ch.members, m)
	ch.mu.Unlock()
	update := func(cl *kgo.Client, parts map[string][]int32, add bool) {
		m.mu.Lock()
		for _, p := range parts[ch.topic] {
			if add {
				m.owned[p] = true
			} else {
				delete(m.owned, p)
			}
		}
		m.mu.Unlock()
		ch.report(m, cl)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(ch.c.seeds()...),
		kgo.Dialer(m.gate.dial), kgo.WithHooks(m.hook(ch)),
		kgo.ConsumerGroup(churnGroup), kgo.ConsumeTopics(ch.topic), kgo.Balancers(ch.balancer),
		kgo.SessionTimeout(2*time.Second), kgo.HeartbeatInterval(200*time.Millisecond), kgo.RebalanceTimeout(4*time.Second),
		kgo.OnPartitionsAssigned(func(_ context.Context, cl *kgo.Client, a map[string][]int32) { update(cl, a, true) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, cl *kgo.Client, r map[string][]int32) { update(cl, r, false) }),
		kgo.OnPartitionsLost(func(_ context.Context, cl *kgo.Client, l map[string][]int32) { update(cl, l, false) }),
		kgo.WithLogger(kgo.BasicLogger(testWriter{ch.t}, kgo.LogLevelWarn, func() string { return m.name + ": " })))
	if err != nil {
		ch.t.Fatal(err)
	}
	m.cl = cl
	ch.t.Cleanup(cl.Close)
	return m
}

// leave closes a member: kgo sends LeaveGroup.
func (ch *churn) leave(m *churnMember) {
	ch.mu.Lock()
	ch.members = slices.DeleteFunc(ch.members, func(x *churnMember) bool { return x == m })
	ch.mu.Unlock()
	m.cl.Close()
}

// running returns the members not paused.
func (ch *churn) running(paused *churnMember) []*churnMember {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(ch.members), func(x *churnMember) bool { return x == paused })
}

// stable reports whether the group is Stable with exactly the members
// running (paused excluded), every one in the same generation, the
// coordinator's assignments covering every partition once, and each
// member owning what the coordinator says it was assigned; else why not.
func (ch *churn) stable(paused *churnMember) (gen int32, why string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ds, err := ch.adm.DescribeGroups(ctx, churnGroup)
	if err != nil {
		return -1, fmt.Sprintf("DescribeGroups: %v", err)
	}
	d := ds[churnGroup]
	if d.Err != nil {
		return -1, fmt.Sprintf("DescribeGroups: %v", d.Err)
	}
	if d.State != "Stable" {
		return -1, "the group is " + d.State
	}
	assigned := map[string][]int32{}
	owner := map[int32]string{}
	for _, dm := range d.Members {
		ca, ok := dm.Assigned.AsConsumer()
		if !ok {
			return -1, fmt.Sprintf("member %s has no consumer assignment", dm.MemberID)
		}
		for _, tp := range ca.Topics {
			for _, p := range tp.Partitions {
				if o, dup := owner[p]; dup {
					return -1, fmt.Sprintf("the coordinator gives partition %d to %s and %s", p, o, dm.MemberID)
				}
				owner[p] = dm.MemberID
				assigned[dm.MemberID] = append(assigned[dm.MemberID], p)
			}
		}
	}
	if len(owner) != int(ch.partitions) {
		return -1, fmt.Sprintf("the coordinator's assignments cover %d of %d partitions", len(owner), ch.partitions)
	}
	running := ch.running(paused)
	if len(d.Members) != len(running) {
		return -1, fmt.Sprintf("the group has %d members, %d are running", len(d.Members), len(running))
	}
	gen = -1
	for _, m := range running {
		id, g := m.cl.GroupMetadata()
		got, ok := assigned[id]
		if !ok && !slices.ContainsFunc(d.Members, func(dm kadm.DescribedGroupMember) bool { return dm.MemberID == id }) {
			return -1, fmt.Sprintf("%s (%q) is not a member yet", m.name, id)
		}
		if gen != -1 && g != gen {
			return -1, fmt.Sprintf("members are in generations %d and %d", gen, g)
		}
		gen = g
		m.mu.Lock()
		owns := slices.Sorted(maps.Keys(m.owned))
		m.mu.Unlock()
		slices.Sort(got)
		if !slices.Equal(owns, got) {
			return -1, fmt.Sprintf("%s owns %v, the coordinator assigned it %v", m.name, owns, got)
		}
	}
	return gen, ""
}

// awaitStable waits, looking again after every response a member reads
// and every hook, until the group is stable (see stable).
func (ch *churn) awaitStable(what string, paused *churnMember) int32 {
	ch.t.Helper()
	limit := time.NewTimer(clusterWait)
	defer limit.Stop()
	for {
		gen, why := ch.stable(paused)
		if why == "" {
			return gen
		}
		select {
		case <-ch.events:
		case <-limit.C:
			ch.t.Fatalf("still waiting, after %v, for the group to stabilise %s: %s", clusterWait, what, why)
		}
	}
}

// await waits, looking again after every member event, until cond holds.
func (ch *churn) await(what string, cond func() bool) {
	ch.t.Helper()
	limit := time.NewTimer(clusterWait)
	defer limit.Stop()
	for !cond() {
		select {
		case <-ch.events:
		case <-limit.C:
			ch.t.Fatalf("still waiting, after %v, for %s", clusterWait, what)
		}
	}
}

// TestRebalancesUnderChurnGiveEachPartitionOneOwnerAGeneration: kgo
// members of one group (session 2 s, heartbeats every 200 ms) join,
// leave, lose their connections, and pause past their session timeout
// (every byte to and from them held back, as a stopped process) to come
// back later, in a seeded order, with kgo's cooperative-sticky balancer
// and with its eager range balancer. After each change the group
// re-stabilises: Stable with exactly the running members, all in one
// generation, the coordinator's assignments covering every partition
// once and each member owning what it was assigned. A paused member is
// removed when its session expires and rejoins under a new member id; a
// member whose connections are cut keeps its id. Over the whole run, no
// partition has two owners in one generation, by what the members'
// OnPartitionsAssigned, OnPartitionsRevoked and OnPartitionsLost hooks
// reported.
func TestRebalancesUnderChurnGiveEachPartitionOneOwnerAGeneration(t *testing.T) {
	rng := newRand(t)
	c := startClusterOf(t, 3, clusterOptions{broker: func(cfg *replica.BrokerConfig) {
		cfg.Groups = group.DefaultConfig()
		cfg.Groups.MinSessionTimeoutMs = 1000
		cfg.Groups.InitialRebalanceDelayMs = 0 // Kafka's test setting; no member waits for others
	}})
	const topic, partitions = "churned", 6
	c.createTopic(topic, partitions, 3, 2)
	for _, bal := range []kgo.GroupBalancer{kgo.CooperativeStickyBalancer(), kgo.RangeBalancer()} {
		ops := []string{"join", "leave", "pause", "cut", "join", "pause"}
		rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
		t.Run(bal.ProtocolName(), func(t *testing.T) {
			obs := kgoClient(t, c)
			ch := &churn{t: t, c: c, topic: topic, partitions: partitions, balancer: bal, events: make(chan struct{}, 1),
				adm: kadm.NewClient(obs), claims: map[int32]map[int32]map[string]bool{}}
			for range 3 {
				ch.join()
			}
			gen := ch.awaitStable("with its first 3 members", nil)
			gens := []int32{gen}
			// settled records a stable generation; a join, a leave and a
			// session's expiry each make a new one.
			settled := func(what string, g int32, rise bool) {
				t.Helper()
				if rise && g <= gens[len(gens)-1] {
					t.Errorf("stable in generation %d %s, after generation %d: the change made no new generation", g, what, gens[len(gens)-1])
				}
				gens = append(gens, g)
			}
			t.Logf("%s: ops %v", bal.ProtocolName(), ops)
			for _, op := range ops {
				running := ch.running(nil)
				m := running[rng.IntN(len(running))]
				switch op {
				case "join":
					n := ch.join()
					what := "after " + n.name + " joined"
					settled(what, ch.awaitStable(what, nil), true)
				case "leave":
					ch.leave(m)
					what := "after " + m.name + " left"
					settled(what, ch.awaitStable(what, nil), true)
				case "cut":
					id, _ := m.cl.GroupMetadata()
					m.mu.Lock()
					beats := m.heartbeats
					m.mu.Unlock()
					m.gate.cut()
					ch.await(m.name+" to heartbeat again after its connections were cut", func() bool {
						m.mu.Lock()
						defer m.mu.Unlock()
						return m.heartbeats > beats
					})
					what := "after " + m.name + "'s connections were cut"
					settled(what, ch.awaitStable(what, nil), false)
					if now, _ := m.cl.GroupMetadata(); now != id {
						t.Errorf("%s lost its connections and came back as %q, not %q: a closed connection is not a left member", m.name, now, id)
					}
				case "pause":
					id, _ := m.cl.GroupMetadata()
					m.gate.pause()
					what := "without " + m.name + ", paused past its session timeout"
					settled(what, ch.awaitStable(what, m), true)
					m.gate.resume()
					what = "after " + m.name + " came back"
					settled(what, ch.awaitStable(what, nil), true)
					if now, _ := m.cl.GroupMetadata(); now == id {
						t.Errorf("%s was paused past its session timeout and is still member %q", m.name, id)
					}
				}
			}
			for _, m := range ch.running(nil) {
				ch.leave(m)
			}
			t.Logf("stable generations %v", gens)
			ch.mu.Lock()
			defer ch.mu.Unlock()
			for _, gen := range slices.Sorted(maps.Keys(ch.claims)) {
				for p, owners := range ch.claims[gen] {
					if len(owners) > 1 {
						names := slices.Collect(maps.Keys(owners))
						sort.Strings(names)
						t.Errorf("generation %d: partition %d has owners %s", gen, p, strings.Join(names, ", "))
					}
				}
			}
			t.Logf("%d generations reported by the members' hooks", len(ch.claims))
		})
	}
}
