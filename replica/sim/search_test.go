package sim_test

import (
	"flag"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/sim"
)

// The search finds each unsafe rule by itself: random seeds, drawn as a
// swarm, reach each rule's violation within the CI's budget. The rules'
// own tests (sim_test.go, idempotence_test.go) hunt with search;
// TestSearchStrategies measures how fast.

// searchBudget is the steps a rule's test may spend hunting: a few seconds.
const searchBudget = 200_000

// swarmStepsPerRun is how long one swarm seed runs: a fault shape plays
// out within a few dozen steps, and more seeds try more mixes.
const swarmStepsPerRun = 200

// hunted is what search found.
type hunted struct {
	cfg   sim.Config // the failing run's, Brokers filled in
	r     sim.Result
	steps int // steps run over every seed, the failing run's included
	found bool
}

// search runs seeds from first with cfg, perRun steps each, until one
// violates inv or budget steps have run.
func search(cfg sim.Config, inv sim.Invariant, first uint64, budget, perRun int) hunted {
	done := 0
	for seed := first; done < budget; seed++ {
		c := cfg
		c.Seed, c.Steps = seed, min(perRun, budget-done)
		r := sim.Run(c)
		done += len(r.Steps)
		if v, ok := r.Failure.(*sim.Violation); ok && v.Invariant == inv {
			c.Brokers = r.Brokers
			return hunted{cfg: c, r: r, steps: done, found: true}
		}
	}
	return hunted{steps: done}
}

// huntSwarm searches swarm seeds from 1 for a violation of inv with cfg's
// unsafe rule, within searchBudget, and checks the find: it shrinks to
// steps that still violate inv, and the same steps with every rule as it
// should be pass, so the unsafe rule, not the steps, broke it.
func huntSwarm(t *testing.T, unsafe, safe sim.Config, inv sim.Invariant) {
	t.Helper()
	unsafe.Swarm = true
	h := search(unsafe, inv, 1, searchBudget, swarmStepsPerRun)
	if !h.found {
		t.Fatalf("no %v violation in %d steps of swarm seeds from 1", inv, searchBudget)
	}
	short := sim.Shrink(h.cfg, h.r.Steps)
	if v, ok := sim.Replay(h.cfg, short).Failure.(*sim.Violation); !ok || v.Invariant != inv {
		t.Fatalf("seed %d: the shrunk scenario does not violate %v: %v", h.cfg.Seed, inv, v)
	}
	safe.Seed, safe.Brokers = h.cfg.Seed, h.cfg.Brokers
	if r := sim.Replay(safe, short); r.Failure != nil {
		t.Fatalf("seed %d: the shrunk scenario fails with the safe rules too: %v\n%s", h.cfg.Seed, r.Failure, sim.Story(short))
	}
	t.Logf("searched %d steps to seed %d (%d brokers): %v\nshrunk to %d steps:\n%s", h.steps, h.cfg.Seed, h.cfg.Brokers, h.r.Failure, len(short), sim.Story(short))
}

var measure = flag.Int("sim.measure", 0, "TestSearchStrategies: how many searches per unsafe rule and strategy (20 for the figures in doc.go)")
var measureCap = flag.Int("sim.measurecap", searchBudget, "TestSearchStrategies: the steps a search may spend before it counts as not found")

// TestSearchStrategies measures, for each unsafe rule, the steps a search
// spends until the rule's violation, default draws against swarm draws,
// over -sim.measure searches that each start at a different seed.
func TestSearchStrategies(t *testing.T) {
	if *measure == 0 {
		t.Skip("set -sim.measure to measure")
	}
	rules := []struct {
		name string
		cfg  sim.Config
		inv  sim.Invariant
	}{
		{"ProducerTrustsNotEnoughReplicas", sim.Config{ProducerTrustsNotEnoughReplicas: true}, sim.Idempotence},
		{"ProducerSkipsLeaderBarrier", sim.Config{ProducerSkipsLeaderBarrier: true}, sim.ProducerOrder},
	}
	for _, rule := range rules {
		for _, swarm := range []bool{false, true} {
			cfg := rule.cfg
			cfg.Swarm = swarm
			perRun := stepsPerRun
			if swarm {
				perRun = swarmStepsPerRun
			}
			var found []int
			total := 0
			start := time.Now()
			for i := range *measure {
				h := search(cfg, rule.inv, 1+uint64(i)*1_000_003, *measureCap, perRun)
				total += h.steps
				if h.found {
					found = append(found, h.steps)
				}
			}
			elapsed := time.Since(start)
			slices.Sort(found)
			median := "> " + strconv.Itoa(*measureCap) // the searches that found nothing count as above the cap
			if len(found) > (*measure-1)/2 {
				median = strconv.Itoa(found[(*measure-1)/2])
			}
			t.Logf("%s swarm=%v: found in %d of %d searches (cap %d), median %s steps, found at %v; %.0f steps/s",
				rule.name, swarm, len(found), *measure, *measureCap, median, found, float64(total)/elapsed.Seconds())
		}
	}
}
