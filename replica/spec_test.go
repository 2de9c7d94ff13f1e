package replica_test

// The spec, in order: the rules of chapter 8 (the kaen-log course's
// replication chapter, "การทำสำเนา"), then the KIPs it leans on — 101,
// 279, 320, 966 — each test the primary statement of its rule and citing
// its section. A learner reads this file top to bottom to find each rule's
// test; the rules whose tests live in another package (the pure halves:
// isr, epoch, log, the controller) are named in specElsewhere, which
// TestSpecNamesOnlyTestsThatExist keeps true.
//
//   §1 A follower is a consumer that carries a replica id: it reads to the
//      log end, a consumer stops at the high watermark.
//   §2 The LEO and the high watermark are two numbers; the ISR shrinks on
//      the timer; min.insync.replicas and acks=all.
//   §3 The leader epoch replaces truncation to the high watermark
//      (KIP-101), and the lookup is "largest epoch <= asked" (KIP-279).
//   §4 KRaft is drawn, not built: the controller elects (KIP-966's ELR
//      and the unclean-shutdown rule).
//   §5 What the capstone refuses to claim: examples/ and replica/sim.
//   KIP-320: fetches carry the leader epoch, and stale ones are fenced.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// ----------------------------------------------------------------------
// Chapter 8 §1, "ผู้ตามคือผู้บริโภคที่พก replica id มาด้วย": a follower
// is a consumer that carries a replica id. The fetch is one request; only
// how far it may read differs.

// The chapter's a_follower_reads_to_the_log_end_and_a_consumer_stops_at_the_high_watermark,
// ported: a fetch with a replica id (>= 0) reads to the log end, one
// without (any negative id) stops at the high watermark.
//
// Spec: §1.
func TestAFollowerReadsToTheLogEndAndAConsumerStopsAtTheHighWatermark(t *testing.T) {
	for _, tc := range []struct {
		replicaID int32
		want      log.Isolation
	}{
		{2, log.IsolationLogEnd},
		{0, log.IsolationLogEnd},
		{wire.ConsumerReplicaID, log.IsolationHighWatermark},
		{-2, log.IsolationHighWatermark},
	} {
		if got := replica.IsolationOf(tc.replicaID); got != tc.want {
			t.Errorf("IsolationOf(%d) = %v, want %v", tc.replicaID, got, tc.want)
		}
	}
}

// ----------------------------------------------------------------------
// Chapter 8 §2, "LEO กับ high watermark เป็นเลขคนละตัว": the log end and
// the high watermark are two numbers. The HW is the smallest LEO of the
// ISR, it lags the LEO by one fetch round trip, acks=all waits for it, and
// the ISR shrinks on the timer through the controller and grows back by
// expansion; under min.insync.replicas acks=all is refused before the
// append.

// The chapter's hw_lags_one_round_trip, ported: the first of its two gates.
//
// Spec: §2.
func TestChapterHWLagsOneRoundTrip(t *testing.T) {
	c := openChapter(t, 2)
	if _, _, err := c.Produce(0, wire.AcksLeader, t0); err != nil {
		t.Fatal(err)
	}
	if l := c.Leader(); l.ID() != 1 || l.LEO() != 1 || l.HighWatermark() != 0 || l.LeaderEpoch() != 0 {
		t.Fatalf("after produce: leader %d at epoch %d (LEO, HW) = (%d, %d), want broker 1 at 0, (1, 0)", l.ID(), l.LeaderEpoch(), l.LEO(), l.HighWatermark())
	}
	first, err := c.FetchOnce(t0)
	if err != nil {
		t.Fatal(err)
	}
	if first.FollowerLEO != 1 || first.FollowerHW != 0 || first.RecordsShipped != 1 || c.Leader().HighWatermark() != 0 {
		t.Fatalf("round 1: %+v, leader HW %d", first, c.Leader().HighWatermark())
	}
	second, err := c.FetchOnce(t0)
	if err != nil {
		t.Fatal(err)
	}
	if c.Leader().HighWatermark() != 1 || second.FollowerHW != 1 || second.RecordsShipped != 0 {
		t.Fatalf("round 2: %+v, leader HW %d", second, c.Leader().HighWatermark())
	}
}

// acks=all is Kafka's produce purgatory as plain state: the write is
// appended, parked, and answered when the high watermark passes it.
//
// Spec: §2.
func TestAcksAllWaitsForTheHighWatermark(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.st.MinISR = 2
	g.elect(1, 1, 2)
	res, parked, err := g.produce(wire.AcksAll, "a", "b")
	if err != nil || !parked || res.BaseOffset != 0 || res.NextOffset != 2 {
		t.Fatalf("acks=all: %+v parked %v err %v; want offsets [0, 2) parked", res, parked, err)
	}
	if out := g.r[1].TakeProduceOutcomes(); len(out) != 0 {
		t.Fatalf("answered before any follower had the records: %+v", out)
	}
	g.fetch(2) // ships the records; the leader's HW still 0
	if out := g.r[1].TakeProduceOutcomes(); len(out) != 0 {
		t.Fatalf("answered when the follower had the records but the leader did not know: %+v", out)
	}
	g.fetch(2) // carries LEO 2: the HW passes the write
	out := g.r[1].TakeProduceOutcomes()
	if len(out) != 1 || out[0].Err != nil || out[0].Result != res || out[0].Ref != 2 {
		t.Fatalf("outcome %+v, want one success for ref 2", out)
	}
}

