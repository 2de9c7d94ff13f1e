package replica_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// deleteTopic deletes name through broker via's forwarding, as a Kafka
// client's DeleteTopics reaches the controller, and returns the answer.
func deleteTopic(t *testing.T, c *replica.Cluster, via int32, names ...string) *wire.DeleteTopicsResponse {
	t.Helper()
	resp, err := c.Call(replica.BrokerAt(via), &wire.DeleteTopicsRequest{CorrelationID: c.NextCorrelation(), Names: names}, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	return resp.(*wire.DeleteTopicsResponse)
}

// partitionDirs lists broker id's partition directories (in-memory cluster
// under /cluster).
func partitionDirs(t *testing.T, c *replica.Cluster, id int32) []string {
	t.Helper()
	entries, err := c.DiskFaults(id).ReadDir(filepath.Join("/cluster", fmt.Sprintf("broker-%d", id)))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.Regular {
			dirs = append(dirs, e.Name)
		}
	}
	return dirs
}

// A topic deleted through a broker is gone from every broker: replicas
// stopped and their directories deleted, produce and fetch answered
// UNKNOWN_TOPIC_OR_PARTITION; the deletion survives the brokers' and the
// controller's restart; a topic created again under the name starts
// empty, on brokers that were up and on one that was down for the
// deletion and the re-creation.
func TestDeletedTopicsReplicasStopAndTheirLogsAreDeleted(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2, 3}}, 1, 1, 2, 3)
	if err := c.CreateTopic("keep", 1, 3, 1, nil); err != nil {
		t.Fatal(err)
	}
	produce(t, c, wire.AcksAll, "a", "b", "c")
	converge(t, c)
	for _, id := range c.BrokerIDs() {
		if got := partitionDirs(t, c, id); !slices.Equal(got, []string{"keep-0", "payments-0"}) {
			t.Fatalf("broker %d has partition directories %v before the deletion", id, got)
		}
	}

	resp := deleteTopic(t, c, 2, topic.Topic, "nope")
	if resp.Topics[0].ErrorCode != wire.CodeNone || resp.Topics[1].ErrorCode != wire.CodeUnknownTopicOrPartition {
		t.Fatalf("DeleteTopics answered %+v, want NONE then UNKNOWN_TOPIC_OR_PARTITION", resp.Topics)
	}
	if err := c.AwaitBrokers(10_000); err != nil {
		t.Fatal(err)
	}
	for _, id := range c.BrokerIDs() {
		if _, ok := c.Replica(id, topic); ok {
			t.Fatalf("broker %d still hosts %v after its topic's deletion", id, topic)
		}
		if got := partitionDirs(t, c, id); !slices.Equal(got, []string{"keep-0"}) {
			t.Fatalf("broker %d has partition directories %v after the deletion, want [keep-0]", id, got)
		}
	}
	call, err := c.SendProduceTo(1, topic, wire.AcksAll, 1000, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Await(call.Done, 5_000); err != nil {
		t.Fatal(err)
	}
	if _, _, perr := call.Result(); !errors.Is(perr, wire.ErrUnknownTopicOrPartition) {
		t.Fatalf("a produce to the deleted topic: %v, want UNKNOWN_TOPIC_OR_PARTITION", perr)
	}

	// Broker 3 is down while "keep" is deleted and the first topic is
	// created again without it: at its start it deletes keep-0 once it
	// has caught up with the metadata.
	if err := c.StopBroker(3); err != nil {
		t.Fatal(err)
	}
	if r := deleteTopic(t, c, 1, "keep"); r.Topics[0].ErrorCode != wire.CodeNone {
		t.Fatalf("deleting keep: %+v", r.Topics)
	}
	if err := c.CreateTopic(topic.Topic, 1, 2, 1, [][]int32{{1, 2}}); err != nil {
		t.Fatal(err)
	}
	produce(t, c, wire.AcksAll, "new")
	if got := logOf(t, c, 1); !slices.Equal(got, []string{"new"}) {
		t.Fatalf("the recreated topic holds %q, want only what was produced to it", got)
	}
	if err := c.StartBroker(3); err != nil {
		t.Fatal(err)
	}
	// Stopped without a controlled shutdown: registered again once its
	// old session expires.
	if err := c.AwaitBrokers(60_000); err != nil {
		b := c.Broker(3)
		t.Fatalf("%v: broker 3 halted %v, refused %v, image end %d, controller %d", err, b.Halted(), b.RegistrationRefused(), b.Image().EndOffset(), c.Controller().Image().EndOffset())
	}
	if _, ok := c.Replica(3, topic); ok {
		t.Fatal("broker 3 hosts the recreated topic it is no replica of")
	}
	if got := partitionDirs(t, c, 3); len(got) != 0 {
		t.Fatalf("broker 3 kept partition directories %v of topics deleted while it was down", got)
	}
	if err := c.Controller().Failed(); err != nil {
		t.Fatal(err)
	}
	if err := c.RestartController(); err != nil {
		t.Fatal(err)
	}
	if names := c.Controller().Image().TopicNames(); !slices.Equal(names, []string{topic.Topic}) {
		t.Fatalf("the restarted controller has topics %v, want only the recreated %s", names, topic.Topic)
	}
	for _, id := range []int32{1, 2} {
		if err := c.StopBroker(id); err != nil {
			t.Fatal(err)
		}
		if err := c.StartBroker(id); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.AwaitBrokers(60_000); err != nil {
		t.Fatal(err)
	}
	converge(t, c)
	if got := logOf(t, c, 2); !slices.Equal(got, []string{"new"}) {
		t.Fatalf("after restarts the recreated topic holds %q on broker 2, want [new]", got)
	}
}

// A broker that dies midway through deleting a partition's files finishes
// the deletion at its next start instead of opening what is left.
func TestADeletionCutShortIsFinishedAtTheNextStart(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1}}, 1, 1)
	produce(t, c, wire.AcksAll, "a")
	// Let the mark be written, then fail the file removals.
	faults := c.DiskFaults(1)
	faults.FailFrom(vfs.OpRemove, faults.Calls(vfs.OpRemove)+1, errors.New("injected: remove failed"))
	deleteTopic(t, c, 1, topic.Topic)
	if err := c.Await(func() bool { return c.Broker(1).Halted() != nil }, 10_000); err != nil {
		t.Fatalf("the broker did not halt on the failed deletion: %v", err)
	}
	if err := c.CrashBroker(1, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	c.DiskFaults(1).Heal()
	if got := partitionDirs(t, c, 1); !slices.Equal(got, []string{"payments-0"}) {
		t.Fatalf("directories %v after the failed deletion, want the half-deleted payments-0", got)
	}
	if f, err := faults.OpenFile("/cluster/broker-1/payments-0/partition.deleting", os.O_RDONLY, 0); err != nil {
		t.Fatalf("the half-deleted directory has no deletion mark: %v", err)
	} else {
		f.Close()
	}
	if err := c.StartBroker(1); err != nil {
		t.Fatal(err)
	}
	if got := partitionDirs(t, c, 1); len(got) != 0 {
		t.Fatalf("directories %v after the restart, want none", got)
	}
}
