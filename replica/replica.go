package replica

import (
	"fmt"
	"slices"

	"github.com/kaenlog/kaenlog/epoch"
	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/log"
)

// Defaults for Options fields left zero.
const (
	// DefaultMaxFetchBytes is a follower's per-partition fetch budget:
	// Kafka's replica.fetch.max.bytes default.
	DefaultMaxFetchBytes = 1 << 20
	// DefaultFetchBackoffMs is how long a follower waits after a refused
	// fetch before the next one: Kafka's replica.fetch.backoff.ms.
	DefaultFetchBackoffMs = 1000
	// DefaultAlterPartitionRetryMs is how long a leader waits for the
	// controller's answer to an ISR proposal before sending it again.
	DefaultAlterPartitionRetryMs = 5000
)

// Role is what a replica currently does for its partition.
type Role uint8

const (
	// RoleFollower copies the leader's log by fetching. A replica starts as
	// a follower of nobody until the controller's state names a leader.
	RoleFollower Role = iota
	// RoleLeader takes produce requests, serves fetches, proposes ISR
	// changes to the controller and owns the high watermark.
	RoleLeader
)

// String returns "follower" or "leader", the words the demo prints.
func (r Role) String() string {
	switch r {
	case RoleFollower:
		return "follower"
	case RoleLeader:
		return "leader"
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// Brokers is what a leader knows of the other brokers from the
// controller's metadata: their current broker epochs and whether they may
// join an ISR. A nil Brokers in Options trusts every assigned replica.
type Brokers interface {
	// BrokerEpoch returns the broker's registered epoch; ok is false for a
	// broker the metadata does not know.
	BrokerEpoch(id int32) (epoch int64, ok bool)
	// ISREligible reports whether the broker may join an ISR now: it is
	// registered, unfenced and not shutting down (Kafka's
	// isReplicaIsrEligible).
	ISREligible(id int32) bool
}

// Options tunes a replica. The zero value is Kafka's defaults.
type Options struct {
	// Log configures the partition's segmented log.
	Log log.Options
	// LagMaxMs is replica.lag.time.max.ms for the ISR this replica keeps
	// while it leads; <= 0 means isr.DefaultLagMaxMs (30000). The leader
	// checks it every LagMaxMs/2, as Kafka's isr-expiration task does.
	LagMaxMs int64
	// MaxFetchBytes is the per-partition byte budget of this follower's
	// fetches; 0 means DefaultMaxFetchBytes.
	MaxFetchBytes int32
	// FetchBackoffMs is how long a follower waits after a refused fetch;
	// 0 means DefaultFetchBackoffMs.
	FetchBackoffMs int64
	// AlterPartitionRetryMs is how long a leader waits for the controller
	// to answer an ISR proposal before sending it again; 0 means
	// DefaultAlterPartitionRetryMs.
	AlterPartitionRetryMs int64
	// Truncation is how this replica, as a follower, finds where its log
	// may disagree with the leader's. The zero value is TruncateOnFetch.
	Truncation TruncationRule
	// Brokers tells a leader which replicas may join its ISR and which
	// broker epochs are current; nil trusts every assigned replica.
	Brokers Brokers
	// ProducerExpirationCheckMs is how often Tick asks the log to forget
	// producers older than Log.ProducerIDExpirationMs (Kafka's
	// producer.id.expiration.check.interval.ms); 0 means
	// DefaultProducerExpirationCheckMs.
	ProducerExpirationCheckMs int64
}

func (o Options) lagMaxMs() int64 {
	if o.LagMaxMs <= 0 {
		return isr.DefaultLagMaxMs
	}
	return o.LagMaxMs
}

func (o Options) fetchBackoffMs() int64 {
	if o.FetchBackoffMs <= 0 {
		return DefaultFetchBackoffMs
	}
	return o.FetchBackoffMs
}

func (o Options) alterRetryMs() int64 {
	if o.AlterPartitionRetryMs <= 0 {
		return DefaultAlterPartitionRetryMs
	}
	return o.AlterPartitionRetryMs
}

// PartitionState is what the controller published for one partition: who
// leads, under which epochs, with which replicas and ISR. A replica takes
// its role from it and nothing else; in particular a new leader's ISR is
// the controller's, never "everyone".
type PartitionState struct {
	// Leader is the leader's broker id, or -1 when the partition has none.
	Leader int32
	// LeaderEpoch is bumped by the controller at every change of leader.
	LeaderEpoch int32
	// PartitionEpoch is bumped by the controller at every change of the
	// partition's state (leader, ISR, ELR).
	PartitionEpoch int32
	// Replicas are the assigned replicas, in assignment order.
	Replicas []int32
	// ISR is the committed ISR.
	ISR []int32
	// MinISR is the topic's min.insync.replicas.
	MinISR int
}

// Replica is one broker's copy of one partition: its log (with the
// leader-epoch cache beside it), its role and epochs, and — while it leads —
// the ISR state, the ISR change in flight to the controller and the
// acks=all produces parked until the high watermark passes them.
//
// A Replica is a state machine: requests and responses go in as Go values
// with the time, answers and messages to send come out, and nothing inside
// reads a clock, starts a goroutine or touches a network. It is not safe for
// concurrent use: the caller serializes every call (a broker holds one lock
// per partition); its log may be read concurrently.
type Replica struct {
	// id is the broker id: >= 0, the value a follower sends as ReplicaID.
	id   int32
	dir  string
	opts Options

	// closed is set by Close; every operation then returns ErrClosed.
	closed bool
	// log is the partition's log, which owns the leader-epoch cache too
	// (as Kafka's UnifiedLog does): every append assigns the epochs of its
	// batches, every truncation truncates the cache with the log.
	log *log.Log

	role Role
	// leaderID is the leader this replica follows, its own id while it
	// leads, or -1 before the controller named one.
	leaderID int32
	// leaderEpoch and partitionEpoch are the newest the replica applied;
	// -1 before any. They never decrease.
	leaderEpoch, partitionEpoch int32
	replicas                    []int32

	lead   leaderState   // meaningful while role == RoleLeader
	follow followerState // meaningful while role == RoleFollower

	// nextExpiryMs is when Tick next asks the log to forget expired
	// producers (expireProducers).
	nextExpiryMs int64
}

// Open opens (or creates) the partition directory dir for broker id and
// recovers its log and leader-epoch cache. The replica starts as a follower
// of nobody. Its log never runs in single-replica high-watermark mode: the
// chapter's two lines are unconditional here, because a replica's high
// watermark always comes from the replication rules (with the leader as the
// ISR's only member they give the log end, as they should).
func Open(id int32, dir string, opts Options) (*Replica, error) {
	if id < 0 {
		return nil, fmt.Errorf("replica: broker id %d: ids are >= 0 (-1 means a consumer): %w", id, ErrInvalidState)
	}
	r := &Replica{id: id, dir: dir, opts: opts, leaderID: -1, leaderEpoch: -1, partitionEpoch: -1}
	l, err := log.Open(dir, opts.Log)
	if err != nil {
		return nil, fmt.Errorf("replica: broker %d: %w", id, storageError(err))
	}
	l.StopEagerHighWatermark()
	r.log = l
	if e, ok := l.LatestEpoch(); ok {
		r.leaderEpoch = e
	}
	return r, nil
}

// ID returns the broker id.
func (r *Replica) ID() int32 { return r.id }

// Dir returns the partition directory.
func (r *Replica) Dir() string { return r.dir }

// Role returns what the replica does now.
func (r *Replica) Role() Role { return r.role }

// LeaderID returns the leader this replica follows, its own id while it
// leads, or -1 when it knows of none.
func (r *Replica) LeaderID() int32 { return r.leaderID }

// LeaderEpoch returns the newest leader epoch the replica applied, or -1.
func (r *Replica) LeaderEpoch() int32 { return r.leaderEpoch }

// PartitionEpoch returns the newest partition epoch the replica applied, or
// -1.
func (r *Replica) PartitionEpoch() int32 { return r.partitionEpoch }

// Log returns the partition's log. Callers may read it; writes go through
// the replica so the epoch cache and the ISR stay consistent with it.
func (r *Replica) Log() *log.Log { return r.log }

// Epochs returns the leader-epoch entries, oldest first (a copy).
func (r *Replica) Epochs() []epoch.Entry { return r.log.EpochEntries() }

// EndOffsetForEpoch answers "where does epoch e end on this log?" with the
// chapter's <= rule (epoch.EndOffsetForEpoch) over this replica's cache.
func (r *Replica) EndOffsetForEpoch(e int32) (int32, uint64, bool) {
	return r.log.EndOffsetForEpoch(e)
}

// Recovery returns what opening the log found and did (see
// log.RecoveryReport). A broker reads LostFlushedData and
// HighWatermarkClamped from it to tell the controller it lost data.
func (r *Replica) Recovery() log.RecoveryReport { return r.log.Recovery() }

// ISR returns the committed ISR while the replica leads, or nil.
func (r *Replica) ISR() []int32 {
	if r.role != RoleLeader {
		return nil
	}
	return r.lead.isr.ISR()
}

// ISRState returns the leader's ISR bookkeeping (read it, do not change
// it), or nil when the replica does not lead.
func (r *Replica) ISRState() *isr.State {
	if r.role != RoleLeader {
		return nil
	}
	return r.lead.isr
}

// LEO returns the log end offset: the offset of the next record.
func (r *Replica) LEO() uint64 { return r.log.EndOffset() }

// HighWatermark returns the replica's high watermark: the leader's own when
// it leads, the one learned from fetch responses when it follows.
func (r *Replica) HighWatermark() uint64 { return r.log.HighWatermark() }

// BecomeLeader applies a partition state naming this broker the leader, at
// time nowMs, as Kafka's Partition.makeLeader:
//
//   - a state older than the replica's (lower leader epoch, or the same with
//     a lower partition epoch) is refused with ErrStaleEpoch;
//   - a new leader epoch: the epoch cache gains (leaderEpoch, LEO) before
//     any write, and the ISR is the controller's ISR. A replica that was
//     not leading starts every follower's fetch state afresh (unknown LEO);
//     one re-elected, already leading, keeps each follower's last known LEO
//     and broker epoch, which it learned from fetches of this very log, and
//     restarts only their fetch times (isr.State.Reelect, Kafka's
//     resetReplicaState with isNewLeader false). Produces parked under the
//     earlier epoch end with NOT_LEADER_OR_FOLLOWER (Kafka keeps them
//     parked across a re-election; kaenlog answers them, and a producer's
//     retry finds its batch already written);
//   - the same leader epoch with a newer (or the same) partition epoch: the
//     controller changed the partition's state (perhaps this leader's own
//     proposal, perhaps its own decision): the leader adopts its replicas
//     and ISR (isr.State.UpdateAssignment, Kafka's updateAssignmentAndIsr):
//     a replica added gets fresh follower state and may fetch at once, one
//     removed is forgotten, the others keep theirs.
//
// Either way the proposal pending ends, but a request sent for it stays in
// flight until answered (see ApplyAlterPartition), and nothing new is
// proposed meanwhile. The high watermark never moves backwards across an
// election.
func (r *Replica) BecomeLeader(st PartitionState, nowMs int64) error {
	if r.closed {
		return ErrClosed
	}
	if st.Leader != r.id {
		return fmt.Errorf("replica: broker %d told to lead a partition led by %d: %w", r.id, st.Leader, ErrInvalidState)
	}
	if err := r.checkNewer(st); err != nil {
		return err
	}
	if r.role != RoleLeader || st.LeaderEpoch > r.leaderEpoch {
		cfg := isr.Config{LeaderID: r.id, Replicas: st.Replicas, ISR: st.ISR, MinISR: st.MinISR, LagMaxMs: r.opts.LagMaxMs}
		reelected, epochStart := r.role == RoleLeader, r.log.EndOffset()
		var state *isr.State
		var err error
		if reelected {
			state, err = r.lead.isr.Reelect(cfg, epochStart, nowMs)
		} else {
			state, err = isr.NewState(cfg, nowMs)
		}
		if err != nil {
			return fmt.Errorf("replica: broker %d: %w: %w", r.id, ErrInvalidState, err)
		}
		if err := r.log.AssignEpoch(st.LeaderEpoch); err != nil {
			return fmt.Errorf("replica: broker %d: %w", r.id, storageError(err))
		}
		r.failParked(ErrNotLeader)
		lead := leaderState{
			isr:          state,
			epochStart:   epochStart,
			nextShrinkMs: nowMs + r.opts.lagMaxMs()/2,
			parked:       r.lead.parked, // failed above; kept for their outcomes
			done:         r.lead.done,
		}
		if reelected {
			lead.fetchEpochs = r.lead.fetchEpochs
			lead.alter = r.lead.alter
			lead.alter.supersede()
		}
		r.lead = lead
		r.follow = followerState{}
	} else if err := r.lead.isr.UpdateAssignment(st.Replicas, st.ISR, nowMs); err != nil {
		return fmt.Errorf("replica: broker %d: %w: %w", r.id, ErrInvalidState, err)
	} else {
		r.lead.alter.supersede()
	}
	r.role, r.leaderID = RoleLeader, r.id
	r.leaderEpoch, r.partitionEpoch, r.replicas = st.LeaderEpoch, st.PartitionEpoch, slices.Clone(st.Replicas)
	return r.leaderStateChanged(nowMs)
}

// BecomeFollower applies a partition state naming another broker the leader
// (or none, Leader -1), at time nowMs. A state older than the replica's is
// refused with ErrStaleEpoch. On a new leader epoch — KAFKA-7164: even when
// the leader is the same broker — the follower must reconcile its log with
// the leader's before it fetches again, by its TruncationRule; produces
// parked while it led end with NOT_LEADER_OR_FOLLOWER. BecomeFollower
// itself truncates only under TruncateToHighWatermark, the pre-KIP-101 rule.
func (r *Replica) BecomeFollower(st PartitionState, nowMs int64) error {
	if r.closed {
		return ErrClosed
	}
	if st.Leader == r.id {
		return fmt.Errorf("replica: broker %d told to follow itself: %w", r.id, ErrInvalidState)
	}
	if err := r.checkNewer(st); err != nil {
		return err
	}
	newEpoch := r.role != RoleFollower || st.LeaderEpoch > r.leaderEpoch || st.Leader != r.leaderID
	if newEpoch {
		r.failParked(ErrNotLeader)
		r.lead = leaderState{done: r.lead.done}
		r.follow = followerState{}
	}
	r.role, r.leaderID = RoleFollower, st.Leader
	r.leaderEpoch, r.partitionEpoch, r.replicas = st.LeaderEpoch, st.PartitionEpoch, slices.Clone(st.Replicas)
	if newEpoch {
		return r.startTruncation()
	}
	return nil
}

// resign makes a leading replica leaderless in its own view, at the
// epochs it holds, without the controller's word (Broker.stepDown): it
// stops leading as BecomeFollower stops it (parked produces end with
// NOT_LEADER_OR_FOLLOWER), but its log is not touched; the partition state
// that next names a leader reconciles it, by the TruncationRule, or makes
// it lead again.
func (r *Replica) resign() {
	if r.closed || r.role != RoleLeader {
		return
	}
	r.failParked(ErrNotLeader)
	r.lead = leaderState{done: r.lead.done}
	r.follow = followerState{}
	r.role, r.leaderID = RoleFollower, -1
}

// Truncating reports whether this follower must still find, with epoch
// questions (TruncateByLeaderEpoch), where its log parts from the leader's
// before it fetches.
func (r *Replica) Truncating() bool { return r.role == RoleFollower && r.follow.truncating }

// checkNewer refuses a partition state older than the one applied, and a
// change of leader that does not raise the leader epoch.
func (r *Replica) checkNewer(st PartitionState) error {
	switch {
	case st.LeaderEpoch < 0 || st.PartitionEpoch < 0:
		return fmt.Errorf("replica: broker %d: negative epochs in %+v: %w", r.id, st, ErrInvalidState)
	case st.LeaderEpoch < r.leaderEpoch,
		st.LeaderEpoch == r.leaderEpoch && st.PartitionEpoch < r.partitionEpoch:
		return fmt.Errorf("replica: broker %d is at leader epoch %d, partition epoch %d; refused %d, %d: %w",
			r.id, r.leaderEpoch, r.partitionEpoch, st.LeaderEpoch, st.PartitionEpoch, ErrStaleEpoch)
	case st.LeaderEpoch == r.leaderEpoch && r.leaderID >= 0 && st.Leader != r.leaderID:
		return fmt.Errorf("replica: broker %d: leader %d at epoch %d, told %d at the same epoch: %w",
			r.id, r.leaderID, r.leaderEpoch, st.Leader, ErrStaleEpoch)
	}
	return nil
}

// Close closes the replica's files cleanly. Produces still parked end with
// NOT_LEADER_OR_FOLLOWER (collect them with TakeProduceOutcomes). Later
// calls return ErrClosed.
func (r *Replica) Close() error {
	if r.closed {
		return ErrClosed
	}
	r.failParked(ErrClosed)
	r.closed = true
	if err := r.log.Close(); err != nil {
		return fmt.Errorf("replica: broker %d: %w", r.id, storageError(err))
	}
	return nil
}

// abandon releases the replica's files the way a dying process does,
// writing nothing.
func (r *Replica) abandon() {
	if r.closed {
		return
	}
	r.closed = true
	r.log.Abandon()
}