// acks=0 and acks=1 are done when the append returns; they never park.
//
// Spec: §2.
func TestAcksZeroAndOneDoNotWait(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	for _, acks := range []int16{wire.AcksNone, wire.AcksLeader} {
		if _, parked, err := g.produce(acks, "x"); err != nil || parked {
			t.Fatalf("acks=%d: parked %v err %v", acks, parked, err)
		}
	}
	if g.r[1].HighWatermark() != 0 {
		t.Fatalf("HW %d before the follower fetched", g.r[1].HighWatermark())
	}
}

// A parked produce ends with REQUEST_TIMED_OUT at its deadline on the
// handed clock.
//
// Spec: §2.
func TestAcksAllTimesOut(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	if _, parked, _ := g.produce(wire.AcksAll, "x"); !parked {
		t.Fatal("not parked")
	}
	l := g.r[1]
	// Timed work: the ISR check every lag/2, then the produce's deadline.
	if next := l.NextTickMs(); next != g.now+15_000 {
		t.Fatalf("NextTickMs %d, want the ISR check at %d", next, g.now+15_000)
	}
	l.Tick(g.now + 15_000)
	if next := l.NextTickMs(); next != g.now+30_000 {
		t.Fatalf("NextTickMs %d, want the deadline %d", next, g.now+30_000)
	}
	l.Tick(g.now + 29_999)
	if out := l.TakeProduceOutcomes(); len(out) != 0 {
		t.Fatalf("expired early: %+v", out)
	}
	l.Tick(g.now + 30_000)
	out := l.TakeProduceOutcomes()
	if len(out) != 1 || !errors.Is(out[0].Err, wire.ErrRequestTimedOut) {
		t.Fatalf("outcome %+v, want REQUEST_TIMED_OUT", out)
	}
}

// The leader's time rule goes through the controller and comes back as the
// committed ISR.
//
// Spec: §2.
func TestChapterShrinkISRGoesThroughTheController(t *testing.T) {
	c := openChapter(t, 2)
	c.Produce(1, wire.AcksLeader, t0)
	c.FetchOnce(t0)
	changed, err := c.ShrinkISR(t0 + 30_000)
	if err != nil || changed {
		t.Fatalf("at the cutoff: changed %v err %v, want no change", changed, err)
	}
	changed, err = c.ShrinkISR(t0 + 30_001)
	if err != nil || !changed {
		t.Fatalf("past the cutoff: changed %v err %v", changed, err)
	}
	p, _ := c.Controller().Image().Partition("orders", 0)
	if got := c.Leader().ISR(); len(got) != 1 || got[0] != 1 || len(p.ISR) != 1 {
		t.Fatalf("leader ISR %v, controller ISR %v, want [1] at both", got, p.ISR)
	}
	_, _, err = c.Produce(2, wire.AcksAll, t0+30_001)
	if !errors.Is(err, wire.ErrNotEnoughReplicas) {
		t.Fatalf("acks=all under min ISR: %v", err)
	}
}

// When the committed ISR falls under min.insync.replicas after the append,
// the high watermark freezes (KIP-966) and the parked produce ends with
// NOT_ENOUGH_REPLICAS_AFTER_APPEND (20): written, not committed.
//
// Spec: §2.
func TestAcksAllAfterTheISRShrinks(t *testing.T) {
	g := newGroup(t, replica.Options{LagMaxMs: 1000}, 1, 2)
	g.st.MinISR = 2
	g.elect(1, 1, 2)
	if _, parked, _ := g.produce(wire.AcksAll, "x"); !parked {
		t.Fatal("not parked")
	}
	g.now += 1001
	g.r[1].CheckISR(g.now)
	if _, ok := g.alter(); !ok {
		t.Fatal("the leader proposed no shrink")
	}
	out := g.r[1].TakeProduceOutcomes()
	if len(out) != 1 || !errors.Is(out[0].Err, wire.ErrNotEnoughReplicasAfterAppend) {
		t.Fatalf("outcome %+v, want NOT_ENOUGH_REPLICAS_AFTER_APPEND", out)
	}
	if g.r[1].HighWatermark() != 0 {
		t.Fatalf("HW moved to %d under min ISR", g.r[1].HighWatermark())
	}
}

// A leader that stops leading ends its parked produces with
// NOT_LEADER_OR_FOLLOWER: it can no longer tell when they commit.
//
// Spec: §2.
func TestParkedProducesEndWhenLeadershipDoes(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	g.produce(wire.AcksAll, "x")
	g.elect(2, 1, 2)
	out := g.r[1].TakeProduceOutcomes()
	if len(out) != 1 || !errors.Is(out[0].Err, wire.ErrNotLeaderOrFollower) {
		t.Fatalf("outcome %+v, want NOT_LEADER_OR_FOLLOWER", out)
	}
}

