package sim_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/replica/sim"
)

// groupStepsPerRun is how long one seed of a group test runs.
const groupStepsPerRun = 500

// With the coordinator's rules as they are, the group steps — members
// joining, syncing, heartbeating, committing and fetching offsets, leaving
// and pausing past their session, among crashes and cuts of the
// coordinator and everything else Run draws — never see a committed offset
// go back or a partition with two owners in a generation, and the runs
// exercise every group step and both invariants.
func TestGroupStepsKeepCommittedOffsetsAndOneOwnerPerPartition(t *testing.T) {
	const budget = 12_000
	var cov sim.Coverage
	for seed, done := uint64(1), 0; done < budget; seed++ {
		cfg := sim.Config{Seed: seed, Steps: min(groupStepsPerRun, budget-done), Groups: true}
		r := sim.Run(cfg)
		done += len(r.Steps)
		cov.Add(r.Coverage)
		if r.Failure != nil {
			report(t, sim.Config{Seed: seed, Brokers: r.Brokers, Groups: true}, r)
		}
	}
	t.Logf("%d steps\n%v", budget, cov)
	var missing []string
	for _, k := range []sim.Kind{sim.Join, sim.Heartbeat, sim.Commit, sim.FetchOffsets, sim.Leave, sim.Pause} {
		if cov.Steps[k] == 0 {
			missing = append(missing, "step "+k.String())
		}
	}
	for _, inv := range []sim.Invariant{sim.CommittedOffsetKept, sim.OnePartitionOwner} {
		if cov.Checks[inv] == 0 {
			missing = append(missing, "invariant "+inv.String())
		}
	}
	for name, n := range map[string]int{"a commit acknowledged": cov.GroupCommits, "a fetch checked": cov.GroupFetches,
		"a generation synced": cov.GroupGenerations, "a pause past the session": cov.GroupPauses} {
		if n == 0 {
			missing = append(missing, name)
		}
	}
	if slices.Sort(missing); len(missing) > 0 {
		t.Fatalf("the group runs never exercised: %s", strings.Join(missing, ", "))
	}
}

// huntGroups runs seeds from 1 with an unsafe coordinator rule until one
// violates inv, within budget steps, and checks the find: the same steps
// with the rule as it should be pass, so the rule, not the steps, broke it.
func huntGroups(t *testing.T, unsafe sim.Config, inv sim.Invariant, budget int) {
	t.Helper()
	done := 0
	for seed := uint64(1); done < budget; seed++ {
		cfg := unsafe
		cfg.Seed, cfg.Steps = seed, groupStepsPerRun
		r := sim.Run(cfg)
		done += len(r.Steps)
		v, ok := r.Failure.(*sim.Violation)
		if !ok {
			continue
		}
		if v.Invariant != inv {
			t.Fatalf("seed %d: want %v violated, got %v", seed, inv, v)
		}
		safe := sim.Config{Seed: seed, Brokers: r.Brokers, Groups: true}
		if again := sim.Replay(safe, r.Steps); again.Failure != nil {
			t.Fatalf("seed %d: the steps fail with the rule as it should be too: %v", seed, again.Failure)
		}
		cfg.Brokers, cfg.Steps = r.Brokers, 0
		if again, ok := sim.Replay(cfg, r.Steps).Failure.(*sim.Violation); !ok || again.Error() != v.Error() {
			t.Fatalf("seed %d: the replay does not fail the same way: %v, then %v", seed, v, again)
		}
		tail := r.Steps[max(0, len(r.Steps)-12):]
		t.Logf("found after %d steps (seed %d, %d brokers): %v\nits last steps:\n%s", done, seed, r.Brokers, v, sim.Story(tail))
		return
	}
	t.Fatalf("no %v violation in %d steps from seed 1: the simulator does not catch this rule", inv, budget)
}

// An OffsetCommit answered once its write is in the coordinator's log,
// before the high watermark passes it, is an acknowledged offset a
// coordinator's crash can take back, and one that OffsetFetch answers
// before it is committed: the simulator finds it.
func TestFindsTheCommitAnsweredBeforeItIsReplicated(t *testing.T) {
	huntGroups(t, sim.Config{CommitBeforeReplicated: true}, sim.CommittedOffsetKept, 20_000)
}

// A new coordinator that serves what it loaded before its partition's high
// watermark reaches it answers the last leader's uncommitted commits, which
// the next leader may not have: the simulator finds it.
func TestFindsTheCoordinatorServedBeforeItsLoadIsCommitted(t *testing.T) {
	huntGroups(t, sim.Config{LoadBeforeHighWatermark: true}, sim.CommittedOffsetKept, 40_000)
}
