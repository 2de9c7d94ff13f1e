package kafkatest_test

import (
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/replica/kafka/kafkatest"
)

// TestAWaitThatRunsOutSaysWhatItWaitedForAndHowThePartitionStood: a wait
// for a state the partition never reaches gives up after Config.WaitMs,
// and its error names the awaited state, the partition and its last
// leader and ISR, or that the controller does not know it.
func TestAWaitThatRunsOutSaysWhatItWaitedForAndHowThePartitionStood(t *testing.T) {
	c := newCluster(t, kafkatest.Config{Brokers: 1, WaitMs: 3000})
	if err := c.CreateTopic("t", 1); err != nil {
		t.Fatal(err)
	}
	err := c.AwaitISR("t", 0, 1, 9)
	if err == nil {
		t.Fatal("a wait for ISR [1 9] with one broker returned nil")
	}
	for _, want := range []string{"after 3000 ms", "ISR [1 9] of t-0", "leader 1", "ISR [1]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v: no %q", err, want)
		}
	}
	_, err = c.AwaitLeader("nosuch", 0)
	if err == nil || !strings.Contains(err.Error(), "a leader of nosuch-0 (the controller does not know the partition)") {
		t.Errorf("a wait for a leader of an unknown topic: %v", err)
	}
}
