package replica_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/epoch"
	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A fast failover leaves the old leader with a divergent tail LONGER than
// the new leader's whole log. The old leader rejoins by fetching alone, as a
// Kafka follower with truncation-on-fetch does: its fetch offset is past the
// new leader's log end, but its last fetched epoch tells the leader where
// the logs part, so the answer must be a diverging epoch, not
// OFFSET_OUT_OF_RANGE. Kafka's Partition.readRecords checks the epoch before
// the log read that would throw OffsetOutOfRange.
func TestReviewLongerDivergentTailConvergesThroughFetch(t *testing.T) {
	b := newBrokers(t, 1, 2)
	b.lead(1, 0, []int32{2}, 1, now)
	b.follow(2, 1, 0)
	committed := b.produce(1, 1) // v1 at offset 0
	b.mustFetch(2, 1, now)
	b.mustFetch(2, 1, now)
	b.check(1)
	b.produce(1, 2) // v2, v3 at offsets 1, 2: broker 1 only

	// Broker 1 is gone before broker 2 copied them. Broker 2 leads epoch 1
	// and writes one record of its own at offset 1.
	b.lead(2, 1, []int32{1}, 1, now)
	b.produce(2, 1)
	b.follow(1, 2, 1)
	b.check(2)

	resp, shipped, err := b.fetch(1, 2, now)
	if err != nil {
		t.Fatalf("the old leader's first fetch (offset 3, last epoch 0) from a leader with LEO 2: %v; "+
			"want a diverging epoch, not an error", err)
	}
	if !resp.HasDivergingEpoch || resp.DivergingEpoch != (wire.EpochEndOffset{Epoch: 0, EndOffset: 1}) || shipped != 0 {
		t.Fatalf("diverging %v %+v shipped %d, want epoch 0 ending at 1 and nothing shipped", resp.HasDivergingEpoch, resp.DivergingEpoch, shipped)
	}
	if leo := b.r[1].LEO(); leo != 1 {
		t.Fatalf("the old leader should have cut its tail to 1, LEO %d", leo)
	}
	b.check(2)
	for range 2 {
		b.mustFetch(1, 2, now)
		b.check(2)
	}
	sameLog(t, b.r[1], b.r[2])
	if got := records(t, b.r[1]); got[0].value != committed[0] || b.r[1].HighWatermark() != 2 {
		t.Fatalf("after convergence: %v HW %d", got, b.r[1].HighWatermark())
	}
}

