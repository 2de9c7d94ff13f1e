package replica_test

import (
	"fmt"
	"os"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The one-round lag: the follower receives a record in one round and learns
// it is committed in the next.
func ExampleCluster_FetchOnce() {
	root, err := os.MkdirTemp("", "kaenlog-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)

	const nowMs = 1_700_000_000_000
	c, err := replica.OpenCluster(root, 2, nowMs)
	if err != nil {
		panic(err)
	}
	defer c.Close()

	if _, code, err := c.Produce(1, wire.AcksLeader, nowMs); err != nil || code != wire.CodeNone {
		panic(fmt.Sprint(code, err))
	}
	for round := 1; round <= 2; round++ {
		r, err := c.FetchOnce(nowMs)
		if err != nil {
			panic(err)
		}
		fmt.Printf("round %d: leader LEO %d HW %d · follower LEO %d HW %d · shipped %d · response HW %d\n",
			round, r.LeaderLEO, r.LeaderHW, r.FollowerLEO, r.FollowerHW, r.RecordsShipped, r.ResponseHW)
	}
	// Output:
	// round 1: leader LEO 1 HW 0 · follower LEO 1 HW 0 · shipped 1 · response HW 0
	// round 2: leader LEO 1 HW 1 · follower LEO 1 HW 1 · shipped 0 · response HW 1
}

// KIP-101's rule: a restarted follower asks the leader where its epoch ends
// instead of cutting to its own high watermark, and keeps the record the old
// rule would have dropped.
func ExampleCluster_RestartFollower() {
	root, err := os.MkdirTemp("", "kaenlog-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)

	const nowMs = 1_700_000_000_000
	c, err := replica.OpenCluster(root, 2, nowMs)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	for _, step := range []func() error{
		func() error { _, _, err := c.Produce(1, wire.AcksLeader, nowMs); return err },
		func() error { _, err := c.FetchOnce(nowMs); return err },
		func() error { _, err := c.FetchOnce(nowMs); return err },
		func() error { _, _, err := c.Produce(2, wire.AcksLeader, nowMs); return err },
		func() error { _, err := c.FetchOnce(nowMs); return err },
	} {
		if err := step(); err != nil {
			panic(err)
		}
	}
	rep, err := c.RestartFollower(replica.TruncateByLeaderEpoch)
	if err != nil {
		panic(err)
	}
	a := rep.Answer
	fmt.Printf("follower LEO %d, HW %d\n", rep.LEOBefore, rep.HWBefore)
	fmt.Printf("asked epoch %d, leader answered (%d, %d, %t)\n", a.Asked, a.Epoch, a.EndOffset, a.Found)
	fmt.Printf("follower LEO after truncation %d\n", rep.LEOAfter)
	// Output:
	// follower LEO 2, HW 1
	// asked epoch 0, leader answered (0, 2, true)
	// follower LEO after truncation 2
}
