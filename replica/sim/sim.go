package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"syscall"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/wire"
)

// Config configures a simulation.
type Config struct {
	// Seed names the run: the cluster's shape, every step and every fault
	// come from it.
	Seed uint64
	// Steps is how many steps Run draws.
	Steps int
	// Brokers is the cluster size, 2 to 5; 0 draws it from the seed.
	Brokers int

	// The unsafe rules, each off by default. With one on, the simulator
	// must find a lost commit; its tests check that it does.

	// TruncateToHighWatermark makes followers use the pre-KIP-101 rule:
	// after a new leader epoch, cut the log to their own high watermark.
	TruncateToHighWatermark bool
	// UncleanLeaderElection lets the controller elect a replica outside the
	// ISR when no ISR member can lead (unclean.leader.election.enable).
	UncleanLeaderElection bool
	// DisableUncleanShutdownRule turns off KIP-966's rule that a broker
	// registering after an unclean shutdown leaves every ISR and ELR.
	DisableUncleanShutdownRule bool

	// The idempotent producer's unsafe rules, each off by default. With
	// one on, the simulator must find a record written twice or out of
	// order; its tests check that it does.

	// ProducerTrustsNotEnoughReplicas makes the idempotent producer take
	// NOT_ENOUGH_REPLICAS as proof that its batch was never written,
	// though an earlier attempt may have been: after a gap it renumbers
	// the batch, and writes it twice.
	ProducerTrustsNotEnoughReplicas bool
	// ProducerSkipsLeaderBarrier lets the idempotent producer send to a
	// new leader while batches are still in flight to the old one: a new
	// leader that never saw the producer takes a later batch first.
	ProducerSkipsLeaderBarrier bool

	// Groups adds the consumer group steps (the package documentation,
	// "Consumer groups"): the members of one group join, sync, heartbeat,
	// commit and fetch offsets, leave and pause past their session on the
	// coordinator the brokers host, among faults aimed at it, held to
	// CommittedOffsetKept and OnePartitionOwner.
	Groups bool

	// The group coordinator's unsafe rules, each off by default; either
	// turns Groups on. With one on, the simulator must find a committed
	// offset that goes back, or a partition with two owners in a
	// generation; its tests check that it does.

	// CommitBeforeReplicated answers an OffsetCommit once its write is in
	// the coordinator's log, before the high watermark passes it.
	CommitBeforeReplicated bool
	// LoadBeforeHighWatermark has a new coordinator serve what it loaded
	// before the high watermark reaches it: the last leader's
	// uncommitted tail with the rest.
	LoadBeforeHighWatermark bool

	// Swarm makes Run draw its steps as Search does (the package
	// documentation, "How it searches"): each seed keeps its own random
	// subset of the kinds of step, with its own weights, clock jumps and
	// fault shapes. Replay ignores it: its steps are given.
	Swarm bool

	// LossOnly stops a run only at a lost commit (AcknowledgedKept,
	// ConsumerVisibility or CommittedOffsetKept), not at the weaker
	// invariants that foretell one:
	// with an unsafe rule, a run then goes on to the loss itself.
	LossOnly bool

	// Prefix are steps Run executes before it draws any, as Replay would;
	// Steps counts them. With Branch non-zero, the steps drawn after them
	// come from a stream of their own, so that one prefix leads to many
	// runs: Search branches from a rare state this way.
	Prefix []Step
	// Branch, non-zero, seeds the stream the steps after Prefix are drawn
	// from (see Prefix); 0 draws them from the seed's own stream.
	Branch uint64
}

// LongPolls reports whether the run of seed has its followers fetch as the
// network runtime does — continuously, each fetch parked by the leader for
// up to 500 ms — rather than only on FetchRound steps. Half the seeds do;
// it is a function of the seed alone, so it draws nothing from the seed's
// stream of steps.
func LongPolls(seed uint64) bool {
	z := seed + 0x9e3779b97f4a7c15 // splitmix64's finalizer: neighbouring seeds differ
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return (z^z>>31)&1 == 1
}

