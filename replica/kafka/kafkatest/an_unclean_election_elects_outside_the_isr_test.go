package kafkatest_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/kafka/kafkatest"
	"github.com/kaenlog/kaenlog/wire"
)

// TestOnlyAnUncleanElectionElectsAReplicaThatLeftTheISRAndItSaysDataMayBeLost:
// the followers crash, then the leader; the first follower comes back
// (after an unclean shutdown, so out of ISR and ELR). A clean election
// refuses it (no eligible leader: it may lack acknowledged records); an
// unclean one elects it and reports that data may be lost.
func TestOnlyAnUncleanElectionElectsAReplicaThatLeftTheISRAndItSaysDataMayBeLost(t *testing.T) {
	c := newCluster(t, kafkatest.Config{})
	if err := c.CreateTopic("t", 1); err != nil {
		t.Fatal(err)
	}
	leader, fs := c.Leader("t", 0), c.Followers("t", 0)
	for _, f := range fs {
		if err := c.Crash(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.AwaitISR("t", 0, leader); err != nil {
		t.Fatal(err)
	}
	if err := c.Crash(leader); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AwaitPartition("t", 0, "no leader", func(ps controller.PartitionState) bool { return ps.Leader == controller.NoLeader }); err != nil {
		t.Fatal(err)
	}
	back := fs[0]
	if err := c.Restart(back); err != nil {
		t.Fatal(err)
	}
	if got, _, err := c.ElectLeader("t", 0, false); !errors.Is(err, wire.ErrEligibleLeadersNotAvailable) {
		t.Fatalf("clean election with only broker %d (out of the ISR) live: leader %d, %v", back, got, err)
	}
	got, lost, err := c.ElectLeader("t", 0, true)
	if err != nil || got != back || !lost {
		t.Fatalf("unclean election: leader %d, data may be lost %v, %v; want broker %d, true", got, lost, err, back)
	}
	if _, err := c.AwaitLeader("t", 0); err != nil {
		t.Fatal(err)
	}
}
