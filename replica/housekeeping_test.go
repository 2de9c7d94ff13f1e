package replica_test

import (
	"fmt"
	"path"
	"syscall"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A broker checkpoints every hosted log's high watermark on its clock
// (Kafka's replica.high.watermark.checkpoint.interval.ms, 5 s), not only
// at a clean shutdown: after a kill -9 the high watermark restarts from a
// checkpoint at most one interval old.

// hwCheckpoint reads broker id's high-watermark checkpoint of topic.
func hwCheckpoint(t *testing.T, c *replica.Cluster, id int32) string {
	t.Helper()
	data, err := vfs.ReadFile(c.DiskFaults(id), path.Join("/cluster", fmt.Sprintf("broker-%d", id), topic.String(), "high-watermark-checkpoint"), 1<<10)
	if err != nil {
		return "(none)"
	}
	return string(data)
}

func TestTheHighWatermarkIsCheckpointedOnTheClock(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2, 3}}, 2, 1, 2, 3)
	produce(t, c, wire.AcksAll, "a", "b", "c")
	rounds(c, 2) // the followers learn the high watermark
	for _, id := range []int32{1, 2, 3} {
		if got := hwCheckpoint(t, c, id); got == "0\n3\n" {
			t.Fatalf("broker %d checkpointed HW 3 before its interval", id)
		}
	}
	c.Advance(replica.DefaultHighWatermarkCheckpointIntervalMs)
	for _, id := range []int32{1, 2, 3} {
		if got := hwCheckpoint(t, c, id); got != "0\n3\n" {
			t.Errorf("broker %d HW checkpoint %q after %d ms, want HW 3", id, got, replica.DefaultHighWatermarkCheckpointIntervalMs)
		}
	}
}

func TestAFailedCheckpointHaltsTheBroker(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2, 3}}, 2, 1, 2, 3)
	produce(t, c, wire.AcksAll, "a")
	rounds(c, 2)
	disk := c.DiskFaults(2)
	disk.FailFrom(vfs.OpWrite, disk.Calls(vfs.OpWrite)+1, syscall.ENOSPC) // a full disk
	c.Advance(replica.DefaultHighWatermarkCheckpointIntervalMs)
	if c.Broker(2).Halted() == nil {
		t.Fatal("a broker whose checkpoint write failed goes on as if its disk were sound")
	}
}