// Result is what a simulation did.
type Result struct {
	// Seed and Brokers are the run's.
	Seed    uint64
	Brokers int // how many brokers the cluster had
	// Steps are the steps executed, in order; Replay runs them again.
	Steps []Step
	// Failure is nil when every invariant held after every step; otherwise
	// it says which invariant broke after which step.
	Failure error
	// Coverage counts what the run exercised.
	Coverage Coverage
}

// ErrInvariant is matched by every Result.Failure.
var ErrInvariant = errors.New("sim: invariant violated")

// topic is the partition every simulation replicates.
var topic = replica.TopicPartition{Topic: "sim", Partition: 0}

// startMs is the simulated clock's start.
const startMs = 1_700_000_000_000

// Run draws cfg.Steps steps from cfg.Seed and executes them, checking every
// invariant after each; it stops at the first violation.
func Run(cfg Config) Result {
	r, _ := run(cfg)
	return r
}

// run is Run, and the counts of events after each step.
func run(cfg Config) (Result, [][events]int) {
	s, err := newSim(cfg)
	if err != nil {
		return Result{Seed: cfg.Seed, Failure: err}, nil
	}
	s.trail = make([][events]int, 0, cfg.Steps)
	defer s.close()
	for _, st := range cfg.Prefix {
		if s.failure != nil || len(s.steps) >= cfg.Steps {
			break
		}
		s.do(st)
		// The values drawn next follow the prefix's.
		if st.Kind == Produce {
			s.produced++
			if st.Idempotent {
				s.idemSteps++
			}
		}
	}
	if cfg.Branch != 0 {
		s.rand = rand.New(rand.NewPCG(cfg.Seed^0x6a09e667f3bcc909, cfg.Branch*0x9e3779b97f4a7c15+3))
	}
	for len(s.steps) < cfg.Steps && s.failure == nil {
		s.do(s.draw())
	}
	return s.result(), s.trail
}

// Replay executes steps on the cluster cfg.Seed describes, checking every
// invariant after each, and stops at the first violation: the same steps
// and seed fail the same way every time.
func Replay(cfg Config, steps []Step) Result {
	s, err := newSim(cfg)
	if err != nil {
		return Result{Seed: cfg.Seed, Failure: err}
	}
	defer s.close()
	for _, st := range steps {
		if s.failure != nil {
			break
		}
		s.do(st)
	}
	return s.result()
}

// sim is one running simulation.
type sim struct {
	cfg       Config
	rand      *rand.Rand
	c         *replica.Cluster
	brokers   []int32
	minISR    int32
	steps     []Step
	pending   []pendingProduce
	failure   error
	cov       Coverage
	produced  int
	idemSteps int
	// elect99 counts the steps drawn at w = 99 outside unclean runs: they
	// alternate between a preferred election and a reassignment.
	elect99 int

	// acked holds every record whose acks=all produce was answered NONE,
	// by offset, with the brokers that held it then.
	acked map[uint64]*ackedRecord
	// consumed is what the simulated consumer read, by offset; consumeAt is
	// where it reads next.
	consumed  map[uint64]string
	consumeAt uint64
	// lostPower marks brokers whose last crash was a power cut, until their
	// restart has been accounted for.
	lostPower map[int32]bool
	// hw is the largest high watermark each leader showed at each epoch.
	hw map[leaderEpoch]uint64
	// epochs is the largest leader epoch each broker incarnation showed.
	epochs map[int32]int32
	// ctlEpoch is the largest leader epoch the controller showed.
	ctlEpoch int32
	// idem is the idempotent producer.
	idem idemProducer
	// swarm is the seed's mix of steps when cfg.Swarm; plan holds the
	// rest of a fault shape, healAtMs is when a short partition heals
	// (0: none pending).
	swarm    *swarmProfile
	plan     []Step
	healAtMs int64
	cut      bool // a link is cut
	// trail holds, for run, the counts of events after each step.
	trail [][events]int
	// groups are the consumer group's members (Config.Groups), or nil.
	groups *groupState
}

type leaderEpoch struct {
	broker int32
	epoch  int32
}

// ackedRecord is an acknowledged record and who held it.
type ackedRecord struct {
	value   string
	holders map[int32]bool
	excused bool
}

