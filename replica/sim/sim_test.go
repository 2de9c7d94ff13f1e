package sim_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/sim"
)

var (
	steps = flag.Int("sim.steps", 100_000, "total steps TestDefaultRulesLoseNothing runs (a long run: 10000000)")
	seed0 = flag.Uint64("sim.seed", 1, "the first seed")
)

// stepsPerRun is how long one seed runs: logs stay short enough that every
// invariant can be checked over whole logs after every step.
const stepsPerRun = 500

// With the protocol's rules as they are, no seed loses a commit, and the
// runs together exercise every kind of step and every invariant. Half the
// steps are Run's default draws, half sim.Search's (swarm seeds, branches,
// clock jumps to deadlines), which must find nothing either.
func TestDefaultRulesLoseNothing(t *testing.T) {
	total := *steps
	if testing.Short() {
		total = 20_000
	}
	start := time.Now()
	var cov sim.Coverage
	done := 0
	for seed := *seed0; done < total/2; seed++ {
		r := sim.Run(sim.Config{Seed: seed, Steps: min(stepsPerRun, total/2-done)})
		done += len(r.Steps)
		cov.Add(r.Coverage)
		if r.Failure != nil {
			report(t, sim.Config{Seed: seed, Brokers: r.Brokers}, r)
		}
	}
	h := sim.Search(sim.Config{Seed: *seed0}, total-done, func(*sim.Violation) bool { return true })
	if h.Found {
		report(t, h.Config, h.Result)
	}
	done += h.Steps
	cov.Add(h.Coverage)
	elapsed := time.Since(start)
	t.Logf("%d steps over seeds %d.. (%d of them sim.Search's, %d runs) in %v: %.0f steps/s\n%v",
		done, *seed0, h.Steps, h.Runs, elapsed.Round(time.Millisecond), float64(done)/elapsed.Seconds(), cov)
	if missing := cov.Missing(); len(missing) > 0 && !testing.Short() {
		t.Fatalf("the runs never exercised: %s", strings.Join(missing, ", "))
	}
}

// report shrinks a failure and fails the test with the seed, the short
// scenario and a test that replays it.
func report(t *testing.T, cfg sim.Config, r sim.Result) {
	t.Helper()
	short := sim.Shrink(cfg, r.Steps)
	again := sim.Replay(cfg, short)
	t.Fatalf("seed %d (%d brokers) failed after %d steps:\n%v\nshrunk to %d steps, which fail with:\n%v\n%s\nreplay it with:\n%s",
		cfg.Seed, r.Brokers, len(r.Steps), r.Failure, len(short), again.Failure, sim.Story(short), sim.Script(cfg, short, "TestSeed"+fmt.Sprint(cfg.Seed)))
}

// findLoss runs seeds with an unsafe rule until one fails, within a budget
// the CI can afford; it returns the failing run, shrunk.
func findLoss(t *testing.T, cfg sim.Config, budget int) (sim.Config, []sim.Step, sim.Result) {
	t.Helper()
	done := 0
	for seed := uint64(1); done < budget; seed++ {
		c := cfg
		c.Seed, c.Steps = seed, stepsPerRun
		c.LossOnly = true // go on to the loss itself
		r := sim.Run(c)
		done += len(r.Steps)
		if v, ok := r.Failure.(*sim.Violation); ok && v.Lost() {
			c.Brokers = r.Brokers
			short := sim.Shrink(c, r.Steps)
			t.Logf("found after %d steps (seed %d): %v\nshrunk to %d steps:\n%s", done, seed, r.Failure, len(short), sim.Story(short))
			return c, short, r
		}
	}
	t.Fatalf("no lost commit in %d steps: the simulator does not catch this rule", budget)
	return cfg, nil, sim.Result{}
}

// The simulator must catch bugs, not just pass: with the pre-KIP-101 rule
// (a follower truncates to its own high watermark on a new leader epoch) it
// finds a lost commit within the CI budget.
func TestFindsThePreKIP101Loss(t *testing.T) {
	cfg, short, _ := findLoss(t, sim.Config{TruncateToHighWatermark: true}, 100_000)
	if v, ok := sim.Replay(cfg, short).Failure.(*sim.Violation); !ok || !v.Lost() {
		t.Fatal("the shrunk scenario does not lose a commit")
	}
}

// So it must with unclean leader election enabled.
func TestFindsTheUncleanElectionLoss(t *testing.T) {
	cfg, short, _ := findLoss(t, sim.Config{UncleanLeaderElection: true}, 100_000)
	if v, ok := sim.Replay(cfg, short).Failure.(*sim.Violation); !ok || !v.Lost() {
		t.Fatal("the shrunk scenario does not lose a commit")
	}
}

// And with the controller's unclean-shutdown rule (KIP-966) disabled.
func TestFindsTheLossWithoutTheUncleanShutdownRule(t *testing.T) {
	cfg, short, _ := findLoss(t, sim.Config{DisableUncleanShutdownRule: true}, 100_000)
	if v, ok := sim.Replay(cfg, short).Failure.(*sim.Violation); !ok || !v.Lost() {
		t.Fatal("the shrunk scenario does not lose a commit")
	}
}

// A failure replays byte for byte: the same seed and steps give the same
// failure, and a passing run the same coverage.
func TestReplayIsDeterministic(t *testing.T) {
	cfg, short, _ := findLoss(t, sim.Config{UncleanLeaderElection: true}, 100_000)
	a, b := sim.Replay(cfg, short), sim.Replay(cfg, short)
	if a.Failure == nil || a.Failure.Error() != b.Failure.Error() {
		t.Fatalf("two replays: %v / %v", a.Failure, b.Failure)
	}
	first := sim.Run(sim.Config{Seed: 42, Steps: 300})
	second := sim.Replay(sim.Config{Seed: 42}, first.Steps)
	if first.Failure != nil || second.Failure != nil || first.Coverage != second.Coverage {
		t.Fatalf("a run and its replay differ:\n%v\n%v", first.Coverage, second.Coverage)
	}
}

// The AlterPartitionFaults step (a swarm seed's) builds what issue 15 §3
// needs: a leader's request unanswered while the partition state its
// commit (or another change) published reaches it, and the late or resent
// request answered as stale. The runs that build it hold every invariant.
func TestAlterPartitionFaultsBuildStaleAnswers(t *testing.T) {
	const budget = 20_000
	var cov sim.Coverage
	done := 0
	for seed := uint64(1); done < budget && cov.StaleAlterPartitionAnswers == 0; seed++ {
		r := sim.Run(sim.Config{Seed: seed, Steps: stepsPerRun, Swarm: true})
		done += len(r.Steps)
		cov.Add(r.Coverage)
		if r.Failure != nil {
			report(t, sim.Config{Seed: seed, Brokers: r.Brokers}, r)
		}
	}
	if cov.StaleAlterPartitionAnswers == 0 {
		t.Fatalf("no stale AlterPartition answer in %d steps (%d AlterPartitionFaults steps)", done, cov.Steps[sim.AlterPartitionFaults])
	}
	t.Logf("%d stale AlterPartition answers in %d steps (%d AlterPartitionFaults steps)", cov.StaleAlterPartitionAnswers, done, cov.Steps[sim.AlterPartitionFaults])
}
