package replica_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

const now = int64(1_700_000_000_000)

func openCluster(t *testing.T, minISR int) *replica.Cluster {
	t.Helper()
	c, err := replica.OpenCluster(t.TempDir(), minISR, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func mustProduce(t *testing.T, c *replica.Cluster, n uint64, acks int16) uint64 {
	t.Helper()
	base, code, err := c.Produce(n, acks, now)
	if err != nil || code != wire.CodeNone {
		t.Fatalf("produce m%d: code %v, err %v", n, code, err)
	}
	return base
}

func mustFetch(t *testing.T, c *replica.Cluster, nowMs int64) replica.FetchReport {
	t.Helper()
	r, err := c.FetchOnce(nowMs)
	if err != nil {
		t.Fatal(err)
	}
	if toLeader, toFollower := c.Link().Pending(); toLeader != 0 || toFollower != 0 {
		t.Fatalf("link not drained after a round: %d bytes to the leader, %d to the follower", toLeader, toFollower)
	}
	return r
}

// The chapter's hw_lags_one_round_trip, ported: the first of its two gates.
func TestHWLagsOneRoundTrip(t *testing.T) {
	c := openCluster(t, 2)

	mustProduce(t, c, 0, wire.AcksLeader)
	if got := [2]uint64{c.Leader().LEO(), c.Leader().HighWatermark()}; got != [2]uint64{1, 0} {
		t.Fatalf("after produce: leader (LEO, HW) = %v, want (1, 0)", got)
	}

	// Round one: the follower has the record but does not know it is committed.
	first := mustFetch(t, c, now)
	if got := [2]uint64{first.FollowerLEO, first.FollowerHW}; got != [2]uint64{1, 0} {
		t.Fatalf("round 1: follower (LEO, HW) = %v, want (1, 0)", got)
	}
	if first.RecordsShipped != 1 {
		t.Fatalf("round 1 shipped %d records, want 1", first.RecordsShipped)
	}
	if hw := c.Leader().HighWatermark(); hw != 0 {
		t.Fatalf("round 1: leader HW %d, want 0", hw)
	}

	// Round two: the request carries LEO=1, so the leader moves its HW and
	// sends it back; no new record travels.
	second := mustFetch(t, c, now)
	if hw := c.Leader().HighWatermark(); hw != 1 {
		t.Fatalf("round 2: leader HW %d, want 1", hw)
	}
	if second.FollowerHW != 1 {
		t.Fatalf("round 2: follower HW %d, want 1", second.FollowerHW)
	}
	if second.RecordsShipped != 0 {
		t.Fatalf("round 2 shipped %d records, want 0", second.RecordsShipped)
	}
}

// Without the chapter's two lines the lag disappears: every round prints
// HW = LEO, which is exactly why OpenCluster turns eager mode off.
func TestEagerHighWatermarkHidesTheLag(t *testing.T) {
	c, err := replica.OpenClusterWith(t.TempDir(), replica.ClusterOptions{MinISR: 2, KeepEagerHighWatermark: true}, now)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for round := uint64(1); round <= 4; round++ {
		mustProduce(t, c, round, wire.AcksLeader)
		r := mustFetch(t, c, now)
		if r.LeaderHW != r.LeaderLEO || r.FollowerHW != r.FollowerLEO {
			t.Fatalf("round %d in eager mode: leader %d/%d follower %d/%d, want HW = LEO", round, r.LeaderLEO, r.LeaderHW, r.FollowerLEO, r.FollowerHW)
		}
	}
}

// The chapter's four-round table, as numbers.
func TestFourRoundsTable(t *testing.T) {
	c := openCluster(t, 2)
	for round := uint64(1); round <= 4; round++ {
		mustProduce(t, c, round, wire.AcksLeader)
		r := mustFetch(t, c, now)
		want := replica.FetchReport{
			LeaderID: 1, LeaderLEO: round, LeaderHW: round - 1,
			FollowerID: 2, FollowerLEO: round, FollowerHW: round - 1,
			RecordsShipped: 1, ResponseHW: round - 1,
		}
		if r != want {
			t.Fatalf("round %d: got %+v, want %+v", round, r, want)
		}
	}
}

// acks=all is checked before the append (error 19's place); acks=1 writes
// the same record anyway; the HW stays while the ISR is under min.
func TestAcksAllRefusedBeforeAppendUnderMinISR(t *testing.T) {
	c := openCluster(t, 2)
	for round := uint64(1); round <= 4; round++ {
		mustProduce(t, c, round, wire.AcksLeader)
		mustFetch(t, c, now)
	}
	changed, err := c.ShrinkISR(now + isr.DefaultLagMaxMs + 1)
	if err != nil || !changed {
		t.Fatalf("ShrinkISR: changed %v, err %v", changed, err)
	}
	if got := c.ISR().ISR(); len(got) != 1 || got[0] != 1 {
		t.Fatalf("ISR after shrink %v, want [1]", got)
	}
	leo, hw := c.Leader().LEO(), c.Leader().HighWatermark()
	_, code, err := c.Produce(5, wire.AcksAll, now)
	if err != nil || code != wire.CodeNotEnoughReplicas {
		t.Fatalf("acks=all under min ISR: code %v err %v, want NOT_ENOUGH_REPLICAS", code, err)
	}
	if c.Leader().LEO() != leo {
		t.Fatalf("a refused acks=all write changed the LEO %d → %d", leo, c.Leader().LEO())
	}
	base := mustProduce(t, c, 5, wire.AcksLeader)
	if base != 4 || c.Leader().HighWatermark() != hw {
		t.Fatalf("acks=1: base %d (want 4), HW %d → %d (want unchanged)", base, hw, c.Leader().HighWatermark())
	}
	v, err := c.Leader().AckVerdict(base + 1)
	if err != nil || v != isr.NotYet {
		t.Fatalf("verdict for the uncommitted record: %v %v, want NotYet", v, err)
	}
}

// The gate's three answers on one real write.
func TestAckVerdictOnARealWrite(t *testing.T) {
	c := openCluster(t, 2)
	base, code, err := c.Produce(1, wire.AcksAll, now)
	if err != nil || code != wire.CodeNone {
		t.Fatal(code, err)
	}
	verdict := func() isr.Verdict {
		v, err := c.Leader().AckVerdict(base + 1)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := verdict(); v != isr.NotYet {
		t.Fatalf("before replication: %v, want NotYet", v)
	}
	mustFetch(t, c, now)
	if v := verdict(); v != isr.NotYet {
		t.Fatalf("after one round: %v, want NotYet (the HW lags a round)", v)
	}
	mustFetch(t, c, now)
	if v := verdict(); v != isr.Committed {
		t.Fatalf("after two rounds: %v, want Committed", v)
	}
	if _, err := c.ShrinkISR(now + isr.DefaultLagMaxMs + 1); err != nil {
		t.Fatal(err)
	}
	if v := verdict(); v != isr.NotEnoughReplicasAfterAppend {
		t.Fatalf("after the ISR shrank: %v, want NotEnoughReplicasAfterAppend", v)
	}
	if _, err := c.Follower().AckVerdict(1); !errors.Is(err, replica.ErrNotLeader) {
		t.Fatalf("a follower's verdict: %v, want ErrNotLeader", err)
	}
}

// kip101State drives KIP-101 scenario 1's opening: m1 known committed, m2
// held by the follower without knowing.
func kip101State(t *testing.T) *replica.Cluster {
	t.Helper()
	c := openCluster(t, 2)
	mustProduce(t, c, 1, wire.AcksLeader)
	mustFetch(t, c, now)
	mustFetch(t, c, now)
	mustProduce(t, c, 2, wire.AcksLeader)
	mustFetch(t, c, now)
	if c.Leader().LEO() != 2 || c.Leader().HighWatermark() != 1 || c.Follower().LEO() != 2 || c.Follower().HighWatermark() != 1 {
		t.Fatalf("scenario start: leader %d/%d follower %d/%d, want 2/1 and 2/1",
			c.Leader().LEO(), c.Leader().HighWatermark(), c.Follower().LEO(), c.Follower().HighWatermark())
	}
	return c
}

// KIP-101 scenario 1 under both rules: the high-watermark rule loses exactly
// one record, the epoch rule none.
func TestKIP101Scenario1(t *testing.T) {
	for _, tc := range []struct {
		rule     replica.TruncationRule
		leoAfter uint64
		survive  uint64
	}{
		{replica.TruncateToHighWatermark, 1, 1},
		{replica.TruncateByLeaderEpoch, 2, 2},
	} {
		t.Run(tc.rule.String(), func(t *testing.T) {
			c := kip101State(t)
			rep, err := c.RestartFollower(tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			if rep.LEOAfter != tc.leoAfter {
				t.Fatalf("follower LEO after restart %d, want %d", rep.LEOAfter, tc.leoAfter)
			}
			if tc.rule == replica.TruncateByLeaderEpoch {
				want := replica.EpochAnswer{Asked: 0, Epoch: 0, EndOffset: 2, Found: true}
				if rep.Answer != want {
					t.Fatalf("leader's answer %+v, want %+v", rep.Answer, want)
				}
			}
			hwBefore := c.Follower().HighWatermark()
			if err := c.FailOver(tc.rule, now); err != nil {
				t.Fatal(err)
			}
			if c.Leader().ID() != 2 || c.Leader().LeaderEpoch() != 1 || c.Follower().ID() != 1 {
				t.Fatalf("after failover: leader %d at epoch %d, follower %d", c.Leader().ID(), c.Leader().LeaderEpoch(), c.Follower().ID())
			}
			if hw := c.Leader().HighWatermark(); hw < hwBefore {
				t.Fatalf("the new leader's HW moved backwards across the election: %d → %d", hwBefore, hw)
			}
			mustFetch(t, c, now)
			mustFetch(t, c, now)
			if c.Leader().LEO() != tc.survive || c.Follower().LEO() != tc.survive {
				t.Fatalf("after catching up: leader LEO %d, follower LEO %d, want %d records to survive", c.Leader().LEO(), c.Follower().LEO(), tc.survive)
			}
			if e, ok := c.Leader().Epochs().StartOffsetOf(1); !ok || e != rep.LEOAfter {
				t.Fatalf("epoch 1 should start at the new leader's LEO %d: %d %v", rep.LEOAfter, e, ok)
			}
		})
	}
}

// A follower that fell out by time comes back only through the controller's
// path, and only once caught up; then it holds the high watermark again.
func TestReadmitOnlyWhenCaughtUp(t *testing.T) {
	c := openCluster(t, 2)
	mustProduce(t, c, 1, wire.AcksLeader)
	mustFetch(t, c, now)
	if _, err := c.ShrinkISR(now + isr.DefaultLagMaxMs + 1); err != nil {
		t.Fatal(err)
	}
	mustProduce(t, c, 2, wire.AcksLeader)
	// The leader last saw the follower at offset 0: its high watermark
	// (nothing commits under min ISR 2 with one member) and its epoch's
	// start. That is caught up enough to come back.
	if err := c.Leader().Readmit(replica.FollowerID); err != nil {
		t.Fatalf("a follower at the leader's HW should be readmitted: %v", err)
	}
	if !c.ISR().InISR(replica.FollowerID) {
		t.Fatal("not readmitted")
	}
	later := now + isr.DefaultLagMaxMs + 2
	mustFetch(t, c, later)
	mustFetch(t, c, later)
	if hw := c.Leader().HighWatermark(); hw != 2 {
		t.Fatalf("with the follower back, the HW should reach 2, got %d", hw)
	}
	if err := c.Leader().Readmit(99); !errors.Is(err, isr.ErrUnknownReplica) {
		t.Fatalf("readmitting an unknown replica: %v", err)
	}
}

// A lagging follower is refused re-admission until it has caught up.
func TestReadmitRefusesALaggingFollower(t *testing.T) {
	c := openCluster(t, 1)
	mustProduce(t, c, 1, wire.AcksLeader)
	mustFetch(t, c, now) // the follower has offset 0
	if _, err := c.ShrinkISR(now + isr.DefaultLagMaxMs + 1); err != nil {
		t.Fatal(err)
	}
	// Alone in the ISR with min ISR 1, the leader commits by itself.
	mustProduce(t, c, 2, wire.AcksLeader)
	mustProduce(t, c, 3, wire.AcksLeader)
	if hw := c.Leader().HighWatermark(); hw != 3 {
		t.Fatalf("leader alone: HW %d, want 3", hw)
	}
	if err := c.Leader().Readmit(replica.FollowerID); !errors.Is(err, isr.ErrNotCaughtUp) {
		t.Fatalf("readmitting a follower at LEO 1 under HW 3: %v, want ErrNotCaughtUp", err)
	}
	mustFetch(t, c, now+isr.DefaultLagMaxMs+2) // ships m2, m3; reports LEO 1
	mustFetch(t, c, now+isr.DefaultLagMaxMs+2) // reports LEO 3
	if err := c.Leader().Readmit(replica.FollowerID); err != nil {
		t.Fatalf("a caught-up follower: %v", err)
	}
}