func newSim(cfg Config) (*sim, error) {
	r := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed*0x9e3779b97f4a7c15+1))
	n := 2 + r.IntN(4) // drawn either way, so a seed's later draws do not depend on Brokers
	if cfg.Brokers != 0 {
		n = cfg.Brokers
	}
	if n < 2 || n > 5 {
		return nil, fmt.Errorf("sim: %d brokers: want 2 to 5", n)
	}
	brokers := make([]int32, n)
	for i := range brokers {
		brokers[i] = int32(i + 1)
	}
	opts := replica.Options{LagMaxMs: 10_000}
	if cfg.TruncateToHighWatermark {
		opts.Truncation = replica.TruncateToHighWatermark
	} else if r.IntN(2) == 0 {
		opts.Truncation = replica.TruncateByLeaderEpoch
	}
	bcfg := replica.BrokerConfig{Replica: opts, RequestTimeoutMs: 3_000}
	groups := cfg.Groups || cfg.CommitBeforeReplicated || cfg.LoadBeforeHighWatermark
	if groups {
		groupsConfig(&bcfg, cfg)
	}
	longPoll := LongPolls(cfg.Seed)
	if longPoll {
		bcfg.ContinuousFetch, bcfg.ReplicaFetchWaitMs = true, 500
	}
	c, err := replica.OpenCluster(replica.ClusterConfig{
		Dir: "/sim", Brokers: brokers, StartMs: startMs, Seed: cfg.Seed, InMemory: true,
		Controller: controller.Config{SessionTimeoutMs: 6_000, DisableUncleanShutdownRule: cfg.DisableUncleanShutdownRule},
		Broker:     bcfg,
	})
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	rf := min(n, 3)
	minISR := int32(1 + r.IntN(rf))
	replicas := slices.Clone(brokers[:rf])
	r.Shuffle(len(replicas), func(i, j int) { replicas[i], replicas[j] = replicas[j], replicas[i] })
	if _, err := c.Call(replica.ControllerAt(), &wire.CreateTopicsRequest{CorrelationID: c.NextCorrelation(), Topics: []wire.CreatableTopic{{Name: topic.Topic, Partitions: 1, ReplicationFactor: int16(rf), Assignment: [][]int32{replicas}, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: strconv.Itoa(int(minISR))}, {Name: "unclean.leader.election.enable", Value: strconv.FormatBool(cfg.UncleanLeaderElection)}}}}}, 10_000); err != nil {
		c.Close()
		return nil, fmt.Errorf("sim: %w", err)
	}
	if err := c.AwaitBrokers(10_000); err != nil {
		c.Close()
		return nil, fmt.Errorf("sim: %w", err)
	}
	var cov Coverage
	if longPoll {
		cov.LongPollRuns++
	} else {
		cov.RoundRuns++
	}
	s := &sim{
		cfg: cfg, rand: r, c: c, brokers: brokers, minISR: minISR, cov: cov,
		acked: map[uint64]*ackedRecord{}, consumed: map[uint64]string{}, lostPower: map[int32]bool{},
		hw: map[leaderEpoch]uint64{}, epochs: map[int32]int32{}, ctlEpoch: -1,
	}
	if cfg.Swarm {
		// A branch tries another mix: the one that reached a state need
		// not be the one that makes the most of it.
		s.swarm = newSwarmProfile(cfg.Seed ^ cfg.Branch*0xd1b54a32d192ed03)
	}
	c.Watch(func(env replica.Envelope) {
		if m, ok := env.Msg.(*wire.AlterPartitionResponse); ok &&
			(m.ErrorCode == wire.CodeInvalidUpdateVersion || m.ErrorCode == wire.CodeFencedLeaderEpoch) {
			s.cov.StaleAlterPartitionAnswers++
		}
	})
	if groups {
		if err := s.openGroups(); err != nil {
			c.Close()
			return nil, err
		}
	}
	s.openProducer()
	return s, nil
}

func (s *sim) close() { s.c.Close() }

