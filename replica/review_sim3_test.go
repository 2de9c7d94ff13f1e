package replica_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// sim3 is a seeded random walk over three replicas driven through the
// Replica API, with the test playing the controller: it holds the ISR
// across elections (the new leader gets the old leader's ISR), elects only
// ISR members, tells every replica of a new epoch at once, and restarts a
// leader into leadership at the same epoch with the same ISR. Unlike the
// Cluster, a deposed or restarted replica rejoins either by fetching alone
// (KIP-320's truncation on fetch) or by TruncateByLeaderEpoch, so the walk
// reaches the diverging-epoch paths too.
type sim3 struct {
	*brokers
	seed   uint64
	rng    *rand.Rand
	leader int32
	epoch  int32
	minISR int
	// maxFetch is each replica's MaxFetchBytes (0: the default).
	maxFetch int32
	nowMs    int64
	trace    []string
}

func newSim3(t *testing.T, seed uint64) *sim3 {
	rng := rand.New(rand.NewPCG(seed, 0x33))
	// Half the walks fetch a batch or two at a time, so followers lag in
	// more ways than "one round behind".
	var opts replica.Options
	if rng.IntN(2) == 0 {
		opts.MaxFetchBytes = 90
	}
	s := &sim3{brokers: newBrokersWith(t, opts, 1, 2, 3), seed: seed, rng: rng, leader: 1, nowMs: now}
	s.maxFetch = opts.MaxFetchBytes
	s.minISR = 1 + s.rng.IntN(2)
	s.lead(1, 0, []int32{2, 3}, s.minISR, now)
	s.follow(2, 1, 0)
	s.follow(3, 1, 0)
	return s
}

func (s *sim3) followers() []int32 {
	var out []int32
	for id := int32(1); id <= 3; id++ {
		if id != s.leader {
			out = append(out, id)
		}
	}
	return out
}

func (s *sim3) failure(format string, args ...any) string {
	tail := s.trace[max(0, len(s.trace)-14):]
	return fmt.Sprintf("seed %d, min ISR %d, max fetch bytes %d, after %d steps: %s\nlast steps:\n  %s",
		s.seed, s.minISR, s.maxFetch, len(s.trace), fmt.Sprintf(format, args...), strings.Join(tail, "\n  "))
}

// elect makes id leader at the next epoch with ISR isrMembers (ids other than
// id that the controller still counts in sync), and everyone else its
// follower.
func (s *sim3) elect(id int32, isrMembers []int32) error {
	s.epoch++
	var others []int32
	for x := int32(1); x <= 3; x++ {
		if x != id {
			others = append(others, x)
		}
	}
	if err := s.r[id].BecomeLeader(s.epoch, others, s.minISR, s.nowMs); err != nil {
		return err
	}
	for _, x := range others {
		if !slices.Contains(isrMembers, x) {
			if _, err := s.r[id].ISR().RemoveLostSession(x); err != nil {
				return err
			}
		}
		if err := s.r[x].BecomeFollower(id, s.epoch); err != nil {
			return err
		}
	}
	s.leader = id
	return nil
}

