package sim

import (
	"fmt"
	"strings"
)

// Shrink returns a short list of steps that still makes the simulation of
// cfg fail: delta debugging over steps, removing ever smaller runs of steps
// while the failure is still one of the same invariant. The result replays
// to that failure with Replay.
func Shrink(cfg Config, steps []Step) []Step {
	var want Invariant
	if v := violation(Replay(cfg, steps).Failure); v != nil {
		want = v.Invariant
	}
	fails := func(candidate []Step) bool {
		v := violation(Replay(cfg, candidate).Failure)
		return v != nil && v.Invariant == want
	}
	if !fails(steps) {
		return steps
	}
	// Keep only what was executed before the failure.
	r := Replay(cfg, steps)
	cur := r.Steps
	for chunk := len(cur) / 2; chunk >= 1; chunk /= 2 {
		for i := 0; i+chunk <= len(cur); {
			candidate := append(append([]Step{}, cur[:i]...), cur[i+chunk:]...)
			if fails(candidate) {
				cur = Replay(cfg, candidate).Steps
				continue // the same i, now over the next steps
			}
			i += chunk
		}
	}
	return cur
}

// Script prints steps as a Go test that replays them, so a shrunk failure
// can be kept as a regression test.
func Script(cfg Config, steps []Step, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "func %s(t *testing.T) {\n", name)
	fmt.Fprintf(&b, "\tcfg := sim.Config{Seed: %d, Brokers: %d", cfg.Seed, cfg.Brokers)
	if cfg.TruncateToHighWatermark {
		b.WriteString(", TruncateToHighWatermark: true")
	}
	if cfg.UncleanLeaderElection {
		b.WriteString(", UncleanLeaderElection: true")
	}
	if cfg.DisableUncleanShutdownRule {
		b.WriteString(", DisableUncleanShutdownRule: true")
	}
	if cfg.ProducerTrustsNotEnoughReplicas {
		b.WriteString(", ProducerTrustsNotEnoughReplicas: true")
	}
	if cfg.ProducerSkipsLeaderBarrier {
		b.WriteString(", ProducerSkipsLeaderBarrier: true")
	}
	if cfg.Groups {
		b.WriteString(", Groups: true")
	}
	if cfg.CommitBeforeReplicated {
		b.WriteString(", CommitBeforeReplicated: true")
	}
	if cfg.LoadBeforeHighWatermark {
		b.WriteString(", LoadBeforeHighWatermark: true")
	}
	if cfg.LossOnly {
		b.WriteString(", LossOnly: true")
	}
	b.WriteString("}\n\tr := sim.Replay(cfg, []sim.Step{\n")
	for _, st := range steps {
		fmt.Fprintf(&b, "\t\t%s, // %v\n", st.goString(), st)
	}
	b.WriteString("\t})\n\tif r.Failure != nil {\n\t\tt.Fatal(r.Failure)\n\t}\n}\n")
	return b.String()
}

// Story prints steps as a numbered scenario, one line each.
func Story(steps []Step) string {
	var b strings.Builder
	for i, st := range steps {
		fmt.Fprintf(&b, "%d. %v\n", i+1, st)
	}
	return b.String()
}

// violation returns err as a *Violation, or nil.
func violation(err error) *Violation {
	v, _ := err.(*Violation)
	return v
}