func (s *sim) result() Result {
	return Result{Seed: s.cfg.Seed, Brokers: len(s.brokers), Steps: s.steps, Failure: s.failure, Coverage: s.cov}
}

// draw picks the next step from the seed and the cluster's state.
func (s *sim) draw() Step {
	if s.groups != nil && len(s.plan) == 0 && s.rand.IntN(100) < groupShare {
		return s.drawGroup()
	}
	if s.swarm != nil {
		return s.drawSwarm()
	}
	r := s.rand
	pick := func() int32 { return s.brokers[r.IntN(len(s.brokers))] }
	node := func() replica.Addr {
		if r.IntN(len(s.brokers)+1) == 0 {
			return replica.ControllerAt()
		}
		return replica.BrokerAt(pick())
	}
	switch w := r.IntN(100); {
	case w < 30:
		s.produced++
		st := Step{Kind: Produce, Broker: -1, Acks: [3]int16{wire.AcksAll, wire.AcksAll, wire.AcksLeader}[r.IntN(3)], Value: fmt.Sprintf("v%d", s.produced)}
		if r.IntN(10) == 0 {
			st.Acks = wire.AcksNone
		}
		if r.IntN(15) == 0 {
			st.Broker = pick()
		}
		// Every third produce to the leader with acks=all is the
		// idempotent producer's (no draw: a seed's stream stays the same).
		// Its steps hand over 1 to 3 batches in turn.
		if st.Acks == wire.AcksAll && st.Broker < 0 && s.produced%3 == 0 {
			st.Idempotent, st.Value = true, fmt.Sprintf("%s%d", idempotentPrefix, s.produced)
			st.Batches = 1 + s.produced/3%3
			s.idemSteps++
			st.NewProducer = s.idemSteps%idemNewProducerEvery == 0
		}
		return st
	case w < 55:
		return Step{Kind: FetchRound}
	case w < 62:
		return Step{Kind: Consume}
	case w < 76:
		ms := [...]int64{1, 100, 500, 2_000, 6_500, 12_000}[r.IntN(6)]
		return Step{Kind: Advance, Ms: ms}
	case w < 81:
		mode := vfs.KeepUnsynced
		switch r.IntN(4) {
		case 0:
			mode = vfs.LoseUnsynced
		case 1:
			mode = vfs.TornUnsynced
		}
		return Step{Kind: Crash, Broker: pick(), Mode: mode}
	case w < 88:
		return Step{Kind: Restart, Broker: pick()}
	case w < 89:
		return Step{Kind: RestartController}
	case w < 92:
		a, b := node(), node()
		return Step{Kind: Cut, Node: a, Other: b}
	case w < 95:
		return Step{Kind: Heal}
	case w < 97:
		var f replica.LinkFaults
		if r.IntN(2) == 0 {
			f = replica.LinkFaults{DropRate: r.Float64() / 5, DuplicateRate: r.Float64() / 5, MaxDelayMs: int64(r.IntN(300))}
		}
		return Step{Kind: Faults, Faults: f}
	case w < 98:
		return Step{Kind: DiskFault, Broker: pick(), Op: [...]vfs.Op{vfs.OpWrite, vfs.OpSync, vfs.OpTruncate}[r.IntN(3)]}
	default:
		// w is 98 or 99: 99 asks for a preferred election, drawing nothing
		// more, so that every seed's steps stay what they were.
		unclean := s.cfg.UncleanLeaderElection && r.IntN(2) == 0
		if !unclean && w == 99 {
			s.elect99++
			if s.elect99%2 == 0 {
				return Step{Kind: Reassign}
			}
		}
		return Step{Kind: Elect, Unclean: unclean, Preferred: !unclean && w == 99}
	}
}

// alterPartitionFaults draws an AlterPartitionFaults step's faults (only
// swarm seeds take such steps, so that the fixed mix's seeds keep their
// runs): a
// third of the time none (the links' own again), else losses, copies and
// delays up to 4 s, past the broker's 3 s request timeout, so that some
// answers come after the leader resent its request or moved on.
func alterPartitionFaults(r *rand.Rand) replica.LinkFaults {
	if r.IntN(3) == 0 {
		return replica.LinkFaults{}
	}
	return replica.LinkFaults{DropRate: r.Float64() / 2, DuplicateRate: r.Float64() / 2, MaxDelayMs: r.Int64N(4_001)}
}

