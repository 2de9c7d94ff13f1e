package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/wire"
)

// Swarm testing (Groce et al., ISSTA 2012): one fixed mix of steps spreads
// every run over every kind of fault, and the shapes a bug needs — a
// leader cut off with batches parked on it, a long quiet while the ISR
// shrinks and requests time out — are drowned by the steps that undo
// them (a restart, a heal, a fetch round). A swarm gives each seed its
// own mix: a random half of the kinds of step and of the fault shapes
// (moves), each with its own weight, so some seeds do little but
// partition and wait, others little but crash.
// The package documentation ("How it searches") tells the strategy.

// move is what a swarm draws: one kind of step, or a fault shape that
// expands into several.
type move uint8

const (
	movePlainProduce move = iota
	moveIdempotentProduce
	moveFetchRound
	moveConsume
	moveAdvance
	moveCrash
	moveRestart
	moveRestartController
	moveCut
	moveHeal
	moveFaults
	moveDiskFault
	moveElect
	// moveIsolate cuts one broker, mostly the leader, from every other
	// broker and, in some seeds, from the controller: Cut steps in a row.
	// The producer's link stays, so its batches park on the isolated
	// leader. In some seeds the partition heals after a random time.
	moveIsolate
	// moveDeadline advances the clock to a deadline — a broker's session
	// at the controller, a request's timeout, a batch's delivery timeout,
	// the end of a backoff — mostly the next one, so that the steps after
	// it fall in the short windows between two deadlines, where fixed
	// jumps land by chance.
	moveDeadline
	// moveAlterPartitionFaults sets or clears the faults of AlterPartition
	// requests and answers alone (an AlterPartitionFaults step).
	moveAlterPartitionFaults
	moves
)

// swarmProfile is one seed's mix of steps.
type swarmProfile struct {
	weights [moves]int
	total   int
	// advances are the clock jumps the seed takes.
	advances []int64
	// maxBatches bounds the batches of an idempotent produce (1 to 3);
	// newProducerOneIn makes one idempotent produce in so many start a new
	// producer (0: never).
	maxBatches, newProducerOneIn int
	// isolateController is the chance, in 4, that an isolation cuts the
	// controller off too; isolateThenProduce the chance, in 4, that the
	// idempotent producer hands over batches right after, to park them on
	// the isolated leader.
	isolateController, isolateThenProduce int
	// inFlightBias is the chance, in 4, that while the idempotent producer
	// has requests in flight the next step is one that acts on them: time
	// passing, more batches, or the leader they wait on cut off from the
	// controller, which then elects another.
	inFlightBias int
	// partitionMs bounds how long an isolation lasts before a Heal, in
	// simulated time (0: until a drawn Heal step): each lasts from 0 to
	// that, so that some heal between two timeouts of the producer.
	partitionMs int64
}

// advanceMs are the clock jumps a swarm chooses from: a tick, a backoff, a
// long poll, a produce's timeout, past the session (6 s) and past the lag
// bound (10 s) and the producer's request timeout (11 s).
var advanceMs = [...]int64{1, 100, 500, 2_000, 6_500, 12_000}

// partitionMs bound how long an isolation may last: past the session
// (6 s), the lag bound (10 s) and the producer's request timeout (11 s),
// the producer's delivery timeout (30 s), or until a Heal step.
var partitionMs = [...]int64{8_000, 15_000, 45_000, 0}

// newSwarmProfile draws seed's mix from a stream of its own, so that the
// steps' stream starts where the default one does and Replay, which draws
// nothing, is the same with or without Swarm.
func newSwarmProfile(seed uint64) *swarmProfile {
	r := rand.New(rand.NewPCG(seed^0x5bd1e9955bd1e995, seed+0x2545f4914f6cdd1d))
	p := &swarmProfile{}
	for m := range moveAlterPartitionFaults {
		if r.IntN(2) == 0 {
			p.weights[m] = 1 << r.IntN(7) // 1 to 64: some kinds dominate
		}
	}
	// A run that never produces, or never lets time pass, checks little.
	if p.weights[movePlainProduce] == 0 && p.weights[moveIdempotentProduce] == 0 {
		p.weights[movePlainProduce+move(r.IntN(2))] = 1 + r.IntN(10)
	}
	if p.weights[moveAdvance] == 0 {
		p.weights[moveAdvance] = 1 + r.IntN(10)
	}
	for _, w := range p.weights {
		p.total += w
	}
	for _, ms := range advanceMs {
		if r.IntN(2) == 0 {
			p.advances = append(p.advances, ms)
		}
	}
	if len(p.advances) == 0 {
		p.advances = append(p.advances, advanceMs[r.IntN(len(advanceMs))])
	}
	p.maxBatches = 1 + r.IntN(3)
	p.newProducerOneIn = [...]int{0, 4, 8, 32}[r.IntN(4)]
	p.isolateController = r.IntN(5)
	p.isolateThenProduce = r.IntN(5)
	p.inFlightBias = r.IntN(4)
	p.partitionMs = partitionMs[r.IntN(len(partitionMs))]
	// Drawn last, so that every earlier draw is the one the seed made
	// before the move existed.
	if r.IntN(2) == 0 {
		p.weights[moveAlterPartitionFaults] = 1 << r.IntN(7)
		p.total += p.weights[moveAlterPartitionFaults]
	}
	return p
}

