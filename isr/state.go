package isr

import (
	"cmp"
	"fmt"
	"slices"
)

// DefaultLagMaxMs is Kafka's default replica.lag.time.max.ms (30000, set in
// ReplicationConfigs.java of Kafka 4.0): how long a follower may go without
// catching up to the leader's log end before the leader removes it from the
// ISR. NewState uses it when Config.LagMaxMs <= 0.
const DefaultLagMaxMs int64 = 30000

// Config describes one partition's replicas as seen by its leader.
type Config struct {
	// LeaderID is this broker's id: the replica that leads the partition.
	LeaderID int32
	// Replicas are the assigned replicas, leader included, in any order.
	// Nil means "the same as ISR". Assigned followers outside the ISR are
	// still observed, so they can later be readmitted.
	Replicas []int32
	// ISR is the initial in-sync replica set, in any order. It must contain
	// LeaderID, and every member must be in Replicas.
	ISR []int32
	// MinISR is min.insync.replicas: the ISR size below which the high
	// watermark stops and acks=all is refused. At least 1. A value above
	// len(Replicas) is capped at it (EffectiveMinISR), as in Kafka.
	MinISR int
	// LagMaxMs is replica.lag.time.max.ms. Values <= 0 mean DefaultLagMaxMs.
	LagMaxMs int64
}

// State is the leader's view of one partition's replicas: who is in the ISR,
// each follower's LEO, and when each follower was last caught up.
//
// State is pure: it reads no clock. Every time is a nowMs argument, and only
// ShrinkISR compares a time with the lag cutoff. A State is not safe for
// concurrent use; the replica layer serializes calls under its partition lock.
type State struct {
	// leaderID is never removed from isr and never appears in followers.
	leaderID int32
	// minISR >= 1.
	minISR int
	// lagMaxMs > 0: DefaultLagMaxMs when the Config asked for <= 0.
	lagMaxMs int64

	// followers holds every assigned replica except the leader, sorted by id,
	// ids unique. followers[i] describes the same replica as leos[i].
	followers []follower
	// leos[i].ID == followers[i].id; leos[i].LEO is that follower's fetch
	// offset from its latest accepted Observe, or 0 before the first one;
	// leos[i].CaughtUp is set by each ProposeHW for the nowMs it was given.
	// Kept as a []ReplicaLEO so ProposeHW hands it to AdvanceHW without
	// allocating. An unobserved ISR follower therefore counts as LEO 0 and
	// holds the high watermark where it is until it fetches, the same effect
	// as Kafka's unknown offset (-1) after becoming leader.
	leos []ReplicaLEO
	// isr is the committed ISR: the one the controller last confirmed. It is
	// sorted ascending, ids unique, always contains leaderID, and every other
	// member is the id of some followers[i].
	isr []int32
	// inFlight is the ISR change proposed to the controller and not yet
	// answered (Kafka's PendingExpandIsr / PendingShrinkIsr), nil when there
	// is none. At most one is in flight.
	inFlight *proposal
	// maximal is the maximal ISR (KIP-497): isr plus the follower whose
	// addition is in flight. A shrink is never applied before it commits, so
	// during one maximal equals isr. Kept as a slice so ProposeHW does not
	// allocate.
	maximal []int32
}

// follower is the leader's record of one follower's fetches. Times are the
// nowMs values passed to NewState and Observe.
type follower struct {
	id int32
	// observed reports that the follower's LEO (leos[i]) is known: an
	// Observe was accepted, by this State or, for a leader re-elected at a
	// new epoch, by the one Reelect started from.
	observed bool
	// fetchKnown reports that lastFetchMs and lastFetchLeaderLEO mean
	// something: set by Observe, and by Reelect for an ISR member.
	fetchKnown bool
	// lastFetchMs is the nowMs of the latest accepted Observe (or of the
	// re-election).
	lastFetchMs int64
	// lastFetchLeaderLEO is the largest leader LEO reported with any
	// accepted Observe (Kafka keeps the max, so it never moves backwards),
	// or the start offset of a re-elected leader's epoch.
	lastFetchLeaderLEO uint64
	// caughtUp reports that lastCaughtUpMs is known: set for ISR members at
	// construction and by Observe under Kafka's rule. A follower without it
	// counts as older than any cutoff (Kafka uses 0).
	caughtUp bool
	// lastCaughtUpMs is the latest time the follower was known to hold
	// everything the leader had; it never moves backwards.
	lastCaughtUpMs int64
}

