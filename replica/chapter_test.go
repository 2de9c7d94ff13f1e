package replica_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The chapter's harness: two brokers and the controller, one partition,
// one round at a time.

func openChapter(t *testing.T, minISR int) *replica.ChapterCluster {
	t.Helper()
	c, err := replica.OpenCluster(t.TempDir(), minISR, t0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The chapter's hw_lags_one_round_trip, ported: the first of its two gates.
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

// The leader's time rule goes through the controller and comes back as the
// committed ISR.
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

// FailOver elects only an ISR member.
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
