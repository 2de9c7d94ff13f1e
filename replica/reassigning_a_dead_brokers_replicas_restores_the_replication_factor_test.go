package replica_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// Replacing a broker that is gone for good (issue 19 §2): its replica is
// reassigned, through a broker's forwarding, to a new broker, which
// creates its replica, catches up from the leader and joins the ISR; the
// reassignment then completes: replication factor 3 and a full ISR again,
// every record acknowledged before and after on the new broker, and the
// old broker, started again, deletes the replica it no longer has.
func TestReassigningADeadBrokersReplicasToANewBrokerRestoresTheReplicationFactor(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2, 3, 4}}, 2, 1, 2, 3)
	produce(t, c, wire.AcksAll, "a", "b")
	if err := c.CrashBroker(3, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	if err := c.Await(func() bool { return !slices.Contains(isrOf(c), 3) }, 60_000); err != nil {
		t.Fatalf("broker 3 never left the ISR %v: %v", isrOf(c), err)
	}
	produce(t, c, wire.AcksAll, "c")

	resp, err := c.Call(replica.BrokerAt(2), &wire.AlterPartitionReassignmentsRequest{
		CorrelationID: c.NextCorrelation(), Topic: topic.Topic, Partition: topic.Partition, Replicas: []int32{1, 2, 4},
	}, 10_000)
	if err != nil || resp.(*wire.AlterPartitionReassignmentsResponse).ErrorCode != wire.CodeNone {
		t.Fatalf("AlterPartitionReassignments: %+v, %v", resp, err)
	}
	listed, err := c.Call(replica.BrokerAt(1), &wire.ListPartitionReassignmentsRequest{CorrelationID: c.NextCorrelation()}, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if l := listed.(*wire.ListPartitionReassignmentsResponse); len(l.Reassignments) > 1 {
		t.Fatalf("ListPartitionReassignments: %+v", l)
	}
	done := func() bool {
		p, _ := c.Controller().Image().Partition(topic.Topic, topic.Partition)
		return !p.Reassigning() && slices.Equal(p.Replicas, []int32{1, 2, 4}) && len(p.ISR) == 3
	}
	for i := 0; !done(); i++ {
		if i == 50 {
			p, _ := c.Controller().Image().Partition(topic.Topic, topic.Partition)
			t.Fatalf("waited 50 fetch rounds for the reassignment to complete: %v", p)
		}
		c.FetchRound()
		c.Advance(100)
	}
	produce(t, c, wire.AcksAll, "d")
	converge(t, c)
	if got := logOf(t, c, 4); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("the new broker holds %q", got)
	}
	if got := isrOf(c); !slices.Equal(got, []int32{1, 2, 4}) {
		t.Fatalf("ISR %v, want [1 2 4]", got)
	}

	if err := c.StartBroker(3); err != nil {
		t.Fatal(err)
	}
	if err := c.AwaitBrokers(60_000); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Replica(3, topic); ok {
		t.Fatal("broker 3 still hosts the partition it was reassigned off")
	}
	if got := partitionDirs(t, c, 3); len(got) != 0 {
		t.Fatalf("broker 3 keeps partition directories %v", got)
	}
}
