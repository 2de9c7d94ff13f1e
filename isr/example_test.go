package isr_test

import (
	"fmt"

	"github.com/kaenlog/kaenlog/isr"
)

// The chapter's four rounds: the follower's fetch offset (its LEO) reaches
// the leader in the request, so the proposal trails the leader's LEO by one.
func ExampleAdvanceHW() {
	maximalISR := []int32{1, 2}
	for round := uint64(1); round <= 4; round++ {
		leaderLEO := round
		followers := []isr.ReplicaLEO{{ID: 2, LEO: round - 1}}
		hw, ok := isr.AdvanceHW(leaderLEO, followers, maximalISR, 2)
		fmt.Printf("round %d: leader LEO %d, follower LEO %d -> proposed HW %d (%v)\n", round, leaderLEO, round-1, hw, ok)
	}

	// Under min.insync.replicas nothing is proposed.
	_, ok := isr.AdvanceHW(5, nil, []int32{1}, 2)
	fmt.Println("ISR [1] with min 2 proposes:", ok)
	// Output:
	// round 1: leader LEO 1, follower LEO 0 -> proposed HW 0 (true)
	// round 2: leader LEO 2, follower LEO 1 -> proposed HW 1 (true)
	// round 3: leader LEO 3, follower LEO 2 -> proposed HW 2 (true)
	// round 4: leader LEO 4, follower LEO 3 -> proposed HW 3 (true)
	// ISR [1] with min 2 proposes: false
}

// The chapter's "ISR shrinks by time" block: the follower last fetched at
// 1700000000000, replica.lag.time.max.ms is 30000.
func ExampleState_ShrinkISR() {
	const last = int64(1700000000000)
	s, err := isr.NewState(isr.Config{LeaderID: 1, ISR: []int32{1, 2}, MinISR: 2, LagMaxMs: 30000}, last)
	if err != nil {
		panic(err)
	}
	for round := uint64(1); round <= 4; round++ {
		if err := s.Observe(2, round-1, round, last); err != nil {
			panic(err)
		}
	}
	fmt.Println("ISR before", s.ISR())
	at, _ := s.LastCaughtUpMs(2)
	fmt.Println("replica 2 last caught up at", at)

	fmt.Println("ShrinkISR(1700000030000):", s.ShrinkISR(1700000030000), s.ISR())
	fmt.Println("ShrinkISR(1700000030001):", s.ShrinkISR(1700000030001), s.ISR())
	fmt.Println("under min.insync.replicas:", s.UnderMinISR())
	fmt.Println("leader still in its ISR:", s.InISR(1))
	// Output:
	// ISR before [1 2]
	// replica 2 last caught up at 1700000000000
	// ShrinkISR(1700000030000): false [1 2]
	// ShrinkISR(1700000030001): true [1]
	// under min.insync.replicas: true
	// leader still in its ISR: true
}

// The chapter's "two errors, not one" table. The record at offset 4 is
// committed once HW >= 5, so the required offset is 4+1.
func ExampleGate_Verdict() {
	required := uint64(4 + 1)
	for _, c := range []struct {
		situation string
		gate      isr.Gate
	}{
		{"HW has not reached the required offset", isr.Gate{HighWatermark: 4, ISRSize: 2, MinISR: 2}},
		{"HW reached, ISR still full", isr.Gate{HighWatermark: 5, ISRSize: 2, MinISR: 2}},
		{"HW reached, ISR shrank after append", isr.Gate{HighWatermark: 5, ISRSize: 1, MinISR: 2}},
	} {
		fmt.Printf("%-40s %v\n", c.situation, c.gate.Verdict(required))
	}
	// Output:
	// HW has not reached the required offset   NotYet
	// HW reached, ISR still full               Committed
	// HW reached, ISR shrank after append      NotEnoughReplicasAfterAppend
}
