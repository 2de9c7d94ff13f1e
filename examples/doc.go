// Package examples holds kaenlog's two demos, each section a method that
// checks its claims before it prints and a runnable Example whose output
// go test verifies.
//
// # The chapter's demo
//
// [Demo] runs the chapter's demo — `klog replica-demo --rounds 4
// --min-isr 2 --now-ms 1700000000000` in the course, `go run
// ./examples/replica-demo` here — one section at a time, and carries one
// runnable Example per section whose output `go test` verifies.
//
// Every number a section prints comes from running the replica, isr, epoch,
// wire and log packages on real directories; none is typed into a string.
// And before a section prints, it checks that what it is about to claim
// actually happened — that the follower's high watermark really is below its
// LEO in every round, that the ISR really shrank, that exactly one record
// really was lost to the old rule and none to the new — and returns an error
// wrapping [ErrClaimNotShown] otherwise. A demo that prints the same bytes
// every run has only shown that it is deterministic, not that it shows what
// it claims; the chapter's own demo once printed HW = LEO in every round,
// deterministically.
//
// The text is the chapter's, in Thai, byte for byte, except that where a
// line names Rust code it names the Go API that plays that role: FetchOnce
// for fetch_once, ShrinkISR(nowMs) for shrink_isr(now_ms), BecomeLeader for
// become_leader, the comma-ok (epoch, endOffset, ok) result for Some(..) and
// None, []int32 for Vec<i32>, uint64 for u64.
//
// # The cluster demo
//
// [ClusterDemo] runs three brokers and the controller in one process
// (`go run ./examples/cluster-demo`), in English, and drives what the
// chapter only draws: the controller's election, acks=all waiting for the
// high watermark, the ISR shrinking and growing on the timer through the
// controller, a leader crash and a clean election, and KIP-279's leadership
// change 1 → 2 → 1. Like the chapter's demo it is deterministic (an
// in-memory network on a clock that moves only when told), golden
// (testdata/cluster-demo.golden) and self-checking ([ErrClaimNotShown]).
package examples