func (s *sim3) step() error {
	l := s.r[s.leader]
	fs := s.followers()
	f := fs[s.rng.IntN(len(fs))]
	var what string
	var err error
	switch k := s.rng.IntN(100); {
	case k < 25:
		var vs []string
		if s.rng.IntN(3) == 0 {
			vs = s.produceBatch(s.leader, 2+s.rng.IntN(3))
		} else {
			vs = s.produce(s.leader, 1+s.rng.IntN(2))
		}
		what = fmt.Sprintf("produce %v on %d: LEO %d HW %d", vs, s.leader, l.LEO(), l.HighWatermark())
	case k < 58:
		_, shipped, ferr := s.fetch(f, s.leader, s.nowMs)
		what = fmt.Sprintf("%d fetches from %d: shipped %d → %v; follower %d/%d leader %d/%d", f, s.leader, shipped, ferr,
			s.r[f].LEO(), s.r[f].HighWatermark(), l.LEO(), l.HighWatermark())
		// A follower whose last epoch the leader cannot place is told
		// OFFSET_OUT_OF_RANGE and recovers by asking.
		if errors.Is(ferr, wire.ErrOffsetOutOfRange) {
			_, ferr = s.r[f].TruncateByLeaderEpoch(s.link[f].FollowerEnd(), s.nextCorr, func() error {
				return l.ServeOne(s.link[f].LeaderEnd(), s.nowMs)
			})
			what += fmt.Sprintf("; truncated by epoch → %v, LEO %d", ferr, s.r[f].LEO())
		}
		err = ferr
	case k < 64:
		// The leader handles f's request; f dies before the answer and
		// comes back from disk.
		_, _, ferr := s.r[f].Fetch(s.link[f].FollowerEnd(), s.nextCorr(), func() error {
			if err := l.ServeOne(s.link[f].LeaderEnd(), s.nowMs); err != nil {
				return err
			}
			_, toFollower := s.link[f].Pending()
			_, err := s.link[f].FollowerEnd().Read(make([]byte, toFollower))
			if err != nil {
				return err
			}
			return errFollowerCrashed
		})
		if !errors.Is(ferr, errFollowerCrashed) && !errors.Is(ferr, wire.ErrOffsetOutOfRange) {
			err = ferr
			break
		}
		err = s.r[f].Restart()
		what = fmt.Sprintf("%d crashed mid-fetch (leader HW %d), restarted at LEO %d HW %d", f, l.HighWatermark(), s.r[f].LEO(), s.r[f].HighWatermark())
	case k < 70:
		before := s.r[f].LEO()
		if err = s.r[f].Restart(); err != nil {
			break
		}
		_, err = s.r[f].TruncateByLeaderEpoch(s.link[f].FollowerEnd(), s.nextCorr, func() error {
			return l.ServeOne(s.link[f].LeaderEnd(), s.nowMs)
		})
		what = fmt.Sprintf("%d restarted and truncated by epoch: LEO %d → %d", f, before, s.r[f].LEO())
	case k < 78:
		adv := []int64{0, 1000, simLagMs + 1}[s.rng.IntN(3)]
		s.nowMs += adv
		var changed bool
		changed, err = l.ShrinkISR(s.nowMs)
		what = fmt.Sprintf("time +%d, %d shrinks → %v, ISR %v", adv, s.leader, changed, l.ISR().ISR())
	case k < 84:
		rerr := l.Readmit(f)
		what = fmt.Sprintf("readmit %d → %v", f, rerr)
		if rerr != nil && !errors.Is(rerr, isr.ErrNotCaughtUp) {
			err = rerr
		}
	case k < 94:
		// The leader fails; the controller elects an ISR member, or no one.
		var candidates []int32
		for _, x := range fs {
			if l.ISR().InISR(x) {
				candidates = append(candidates, x)
			}
		}
		if len(candidates) == 0 {
			what = fmt.Sprintf("leader %d fails over: no ISR member to elect, %d stays", s.leader, s.leader)
			break
		}
		old := s.leader
		next := candidates[s.rng.IntN(len(candidates))]
		members := slices.DeleteFunc(l.ISR().ISR(), func(x int32) bool { return x == next })
		if err = s.r[old].Restart(); err != nil {
			break
		}
		if err = s.elect(next, members); err != nil {
			break
		}
		what = fmt.Sprintf("leader %d failed; %d leads epoch %d with ISR %v", old, next, s.epoch, s.r[next].ISR().ISR())
		if s.rng.IntN(2) == 0 {
			_, err = s.r[old].TruncateByLeaderEpoch(s.link[old].FollowerEnd(), s.nextCorr, func() error {
				return s.r[next].ServeOne(s.link[old].LeaderEnd(), s.nowMs)
			})
			what += fmt.Sprintf("; %d truncated by epoch to %d", old, s.r[old].LEO())
		} else {
			what += fmt.Sprintf("; %d will rejoin by fetching", old)
		}
	default:
		// The leader's process restarts and is made leader again, same
		// epoch, same ISR.
		members := slices.DeleteFunc(l.ISR().ISR(), func(x int32) bool { return x == s.leader })
		if err = l.Restart(); err != nil {
			break
		}
		if err = l.BecomeLeader(s.epoch, fs, s.minISR, s.nowMs); err != nil {
			break
		}
		for _, x := range fs {
			if !slices.Contains(members, x) {
				if _, err = l.ISR().RemoveLostSession(x); err != nil {
					break
				}
			}
		}
		what = fmt.Sprintf("leader %d restarted, leads epoch %d again with ISR %v", s.leader, s.epoch, l.ISR().ISR())
	}
	s.trace = append(s.trace, what)
	if err != nil {
		return err
	}
	if err := books(s.t, s.r, s.lastHW, s.committed, s.leader); err != nil {
		return err
	}
	for _, x := range s.followers() {
		if err := agreement(s.t, s.r[x], s.r[s.leader]); err != nil {
			return err
		}
	}
	return nil
}

// agreement is agreesBelowHW as an error.
func agreement(t *testing.T, f, leader *replica.Replica) error {
	lead := map[uint64]string{}
	for _, rec := range records(t, leader) {
		lead[rec.offset] = rec.value
	}
	for _, rec := range records(t, f) {
		if rec.offset < f.HighWatermark() && lead[rec.offset] != rec.value {
			return fmt.Errorf("broker %d's HW %d covers %q at offset %d, but leader %d holds %q there",
				f.ID(), f.HighWatermark(), rec.value, rec.offset, leader.ID(), lead[rec.offset])
		}
	}
	return nil
}

// Three replicas, fetch-only rejoins, lost responses, restarts in every
// role: nothing committed is lost, no HW moves backwards or passes its log
// end, no follower's HW covers a record the leader does not hold, and every
// follower converges to the leader's log.
func TestReviewSimulationThreeReplicas(t *testing.T) {
	const seeds = 12
	committing := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		s := newSim3(t, seed)
		for range simSteps {
			if err := s.step(); err != nil {
				t.Fatal(s.failure("%v", err))
			}
		}
		// Fetch until every follower has the leader's log and HW (a
		// bounded number of rounds: a stuck follower fails the test).
		for round := 0; ; round++ {
			caughtUp := true
			for _, f := range s.followers() {
				if _, _, err := s.fetch(f, s.leader, s.nowMs); err != nil {
					t.Fatal(s.failure("converging %d: %v", f, err))
				}
				l := s.r[s.leader]
				caughtUp = caughtUp && s.r[f].LEO() == l.LEO() && s.r[f].HighWatermark() >= min(l.HighWatermark(), s.r[f].LEO())
			}
			if caughtUp || round == 200 {
				break
			}
		}
		for _, f := range s.followers() {
			if lr, fr := records(t, s.r[s.leader]), records(t, s.r[f]); !slices.Equal(lr, fr) {
				t.Fatal(s.failure("broker %d did not converge:\n leader %v\n %d     %v", f, lr, f, fr))
			}
		}
		if err := books(t, s.r, s.lastHW, s.committed, s.leader); err != nil {
			t.Fatal(s.failure("%v", err))
		}
		if len(s.committed) > 0 {
			committing++
		}
	}
	if committing < seeds/2 {
		t.Fatalf("only %d of %d walks committed anything; the walk tests too little", committing, seeds)
	}
}