// NewState builds the leader's replica state for a partition it has just
// become leader of, at time nowMs. Every follower in the initial ISR starts
// with lastCaughtUpMs = nowMs, as Kafka resets in-sync followers on becoming
// leader, so none is removed before a full lag window has passed. Followers
// outside the ISR start with no caught-up time and no LEO.
//
// It returns an error wrapping ErrInvalidMinISR, ErrInvalidReplicaID,
// ErrDuplicateReplica, ErrLeaderNotInISR or ErrUnknownReplica when cfg breaks
// the rules documented on Config.
func NewState(cfg Config, nowMs int64) (*State, error) {
	if cfg.MinISR < 1 {
		return nil, fmt.Errorf("%w: got %d", ErrInvalidMinISR, cfg.MinISR)
	}
	replicas := cfg.Replicas
	if replicas == nil {
		replicas = cfg.ISR
	}
	if err := checkIDs("replicas", replicas); err != nil {
		return nil, err
	}
	if err := checkIDs("ISR", cfg.ISR); err != nil {
		return nil, err
	}
	if !slices.Contains(cfg.ISR, cfg.LeaderID) {
		return nil, fmt.Errorf("%w: leader %d, ISR %v", ErrLeaderNotInISR, cfg.LeaderID, cfg.ISR)
	}
	if !slices.Contains(replicas, cfg.LeaderID) {
		return nil, fmt.Errorf("%w: leader %d is not an assigned replica %v", ErrUnknownReplica, cfg.LeaderID, replicas)
	}
	for _, id := range cfg.ISR {
		if !slices.Contains(replicas, id) {
			return nil, fmt.Errorf("%w: ISR member %d is not an assigned replica %v", ErrUnknownReplica, id, replicas)
		}
	}

	lagMaxMs := cfg.LagMaxMs
	if lagMaxMs <= 0 {
		lagMaxMs = DefaultLagMaxMs
	}
	s := &State{
		leaderID: cfg.LeaderID,
		minISR:   cfg.MinISR,
		lagMaxMs: lagMaxMs,
		isr:      slices.Sorted(slices.Values(cfg.ISR)),
	}
	s.maximal = slices.Clone(s.isr)
	ids := slices.Sorted(slices.Values(replicas))
	s.followers = make([]follower, 0, len(ids)-1)
	s.leos = make([]ReplicaLEO, 0, len(ids)-1)
	for _, id := range ids {
		if id == cfg.LeaderID {
			continue
		}
		f := follower{id: id}
		if slices.Contains(cfg.ISR, id) {
			f.caughtUp, f.lastCaughtUpMs = true, nowMs
		}
		s.followers = append(s.followers, f)
		s.leos = append(s.leos, ReplicaLEO{ID: id})
	}
	return s, nil
}

