package epoch_test

import (
	"fmt"

	"github.com/kaenlog/kaenlog/epoch"
)

// The chapter's "leader epoch" block: the vector a leader fills in at
// become_leader, and the answers to several requested epochs, including one
// that never existed (2) and the one that means "none" (-1).
func ExampleEndOffsetForEpoch() {
	entries := []epoch.Entry{{Epoch: 0, StartOffset: 0}, {Epoch: 1, StartOffset: 5}, {Epoch: 3, StartOffset: 6}}
	const leo = 6

	fmt.Println("  epoch   start_offset")
	for _, e := range entries {
		fmt.Printf("  %5d   %12d\n", e.Epoch, e.StartOffset)
	}
	fmt.Println("  asked   got (epoch, end_offset)")
	for _, asked := range []int32{0, 1, 2, 3, 4, -1} {
		if ep, end, ok := epoch.EndOffsetForEpoch(entries, asked, leo); ok {
			fmt.Printf("  %5d   (%d, %d)\n", asked, ep, end)
		} else {
			fmt.Printf("  %5d   not found\n", asked)
		}
	}
	// Output:
	//   epoch   start_offset
	//       0              0
	//       1              5
	//       3              6
	//   asked   got (epoch, end_offset)
	//       0   (0, 5)
	//       1   (1, 6)
	//       2   (1, 6)
	//       3   (3, 6)
	//       4   (3, 6)
	//      -1   not found
}

// A cache lives in memory; its owner (package log) persists it in Kafka's
// leader-epoch-checkpoint format, which AppendCheckpoint writes and
// ParseCheckpoint reads back.
func ExampleCache() {
	c := epoch.New()
	for _, e := range []epoch.Entry{{Epoch: 0, StartOffset: 0}, {Epoch: 1, StartOffset: 5}, {Epoch: 3, StartOffset: 6}} {
		if err := c.Assign(e.Epoch, e.StartOffset); err != nil {
			panic(err)
		}
	}
	// The log is truncated to offset 6: epoch 3 has no records left.
	if err := c.TruncateFromEnd(6); err != nil {
		panic(err)
	}
	data := epoch.AppendCheckpoint(nil, c.Entries())
	fmt.Printf("file: %q\n", data)

	entries, err := epoch.ParseCheckpoint(data)
	if err != nil {
		panic(err)
	}
	reloaded, err := epoch.FromEntries(entries)
	if err != nil {
		panic(err)
	}
	latest, _ := reloaded.LatestEpoch()
	start, _ := reloaded.StartOffsetOf(latest)
	fmt.Println("reloaded:", reloaded.Entries(), "latest epoch", latest, "starts at", start)
	// Output:
	// file: "0\n2\n0 0\n1 5\n"
	// reloaded: [{0 0} {1 5}] latest epoch 1 starts at 5
}
