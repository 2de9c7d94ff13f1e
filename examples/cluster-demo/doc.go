// Command cluster-demo runs three brokers and the controller in one process,
// on an in-memory network and a clock that moves only when the demo says,
// and prints, in English, what the chapter's demo only draws: the
// controller's election, acks=all waiting for the high watermark, the ISR
// shrinking and growing on the timer through the controller, a leader crash
// and a clean election, and KIP-279's leadership change 1 → 2 → 1.
//
//	go run ./examples/cluster-demo
//
// Every run prints the same bytes (examples/testdata/cluster-demo.golden).
// Before each section prints, the demo checks that what it claims really
// happened, and exits with status 1 if not. The flags (--now-ms, --min-isr,
// --lag-ms, --session-ms) give other correct runs; invalid values exit with
// status 2.
package main
