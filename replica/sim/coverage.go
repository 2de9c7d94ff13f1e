package sim

import (
	"fmt"
	"strings"
)

// Coverage counts what a simulation exercised, so that a run that never
// crashed a leader cannot pass for a proof.
type Coverage struct {
	// Steps counts the steps of each kind.
	Steps [kinds]int
	// Checks counts how often each invariant was checked with something to
	// check (a leader, a pair of replicas, a record).
	Checks [invariants]int
	// LeaderCrashes counts crashes of the broker the controller named
	// leader; PowerCuts crashes that lost unsynced data; Halts brokers that
	// stopped because a log failed; DiskFaults injected file failures.
	LeaderCrashes, PowerCuts, Halts, DiskFaults int
	// Elections counts leader epochs the controller moved to;
	// UncleanElections those that said data may be lost.
	Elections, UncleanElections int
	// Reassignments counts Reassign steps the controller answered.
	Reassignments int
	// Acked counts acks=all produces answered NONE, AckedLeader acks=1
	// ones; Consumed counts records a consumer read.
	Acked, AckedLeader, Consumed int
	// Excused counts acknowledged records every holder lost in a power cut
	// (SyncNever does not promise to survive that).
	Excused int
	// Foretold counts violations of the weaker invariants a LossOnly run
	// let pass.
	Foretold int
	// LongPollRuns counts runs whose followers fetched continuously with
	// parked fetches (LongPolls), RoundRuns those that fetched on
	// FetchRound steps only.
	LongPollRuns, RoundRuns int
	// IdempotentAcked counts the idempotent producer's acknowledged
	// batches, IdempotentRetries the batches it sent again,
	// IdempotentDuplicatesAnswered the answers to a copy of a batch already
	// acknowledged (the leader's dedupe window at work), and
	// IdempotentEpochBumps its epoch bumps after a sequence gap.
	IdempotentAcked, IdempotentRetries, IdempotentDuplicatesAnswered, IdempotentEpochBumps int
	// IdempotentRenumbered counts batches renumbered under a new epoch,
	// IdempotentDeliveryTimeouts batches failed by their delivery timeout,
	// IdempotentPipelined batches sent while another was in flight, and
	// IdempotentLeaderBarrierHolds the times a batch waited for those in
	// flight to the old leader.
	IdempotentRenumbered, IdempotentDeliveryTimeouts, IdempotentPipelined, IdempotentLeaderBarrierHolds int
	// IdempotentProducers counts producers closed and replaced by a new one.
	IdempotentProducers int
	// IdempotentNotEnoughReplicas counts NOT_ENOUGH_REPLICAS answers to a
	// batch an earlier attempt may have written, IdempotentGaps batches
	// given up after they had a sequence (the next needs an epoch bump).
	IdempotentNotEnoughReplicas, IdempotentGaps int
	// UnderMinIsr counts steps after which the controller's ISR was
	// smaller than min.insync.replicas: acks=all produces are refused.
	UnderMinIsr int
	// StaleAlterPartitionAnswers counts AlterPartition answers delivered
	// that refused a request made at an older partition or leader epoch
	// (INVALID_UPDATE_VERSION, FENCED_LEADER_EPOCH): mostly the resent
	// request of a proposal a partition state had already ended.
	StaleAlterPartitionAnswers int
	// GroupRuns counts runs with consumer group steps (Config.Groups);
	// GroupCommits offsets their coordinator acknowledged, GroupFetches
	// OffsetFetch answers held to CommittedOffsetKept, GroupGenerations the
	// generations members synced, GroupPauses members paused past their
	// session, GroupExcused acknowledged offsets every holder may have
	// lost in a power cut, GroupResets the unclean elections of
	// __consumer_offsets that reset what the invariants remember.
	GroupRuns, GroupCommits, GroupFetches, GroupGenerations, GroupPauses, GroupExcused, GroupResets int
}

// events are the counts of Coverage that Search looks for rare states by:
// the faults, and what the idempotent producer went through.
const events = 19

func (c *Coverage) events() [events]int {
	return [events]int{c.LeaderCrashes, c.PowerCuts, c.Halts, c.DiskFaults, c.Elections, c.UncleanElections,
		c.Excused, c.Foretold, c.IdempotentRetries, c.IdempotentDuplicatesAnswered, c.IdempotentEpochBumps,
		c.IdempotentRenumbered, c.IdempotentDeliveryTimeouts, c.IdempotentPipelined, c.IdempotentLeaderBarrierHolds,
		c.IdempotentProducers, c.IdempotentNotEnoughReplicas, c.IdempotentGaps, c.UnderMinIsr}
}

