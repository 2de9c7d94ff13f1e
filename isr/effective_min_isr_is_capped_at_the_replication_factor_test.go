package isr

import "testing"

// min.insync.replicas above the replication factor is capped at it.
func TestEffectiveMinISRIsOneRuleForTheFunctionAndTheState(t *testing.T) {
	for _, c := range [][3]int{{1, 3, 1}, {2, 3, 2}, {3, 3, 3}, {3, 2, 2}, {4, 1, 1}} {
		if got := EffectiveMinISR(c[0], c[1]); got != c[2] {
			t.Errorf("EffectiveMinISR(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
		replicas := make([]int32, c[1])
		for i := range replicas {
			replicas[i] = int32(i + 1)
		}
		s := mustState(t, Config{LeaderID: 1, ISR: replicas, MinISR: c[0]}, t0)
		if got := s.EffectiveMinISR(); got != c[2] {
			t.Errorf("State.EffectiveMinISR with min %d over %d replicas = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}