// A→B→A→B with three replicas (KIP-279's fast failovers), where the old
// leader A rejoins and its FIRST diverging answer is an epoch it never saw.
// Its truncation is then only an intermediate step (KIP-279: cut to the end
// of your largest epoch below the answer and ask again), so its log does not
// yet agree with the leader's. Kafka does not process the partition data of
// a diverging response "in order to not update the low/high watermarks
// until the truncation is actually done" (AbstractFetcherThread). A
// follower that raised its HW there would claim as committed its own
// divergent records, and the next round would pull its HW backwards.
func TestReviewIntermediateTruncationDoesNotRaiseHW(t *testing.T) {
	b := newBrokers(t, 1, 2, 3)
	A, B, C := int32(1), int32(2), int32(3)

	// Epoch 0: A leads; B and C copy v1..v3 and learn HW 3; then A alone
	// writes v4, v5 at offsets 3, 4.
	b.lead(A, 0, []int32{B, C}, 1, now)
	b.follow(B, A, 0)
	b.follow(C, A, 0)
	b.produce(A, 3)
	for range 2 {
		b.mustFetch(B, A, now)
		b.mustFetch(C, A, now)
	}
	b.check(A)
	b.produce(A, 2)

	// Epoch 1: B leads (A is down); it writes v6..v8 at offsets 3..5 and C
	// copies them. A is in the ISR and never fetches, so nothing commits.
	b.lead(B, 1, []int32{A, C}, 1, now)
	b.follow(C, B, 1)
	b.produce(B, 3)
	b.mustFetch(C, B, now)
	b.check(B)

	// Epoch 2: A leads (B is down; A is in the ISR, the election is clean)
	// and writes v9 at offset 5. Nobody fetches from it.
	b.lead(A, 2, []int32{B, C}, 1, now)
	b.produce(A, 1)
	b.check(A)

	// Epoch 3: B leads again and writes v10 at offset 6. C keeps up; A is
	// down past the lag window, leaves the ISR, and v1..v3, v6..v8, v10
	// commit.
	later := now + isr.DefaultLagMaxMs + 1
	b.lead(B, 3, []int32{C, A}, 1, now)
	b.follow(C, B, 3)
	b.produce(B, 1)
	b.mustFetch(C, B, later)
	b.mustFetch(C, B, later)
	if _, err := b.r[B].ShrinkISR(later); err != nil {
		t.Fatal(err)
	}
	b.mustFetch(C, B, later)
	if hw := b.r[B].HighWatermark(); hw != 7 {
		t.Fatalf("epoch 3 leader HW %d, want 7", hw)
	}
	b.check(B)

	// A comes back as B's follower. Its log: v1..v5 at epoch 0, v9 at epoch
	// 2; its epochs [0@0 2@5]. B's: [0@0 1@3 3@6]. A's first fetch (offset
	// 6, last epoch 2) is answered "epoch 1 ends at 6"; A never had epoch 1,
	// so it cuts to where its epoch 0 ends (5) and must ask again.
	b.follow(A, B, 3)
	hwBefore := b.r[A].HighWatermark()
	resp := b.mustFetch(A, B, later)
	if !resp.HasDivergingEpoch || resp.DivergingEpoch != (wire.EpochEndOffset{Epoch: 1, EndOffset: 6}) {
		t.Fatalf("first answer %v %+v, want epoch 1 ending at 6", resp.HasDivergingEpoch, resp.DivergingEpoch)
	}
	if leo := b.r[A].LEO(); leo != 5 {
		t.Fatalf("intermediate cut: LEO %d, want 5", leo)
	}
	agreesBelowHW(t, b.r[A], b.r[B])
	if hw := b.r[A].HighWatermark(); hw != hwBefore {
		t.Fatalf("a diverging response moved the follower's HW %d → %d before its truncation was done", hwBefore, hw)
	}
	b.check(B)

	// The next rounds finish the truncation (epoch 0 ends at 3 on B) and
	// copy B's log; the HW only ever rises.
	for range 3 {
		b.mustFetch(A, B, later)
		agreesBelowHW(t, b.r[A], b.r[B])
		b.check(B)
	}
	sameLog(t, b.r[A], b.r[B])
	b.mustFetch(C, B, later)
	sameLog(t, b.r[C], b.r[B])
	if hw := b.r[A].HighWatermark(); hw != 7 {
		t.Fatalf("A's HW after catching up %d, want 7", hw)
	}
}

// KIP-279's A→B→A, driven through explicit truncation (the rejoin path a
// restarted broker takes): each leader writes records the other never
// copies, and every rejoin must keep every committed record and end with
// identical logs and identical epoch caches.
func TestReviewFailoverChainABAKeepsCommitted(t *testing.T) {
	b := newBrokers(t, 1, 2)
	A, B := int32(1), int32(2)
	b.lead(A, 0, []int32{B}, 1, now)
	b.follow(B, A, 0)
	b.produce(A, 2)
	b.mustFetch(B, A, now)
	b.mustFetch(B, A, now) // v1, v2 committed everywhere
	b.check(A)
	b.produce(A, 2) // v3, v4: A only, uncommitted

	// B leads epoch 1 without them and writes v5.
	b.lead(B, 1, []int32{A}, 1, now)
	b.produce(B, 1)
	b.check(B)

	// A comes straight back as leader of epoch 2 (B fails before anyone
	// fetched from it; A is in B's ISR, the election is clean). B's v5 is
	// divergent and uncommitted.
	b.lead(A, 2, []int32{B}, 1, now)
	b.follow(B, A, 2)
	b.produce(A, 1) // v6 at offset 4, epoch 2
	ans := b.truncate(B, A)
	if want := (replica.EpochAnswer{Asked: 1, Epoch: 0, EndOffset: 4, Found: true}); ans != want {
		t.Fatalf("B asked about epoch 1: %+v, want %+v (A never had epoch 1)", ans, want)
	}
	if leo := b.r[B].LEO(); leo != 2 {
		t.Fatalf("B should keep only the common prefix [v1 v2], LEO %d", leo)
	}
	for range 2 {
		b.mustFetch(B, A, now)
		b.check(A)
	}
	sameLog(t, b.r[A], b.r[B])
	if got := b.r[A].Epochs().Entries(); !slices.Equal(got, []epoch.Entry{{Epoch: 0, StartOffset: 0}, {Epoch: 2, StartOffset: 4}}) {
		t.Fatalf("epochs after A→B→A: %v", got)
	}
	if hw := b.r[A].HighWatermark(); hw != 5 {
		t.Fatalf("A's HW %d, want 5 (v3, v4, v6 commit in epoch 2)", hw)
	}

	// And once more the other way, B→A→B, now that everything is shared.
	b.lead(B, 3, []int32{A}, 1, now)
	b.follow(A, B, 3)
	b.truncate(A, B)
	b.produce(B, 1)
	for range 2 {
		b.mustFetch(A, B, now)
		b.check(B)
	}
	sameLog(t, b.r[A], b.r[B])
}

