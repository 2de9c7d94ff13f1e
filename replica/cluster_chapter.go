package replica

import (
	"errors"
	"fmt"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/wire"
)

// This file is the chapter's harness on top of the Cluster: two brokers, one
// partition, one round at a time, the calls the chapter's demo makes.

// chapterTopic is the chapter's partition: orders-0, replicated on brokers
// 1 and 2, broker 1 its first leader.
var chapterTopic = TopicPartition{Topic: "orders", Partition: 0}

// ChapterCluster is the chapter's cluster: brokers 1 and 2 and the controller,
// partition orders-0 on both, broker 1 leading at epoch 0. Its data lives
// under root/broker-1/orders-0 and root/broker-2/orders-0. Every step is a
// call with the time handed in, so every run of the same calls prints the
// same numbers.
type ChapterCluster struct {
	*Cluster
	// lastFetch is what the follower received in the last FetchOnce.
	lastFetch *wire.FetchPartitionResponse
	// lastAnswer is the first epoch answer the follower received after a
	// restart.
	lastAnswer *wire.OffsetsForLeaderEpochPartitionResponse
	asked      int32
	// produced numbers the chapter producer's writes.
	produced uint64
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

// OpenChapterCluster opens the chapter's cluster under root at time nowMs with
// min.insync.replicas minISR. Both replicas' logs leave single-replica
// high-watermark mode — the chapter's two lines, which every Replica obeys
// — so the high watermark comes from the smallest LEO in the ISR instead of
// following each log's own end.
func OpenChapterCluster(root string, minISR int, nowMs int64) (*ChapterCluster, error) {
	c, err := OpenCluster(ClusterConfig{
		Dir:     root,
		Brokers: []int32{1, 2},
		StartMs: nowMs,
	})
	if err != nil {
		return nil, err
	}
	h := &ChapterCluster{Cluster: c}
	c.watch = h.watch
	if err := c.CreateTopic(chapterTopic.Topic, 1, 2, int32(minISR), [][]int32{{1, 2}}); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return h, nil
}

// watch keeps what the chapter's reports print.
func (h *ChapterCluster) watch(env Envelope) {
	switch m := env.Msg.(type) {
	case *wire.FetchResponse:
		if env.From.Kind == BrokerAddr {
			for i := range m.Partitions {
				if p := &m.Partitions[i]; p.Topic == chapterTopic.Topic && p.Partition == chapterTopic.Partition {
					h.lastFetch = p
				}
			}
		}
	case *wire.OffsetsForLeaderEpochRequest:
		if h.lastAnswer == nil && len(m.Partitions) == 1 {
			h.asked = m.Partitions[0].LeaderEpoch
		}
	case *wire.OffsetsForLeaderEpochResponse:
		if h.lastAnswer == nil && len(m.Partitions) == 1 {
			h.lastAnswer = &m.Partitions[0]
		}
	}
}

// leaderID and followerID are the brokers leading and following orders-0.
func (h *ChapterCluster) leaderID() int32 { return h.Cluster.LeaderOf(chapterTopic) }

func (h *ChapterCluster) followerID() int32 {
	if h.leaderID() == 1 {
		return 2
	}
	return 1
}

// Leader returns the replica of orders-0 that leads now.
func (h *ChapterCluster) Leader() *Replica {
	r, _ := h.Replica(h.leaderID(), chapterTopic)
	return r
}

// Follower returns the replica of orders-0 that follows now.
func (h *ChapterCluster) Follower() *Replica {
	r, _ := h.Replica(h.followerID(), chapterTopic)
	return r
}

// ISRState returns the leader's ISR bookkeeping.
func (h *ChapterCluster) ISRState() *isr.State { return h.Leader().ISRState() }

// Produce writes one record, value "m<n>" with timestamp nowMs, as the
// chapter's in-process producer does: it hands the leader the batch bytes
// directly, with acks (wire.AcksAll, AcksLeader, AcksNone). It returns what
// Replica.Produce returns: an acks=all write comes back parked until the high
// watermark passes it (AckVerdict tells), a refusal is the error.
func (h *ChapterCluster) Produce(n uint64, acks int16, nowMs int64) (res ProduceResult, parked bool, err error) {
	h.AdvanceTo(nowMs)
	batch, err := log.AppendBatch(nil, &log.Batch{
		BaseTimestamp: nowMs, MaxTimestamp: nowMs,
		ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		Records: []log.Record{{Value: fmt.Appendf(nil, "m%d", n)}},
	})
	if err != nil {
		return ProduceResult{}, false, err
	}
	h.produced++
	res, parked, err = h.Leader().Produce(h.produced, batch, acks, 30_000, h.NowMs())
	h.Run()
	return res, parked, err
}

// FetchOnce runs one replication round at time nowMs: the follower sends a
// fetch carrying its id and its LEO; the leader learns the follower's LEO
// from that request, recomputes its high watermark, reads to its log end and
// answers with the records and the high watermark; the follower appends the
// records and only then raises its own high watermark to max(own, min(the
// response's, its LEO)). Both messages cross the network as wire bytes.
func (h *ChapterCluster) FetchOnce(nowMs int64) (FetchReport, error) {
	h.AdvanceTo(nowMs)
	h.lastFetch = nil
	h.FetchRound()
	if h.lastFetch == nil {
		return FetchReport{}, fmt.Errorf("replica: chapter: the follower got no fetch response")
	}
	if err := h.lastFetch.ErrorCode.Err(); err != nil {
		return FetchReport{}, fmt.Errorf("replica: chapter: fetch refused: %w", err)
	}
	shipped, err := log.CountRecords(h.lastFetch.Records)
	if err != nil {
		return FetchReport{}, err
	}
	l, f := h.Leader(), h.Follower()
	return FetchReport{
		LeaderID: l.ID(), LeaderLEO: l.LEO(), LeaderHW: l.HighWatermark(),
		FollowerID: f.ID(), FollowerLEO: f.LEO(), FollowerHW: f.HighWatermark(),
		RecordsShipped: shipped, ResponseHW: h.lastFetch.HighWatermark,
	}, nil
}

// ShrinkISR applies the leader's time rule at nowMs and reports whether the
// ISR changed: the leader proposes the removal to the controller, which
// commits it, and the leader adopts the committed ISR — the AlterPartition
// round trip, run to its end.
func (h *ChapterCluster) ShrinkISR(nowMs int64) (bool, error) {
	h.AdvanceTo(nowMs)
	l := h.Leader()
	before := l.ISR()
	l.CheckISR(nowMs)
	if b := h.Broker(l.ID()); b != nil {
		b.collect(nowMs)
		h.flush(b)
	}
	err := h.Await(func() bool {
		_, inFlight := l.ISRState().InFlight()
		return !inFlight
	}, 10_000)
	return len(l.ISR()) != len(before), err
}

// RestartReport describes a follower restart.
type RestartReport struct {
	// LEOBefore and HWBefore are the follower's before it went down.
	LEOBefore, HWBefore uint64
	// LEOAfter is its LEO once it truncated.
	LEOAfter uint64
	// Asked is the epoch the follower asked about, and Answer the
	// leader's answer, under TruncateByLeaderEpoch (Found false otherwise).
	Asked  int32
	Answer wire.OffsetsForLeaderEpochPartitionResponse // the leader's answer
}

// RestartFollower restarts the follower's replica of orders-0 from its
// files with rule: it recovers its log from disk,
// takes its follower role from the metadata again and truncates by rule,
// before it fetches anything. Its broker stays registered, so it keeps its
// place in the ISR, as in the chapter, whose brokers have no controller to
// notice a restart. (A broker that restarts whole leaves the ISR until it
// has caught up: see Cluster.StopBroker and StartBroker.)
func (h *ChapterCluster) RestartFollower(rule TruncationRule) (RestartReport, error) {
	id := h.followerID()
	f := h.Follower()
	rep := RestartReport{LEOBefore: f.LEO(), HWBefore: f.HighWatermark()}
	h.lastAnswer = nil
	if err := h.Broker(id).restartReplica(chapterTopic, rule, h.NowMs()); err != nil {
		return rep, err
	}
	h.flush(h.Broker(id))
	if err := h.rejoin(id); err != nil {
		return rep, err
	}
	rep.LEOAfter = h.Follower().LEO()
	if a := h.lastAnswer; a != nil {
		rep.Asked, rep.Answer = h.asked, *a
	}
	return rep, nil
}

// rejoin waits until broker id follows orders-0 again, then runs epoch
// rounds until its truncation is done.
func (h *ChapterCluster) rejoin(id int32) error {
	if err := h.Await(func() bool {
		r, ok := h.Replica(id, chapterTopic)
		return ok && r.Role() == RoleFollower && r.LeaderID() == h.leaderID() && r.LeaderEpoch() >= 0
	}, 30_000); err != nil {
		return err
	}
	r, _ := h.Replica(id, chapterTopic)
	for range 16 {
		if !r.Truncating() {
			return nil
		}
		h.Broker(id).FetchRound(h.NowMs())
		h.flush(h.Broker(id))
		h.Run()
	}
	return fmt.Errorf("replica: chapter: broker %d did not finish truncating", id)
}

// FailOver is the leader's crash and the follower's election: the leader's
// broker dies, the controller notices when its session expires and elects
// the follower at the next epoch — only if it is in the ISR, the only
// replicas known to hold every committed record — and the old leader's
// broker restarts from disk with rule, becomes the new leader's follower and
// truncates by rule before it fetches. nowMs is when the crash happens.
//
// It returns ErrUncleanElection, electing nobody, when the follower was not
// in the ISR: the controller elects only ISR members unless unclean
// election is enabled.
func (h *ChapterCluster) FailOver(rule TruncationRule, nowMs int64) error {
	h.AdvanceTo(nowMs)
	old := h.leaderID()
	next := h.followerID()
	epoch := h.Leader().LeaderEpoch()
	if err := h.CrashBroker(old, vfs.KeepUnsynced); err != nil {
		return err
	}
	session := h.cfg.Controller.SessionTimeoutMs
	if session <= 0 {
		session = controller.DefaultSessionTimeoutMs
	}
	if err := h.Await(func() bool {
		p, _ := h.Controller().Image().Partition(chapterTopic.Topic, chapterTopic.Partition)
		return p.LeaderEpoch > epoch
	}, 3*session); err != nil {
		return err
	}
	if h.leaderID() != next {
		return fmt.Errorf("replica: chapter: broker %d is not in the ISR: %w", next, ErrUncleanElection)
	}
	if err := h.Await(func() bool {
		r, ok := h.Replica(next, chapterTopic)
		return ok && r.Role() == RoleLeader
	}, 30_000); err != nil {
		return err
	}
	h.cfg.Broker.Replica.Truncation = rule
	if err := h.StartBroker(old); err != nil {
		return err
	}
	return h.rejoin(old)
}

// ErrUncleanElection is returned by FailOver when the follower is not in
// the ISR: electing it could lose committed records, and the controller
// elects only ISR members (unclean.leader.election.enable is false). It
// wraps wire.ErrEligibleLeadersNotAvailable.
var ErrUncleanElection = fmt.Errorf("replica: no eligible leader; electing a replica outside the ISR could lose committed records: %w", wire.ErrEligibleLeadersNotAvailable)