// drawSwarm picks the next step from the seed's mix.
func (s *sim) drawSwarm() Step {
	if len(s.plan) > 0 {
		st := s.plan[0]
		s.plan = s.plan[1:]
		return st
	}
	if s.healAtMs > 0 && s.c.NowMs() >= s.healAtMs {
		s.healAtMs = 0
		return Step{Kind: Heal}
	}
	r, p := s.rand, s.swarm
	pick := func() int32 { return s.brokers[r.IntN(len(s.brokers))] }
	w := r.IntN(p.total)
	m := move(0)
	for ; w >= p.weights[m]; m++ {
		w -= p.weights[m]
	}
	if in := s.idem.inflight; len(in) > 0 && r.IntN(4) < p.inFlightBias {
		switch r.IntN(4) {
		case 0:
			m = moveAdvance
		case 1:
			m = moveDeadline
		case 2:
			m = moveIdempotentProduce
		default:
			return Step{Kind: Cut, Node: replica.BrokerAt(in[0].to), Other: replica.ControllerAt()}
		}
	}
	switch m {
	case movePlainProduce:
		s.produced++
		st := Step{Kind: Produce, Broker: -1, Acks: [...]int16{wire.AcksAll, wire.AcksLeader, wire.AcksNone}[r.IntN(3)], Value: fmt.Sprintf("v%d", s.produced)}
		if r.IntN(15) == 0 {
			st.Broker = pick()
		}
		return st
	case moveIdempotentProduce:
		s.produced++
		st := Step{Kind: Produce, Broker: -1, Acks: wire.AcksAll, Idempotent: true,
			Value: fmt.Sprintf("%s%d", idempotentPrefix, s.produced), Batches: 1 + r.IntN(p.maxBatches)}
		if p.maxBatches > 1 && r.IntN(2) == 0 {
			st.Batches = p.maxBatches
		}
		st.NewProducer = p.newProducerOneIn > 0 && r.IntN(p.newProducerOneIn) == 0
		return st
	case moveFetchRound:
		return Step{Kind: FetchRound}
	case moveConsume:
		return Step{Kind: Consume}
	case moveAdvance:
		return Step{Kind: Advance, Ms: p.advances[r.IntN(len(p.advances))]}
	case moveCrash:
		mode := [...]vfs.CrashMode{vfs.KeepUnsynced, vfs.KeepUnsynced, vfs.LoseUnsynced, vfs.TornUnsynced}[r.IntN(4)]
		return Step{Kind: Crash, Broker: pick(), Mode: mode}
	case moveRestart:
		return Step{Kind: Restart, Broker: pick()}
	case moveRestartController:
		return Step{Kind: RestartController}
	case moveCut:
		node := func() replica.Addr {
			if r.IntN(len(s.brokers)+1) == 0 {
				return replica.ControllerAt()
			}
			return replica.BrokerAt(pick())
		}
		return Step{Kind: Cut, Node: node(), Other: node()}
	case moveHeal:
		return Step{Kind: Heal}
	case moveFaults:
		var f replica.LinkFaults
		if r.IntN(2) == 0 {
			f = replica.LinkFaults{DropRate: r.Float64() / 5, DuplicateRate: r.Float64() / 5, MaxDelayMs: int64(r.IntN(300))}
		}
		return Step{Kind: Faults, Faults: f}
	case moveDiskFault:
		return Step{Kind: DiskFault, Broker: pick(), Op: [...]vfs.Op{vfs.OpWrite, vfs.OpSync, vfs.OpTruncate}[r.IntN(3)]}
	case moveElect:
		return Step{Kind: Elect, Unclean: s.cfg.UncleanLeaderElection && r.IntN(2) == 0}
	case moveAlterPartitionFaults:
		return Step{Kind: AlterPartitionFaults, Faults: alterPartitionFaults(r)}
	case moveDeadline:
		now := s.c.NowMs()
		ds := s.idem.deadlines(nil, now)
		if d := s.c.Controller().NextTickMs(); d > now && d < controller.Never {
			ds = append(ds, d)
		}
		if len(ds) == 0 {
			return Step{Kind: Advance, Ms: p.advances[r.IntN(len(p.advances))]}
		}
		slices.Sort(ds)
		d := ds[0]
		if r.IntN(2) == 0 {
			d = ds[r.IntN(len(ds))]
		}
		if s.cut && r.IntN(2) == 0 {
			// A partition that ends just after a timeout: the cluster
			// recovers in the window before the next one.
			s.plan = append(s.plan, Step{Kind: Heal}, Step{Kind: FetchRound})
		}
		return Step{Kind: Advance, Ms: d - now}
	case moveIsolate:
		target := s.c.LeaderOf(topic)
		if target < 0 || r.IntN(4) == 0 {
			target = pick()
		}
		at := replica.BrokerAt(target)
		for _, id := range s.brokers {
			if id != target {
				s.plan = append(s.plan, Step{Kind: Cut, Node: at, Other: replica.BrokerAt(id)})
			}
		}
		if r.IntN(4) < p.isolateController {
			s.plan = append(s.plan, Step{Kind: Cut, Node: at, Other: replica.ControllerAt()})
		}
		if r.IntN(4) < p.isolateThenProduce {
			s.produced++
			s.plan = append(s.plan, Step{Kind: Produce, Broker: -1, Acks: wire.AcksAll, Idempotent: true,
				Value: fmt.Sprintf("%s%d", idempotentPrefix, s.produced), Batches: 1 + r.IntN(p.maxBatches)})
		}
		if p.partitionMs > 0 {
			s.healAtMs = s.c.NowMs() + 1 + r.Int64N(p.partitionMs)
		}
		st := s.plan[0]
		s.plan = s.plan[1:]
		return st
	}
	panic(fmt.Sprintf("sim: drew move %d of %d", m, moves)) // the weights cover moves only
}
