package replica

import (
	"fmt"

	"github.com/kaenlog/kaenlog/epoch"
	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/log"
)

// EpochCheckpointFile is the name of the leader-epoch checkpoint inside a
// partition directory, as in Kafka. The partition's log writes it.
const EpochCheckpointFile = "leader-epoch-checkpoint"

// DefaultMaxFetchBytes is the byte budget of a follower's fetch when
// Options.MaxFetchBytes is 0: Kafka's replica.fetch.max.bytes default.
const DefaultMaxFetchBytes = 1 << 20

// Role is what a replica currently does for its partition.
type Role uint8

const (
	// RoleFollower copies the leader's log by fetching. Every replica starts
	// as a follower until BecomeLeader.
	RoleFollower Role = iota
	// RoleLeader takes produce requests, serves fetches and owns the ISR
	// state and the high watermark.
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

// Options tunes a replica. The zero value is the chapter's configuration.
type Options struct {
	// Log configures the partition's segmented log.
	Log log.Options
	// LagMaxMs is replica.lag.time.max.ms for the ISR this replica keeps
	// while it leads; <= 0 means isr.DefaultLagMaxMs (30000).
	LagMaxMs int64
	// MaxFetchBytes is the byte budget of each fetch this replica sends as a
	// follower; 0 means DefaultMaxFetchBytes.
	MaxFetchBytes int32
}

// Replica is one broker's copy of one partition: its log, its leader-epoch
// cache, its role and, while it leads, the ISR state.
//
// A Replica is driven from one goroutine at a time (the caller serializes
// FetchOnce, Produce and role changes); its log may be read concurrently.
// It never reads a clock: every time is a nowMs argument.
type Replica struct {
	// id is the broker id: >= 0, the value a follower sends as ReplicaID.
	id   int32
	dir  string
	opts Options

	// closed is set by Close, and by a Restart that could not reopen the
	// files. log then keeps its last state for the getters, and every
	// operation returns ErrClosed. The log owns the leader-epoch cache.
	closed bool
	log    *log.Log
	// eager records whether the log still runs in single-replica mode, so a
	// restart reopens it the way it was.
	eager bool

	role Role
	// leaderID is the replica this one follows, or its own id while leading;
	// -1 before any role change.
	leaderID int32
	// leaderEpoch is the newest leader epoch this replica has been told of
	// (by BecomeLeader or BecomeFollower); -1 before any. It never decreases.
	leaderEpoch int32
	// isr is non-nil exactly while role == RoleLeader.
	isr *isr.State

	// io holds the buffers reused by every exchange, so a steady stream of
	// fetches does not allocate per record.
	io exchangeBuffers
}

// Open opens (or creates) the partition directory dir for broker id and
// recovers its log and leader-epoch checkpoint. The replica starts as a
// follower of nobody with the log in its default, eager-high-watermark mode;
// a replicated partition turns that off with Log().StopEagerHighWatermark.
func Open(id int32, dir string, opts Options) (*Replica, error) {
	if id < 0 {
		return nil, fmt.Errorf("kaenlog/replica: broker id %d: ids are >= 0 (-1 means a consumer)", id)
	}
	r := &Replica{id: id, dir: dir, opts: opts, eager: true, leaderID: -1, leaderEpoch: -1}
	if err := r.openStorage(); err != nil {
		return nil, err
	}
	if e, ok := r.log.LatestEpoch(); ok {
		r.leaderEpoch = e
	}
	return r, nil
}

func (r *Replica) openStorage() error {
	l, err := log.Open(r.dir, r.opts.Log)
	if err != nil {
		return fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
	}
	if !r.eager {
		l.StopEagerHighWatermark()
	}
	r.log, r.closed = l, false
	return nil
}

// ID returns the broker id.
func (r *Replica) ID() int32 { return r.id }

// Dir returns the partition directory.
func (r *Replica) Dir() string { return r.dir }

// Role returns what the replica does now.
func (r *Replica) Role() Role { return r.role }

// LeaderEpoch returns the newest leader epoch the replica knows, or -1.
func (r *Replica) LeaderEpoch() int32 { return r.leaderEpoch }

// Log returns the partition's log. Callers may read it; writes go through
// the replica so the epoch cache and the ISR stay consistent with it.
func (r *Replica) Log() *log.Log { return r.log }

// Epochs returns a copy of the leader-epoch cache, which the log owns.
func (r *Replica) Epochs() *epoch.Cache {
	c, err := epoch.FromEntries(r.log.EpochEntries())
	if err != nil {
		panic(err) // the log's entries are always a valid cache
	}
	return c
}

// ISR returns the leader's ISR state, or nil when the replica is a follower.
func (r *Replica) ISR() *isr.State { return r.isr }

// LEO returns the log end offset: the offset of the next record.
func (r *Replica) LEO() uint64 { return r.log.EndOffset() }

// HighWatermark returns the replica's high watermark: the leader's own when
// it leads, the one learned from fetch responses when it follows.
func (r *Replica) HighWatermark() uint64 { return r.log.HighWatermark() }

// StopEagerHighWatermark switches the log out of single-replica mode, for
// good: from now on only the replication rules move the high watermark. It
// is the line the chapter exists to teach.
func (r *Replica) StopEagerHighWatermark() {
	r.eager = false
	r.log.StopEagerHighWatermark()
}

// BecomeLeader makes the replica the leader at leaderEpoch with the given
// followers, all in the ISR, at time nowMs. The epoch cache gains the entry
// (leaderEpoch, LEO), as Kafka's become-leader does. The high watermark keeps
// its value: the new ISR state counts every follower at LEO 0 until it
// fetches, and the leader only ever accepts a larger proposal, so the high
// watermark never moves backwards across an election.
func (r *Replica) BecomeLeader(leaderEpoch int32, followers []int32, minISR int, nowMs int64) error {
	if r.closed {
		return ErrClosed
	}
	if leaderEpoch < 0 || leaderEpoch < r.leaderEpoch || (leaderEpoch == r.leaderEpoch && r.role == RoleLeader) {
		return fmt.Errorf("%w: broker %d knows epoch %d, asked to lead at %d", ErrStaleEpoch, r.id, r.leaderEpoch, leaderEpoch)
	}
	ids := append([]int32{r.id}, followers...)
	st, err := isr.NewState(isr.Config{LeaderID: r.id, Replicas: ids, ISR: ids, MinISR: minISR, LagMaxMs: r.opts.LagMaxMs}, nowMs)
	if err != nil {
		return fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
	}
	if err := r.log.AssignEpoch(leaderEpoch); err != nil {
		return fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
	}
	r.role, r.leaderID, r.leaderEpoch, r.isr = RoleLeader, r.id, leaderEpoch, st
	return r.advanceLeaderHW()
}

// BecomeFollower makes the replica a follower of leaderID at leaderEpoch.
// It does not truncate: call TruncateByLeaderEpoch (or, for the pre-KIP-101
// rule, TruncateToHighWatermark) before fetching.
func (r *Replica) BecomeFollower(leaderID int32, leaderEpoch int32) error {
	if r.closed {
		return ErrClosed
	}
	if leaderEpoch < 0 || leaderEpoch < r.leaderEpoch {
		return fmt.Errorf("%w: broker %d knows epoch %d, asked to follow at %d", ErrStaleEpoch, r.id, r.leaderEpoch, leaderEpoch)
	}
	r.role, r.leaderID, r.leaderEpoch, r.isr = RoleFollower, leaderID, leaderEpoch, nil
	return nil
}

// Restart closes the replica's files and opens them again from disk, as a
// broker process that crashed and came back would: the log recovers its
// tail, the high watermark and the epoch cache come back from their
// checkpoints. The role is kept; a leader's ISR state is not (it lives in
// memory only), so a restarted leader must be made leader again.
func (r *Replica) Restart() error {
	if r.closed {
		return ErrClosed
	}
	err := r.closeStorage()
	r.isr = nil
	if r.role == RoleLeader {
		r.role = RoleFollower
	}
	if err != nil {
		return err
	}
	return r.openStorage()
}

// Close checkpoints and closes the replica's files. Later calls return
// ErrClosed.
func (r *Replica) Close() error {
	if r.closed {
		return ErrClosed
	}
	return r.closeStorage()
}

func (r *Replica) closeStorage() error {
	err := r.log.Close()
	r.closed = true
	if err != nil {
		return fmt.Errorf("kaenlog/replica: broker %d: %w", r.id, err)
	}
	return nil
}
