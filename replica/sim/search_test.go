package sim_test

import (
	"flag"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/sim"
)

// The search finds each unsafe rule by itself: sim.Search, swarm seeds
// and branches from rare states, reaches each rule's violation within
// the CI's budget. The rules' own tests (idempotence_test.go) hunt with
// it; TestSearchStrategies measures how fast, against the default draws.

// searchBudget is the steps a rule's test may spend hunting: a few seconds.
const searchBudget = 200_000

// hunted is what a search found.
type hunted struct {
	cfg   sim.Config // the failing run's, Brokers filled in
	r     sim.Result
	steps int // steps run over every seed, the failing run's included
	found bool
}

// searchDefault runs seeds from first with cfg and the default draws,
// perRun steps each, until one violates inv or budget steps have run: the
// search as it was before sim.Search.
func searchDefault(cfg sim.Config, inv sim.Invariant, first uint64, budget, perRun int) hunted {
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

// violates wants a violation of inv.
func violates(inv sim.Invariant) func(*sim.Violation) bool {
	return func(v *sim.Violation) bool { return v.Invariant == inv }
}

// huntFor searches from seed 1 for a violation of inv with the unsafe
// rule of unsafe, within searchBudget, and checks the find: it shrinks to
// steps that still violate inv, and the same steps with the rule as it
// should be pass, so the unsafe rule, not the steps, broke it.
func huntFor(t *testing.T, unsafe, safe sim.Config, inv sim.Invariant) {
	t.Helper()
	h := sim.Search(unsafe, searchBudget, violates(inv))
	if !h.Found {
		t.Fatalf("no %v violation in %d steps of sim.Search from seed 1 (%d runs)", inv, h.Steps, h.Runs)
	}
	short := sim.Shrink(h.Config, h.Result.Steps)
	if v, ok := sim.Replay(h.Config, short).Failure.(*sim.Violation); !ok || v.Invariant != inv {
		t.Fatalf("seed %d: the shrunk scenario does not violate %v: %v\n%s", h.Config.Seed, inv, v, sim.Story(short))
	}
	safe.Seed, safe.Brokers = h.Config.Seed, h.Config.Brokers
	if r := sim.Replay(safe, short); r.Failure != nil {
		t.Fatalf("seed %d: the shrunk scenario fails with the rule as it should be too: %v\n%s", h.Config.Seed, r.Failure, sim.Story(short))
	}
	t.Logf("found after %d steps, %d runs (seed %d, %d brokers): %v\nshrunk to %d steps:\n%s",
		h.Steps, h.Runs, h.Config.Seed, h.Config.Brokers, h.Result.Failure, len(short), sim.Story(short))
}

var measure = flag.Int("sim.measure", 0, "TestSearchStrategies: how many searches per unsafe rule and strategy (20 for the figures in doc.go)")
var measureBefore = flag.Bool("sim.measurebefore", true, "TestSearchStrategies: measure the default draws too")
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
		for _, strategy := range []string{"default draws", "sim.Search"} {
			if strategy == "default draws" && !*measureBefore {
				continue
			}
			var found []int
			total := 0
			start := time.Now()
			for i := range *measure {
				first := 1 + uint64(i)*1_000_003
				var h hunted
				if strategy == "sim.Search" {
					cfg := rule.cfg
					cfg.Seed = first
					s := sim.Search(cfg, *measureCap, violates(rule.inv))
					h = hunted{cfg: s.Config, r: s.Result, steps: s.Steps, found: s.Found}
				} else {
					h = searchDefault(rule.cfg, rule.inv, first, *measureCap, stepsPerRun)
				}
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
			t.Logf("%s, %s: found in %d of %d searches (cap %d), median %s steps, found at %v; %.0f steps/s",
				rule.name, strategy, len(found), *measure, *measureCap, median, found, float64(total)/elapsed.Seconds())
		}
	}
}

// Search is a function of its seed: the same search runs the same runs,
// and finds the same failure, step for step.
func TestSearchIsDeterministic(t *testing.T) {
	a := sim.Search(sim.Config{Seed: 7}, 5_000, func(*sim.Violation) bool { return true })
	b := sim.Search(sim.Config{Seed: 7}, 5_000, func(*sim.Violation) bool { return true })
	if a.Found || b.Found {
		t.Fatalf("with the rules as they are: %v / %v", a.Result.Failure, b.Result.Failure)
	}
	if a.Steps != b.Steps || a.Runs != b.Runs || a.Coverage != b.Coverage {
		t.Fatalf("two searches from seed 7 differ:\n%d steps, %d runs\n%v\n%d steps, %d runs\n%v", a.Steps, a.Runs, a.Coverage, b.Steps, b.Runs, b.Coverage)
	}
}