// Whoever leads, FailOver elects only a member of the ISR. A follower the
// leader's time rule removed may lack committed records: with
// min.insync.replicas 1 the leader commits alone, and electing the lagging
// follower would lose those records for good. Kafka's controller elects only
// from the ISR unless unclean.leader.election.enable is set.
func TestReviewFailOverRefusesAnUncleanElection(t *testing.T) {
	c := openCluster(t, 1)
	mustProduce(t, c, 1, wire.AcksLeader)
	mustFetch(t, c, now)
	later := now + isr.DefaultLagMaxMs + 1
	if changed, err := c.ShrinkISR(later); err != nil || !changed {
		t.Fatalf("ShrinkISR: %v %v", changed, err)
	}
	mustProduce(t, c, 2, wire.AcksLeader)
	mustProduce(t, c, 3, wire.AcksAll)
	if hw := c.Leader().HighWatermark(); hw != 3 {
		t.Fatalf("alone in the ISR with min 1, the leader commits alone: HW %d", hw)
	}
	if err := c.FailOver(replica.TruncateByLeaderEpoch, later); !errors.Is(err, replica.ErrUncleanElection) {
		t.Fatalf("failing over to a follower outside the ISR: %v, want ErrUncleanElection", err)
	}
	if c.Leader().ID() != replica.LeaderID || c.Leader().Role() != replica.RoleLeader || c.Leader().LEO() != 3 || c.Leader().HighWatermark() != 3 {
		t.Fatalf("a refused failover changed the cluster: leader %d (%v) LEO %d HW %d",
			c.Leader().ID(), c.Leader().Role(), c.Leader().LEO(), c.Leader().HighWatermark())
	}

	// Once the follower has caught up and been readmitted, it may be elected.
	mustFetch(t, c, later)
	mustFetch(t, c, later)
	if err := c.Leader().Readmit(replica.FollowerID); err != nil {
		t.Fatal(err)
	}
	if err := c.FailOver(replica.TruncateByLeaderEpoch, later); err != nil {
		t.Fatal(err)
	}
	mustFetch(t, c, later)
	mustFetch(t, c, later)
	if c.Leader().ID() != replica.FollowerID || c.Leader().LEO() != 3 || c.Leader().HighWatermark() != 3 {
		t.Fatalf("after a clean failover: leader %d LEO %d HW %d", c.Leader().ID(), c.Leader().LEO(), c.Leader().HighWatermark())
	}
	sameLog(t, c.Leader(), c.Follower())
}

