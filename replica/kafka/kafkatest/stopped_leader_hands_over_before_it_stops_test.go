package kafkatest_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica/kafka/kafkatest"
)

// TestAStoppedLeaderHasHandedItsLeadershipOverWhenStopReturns: Stop is a
// controlled shutdown, so when it returns the controller has already
// moved the leadership to another ISR member and taken the broker out of
// the ISR; Restart brings it back under its id, and it rejoins the ISR.
func TestAStoppedLeaderHasHandedItsLeadershipOverWhenStopReturns(t *testing.T) {
	c := newCluster(t, kafkatest.Config{})
	if err := c.CreateTopic("t", 1); err != nil {
		t.Fatal(err)
	}
	old := c.Leader("t", 0)
	if err := c.Stop(old); err != nil {
		t.Fatal(err)
	}
	ps, _ := c.Partition("t", 0)
	if ps.Leader == old || ps.Leader < 0 || slices.Contains(ps.ISR, old) {
		t.Fatalf("after broker %d's Stop: leader %d, ISR %v", old, ps.Leader, ps.ISR)
	}
	if n := len(c.ListenAddrs()); n != 2 {
		t.Fatalf("%d Kafka listeners with one broker of three stopped", n)
	}
	if err := c.Restart(old); err != nil {
		t.Fatal(err)
	}
	if err := c.AwaitISR("t", 0, ps.Replicas...); err != nil {
		t.Fatal(err)
	}
}