// do executes one step, delivers everything it caused that is due now,
// and checks every invariant.
func (s *sim) do(st Step) {
	s.steps = append(s.steps, st)
	s.cov.Steps[st.Kind]++
	c := s.c
	switch st.Kind {
	case Produce:
		if st.Idempotent {
			s.produceIdempotent(st)
		} else {
			s.produce(st)
		}
	case FetchRound:
		c.FetchRound()
	case Consume:
		s.consume()
	case Advance:
		if s.groups != nil {
			s.advanceWithMembers(st, st.Ms)
		} else {
			c.Advance(st.Ms)
		}
	case Join, Heartbeat, Commit, FetchOffsets, Leave, Pause:
		s.member(st)
	case Crash:
		if b := c.Broker(st.Broker); b != nil {
			if c.LeaderOf(topic) == st.Broker {
				s.cov.LeaderCrashes++
			}
			if err := c.CrashBroker(st.Broker, st.Mode); err == nil && st.Mode != vfs.KeepUnsynced {
				s.lostPower[st.Broker] = true
				s.cov.PowerCuts++
			}
		}
	case Restart:
		s.restart(st.Broker)
	case RestartController:
		if err := c.RestartController(); err != nil {
			s.fail(st, Operable, "the controller did not reopen from its log: %v", err)
		}
	case Cut:
		if st.Node != st.Other {
			c.Network().Cut(st.Node, st.Other)
			s.cut = true
		}
	case Heal:
		c.Network().Heal()
		s.cut = false
	case Faults:
		c.Network().SetDefaultFaults(st.Faults)
	case DiskFault:
		if f := c.DiskFaults(st.Broker); f != nil && c.Broker(st.Broker) != nil {
			f.FailNth(st.Op, f.Calls(st.Op)+1, syscall.EIO)
			s.cov.DiskFaults++
		}
	case Elect:
		if st.Offsets {
			s.electOffsets(st)
		} else {
			s.elect(st)
		}
	case Reassign:
		s.reassign()
	case AlterPartitionFaults:
		if st.Faults == (replica.LinkFaults{}) {
			c.Network().ClearAPIFaults(wire.APIAlterPartition)
		} else {
			c.Network().SetAPIFaults(wire.APIAlterPartition, st.Faults)
		}
	}
	// A halted broker (its log failed) is down until restarted.
	for _, id := range s.brokers {
		if b := c.Broker(id); b != nil && b.Halted() != nil {
			s.cov.Halts++
			c.CrashBroker(id, vfs.KeepUnsynced)
		}
	}
	c.Run()
	s.collect(st)
	s.collectGroups(st)
	s.check(st)
	if s.trail != nil {
		s.trail = append(s.trail, s.cov.events())
	}
}

func (s *sim) produce(st Step) {
	c := s.c
	to := st.Broker
	if to < 0 {
		to = c.LeaderOf(topic)
	}
	if to < 0 || c.Broker(to) == nil {
		return
	}
	call, err := c.SendProduceTo(to, topic, st.Acks, 2_000, []byte(st.Value))
	if err != nil {
		s.fail(st, Operable, "produce: %v", err)
		return
	}
	// Give the produce a chance: fetch rounds at this instant while they
	// move anything, as a busy cluster would.
	for range 4 {
		if call.Done() {
			break
		}
		c.FetchRound()
	}
	s.pending = append(s.pending, pendingProduce{call: call, acks: st.Acks, value: st.Value})
}

// pendingProduce is a produce whose answer has not been read.
type pendingProduce struct {
	call  *replica.ProduceCall
	acks  int16
	value string
}

// collect reads the answers that arrived and records acknowledged
// writes.
func (s *sim) collect(st Step) {
	kept := s.pending[:0]
	for _, p := range s.pending {
		resp, done, err := p.call.Result()
		if !done {
			kept = append(kept, p)
			continue
		}
		if err != nil || p.acks != wire.AcksAll {
			if err == nil {
				s.cov.AckedLeader++
			}
			continue
		}
		s.acknowledge(st, resp.BaseOffset, p.value)
	}
	clear(s.pending[len(kept):])
	s.pending = kept
	s.runProducer(st)
}

