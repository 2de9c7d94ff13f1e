package replica

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/wire"
)

// The chapter's two brokers and the partition they replicate.
const (
	// LeaderID is broker 1, the first leader, in root/broker-1/orders-0.
	LeaderID int32 = 1
	// FollowerID is broker 2, the first follower, in root/broker-2/orders-0.
	FollowerID int32 = 2
	// PartitionDir is the partition's directory under each broker's.
	PartitionDir = "orders-0"
)

// ClusterOptions configures OpenClusterWith. The zero value plus MinISR is
// the chapter's cluster.
type ClusterOptions struct {
	// MinISR is min.insync.replicas, at least 1.
	MinISR int
	// Replica configures both replicas.
	Replica Options
	// KeepEagerHighWatermark leaves both logs in single-replica mode, where
	// the high watermark follows the log end on every append. It exists to
	// show what the chapter's two lines in OpenCluster prevent: with it,
	// every round reports HW = LEO and the one-round lag cannot be seen.
	KeepEagerHighWatermark bool
}

// Cluster is the chapter's harness: a leader (id 1, root/broker-1/orders-0)
// and a follower (id 2, root/broker-2/orders-0) in one process, joined by an
// in-memory link of byte buffers and driven one round at a time by the
// caller, with the time handed in. Nothing in it runs by itself, so every
// run of the same calls gives the same results.
type Cluster struct {
	// leader and follower swap on FailOver; leader.Role() is RoleLeader and
	// follower.Role() is RoleFollower between calls.
	leader, follower *Replica
	link             *MemLink
	minISR           int
	// correlation numbers the requests sent over the link.
	correlation int32
}

// FetchReport is what one FetchOnce round did, as the demo's table prints
// it.
type FetchReport struct {
	LeaderID    int32  // the leader's broker id
	LeaderLEO   uint64 // the leader's log end offset after the round
	LeaderHW    uint64 // the leader's high watermark after the round
	FollowerID  int32  // the follower's broker id
	FollowerLEO uint64 // the follower's log end offset after the round
	FollowerHW  uint64 // the follower's high watermark after the round
	// RecordsShipped is how many records the response carried.
	RecordsShipped int
	// ResponseHW is the high watermark the leader put in the response.
	ResponseHW uint64
}

// OpenCluster opens the chapter's two-broker cluster under root at time
// nowMs: broker 1 leads at epoch 0, broker 2 follows, both in the ISR, and —
// the two lines the chapter exists to teach — both logs leave eager
// high-watermark mode, so the high watermark comes from the smallest LEO in
// the ISR instead of following each log's own end.
func OpenCluster(root string, minISR int, nowMs int64) (*Cluster, error) {
	return OpenClusterWith(root, ClusterOptions{MinISR: minISR}, nowMs)
}

