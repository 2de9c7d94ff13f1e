package sim_test

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica/sim"
)

// A short seeded simulation: the steps it drew, and that every invariant
// held after each. The same seed prints the same run, every time.
func Example() {
	r := sim.Run(sim.Config{Seed: 7, Steps: 12})
	fmt.Printf("seed %d, %d brokers\n", r.Seed, r.Brokers)
	fmt.Print(sim.Story(r.Steps))
	fmt.Println("failure:", r.Failure)
	// Output:
	// seed 7, 4 brokers
	// 1. Produce "v1" acks=-1 to broker 3
	// 2. Elect unclean=false
	// 3. Advance 500 ms
	// 4. Crash broker 2 (KeepUnsynced)
	// 5. Consume
	// 6. Advance 2000 ms
	// 7. FetchRound
	// 8. Produce "v2" acks=-1 to the leader
	// 9. Produce "v3" acks=1 to the leader
	// 10. FetchRound
	// 11. FetchRound
	// 12. Advance 500 ms
	// failure: <nil>
}

// With an unsafe rule switched on — here the pre-KIP-101 truncation of a
// follower to its own high watermark — the simulator finds the lost commit
// and shrinks the run to a scenario a test can keep.
func Example_preKIP101() {
	cfg := sim.Config{Seed: 97, Brokers: 3, TruncateToHighWatermark: true, LossOnly: true}
	r := sim.Run(sim.Config{Seed: cfg.Seed, Brokers: 3, Steps: 500, TruncateToHighWatermark: true, LossOnly: true})
	short := sim.Shrink(cfg, r.Steps)
	fmt.Print(sim.Story(short))
	fmt.Println(sim.Replay(cfg, short).Failure)
	// Output:
	// 1. Crash broker 2 (TornUnsynced)
	// 2. Advance 6500 ms
	// 3. Produce "v36" acks=0 to the leader
	// 4. Restart broker 2
	// 5. Produce "v38" acks=-1 to the leader
	// 6. Cut broker 2 – controller
	// 7. Crash broker 1 (LoseUnsynced)
	// 8. Advance 6500 ms
	// sim: AcknowledgedKept violated after step 8 (Advance 6500 ms): offset 1 was acknowledged as "v38"; leader 3 at epoch 2 holds "(missing)"
}