// acknowledge records values as acknowledged (acks=all, answered NONE)
// at base, base+1, ..., with the brokers that hold each now.
func (s *sim) acknowledge(st Step, base uint64, values ...string) {
	s.cov.Acked++
	recs := make([]*ackedRecord, len(values))
	for i, v := range values {
		recs[i] = &ackedRecord{value: v, holders: map[int32]bool{}}
	}
	for _, id := range s.brokers {
		vals, ok := s.logOf(id)
		if !ok {
			continue
		}
		for i, rec := range recs {
			if off := base + uint64(i); off < uint64(len(vals.values)) && vals.at(off) == rec.value {
				rec.holders[id] = true
			}
		}
	}
	for i, rec := range recs {
		off := base + uint64(i)
		if prev, ok := s.acked[off]; ok && prev.value != rec.value && !prev.excused {
			s.fail(st, Operable, "offset %d acknowledged twice: %q, then %q", off, prev.value, rec.value)
		}
		s.acked[off] = rec
	}
}

func (s *sim) consume() {
	c := s.c
	l := c.LeaderOf(topic)
	r, ok := c.Replica(l, topic)
	if !ok || r.Role() != replica.RoleLeader {
		return
	}
	hw := r.HighWatermark()
	got, err := c.Consume(topic, s.consumeAt, 64<<10)
	if err != nil {
		return // refused (moved, fenced, out of range): the consumer tries later
	}
	s.cov.Consumed += len(got)
	for _, rec := range got {
		if rec.Offset >= hw && !s.served(l, rec.Offset) {
			s.fail(Step{Kind: Consume}, ConsumerVisibility, "a consumer read offset %d from leader %d, whose high watermark was %d", rec.Offset, l, hw)
		}
		s.consumed[rec.Offset] = string(rec.Value)
		s.consumeAt = rec.Offset + 1
	}
}

// served reports whether leader l's high watermark has passed offset by the
// time the read returned (the read runs at the leader after hw was taken).
func (s *sim) served(l int32, offset uint64) bool {
	r, ok := s.c.Replica(l, topic)
	return ok && offset < r.HighWatermark()
}

func (s *sim) restart(id int32) {
	c := s.c
	if c.Broker(id) != nil {
		return
	}
	if f := c.DiskFaults(id); f != nil {
		f.Heal()
	}
	if err := c.StartBroker(id); err != nil {
		s.fail(Step{Kind: Restart, Broker: id}, Operable, "broker %d did not start: %v", id, err)
		return
	}
	if s.lostPower[id] {
		// A power cut may have taken records this broker held; a record
		// every holder lost this way is excused.
		delete(s.lostPower, id)
		s.groupPowerCut(id)
		vals, _ := s.logOf(id)
		for off, rec := range s.acked {
			if rec.holders[id] && (off >= uint64(len(vals.values)) || vals.at(off) != rec.value) {
				delete(rec.holders, id)
				if len(rec.holders) == 0 && !rec.excused {
					rec.excused = true
					s.cov.Excused++
				}
			}
		}
	}
	delete(s.epochs, id)
}

func (s *sim) elect(st Step) {
	resp, err := s.c.Call(replica.ControllerAt(), &wire.ElectLeadersRequest{
		CorrelationID: s.c.NextCorrelation(), Topic: topic.Topic, Partition: topic.Partition, Unclean: st.Unclean, Preferred: st.Preferred,
	}, 1_000)
	if err == nil && resp.(*wire.ElectLeadersResponse).DataMayBeLost {
		s.cov.UncleanElections++
	}
}