// A lagging follower leaves the ISR by the leader's time rule and comes
// back through expansion once it has caught up to the high watermark and
// the start of the leader's epoch — both changes committed by the
// controller, on the timer.
//
// Spec: §2.
func TestALaggingFollowerRejoinsThroughExpansion(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 2, a, b, cc)
	c.Network().Cut(replica.BrokerAt(cc), replica.BrokerAt(a))
	// acks=1: an acks=all write would wait for the lagging follower until
	// the time rule removes it.
	produce(t, c, wire.AcksLeader, "x", "y")
	if err := c.Await(func() bool { c.FetchRound(); return !slices.Contains(isrOf(c), cc) }, 60_000); err != nil {
		t.Fatalf("the time rule did not remove the lagging follower: ISR %v", isrOf(c))
	}
	produce(t, c, wire.AcksAll, "z")
	c.Network().Heal()
	if err := c.Await(func() bool { c.FetchRound(); return slices.Contains(isrOf(c), cc) }, 60_000); err != nil {
		t.Fatalf("the follower did not rejoin: ISR %v", isrOf(c))
	}
	if got := logOf(t, c, cc); !slices.Equal(got, []string{"x", "y", "z"}) {
		t.Fatalf("the rejoined follower holds %q", got)
	}
}

// A caught-up follower rejoins a busy leader. Kafka's high-watermark rule
// counts, besides the maximal ISR, every replica that is caught up by the
// time rule and may join the ISR (Partition.maybeIncrementLeaderHW):
// otherwise, with the leader alone in the ISR and min ISR 1, the high
// watermark is the leader's log end after every produce, and a follower
// that fetches between two produces always arrives one produce behind
// it — at the log end of the last fetch, never at or past the high
// watermark — and never rejoins, however closely it follows.
//
// Spec: §2.
func TestACaughtUpFollowerRejoinsABusyLeader(t *testing.T) {
	g := newGroup(t, replica.Options{LagMaxMs: 10_000}, 1, 2)
	g.elect(1, 1) // 2 is out of the ISR
	g.produce(wire.AcksLeader, "a")
	g.fetch(2)
	for i := range 20 {
		g.now += 100
		if _, _, err := g.produce(wire.AcksLeader, fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
		g.fetch(2) // one fetch per produce: 2 is never more than one produce behind
		if isr, ok := g.alter(); ok && slices.Contains(isr, 2) {
			return
		}
	}
	t.Fatalf("follower 2 (LEO %d, leader LEO %d, HW %d) never rejoined the ISR %v",
		g.r[2].LEO(), g.r[1].LEO(), g.r[1].HighWatermark(), g.r[1].ISR())
}

// ----------------------------------------------------------------------
// Chapter 8 §3, "leader epoch แทนที่การตัดหางถึง high watermark", and
// KIP-101: a follower truncates by the leader epoch, not to its high
// watermark. Truncating to the HW loses a committed record (KIP-101
// scenario 1) and lets two logs diverge after two hard failures (scenario
// 2); the epoch lookup answers where an epoch ends.

// KIP-101 scenario 1 under the old rule: a follower that truncates to its
// own high watermark on restart and then wins an election loses a committed
// record. B's fetch that lets the leader commit m2 reaches the leader, but B
// restarts before the answer — carrying the new high watermark — arrives.
// The rule exists so the loss can be shown (and caught).
//
// Spec: §3, KIP-101.
func TestHighWatermarkTruncationLosesACommittedRecord(t *testing.T) {
	const a, b = 1, 2
	g := newGroup(t, replica.Options{Truncation: replica.TruncateToHighWatermark}, a, b)
	g.st.MinISR = 2
	g.elect(a, a, b)
	g.produce(wire.AcksLeader, "m1")
	g.fetch(b)
	g.fetch(b)
	g.produce(wire.AcksLeader, "m2")
	g.fetch(b) // B holds m2; its HW says 1
	p, _ := g.r[b].NextFetch(g.now)
	g.r[a].HandleFetch(replica.FetchFrom{ReplicaID: b, ReplicaEpoch: -1}, &p, 1<<20, nil, g.now) // the answer is lost
	if g.r[a].HighWatermark() != 2 || g.r[b].HighWatermark() != 1 {
		t.Fatalf("leader HW %d follower HW %d, want 2 and 1: m2 committed, B does not know", g.r[a].HighWatermark(), g.r[b].HighWatermark())
	}
	g.restart(b)
	g.elect(a, a, b) // B rejoins as a follower: the old rule cuts it to its HW
	if g.r[b].LEO() != 1 {
		t.Fatalf("B LEO %d after the old rule, want its HW 1", g.r[b].LEO())
	}
	g.elect(b, b) // A fails; B, in the ISR, is elected
	g.converge(a)
	if got := values(t, g.r[a]); slices.Contains(got, "m2") || !slices.Equal(got, values(t, g.r[b])) {
		t.Fatalf("A holds %q, B %q: the committed m2 should be gone from both", got, values(t, g.r[b]))
	}
}

// KIP-101 scenario 2: divergence after two hard failures. A (leader) has m1
// and m2, B only m1; both crash. B comes back first, is elected and writes
// m3 at offset 1. A comes back holding m2 at offset 1 and follows B: by the
// epoch rules it drops m2 and takes m3, and the logs agree again.
//
// Spec: §3, KIP-101.
func TestDivergenceAfterTwoHardFailures(t *testing.T) {
	for _, rule := range rules {
		t.Run(rule.String(), func(t *testing.T) {
			const a, b = 1, 2
			g := newGroup(t, replica.Options{Truncation: rule}, a, b)
			g.elect(a, a, b)
			g.produce(wire.AcksLeader, "m1")
			g.fetch(b)
			g.produce(wire.AcksLeader, "m2")
			g.restart(a)
			g.restart(b)
			g.elect(b, b) // B first, alone
			g.produce(wire.AcksLeader, "m3")
			g.converge(a)
			g.agree(a, b)
			if got := values(t, g.r[a]); !slices.Equal(got, []string{"m1", "m3"}) {
				t.Fatalf("A holds %q, want m1 m3", got)
			}
		})
	}
}

// An epoch older than every entry of the leader's epoch cache gets Kafka's
// answer (LeaderEpochFileCache.endOffsetFor below its first entry) on both
// paths: the epoch asked, ending at the earliest entry's start offset. A
// fetch past that offset is told so as a DivergingEpoch; the
// OffsetsForLeaderEpoch question finds the same pair, not "not found". Here
// broker 2 wrote 3 records at epoch 1 alone; broker 1, which holds none,
// leads epoch 2 (an unclean election), so its cache starts at (2, 0).
//
// Spec: §3, KIP-101.
func TestAnEpochBelowTheLeadersEarliestEndsAtItsStart(t *testing.T) {
	for _, rule := range []replica.TruncationRule{replica.TruncateOnFetch, replica.TruncateByLeaderEpoch} {
		t.Run(rule.String(), func(t *testing.T) {
			g := newGroup(t, replica.Options{Truncation: rule}, 1, 2)
			g.st = replica.PartitionState{Leader: 2, LeaderEpoch: 1, PartitionEpoch: 1, Replicas: []int32{1, 2}, ISR: []int32{2}, MinISR: 1}
			g.publish()
			g.produce(wire.AcksLeader, "a", "b", "c")
			g.st = replica.PartitionState{Leader: 1, LeaderEpoch: 2, PartitionEpoch: 2, Replicas: []int32{1, 2}, ISR: []int32{1}, MinISR: 1}
			g.publish()
			l := g.r[1]

			p := wire.FetchPartition{Topic: "t", CurrentLeaderEpoch: 2, FetchOffset: 3, LastFetchedEpoch: 1}
			resp, _, err := l.HandleFetch(replica.FetchFrom{ReplicaID: 2, ReplicaEpoch: -1}, &p, 1<<20, nil, g.now)
			if want := (wire.EpochEndOffset{Epoch: 1, EndOffset: 0}); err != nil || !resp.HasDivergingEpoch || resp.DivergingEpoch != want {
				t.Fatalf("fetch: %v, diverging %v %+v; want DivergingEpoch %+v", err, resp.HasDivergingEpoch, resp.DivergingEpoch, want)
			}
			q := wire.OffsetsForLeaderEpochPartition{Topic: "t", CurrentLeaderEpoch: 2, LeaderEpoch: 1}
			answer, err := l.HandleOffsetsForLeaderEpoch(&q)
			if err != nil || !answer.Found || answer.Epoch != 1 || answer.EndOffset != 0 {
				t.Fatalf("offsets for epoch 1: %v, found %v (%d, %d); want (1, 0)", err, answer.Found, answer.Epoch, answer.EndOffset)
			}

			// The follower, by either rule, cuts its epoch-1 records and
			// fetches what the leader has.
			g.fetch(2)
			if got := g.r[2].LEO(); got != 0 {
				t.Fatalf("follower LEO %d after its first exchange, want 0", got)
			}
		})
	}
}

// ----------------------------------------------------------------------
// Chapter 8 §3 and KIP-279: the leader answers an epoch query with the
// largest epoch less than or equal to the one asked and its end offset,
// which closes the divergence of a fast leader change A→B→A.

// KIP-279's fast leader change A→B→A (kafka-rules.md §8.2): A writes m1
// and m2 at epoch 1, B copies only m1; B leads at epoch 2 and writes m3 at
// offset 1, which A never sees; A leads again at epoch 3. B's m3 sits where
// A's m2 is: B must drop it, not keep it under KIP-101's "start of the next
// epoch" (which would be offset 2). At the end every log and every epoch
// cache is equal.
//
// Spec: §3, KIP-279.
func TestFastLeaderChangeABA(t *testing.T) {
	for _, rule := range rules {
		t.Run(rule.String(), func(t *testing.T) {
			const a, b = 1, 2
			g := newGroup(t, replica.Options{Truncation: rule}, a, b)
			g.elect(a, a, b)
			g.produce(wire.AcksLeader, "m1")
			g.fetch(b)
			g.produce(wire.AcksLeader, "m2") // B never gets it
			g.elect(b, a, b)
			g.produce(wire.AcksLeader, "m3") // at offset 1, on B only
			g.elect(a, a, b)                 // before A fetched from B
			g.produce(wire.AcksLeader, "m4")
			g.converge(b)
			g.agree(a, b)
			if got := values(t, g.r[b]); !slices.Equal(got, []string{"m1", "m2", "m4"}) {
				t.Fatalf("B holds %q, want m1 m2 m4", got)
			}
		})
	}
}

// KIP-279's fast leader change A→B→A, driven through the controller.
//
// A leads and commits m1. It writes m2, which nobody copies, and then loses
// the controller: its session expires and B is elected at epoch 1. B writes
// m3 at offset 1 — where A's m2 is. When A's links come back it follows B,
// and the DivergingEpoch of its first fetch tells it that its epoch 0 ended
// at offset 1 on B: A drops m2 and copies m3 before it can rejoin the ISR.
// Then B dies and A, back in the ISR, is elected at epoch 2. At the end
// every log and every epoch cache is equal.
//
// Spec: §3, KIP-279.
func TestFastLeaderChangeThroughTheController(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 1, a, b, cc)
	produce(t, c, wire.AcksAll, "m1")
	rounds(c, 2)

	// m2 reaches A only.
	produce(t, c, wire.AcksLeader, "m2")
	// A loses everyone; the controller fences it and elects B.
	for _, x := range []replica.Addr{replica.ControllerAt(), replica.BrokerAt(b), replica.BrokerAt(cc)} {
		c.Network().Cut(replica.BrokerAt(a), x)
	}
	if l := awaitLeader(t, c, a, 60_000); l != b {
		t.Fatalf("leader %d, want B", l)
	}
	produce(t, c, wire.AcksLeader, "m3") // at offset 1, on B
	if got := logOf(t, c, a); !slices.Equal(got, []string{"m1", "m2"}) {
		t.Fatalf("A holds %q", got)
	}

	// A comes back: it follows B, truncates m2, copies m3 and rejoins.
	c.Network().Heal()
	if err := c.Await(func() bool { c.FetchRound(); return slices.Contains(isrOf(c), a) }, 60_000); err != nil {
		t.Fatalf("A did not rejoin the ISR %v: %v", isrOf(c), err)
	}
	if got := logOf(t, c, a); !slices.Equal(got, []string{"m1", "m3"}) {
		t.Fatalf("A holds %q after following B, want m1 m3", got)
	}

	// B dies: A is elected again (first in the assignment, in the ISR).
	if err := c.CrashBroker(b, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	if l := awaitLeader(t, c, b, 60_000); l != a {
		t.Fatalf("leader %d, want A", l)
	}
	produce(t, c, wire.AcksLeader, "m4")
	if err := c.StartBroker(b); err != nil {
		t.Fatal(err)
	}
	converge(t, c)
	sameEpochs(t, c)
	if got := logOf(t, c, b); !slices.Equal(got, []string{"m1", "m3", "m4"}) {
		t.Fatalf("B holds %q, want m1 m3 m4", got)
	}
}

// ----------------------------------------------------------------------
// KIP-320: every fetch and epoch query carries the leader epoch its sender
// knows; the epoch is checked before the role, a stale epoch is
// FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH, and a stale leader
// is fenced.

// Epoch is checked before role, as Kafka does (Partition.fetchRecords,
// lastOffsetForLeaderEpoch): a follower at epoch 5 asked with epoch 4
// answers FENCED_LEADER_EPOCH, with 6 UNKNOWN_LEADER_EPOCH, and only at 5
// NOT_LEADER_OR_FOLLOWER.
//
// Spec: KIP-320.
func TestEpochIsCheckedBeforeRole(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	for range 5 {
		g.elect(1, 1, 2)
	}
	if g.st.LeaderEpoch != 5 {
		t.Fatalf("epoch %d, want 5", g.st.LeaderEpoch)
	}
	follower := g.r[2]
	for _, c := range []struct {
		epoch int32
		want  error
	}{
		{4, wire.ErrFencedLeaderEpoch},
		{6, wire.ErrUnknownLeaderEpoch},
		{5, wire.ErrNotLeaderOrFollower},
		{wire.NoEpoch, wire.ErrNotLeaderOrFollower},
	} {
		p := wire.FetchPartition{CurrentLeaderEpoch: c.epoch, LastFetchedEpoch: wire.NoEpoch}
		resp, _, err := follower.HandleFetch(replica.FetchFrom{ReplicaID: 3, ReplicaEpoch: -1}, &p, 1<<20, nil, g.now)
		if !errors.Is(err, c.want) || resp.ErrorCode != wire.CodeOf(c.want) {
			t.Errorf("fetch at epoch %d: err %v code %v, want %v", c.epoch, err, resp.ErrorCode, c.want)
		}
		q := wire.OffsetsForLeaderEpochPartition{CurrentLeaderEpoch: c.epoch, LeaderEpoch: 0}
		qr, err := follower.HandleOffsetsForLeaderEpoch(&q)
		if !errors.Is(err, c.want) || qr.ErrorCode != wire.CodeOf(c.want) {
			t.Errorf("offsets question at epoch %d: err %v code %v, want %v", c.epoch, err, qr.ErrorCode, c.want)
		}
	}
	// A refusal by a follower names the leader, so the asker goes there.
	p := wire.FetchPartition{CurrentLeaderEpoch: 5, LastFetchedEpoch: wire.NoEpoch}
	resp, _, _ := follower.HandleFetch(replica.FetchFrom{ReplicaID: -1, ReplicaEpoch: -1}, &p, 1<<20, nil, g.now)
	if !resp.HasCurrentLeader || resp.CurrentLeader != (wire.LeaderAndEpoch{LeaderID: 1, LeaderEpoch: 5}) {
		t.Errorf("refusal carries current leader %v %+v, want 1 at 5", resp.HasCurrentLeader, resp.CurrentLeader)
	}
}

// A stale partition state — an older leader epoch, or the same epoch with
// an older partition epoch, or a new leader at the same epoch — is refused
// and changes nothing.
//
// Spec: KIP-320.
func TestStaleStatesAreRefused(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1, 2)
	g.elect(1, 1, 2)
	g.elect(2, 1, 2) // epoch 2: broker 2 leads
	old := replica.PartitionState{Leader: 1, LeaderEpoch: 1, PartitionEpoch: 1, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, MinISR: 1}
	if err := g.r[1].BecomeLeader(old, g.now); !errors.Is(err, replica.ErrStaleEpoch) {
		t.Fatalf("an older epoch: %v", err)
	}
	sameEpochOtherLeader := g.st
	sameEpochOtherLeader.Leader, sameEpochOtherLeader.PartitionEpoch = 1, g.st.PartitionEpoch+1
	if err := g.r[1].BecomeLeader(sameEpochOtherLeader, g.now); !errors.Is(err, replica.ErrStaleEpoch) {
		t.Fatalf("a new leader at the same epoch: %v", err)
	}
	if g.r[1].Role() != replica.RoleFollower || g.r[1].LeaderID() != 2 {
		t.Fatalf("broker 1 is %v of %d", g.r[1].Role(), g.r[1].LeaderID())
	}
}