// Reelect returns the State of this leader re-elected at a new leader
// epoch, from cfg, the controller's new partition state (as for NewState;
// cfg.LeaderID must be this State's leader). It is Kafka's makeLeader for
// a broker that already led (Replica.resetReplicaState with isNewLeader
// false): a follower this State tracked keeps its last observed LEO, since
// it fetched from this very log, so the high watermark need not wait for
// its next fetch. Its fetch history starts again at the new epoch: an ISR
// member counts as caught up at nowMs and as having last fetched at nowMs
// with the leader's LEO at leaderEpochStartOffset; a follower outside the
// ISR counts as never caught up (Kafka's 0), so it does not hold the high
// watermark back before it fetches again. A follower new to cfg starts as
// in NewState. s itself does not change.
//
// It returns the errors of NewState, and one wrapping ErrUnknownReplica
// when cfg.LeaderID is another leader's.
func (s *State) Reelect(cfg Config, leaderEpochStartOffset uint64, nowMs int64) (*State, error) {
	if cfg.LeaderID != s.leaderID {
		return nil, fmt.Errorf("%w: leader %d re-elected in the State of leader %d", ErrUnknownReplica, cfg.LeaderID, s.leaderID)
	}
	ns, err := NewState(cfg, nowMs)
	if err != nil {
		return nil, err
	}
	for i := range ns.followers {
		f := &ns.followers[i]
		if f.caughtUp { // an ISR member
			f.fetchKnown, f.lastFetchMs, f.lastFetchLeaderLEO = true, nowMs, leaderEpochStartOffset
		}
		if j, ok := s.follower(f.id); ok && s.followers[j].observed {
			f.observed = true
			ns.leos[i].LEO = s.leos[j].LEO
		}
	}
	return ns, nil
}

// checkIDs rejects negative and duplicate ids in one list.
func checkIDs(what string, ids []int32) error {
	for i, id := range ids {
		if id < 0 {
			return fmt.Errorf("%w: %d in %s %v", ErrInvalidReplicaID, id, what, ids)
		}
		if slices.Contains(ids[:i], id) {
			return fmt.Errorf("%w: %d in %s %v", ErrDuplicateReplica, id, what, ids)
		}
	}
	return nil
}

// follower returns the index of the assigned follower with this id.
func (s *State) follower(id int32) (int, bool) {
	return slices.BinarySearchFunc(s.followers, id, func(f follower, id int32) int {
		return cmp.Compare(f.id, id)
	})
}

// LeaderID returns the id of the leader this State belongs to.
func (s *State) LeaderID() int32 { return s.leaderID }

// MinISR returns min.insync.replicas as given to NewState or SetMinISR.
func (s *State) MinISR() int { return s.minISR }

// SetMinISR changes min.insync.replicas, as a topic config changed at run
// time does: every later decision (acks=all, the high watermark) compares
// against the new value. It returns an error wrapping ErrInvalidMinISR
// for n < 1, the state unchanged.
func (s *State) SetMinISR(n int) error {
	if n < 1 {
		return fmt.Errorf("%w: got %d", ErrInvalidMinISR, n)
	}
	s.minISR = n
	return nil
}

// EffectiveMinISR is the ISR size the rules compare against: the package
// function EffectiveMinISR of MinISR and the number of assigned replicas.
func (s *State) EffectiveMinISR() int { return EffectiveMinISR(s.minISR, len(s.followers)+1) }

// EffectiveMinISR is min.insync.replicas capped at the replication factor,
// min(minISR, replicationFactor), so a topic configured with more than it
// has still commits once every replica is in sync. Kafka computes it twice,
// on the leader (Partition.effectiveMinIsr) and on the controller
// (getTopicEffectiveMinIsr); kaenlog's leader (State.EffectiveMinISR) and
// controller (package replica/controller, for the ELR) both call this.
func EffectiveMinISR(minISR, replicationFactor int) int { return min(minISR, replicationFactor) }

// LagMaxMs returns the effective replica.lag.time.max.ms (DefaultLagMaxMs if
// the Config asked for <= 0).
func (s *State) LagMaxMs() int64 { return s.lagMaxMs }

// ISR returns a sorted copy of the committed ISR: the one the controller
// last confirmed (see Commit). It always contains LeaderID.
func (s *State) ISR() []int32 { return slices.Clone(s.isr) }