// Add adds o's counts to c.
func (c *Coverage) Add(o Coverage) {
	for i := range c.Steps {
		c.Steps[i] += o.Steps[i]
	}
	for i := range c.Checks {
		c.Checks[i] += o.Checks[i]
	}
	c.LeaderCrashes += o.LeaderCrashes
	c.PowerCuts += o.PowerCuts
	c.Halts += o.Halts
	c.DiskFaults += o.DiskFaults
	c.Elections += o.Elections
	c.UncleanElections += o.UncleanElections
	c.Reassignments += o.Reassignments
	c.Acked += o.Acked
	c.AckedLeader += o.AckedLeader
	c.Consumed += o.Consumed
	c.Excused += o.Excused
	c.Foretold += o.Foretold
	c.LongPollRuns += o.LongPollRuns
	c.RoundRuns += o.RoundRuns
	c.IdempotentAcked += o.IdempotentAcked
	c.IdempotentRetries += o.IdempotentRetries
	c.IdempotentDuplicatesAnswered += o.IdempotentDuplicatesAnswered
	c.IdempotentEpochBumps += o.IdempotentEpochBumps
	c.IdempotentRenumbered += o.IdempotentRenumbered
	c.IdempotentDeliveryTimeouts += o.IdempotentDeliveryTimeouts
	c.IdempotentPipelined += o.IdempotentPipelined
	c.IdempotentLeaderBarrierHolds += o.IdempotentLeaderBarrierHolds
	c.IdempotentProducers += o.IdempotentProducers
	c.IdempotentNotEnoughReplicas += o.IdempotentNotEnoughReplicas
	c.IdempotentGaps += o.IdempotentGaps
	c.UnderMinIsr += o.UnderMinIsr
	c.StaleAlterPartitionAnswers += o.StaleAlterPartitionAnswers
	c.GroupRuns += o.GroupRuns
	c.GroupCommits += o.GroupCommits
	c.GroupFetches += o.GroupFetches
	c.GroupGenerations += o.GroupGenerations
	c.GroupPauses += o.GroupPauses
	c.GroupExcused += o.GroupExcused
	c.GroupResets += o.GroupResets
}

// Missing names what a run that claims to prove something should have
// exercised but did not: a kind of step never taken, an invariant never
// checked, no leader crash, no power cut, no election, no acknowledged
// record, no epoch bump or renumbered batch of the idempotent producer, no
// stale AlterPartition answer; and, once runs had group steps, a group
// step of each kind, a check of each group invariant, a commit
// acknowledged and a generation synced.
func (c Coverage) Missing() []string {
	var out []string
	groups := c.GroupRuns > 0
	for k := Kind(0); k < kinds; k++ {
		if c.Steps[k] == 0 && (k < Join || groups) {
			out = append(out, "step "+k.String())
		}
	}
	for i := Invariant(0); i < invariants; i++ {
		if c.Checks[i] == 0 && (i < CommittedOffsetKept || groups) {
			out = append(out, "invariant "+i.String())
		}
	}
	for name, n := range map[string]int{"a leader crash": c.LeaderCrashes, "a power cut": c.PowerCuts,
		"an election": c.Elections, "an acknowledged record": c.Acked, "a consumed record": c.Consumed,
		"a long-polling run": c.LongPollRuns, "a run of fetch rounds": c.RoundRuns,
		"an idempotent batch acknowledged": c.IdempotentAcked, "a duplicate answered by the dedupe window": c.IdempotentDuplicatesAnswered,
		"an epoch bump": c.IdempotentEpochBumps, "a renumbered batch": c.IdempotentRenumbered,
		"a delivery timeout": c.IdempotentDeliveryTimeouts, "a batch sent behind another in flight": c.IdempotentPipelined,
		"a new producer": c.IdempotentProducers, "a stale AlterPartition answer": c.StaleAlterPartitionAnswers} {
		if n == 0 {
			out = append(out, name)
		}
	}
	if !groups {
		return out
	}
	for name, n := range map[string]int{"a group commit acknowledged": c.GroupCommits, "a generation synced": c.GroupGenerations} {
		if n == 0 {
			out = append(out, name)
		}
	}
	return out
}

// String prints the counts, a few lines.
func (c Coverage) String() string {
	var b strings.Builder
	b.WriteString("steps:")
	for k := Kind(0); k < kinds; k++ {
		fmt.Fprintf(&b, " %v %d", k, c.Steps[k])
	}
	b.WriteString("\nchecks:")
	for i := Invariant(0); i < invariants; i++ {
		fmt.Fprintf(&b, " %v %d", i, c.Checks[i])
	}
	fmt.Fprintf(&b, "\nevents: leader crashes %d, power cuts %d, halts %d, disk faults %d, elections %d (unclean %d), reassignments %d, acked %d (acks=1 %d), consumed %d, excused %d",
		c.LeaderCrashes, c.PowerCuts, c.Halts, c.DiskFaults, c.Elections, c.UncleanElections, c.Reassignments, c.Acked, c.AckedLeader, c.Consumed, c.Excused)
	fmt.Fprintf(&b, "\nruns: long-polling %d, fetch rounds %d; steps under min.insync.replicas %d; stale AlterPartition answers %d",
		c.LongPollRuns, c.RoundRuns, c.UnderMinIsr, c.StaleAlterPartitionAnswers)
	fmt.Fprintf(&b, "\nidempotent producer: acked %d, retries %d, duplicates answered %d, epoch bumps %d, renumbered %d, delivery timeouts %d, pipelined %d, leader barrier holds %d, new producers %d, NOT_ENOUGH_REPLICAS to a batch maybe written %d, gaps %d",
		c.IdempotentAcked, c.IdempotentRetries, c.IdempotentDuplicatesAnswered, c.IdempotentEpochBumps,
		c.IdempotentRenumbered, c.IdempotentDeliveryTimeouts, c.IdempotentPipelined, c.IdempotentLeaderBarrierHolds, c.IdempotentProducers, c.IdempotentNotEnoughReplicas, c.IdempotentGaps)
	if c.GroupRuns > 0 {
		fmt.Fprintf(&b, "\ngroups: runs %d, commits acknowledged %d, fetches checked %d, generations synced %d, pauses %d, excused %d, resets %d",
			c.GroupRuns, c.GroupCommits, c.GroupFetches, c.GroupGenerations, c.GroupPauses, c.GroupExcused, c.GroupResets)
	}
	return b.String()
}