// A stale leader is fenced. A loses every link; the controller elects B at
// the next epoch. A still believes it leads: an acks=all produce sent to it
// is never acknowledged as committed (nobody fetches from it, and its ISR
// proposals cannot reach the controller), and the new leader's followers,
// at the newer epoch, are refused by it. When A's links come back, the
// controller's metadata makes it a follower and it truncates what it wrote
// alone.
//
// Spec: KIP-320.
func TestAStaleLeaderIsFenced(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 2, a, b, cc)
	produce(t, c, wire.AcksAll, "before")
	cutAll := func() {
		for _, x := range []replica.Addr{replica.ControllerAt(), replica.BrokerAt(b), replica.BrokerAt(cc)} {
			c.Network().Cut(replica.BrokerAt(a), x)
		}
	}
	cutAll()
	if l := awaitLeader(t, c, a, 60_000); l != b {
		t.Fatalf("leader %d, want B", l)
	}
	stale, _ := c.Replica(a, topic)
	if stale.Role() != replica.RoleLeader {
		t.Fatal("A already knows it was replaced: the test needs a stale leader")
	}
	// The client still thinks A leads, and its own link to A is up.
	call, err := sendProduceTo(c, a, "stale")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(40_000)
	if resp, done, err := call.Result(); done && err == nil {
		t.Fatalf("a stale leader acknowledged an acks=all write: %+v", resp)
	}
	c.Network().Heal()
	if err := c.Await(func() bool { return stale.Role() == replica.RoleFollower }, 30_000); err != nil {
		t.Fatal("A never learned it was replaced")
	}
	converge(t, c)
	if got := logOf(t, c, a); slices.Contains(got, "stale") {
		t.Fatalf("A kept the write it took while stale: %q", got)
	}
}

