package replica_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// crashMidFetch sends the follower's next fetch; the leader handles it (and
// learns the follower's LEO from it, which may commit records), but the
// follower crashes before it reads the answer, and restarts by rule.
func crashMidFetch(t *testing.T, c *replica.Cluster, rule replica.TruncationRule) replica.RestartReport {
	t.Helper()
	_, _, err := c.Follower().Fetch(c.Link().FollowerEnd(), 1<<30, func() error {
		if err := c.Leader().ServeOne(c.Link().LeaderEnd(), now); err != nil {
			return err
		}
		_, toFollower := c.Link().Pending()
		if _, err := c.Link().FollowerEnd().Read(make([]byte, toFollower)); err != nil {
			return err
		}
		return errFollowerCrashed
	})
	if !errors.Is(err, errFollowerCrashed) {
		t.Fatalf("crashing mid-fetch: %v", err)
	}
	rep, err := c.RestartFollower(rule)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// KIP-101 scenario 1 exactly as the KIP tells it, with a record that is
// committed and acknowledged: the follower's fetch for offset 2 tells the
// leader it holds m2, the leader's HW becomes 2 and the acks=all producer of
// m2 hears "committed"; the answer that would tell the follower never
// arrives, because it crashes. Restarted, it truncates; then the leader
// fails and it is elected (it is in the ISR: the election is clean). The
// high-watermark rule cut m2 on the follower, so m2 is gone for good; the
// epoch rule asked the leader first and kept it.
func TestReviewKIP101CommittedRecordUnderBothRules(t *testing.T) {
	for _, tc := range []struct {
		rule     replica.TruncationRule
		survives []string
	}{
		{replica.TruncateToHighWatermark, []string{"m1"}},
		{replica.TruncateByLeaderEpoch, []string{"m1", "m2"}},
	} {
		t.Run(tc.rule.String(), func(t *testing.T) {
			c := openCluster(t, 2)
			mustProduce(t, c, 1, wire.AcksAll)
			mustFetch(t, c, now)
			mustFetch(t, c, now)
			base := mustProduce(t, c, 2, wire.AcksAll)
			mustFetch(t, c, now) // m2 reaches the follower; the leader does not know yet

			rep := crashMidFetch(t, c, tc.rule)
			if hw := c.Leader().HighWatermark(); hw != 2 {
				t.Fatalf("the lost fetch should have moved the leader's HW to 2, got %d", hw)
			}
			if v, err := c.Leader().AckVerdict(base + 1); err != nil || v != isr.Committed {
				t.Fatalf("m2's producer should hear Committed: %v %v", v, err)
			}
			if rep.HWBefore != 1 {
				t.Fatalf("the follower never heard HW 2; it had %d", rep.HWBefore)
			}

			if err := c.FailOver(tc.rule, now); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if _, err := c.FetchOnce(now); err != nil {
					t.Fatal(err)
				}
			}
			got := recordValues(records(t, c.Leader()))
			if !slices.Equal(got, tc.survives) {
				t.Fatalf("new leader %d holds %v, want %v", c.Leader().ID(), got, tc.survives)
			}
			sameLog(t, c.Follower(), c.Leader())
		})
	}
}