// reassign sends the Reassign step's request, its target worked out from
// the controller's image (no draw: a seed's stream stays the same).
func (s *sim) reassign() {
	p, ok := s.c.Controller().Image().Partition(topic.Topic, topic.Partition)
	if !ok || len(s.brokers) < 2 {
		return
	}
	req := &wire.AlterPartitionReassignmentsRequest{CorrelationID: s.c.NextCorrelation(), Topic: topic.Topic, Partition: topic.Partition}
	var outside []int32
	for _, id := range s.brokers {
		if !slices.Contains(p.Replicas, id) {
			outside = append(outside, id)
		}
	}
	switch rf := min(len(s.brokers), 3); {
	case p.Reassigning():
		req.Cancel = true
	case len(p.Replicas) < rf:
		req.Replicas = append(slices.Clone(p.Replicas), outside[0])
	case len(outside) > 0:
		req.Replicas = append(slices.Clone(p.Replicas[1:]), outside[0]) // the preferred replica leaves
	default:
		req.Replicas = slices.Clone(p.Replicas[:len(p.Replicas)-1])
	}
	if _, err := s.c.Call(replica.ControllerAt(), req, 1_000); err == nil {
		s.cov.Reassignments++
	}
}

// fail records the first violation.
func (s *sim) fail(st Step, inv Invariant, format string, args ...any) {
	if s.cfg.LossOnly && inv != AcknowledgedKept && inv != ConsumerVisibility && inv != CommittedOffsetKept && inv != Operable {
		s.cov.Foretold++
		return
	}
	if s.failure == nil {
		s.failure = &Violation{Invariant: inv, Step: len(s.steps), At: st, Detail: fmt.Sprintf(format, args...)}
	}
}

// Violation is a Result's failure: which invariant broke, after which
// step. It matches ErrInvariant.
type Violation struct {
	Invariant Invariant // the invariant that broke
	Step      int       // the number of steps executed, the last one included
	At        Step      // the last step executed
	Detail    string    // what the check saw
}

// Error describes the violation on one line.
func (v *Violation) Error() string {
	return fmt.Sprintf("sim: %v violated after step %d (%v): %s", v.Invariant, v.Step, v.At, v.Detail)
}

// Is reports true for ErrInvariant.
func (v *Violation) Is(target error) bool { return target == ErrInvariant }

// Lost reports whether the violation is a committed record gone: an
// acknowledged record or one a consumer read, missing from a leader, or a
// group's committed offset gone back.
func (v *Violation) Lost() bool {
	return v.Invariant == AcknowledgedKept || v.Invariant == ConsumerVisibility || v.Invariant == CommittedOffsetKept
}

// logView is a replica's records as the checks see them.
type logView struct {
	start  uint64
	values []string // by offset; "" below start or for a gap
	epochs []int32  // the batch epoch of each offset
	hw     uint64
	leo    uint64
}

func (v logView) at(off uint64) string {
	if off < v.start || off >= uint64(len(v.values)) {
		return "(missing)"
	}
	return v.values[off]
}

// logOf reads broker id's replica, if the broker is running.
func (s *sim) logOf(id int32) (logView, bool) {
	r, ok := s.c.Replica(id, topic)
	if !ok {
		return logView{}, false
	}
	l := r.Log()
	buf, err := l.Read(nil, l.StartOffset(), 1<<30, log.IsolationLogEnd)
	if err != nil {
		return logView{}, false
	}
	v := logView{start: l.StartOffset(), hw: l.HighWatermark(), leo: l.EndOffset(), values: make([]string, l.EndOffset()), epochs: make([]int32, l.EndOffset())}
	var sc log.BatchScanner
	sc.Reset(buf)
	var b log.Batch
	for sc.Next() {
		h := sc.Header()
		for off := h.BaseOffset; off <= h.LastOffset() && off < uint64(len(v.epochs)); off++ {
			v.epochs[off] = h.PartitionLeaderEpoch
		}
		if h.RecordCount == 0 {
			continue
		}
		if _, err := b.Decode(sc.Bytes()); err != nil {
			return logView{}, false
		}
		for _, rec := range b.Records {
			if off := b.BaseOffset + uint64(rec.OffsetDelta); off < uint64(len(v.values)) {
				v.values[off] = string(rec.Value)
			}
		}
	}
	if sc.Err() != nil {
		return logView{}, false
	}
	return v, true
}