// ----------------------------------------------------------------------
// Chapter 8 §4, "KRaft วาดไว้ ไม่ได้สร้าง", and KIP-966: the controller
// elects only from the ISR (or, with the ELR, from the eligible replicas),
// a replica that lost its tail is not elected, a re-election does not bring
// stragglers back, and an unclean election happens only when enabled and
// says that data may be lost.

// FailOver elects only an ISR member.
//
// Spec: §4, KIP-966.
func TestChapterFailOverIsClean(t *testing.T) {
	c := openChapter(t, 1)
	c.Produce(1, wire.AcksLeader, t0)
	c.FetchOnce(t0)
	c.FetchOnce(t0)
	if _, err := c.ShrinkISR(t0 + 30_001); err != nil {
		t.Fatal(err)
	}
	err := c.FailOver(replica.TruncateByLeaderEpoch, t0+30_001)
	if !errors.Is(err, replica.ErrUncleanElection) || !errors.Is(err, wire.ErrEligibleLeadersNotAvailable) {
		t.Fatalf("failing over to a follower outside the ISR: %v", err)
	}
}

// KAFKA-14139 (fixed by KIP-966): a follower whose unflushed tail is lost
// on restart must not stay in the ISR and be elected. B loses its tail in a
// power cut; its registration is unclean, the controller takes it out of
// the ISR, and when the leader then dies it is not elected: the committed
// records survive on the replica that is.
//
// Spec: §4, KIP-966.
func TestALostTailIsNotElected(t *testing.T) {
	const a, b, cc = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, cc}}, 2, a, b, cc)
	var want []string
	for i := range 10 {
		v := string(rune('a' + i))
		want = append(want, v)
		produce(t, c, wire.AcksAll, v)
	}
	rounds(c, 2)
	before, _ := c.Replica(b, topic)
	if before.LEO() != 10 {
		t.Fatalf("B's LEO %d before the cut, want 10", before.LEO())
	}
	if err := c.CrashBroker(b, vfs.LoseUnsynced); err != nil { // nothing was fsynced: SyncNever
		t.Fatal(err)
	}
	if err := c.StartBroker(b); err != nil {
		t.Fatal(err)
	}
	after, _ := c.Replica(b, topic)
	if after.LEO() >= 10 {
		t.Fatalf("B's LEO %d after the power cut: the test needs a lost tail", after.LEO())
	}
	if err := c.Await(func() bool { return !slices.Contains(isrOf(c), b) }, 10_000); err != nil {
		t.Fatalf("B with a lost tail is still in the ISR %v", isrOf(c))
	}
	if err := c.CrashBroker(a, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	next := awaitLeader(t, c, a, 60_000)
	if next == b {
		t.Fatal("B, which lost committed records, was elected")
	}
	if got := logOf(t, c, next); !slices.Equal(got, want) {
		t.Fatalf("the new leader holds %q, want %q", got, want)
	}
}