// Maximal returns a sorted copy of the maximal ISR (KIP-497): the committed
// ISR plus a follower whose addition is in flight. It holds the high
// watermark back and counts for acks=all, because expanding early is the
// more restrictive choice; a removal counts only once committed.
func (s *State) Maximal() []int32 { return slices.Clone(s.maximal) }

// Replicas returns a sorted copy of the assigned replicas, leader included.
func (s *State) Replicas() []int32 {
	out := make([]int32, 0, len(s.followers)+1)
	for _, f := range s.followers {
		out = append(out, f.id)
	}
	i, _ := slices.BinarySearch(out, s.leaderID)
	return slices.Insert(out, i, s.leaderID)
}

// InISR reports whether id is currently in the ISR. It is true for the leader.
func (s *State) InISR(id int32) bool {
	_, ok := slices.BinarySearch(s.isr, id)
	return ok
}

// UnderMinISR reports whether the committed ISR is smaller than
// EffectiveMinISR. While it is, ProposeHW proposes nothing (KIP-966's strict
// min ISR: the high watermark is frozen) and acks=all writes are refused
// before append. Like Kafka's isUnderMinIsr it reads the committed ISR, not
// the maximal one.
func (s *State) UnderMinISR() bool { return len(s.isr) < s.EffectiveMinISR() }

// LastCaughtUpMs returns the latest time the follower id was known to hold
// everything the leader had, by Kafka's rule described on Observe. ok is false
// for the leader, for unknown ids, and for a follower that has never been
// caught up (one outside the initial ISR that has not yet reached the leader).
func (s *State) LastCaughtUpMs(id int32) (int64, bool) {
	i, ok := s.follower(id)
	if !ok || !s.followers[i].caughtUp {
		return 0, false
	}
	return s.followers[i].lastCaughtUpMs, true
}

// FollowerLEO returns the follower's LEO as of its latest accepted Observe
// (the fetch offset it sent). ok is false for the leader, for unknown ids, and
// for a follower not observed since NewState.
func (s *State) FollowerLEO(id int32) (uint64, bool) {
	i, ok := s.follower(id)
	if !ok || !s.followers[i].observed {
		return 0, false
	}
	return s.leos[i].LEO, true
}

// ProposeHW is AdvanceHW over this State at nowMs: the leader's LEO, the
// followers' last observed LEOs and the maximal ISR. A follower counts as
// ReplicaLEO.CaughtUp when it has been observed, the time rule would keep it
// at nowMs (its last caught-up time is not older than nowMs - LagMaxMs, as
// in OutOfSync) and eligible(id) reports that its broker may join the ISR;
// eligible nil means every broker may. It proposes nothing while the
// committed ISR is under EffectiveMinISR (UnderMinISR). Like AdvanceHW it
// only proposes; the caller keeps the high watermark monotonic by accepting a
// proposal only when it is larger. An ISR follower not yet observed counts as
// LEO 0, so it holds the high watermark until its first fetch. It does not
// allocate.
func (s *State) ProposeHW(leaderLEO uint64, nowMs int64, eligible func(id int32) bool) (uint64, bool) {
	if s.UnderMinISR() {
		return 0, false
	}
	cutoff := saturatingSub(nowMs, s.lagMaxMs)
	for i := range s.leos {
		f := &s.followers[i]
		s.leos[i].CaughtUp = f.observed && f.caughtUpSince(cutoff) && (eligible == nil || eligible(f.id))
	}
	return AdvanceHW(leaderLEO, s.leos, s.maximal, s.EffectiveMinISR())
}

// Gate returns the acks=all gate for this partition at high watermark hw:
// the maximal ISR's size and EffectiveMinISR, the two numbers Kafka's
// checkEnoughReplicasReachOffset compares.
func (s *State) Gate(hw uint64) Gate {
	return Gate{HighWatermark: hw, ISRSize: len(s.maximal), MinISR: s.EffectiveMinISR()}
}