// OpenClusterWith is OpenCluster with options.
func OpenClusterWith(root string, opts ClusterOptions, nowMs int64) (*Cluster, error) {
	leader, err := Open(LeaderID, brokerDir(root, LeaderID), opts.Replica)
	if err != nil {
		return nil, err
	}
	follower, err := Open(FollowerID, brokerDir(root, FollowerID), opts.Replica)
	if err != nil {
		return nil, errors.Join(err, leader.Close())
	}
	c := &Cluster{leader: leader, follower: follower, link: NewMemLink(), minISR: opts.MinISR}
	if !opts.KeepEagerHighWatermark {
		// With one replica the HW follows the log end. With two it must be
		// the smallest LEO in the ISR instead.
		leader.StopEagerHighWatermark()
		follower.StopEagerHighWatermark()
	}
	if err := c.elect(leader, follower, nowMs); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

func brokerDir(root string, id int32) string {
	return filepath.Join(root, fmt.Sprintf("broker-%d", id), PartitionDir)
}

// elect makes leader lead at the epoch after any either replica knows, with
// follower following it.
func (c *Cluster) elect(leader, follower *Replica, nowMs int64) error {
	next := max(leader.LeaderEpoch(), follower.LeaderEpoch()) + 1
	if err := leader.BecomeLeader(next, []int32{follower.ID()}, c.minISR, nowMs); err != nil {
		return err
	}
	if err := follower.BecomeFollower(leader.ID(), next); err != nil {
		return err
	}
	c.leader, c.follower = leader, follower
	return nil
}

// Leader returns the replica that leads now.
func (c *Cluster) Leader() *Replica { return c.leader }

// Follower returns the replica that follows now.
func (c *Cluster) Follower() *Replica { return c.follower }

// Link returns the in-memory link between the two brokers.
func (c *Cluster) Link() *MemLink { return c.link }

func (c *Cluster) nextCorrelation() int32 {
	c.correlation++
	return c.correlation
}

func (c *Cluster) serve(nowMs int64) func() error {
	return func() error { return c.leader.ServeOne(c.link.LeaderEnd(), nowMs) }
}

// Produce writes one record, value "m<n>" with timestamp nowMs, to the
// leader with the given acks (wire.AcksAll, wire.AcksLeader, wire.AcksNone)
// and returns its offset and the error code a producer would get. A refused
// write (wire.CodeNotEnoughReplicas before the append) writes nothing. The
// producer is in-process: it hands the leader the batch bytes directly.
func (c *Cluster) Produce(n uint64, acks int16, nowMs int64) (base uint64, code wire.ErrorCode, err error) {
	batch, err := log.AppendBatch(nil, &log.Batch{
		BaseTimestamp: nowMs,
		MaxTimestamp:  nowMs,
		ProducerID:    -1,
		ProducerEpoch: -1,
		BaseSequence:  -1,
		Records:       []log.Record{{Value: fmt.Appendf(nil, "m%d", n)}},
	})
	if err != nil {
		return 0, wire.CodeUnknownServerError, err
	}
	return c.leader.Produce(batch, acks, nowMs)
}

// FetchOnce runs one replication round at time nowMs: the follower sends a
// fetch carrying its id and its LEO; the leader learns the follower's LEO
// from that request, recomputes its high watermark, reads to its log end and
// answers with the records and the high watermark; the follower appends the
// records and only then raises its own high watermark to max(own, min(the
// response's, its LEO)). Every step crosses the link as a wire frame.
func (c *Cluster) FetchOnce(nowMs int64) (FetchReport, error) {
	resp, shipped, err := c.follower.Fetch(c.link.FollowerEnd(), c.nextCorrelation(), c.serve(nowMs))
	if err != nil {
		return FetchReport{}, err
	}
	return FetchReport{
		LeaderID:       c.leader.ID(),
		LeaderLEO:      c.leader.LEO(),
		LeaderHW:       c.leader.HighWatermark(),
		FollowerID:     c.follower.ID(),
		FollowerLEO:    c.follower.LEO(),
		FollowerHW:     c.follower.HighWatermark(),
		RecordsShipped: shipped,
		ResponseHW:     resp.HighWatermark,
	}, nil
}

// ShrinkISR applies the leader's time rule at nowMs and reports whether the
// ISR changed. It is the only step in the cluster that compares a clock with
// a cutoff, and it runs only when called: there is no timer.
func (c *Cluster) ShrinkISR(nowMs int64) (bool, error) {
	return c.leader.ShrinkISR(nowMs)
}

// ISR returns the leader's ISR state.
func (c *Cluster) ISR() *isr.State { return c.leader.ISR() }

// RestartReport describes a follower restart.
type RestartReport struct {
	// LEOBefore and HWBefore are the follower's before it went down.
	LEOBefore, HWBefore uint64
	// LEOAfter is its LEO once it truncated.
	LEOAfter uint64
	// Answer is the leader's first answer under TruncateByLeaderEpoch.
	Answer EpochAnswer
}

// RestartFollower restarts the follower's process (its files are closed and
// reopened, recovering from disk) and truncates its log by rule.
func (c *Cluster) RestartFollower(rule TruncationRule) (RestartReport, error) {
	f := c.follower
	rep := RestartReport{LEOBefore: f.LEO(), HWBefore: f.HighWatermark()}
	if err := f.Restart(); err != nil {
		return rep, err
	}
	answer, err := c.truncate(f, rule, 0)
	rep.Answer, rep.LEOAfter = answer, f.LEO()
	return rep, err
}

func (c *Cluster) truncate(f *Replica, rule TruncationRule, nowMs int64) (EpochAnswer, error) {
	switch rule {
	case TruncateToHighWatermark:
		return EpochAnswer{}, f.TruncateToHighWatermark()
	case TruncateByLeaderEpoch:
		return f.TruncateByLeaderEpoch(c.link.FollowerEnd(), c.nextCorrelation, c.serve(nowMs))
	}
	return EpochAnswer{}, fmt.Errorf("kaenlog/replica: unknown truncation rule %v", rule)
}

// FailOver is the leader's crash and the follower's election at nowMs: the
// follower becomes leader at the next epoch (its epoch cache gains the entry
// at its LEO, its high watermark stays where it was), and the old leader
// restarts from disk, becomes its follower and truncates by rule before it
// fetches.
//
// The election is clean, as Kafka's controller makes it by default: only a
// follower in the leader's ISR may be elected, since only an ISR member is
// known to hold every committed record. FailOver returns ErrUncleanElection,
// and changes nothing, when the follower was removed from the ISR or when
// the leader no longer has ISR state to consult (it was restarted and not
// made leader again).
func (c *Cluster) FailOver(rule TruncationRule, nowMs int64) error {
	oldLeader, newLeader := c.leader, c.follower
	if st := oldLeader.ISR(); st == nil || !st.InISR(newLeader.ID()) {
		return fmt.Errorf("%w: broker %d is not in broker %d's ISR", ErrUncleanElection, newLeader.ID(), oldLeader.ID())
	}
	if err := oldLeader.Restart(); err != nil {
		return err
	}
	if err := c.elect(newLeader, oldLeader, nowMs); err != nil {
		return err
	}
	_, err := c.truncate(oldLeader, rule, nowMs)
	return err
}

// Close closes both replicas.
func (c *Cluster) Close() error {
	var errs []error
	for _, r := range []*Replica{c.leader, c.follower} {
		if err := r.Close(); err != nil && !errors.Is(err, ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