// A follower the time rule dropped does not come back into the ISR when the
// leader restarts: the new leadership takes the controller's ISR, and when
// the leader then dies the controller elects an ISR member, not the
// straggler (before, BecomeLeader put everyone back and FailOver lost the
// committed records the straggler never had).
//
// Spec: §4, KIP-966.
func TestReElectionDoesNotBringStragglersBack(t *testing.T) {
	const a, b, straggler = 1, 2, 3
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b, straggler}}, 1, a, b, straggler)
	produce(t, c, wire.AcksAll, "r0")
	c.Network().Cut(replica.BrokerAt(straggler), replica.BrokerAt(a))
	c.Advance(45_000) // past replica.lag.time.max.ms: the lag timer proposes, the controller commits
	rounds(c, 1)
	if got := isrOf(c); !slices.Equal(got, []int32{a, b}) {
		t.Fatalf("ISR %v, want [1 2]", got)
	}
	for _, v := range []string{"r1", "r2", "r3"} {
		produce(t, c, wire.AcksAll, v)
	}

	// The leader restarts cleanly; the straggler is still out.
	if err := c.StopBroker(a); err != nil {
		t.Fatal(err)
	}
	if err := c.StartBroker(a); err != nil {
		t.Fatal(err)
	}
	// A restart takes the leader out of the ISR for as long as it needs to
	// catch up again (its old registration is fenced); it rejoins by
	// fetching. The straggler, cut off, stays out whoever leads.
	if err := c.Await(func() bool { c.FetchRound(); return len(isrOf(c)) == 2 }, 60_000); err != nil {
		t.Fatalf("ISR %v: the restarted broker did not rejoin", isrOf(c))
	}
	if slices.Contains(isrOf(c), straggler) {
		t.Fatalf("the straggler is back in the ISR %v", isrOf(c))
	}
	leader := c.LeaderOf(topic)
	if err := c.CrashBroker(leader, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	next := awaitLeader(t, c, leader, 60_000)
	if next == straggler {
		t.Fatal("the straggler was elected")
	}
	if got := logOf(t, c, next); !slices.Equal(got, []string{"r0", "r1", "r2", "r3"}) {
		t.Fatalf("the new leader holds %q", got)
	}
}