// A leader whose ISR state was lost with a restart cannot vouch for its
// follower, so FailOver refuses until the leader is made leader again (the
// controller's ISR is what Kafka would consult; here it lived in the
// leader).
func TestReviewFailOverAfterLeaderRestartNeedsLeadership(t *testing.T) {
	c := openCluster(t, 2)
	mustProduce(t, c, 1, wire.AcksLeader)
	mustFetch(t, c, now)
	mustFetch(t, c, now)
	l := c.Leader()
	if err := l.Restart(); err != nil {
		t.Fatal(err)
	}
	if l.Role() != replica.RoleFollower || l.ISR() != nil {
		t.Fatalf("a restarted leader is %v with ISR %v; it must be made leader again", l.Role(), l.ISR())
	}
	if err := c.FailOver(replica.TruncateByLeaderEpoch, now); !errors.Is(err, replica.ErrUncleanElection) {
		t.Fatalf("FailOver with the leader's ISR unknown: %v, want ErrUncleanElection", err)
	}
	if err := l.BecomeLeader(l.LeaderEpoch(), []int32{replica.FollowerID}, 2, now); err != nil {
		t.Fatalf("the restarted leader leads again at its epoch: %v", err)
	}
	if err := c.FailOver(replica.TruncateByLeaderEpoch, now); err != nil {
		t.Fatal(err)
	}
	mustFetch(t, c, now)
	mustFetch(t, c, now)
	sameLog(t, c.Leader(), c.Follower())
}

// A follower whose every epoch is newer than the leader's answer. Broker 1
// writes v1 at epoch 0 and fails before broker 2 copies it; broker 2 leads
// epoch 1 (cleanly: nothing was committed) and writes v2 at offset 0; broker
// 1 leads epoch 2 (cleanly again) and writes v3. Broker 2 rejoins with only
// epoch 1 in its log; broker 1 never had epoch 1, and its largest epoch
// below it, 0, ends at 1. Broker 2 holds no epoch that old, so all of its
// records are from epochs the leader never had, and all must go: Kafka's
// LeaderEpochFileCache answers a lookup below its first epoch with that
// epoch's start offset, which truncates the follower to there. Keeping
// min(leader's end, own LEO) instead keeps v2 at the offset where the leader
// holds v1, and every later fetch diverges again: the follower never
// converges.
func TestReviewRejoinWithOnlyNewerEpochsDropsThemAll(t *testing.T) {
	for _, explicit := range []bool{false, true} {
		name := "by-fetch"
		if explicit {
			name = "by-offsets-for-leader-epoch"
		}
		t.Run(name, func(t *testing.T) {
			b := newBrokers(t, 1, 2)
			b.lead(1, 0, []int32{2}, 1, now)
			b.follow(2, 1, 0)
			b.produce(1, 1) // v1 at 0, epoch 0; broker 2 never fetches it
			b.lead(2, 1, []int32{1}, 1, now)
			b.produce(2, 1) // v2 at 0, epoch 1
			b.lead(1, 2, []int32{2}, 1, now)
			b.produce(1, 1) // v3 at 1, epoch 2
			b.follow(2, 1, 2)
			b.check(1)

			if explicit {
				ans := b.truncate(2, 1)
				if want := (replica.EpochAnswer{Asked: 1, Epoch: 0, EndOffset: 1, Found: true}); ans != want {
					t.Fatalf("answer %+v, want %+v", ans, want)
				}
			} else {
				resp := b.mustFetch(2, 1, now)
				if !resp.HasDivergingEpoch || resp.DivergingEpoch != (wire.EpochEndOffset{Epoch: 0, EndOffset: 1}) {
					t.Fatalf("first fetch: diverging %v %+v, want epoch 0 ending at 1", resp.HasDivergingEpoch, resp.DivergingEpoch)
				}
			}
			if leo := b.r[2].LEO(); leo != 0 {
				t.Fatalf("broker 2 kept %v: LEO %d, want 0 (every record it had is from epoch 1, which the leader never had)", records(t, b.r[2]), leo)
			}
			for range 3 {
				b.mustFetch(2, 1, now)
				agreesBelowHW(t, b.r[2], b.r[1])
				b.check(1)
			}
			sameLog(t, b.r[2], b.r[1])
			if hw := b.r[1].HighWatermark(); hw != 2 {
				t.Fatalf("with broker 2 caught up the HW should reach 2, got %d", hw)
			}
		})
	}
}
