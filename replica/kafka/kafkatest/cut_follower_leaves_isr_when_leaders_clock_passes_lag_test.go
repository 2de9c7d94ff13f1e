package kafkatest_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica/kafka/kafkatest"
)

// newCluster starts a cluster for a test and closes it at the end.
func newCluster(t *testing.T, cfg kafkatest.Config) *kafkatest.Cluster {
	t.Helper()
	c, err := kafkatest.NewCluster(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// TestACutOffFollowerLeavesTheISROnceTheLeadersClockPassesTheLagTimeAndRejoinsWhenHealed:
// replica.lag.time.max.ms is ten minutes, so the wall clock alone would not
// shrink the ISR during the test; cutting a follower off changes nothing
// until the leader's clock moves past it, and then the leader takes out
// the cut-off follower alone. Healed, the follower catches up and is back.
func TestACutOffFollowerLeavesTheISROnceTheLeadersClockPassesTheLagTimeAndRejoinsWhenHealed(t *testing.T) {
	const lagMs = 600_000
	c := newCluster(t, kafkatest.Config{ReplicaLagMs: lagMs})
	if err := c.CreateTopic("t", 1); err != nil {
		t.Fatal(err)
	}
	leader := c.Leader("t", 0)
	fs := c.Followers("t", 0)
	cut, kept := fs[0], fs[1]
	if err := c.Cut(cut, leader); err != nil {
		t.Fatal(err)
	}
	if ps, _ := c.Partition("t", 0); len(ps.ISR) != 3 {
		t.Fatalf("ISR %v right after the cut, before any lag time passed", ps.ISR)
	}
	if err := c.AdvanceClock(leader, lagMs+1); err != nil {
		t.Fatal(err)
	}
	if err := c.AwaitISR("t", 0, leader, kept); err != nil {
		t.Fatal(err)
	}
	if err := c.Heal(cut, leader); err != nil {
		t.Fatal(err)
	}
	if err := c.AwaitISR("t", 0, leader, kept, cut); err != nil {
		t.Fatal(err)
	}
}