// Unclean election loses data only when it is enabled, and says so. The
// leader is alone in the ISR when it dies, holding records the others
// never copied: the controller elects nobody, and a clean ElectLeaders
// elects nobody either. Only an explicit unclean election for the partition
// elects a replica outside the ISR — its answer says data may be lost, the
// partition is marked RECOVERING — and the records only the old leader held
// are gone.
//
// Spec: §4, KIP-966.
func TestUncleanElectionOnlyWhenEnabledAndSaysSo(t *testing.T) {
	const a, b = 1, 2
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{a, b}}, 1, a, b)
	produce(t, c, wire.AcksAll, "kept")
	c.Network().Cut(replica.BrokerAt(a), replica.BrokerAt(b))
	c.Advance(45_000)
	if got := isrOf(c); !slices.Equal(got, []int32{a}) {
		t.Fatalf("ISR %v, want [1]", got)
	}
	produce(t, c, wire.AcksAll, "only-on-a") // committed: the ISR is A alone, min ISR 1
	if err := c.CrashBroker(a, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	c.Advance(30_000)
	if l := c.LeaderOf(topic); l != -1 {
		t.Fatalf("the controller elected %d without unclean election", l)
	}
	elect := func(unclean bool) *wire.ElectLeadersResponse {
		t.Helper()
		resp, err := c.Call(replica.ControllerAt(), &wire.ElectLeadersRequest{
			CorrelationID: c.NextCorrelation(), Topic: topic.Topic, Partition: topic.Partition, Unclean: unclean,
		}, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		return resp.(*wire.ElectLeadersResponse)
	}
	if r := elect(false); r.Leader != -1 || r.DataMayBeLost {
		t.Fatalf("a clean election: %+v", r)
	}
	r := elect(true)
	if r.Leader != b || !r.DataMayBeLost {
		t.Fatalf("an unclean election: %+v, want B and DataMayBeLost", r)
	}
	p, _ := c.Controller().Image().Partition(topic.Topic, topic.Partition)
	if p.LeaderRecoveryState != wire.LeaderRecovering {
		t.Fatalf("leader recovery state %v, want RECOVERING", p.LeaderRecoveryState)
	}
	awaitLeader(t, c, a, 10_000)
	if got := logOf(t, c, b); !slices.Equal(got, []string{"kept"}) {
		t.Fatalf("B holds %q: the committed record only A had is lost, as the answer warned", got)
	}
}

// ----------------------------------------------------------------------
// The helpers of the tests above.

// The chapter's harness: two brokers and the controller, one partition,
// one round at a time.

func openChapter(t *testing.T, minISR int) *replica.ChapterCluster {
	t.Helper()
	c, err := replica.OpenChapterCluster(t.TempDir(), minISR, t0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rules are the safe truncation rules; each scenario runs under both.
var rules = []replica.TruncationRule{replica.TruncateOnFetch, replica.TruncateByLeaderEpoch}

// converge drives follower f to agreement with the leader: epoch questions
// first where its rule asks them, then fetches until nothing new comes.
func (g *group) converge(f int32) {
	g.t.Helper()
	fr, l := g.r[f], g.r[g.st.Leader]
	for range 20 {
		if q, ok := fr.NextEpochQuery(g.now); ok {
			resp, _ := l.HandleOffsetsForLeaderEpoch(&q)
			if err := fr.ApplyEpochAnswer(&q, &resp, g.now); err != nil {
				g.t.Fatal(err)
			}
			continue
		}
		before := fr.LEO()
		resp := g.fetch(f)
		if !resp.HasDivergingEpoch && len(resp.Records) == 0 && fr.LEO() == before {
			return
		}
	}
	g.t.Fatalf("broker %d did not converge", f)
}

// agree fails unless the replicas hold the same records and epoch caches.
func (g *group) agree(ids ...int32) {
	g.t.Helper()
	want, wantEpochs := values(g.t, g.r[ids[0]]), g.r[ids[0]].Epochs()
	for _, id := range ids[1:] {
		if got := values(g.t, g.r[id]); !slices.Equal(got, want) {
			g.t.Fatalf("broker %d holds %q, broker %d %q", id, got, ids[0], want)
		}
		if got := g.r[id].Epochs(); !slices.Equal(got, wantEpochs) {
			g.t.Fatalf("broker %d epochs %v, broker %d %v", id, got, ids[0], wantEpochs)
		}
	}
}

// sendProduceTo sends one acks=all record straight to broker id, whatever
// the controller says.
func sendProduceTo(c *replica.Cluster, id int32, value string) (*replica.ProduceCall, error) {
	return c.SendProduceTo(id, topic, wire.AcksAll, 30_000, []byte(value))
}

// specElsewhere names, in the spec's order, the tests of each rule that
// live in another package: the pure halves the rule is built from.
var specElsewhere = []struct{ section, dir, test string }{
	{"§1", "replica", "TestConsumerFetchParksUntilCommitted"},
	{"§1", "replica", "TestAConsumerAheadOfTheHighWatermarkWaits"},
	{"§2", "isr", "TestAdvanceHW"},
	{"§2", "isr", "TestAdvanceHWMatchesOracle"},
	{"§2", "replica", "TestTheLeadersHighWatermarkIsIsrAdvanceHW"},
	{"§2", "isr", "TestShrinkISRChapterDemo"},
	{"§2", "isr", "TestShrinkISRNeverRemovesLeader"},
	{"§2", "isr", "TestShrinkIsProposedNotApplied"},
	{"§2", "isr", "TestExpansionCountsAtOnce"},
	{"§2", "isr", "TestGateChapterTable"},
	{"§2", "isr", "TestEffectiveMinISRIsCappedAtTheReplicationFactor"},
	{"§2", "isr", "TestEffectiveMinISRIsOneRuleForTheFunctionAndTheState"},
	{"§2", "replica/controller", "TestTheControllersEffectiveMinISRIsTheLeaders"},
	{"§2", "isr", "TestALostSessionLeavesTheISRWhoeverItIs"},
	{"§2", "replica/controller", "TestTheControllerRemovesALostSessionByIsrWithoutLostSession"},
	{"§2", "log", "TestHighWatermarkIsEagerUntilStoppedThenMovesOnlyForwardWithinTheLog"},
	{"§2", "replica/controller", "TestAnISRChangeBumpsOnlyThePartitionEpoch"},
	{"§3, KIP-101", "epoch", "TestEndOffsetForEpochChapterTable"},
	{"§3, KIP-101", "epoch", "TestTruncateFromEnd"},
	{"§3, KIP-279", "epoch", "TestEndOffsetForEpochEdges"},
	{"§3, KIP-279", "epoch", "TestEndOffsetForEpochMatchesOracle"},
	{"§4, KIP-966", "replica/controller", "TestACleanElectionTakesTheFirstLiveISRMemberInAssignmentOrder"},
	{"§4, KIP-966", "replica/controller", "TestAnELRMemberIsElectedOnlyWhenTheISRIsEmpty"},
	{"§4, KIP-966", "replica/controller", "TestShrinkingUnderMinISRFillsTheELRAndGrowingBackClearsIt"},
	{"§4, KIP-966", "replica/controller", "TestTheLastReplicaStandingLosesNothing"},
	{"§4, KIP-966", "replica/controller", "TestAFollowerThatLostItsTailIsNotElectable"},
	{"§4, KIP-966", "replica/controller", "TestUncleanElectionOnlyWhenAskedAndItSaysDataMayBeLost"},
	{"§4, KIP-966", "replica/controller", "TestModelEveryStepKeepsTheControllersInvariants"},
}

// TestSpecNamesOnlyTestsThatExist keeps specElsewhere true: each test it
// names is declared in its package's test files.
func TestSpecNamesOnlyTestsThatExist(t *testing.T) {
	for _, e := range specElsewhere {
		files, err := filepath.Glob(filepath.Join("..", e.dir, "*_test.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no test files in %s (%v)", e.section, e.dir, err)
		}
		found := false
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(src), "\nfunc "+e.test+"(t *testing.T) {") {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s names %s.%s, which no test file declares", e.section, e.dir, e.test)
		}
	}
}
