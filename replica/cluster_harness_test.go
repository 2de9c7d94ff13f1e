package replica_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The cluster-level harness: brokers and the controller as nodes on the
// in-memory network, the test playing clients and the clock.

// topic is the partition every cluster scenario uses.
var topic = replica.TopicPartition{Topic: "payments", Partition: 0}

// openTestCluster opens an in-memory cluster of the given brokers with
// topic created on them (replicas in the given order, minISR).
func openTestCluster(t *testing.T, cfg replica.ClusterConfig, minISR int32, replicas ...int32) *replica.Cluster {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = "/cluster"
	}
	cfg.InMemory = true
	if cfg.StartMs == 0 {
		cfg.StartMs = t0
	}
	c, err := replica.OpenCluster(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.CreateTopic(topic.Topic, 1, int16(len(replicas)), minISR, [][]int32{replicas}); err != nil {
		t.Fatal(err)
	}
	return c
}

// produce sends one record per value to the leader and waits for the
// answer, failing the test on a refusal.
func produce(t *testing.T, c *replica.Cluster, acks int16, values ...string) uint64 {
	t.Helper()
	vs := make([][]byte, len(values))
	for i, v := range values {
		vs[i] = []byte(v)
	}
	off, err := c.Produce(topic, acks, 30_000, vs...)
	if err != nil {
		t.Fatalf("produce %q with acks=%d: %v", values, acks, err)
	}
	return off
}

// rounds runs n fetch rounds.
func rounds(c *replica.Cluster, n int) {
	for range n {
		c.FetchRound()
	}
}

// logOf returns the record values broker id holds for topic.
func logOf(t *testing.T, c *replica.Cluster, id int32) []string {
	t.Helper()
	r, ok := c.Replica(id, topic)
	if !ok {
		t.Fatalf("broker %d hosts no %v", id, topic)
	}
	return values(t, r)
}

// awaitLeader waits until the controller has committed a leader other than
// not for topic (and the leader's broker has taken the role), and returns it.
func awaitLeader(t *testing.T, c *replica.Cluster, not int32, maxMs int64) int32 {
	t.Helper()
	if err := c.Await(func() bool {
		l := c.LeaderOf(topic)
		if l < 0 || l == not {
			return false
		}
		r, ok := c.Replica(l, topic)
		return ok && r.Role() == replica.RoleLeader
	}, maxMs); err != nil {
		t.Fatalf("no new leader (controller says %d): %v", c.LeaderOf(topic), err)
	}
	return c.LeaderOf(topic)
}

// isrOf returns the controller's committed ISR of topic.
func isrOf(c *replica.Cluster) []int32 {
	p, _ := c.Controller().Image().Partition(topic.Topic, topic.Partition)
	return slices.Sorted(slices.Values(p.ISR))
}

// converge runs fetch rounds until every running replica of topic holds
// the same records as the leader, or fails.
func converge(t *testing.T, c *replica.Cluster) {
	t.Helper()
	for range 50 {
		c.FetchRound()
		l := c.LeaderOf(topic)
		want := logOf(t, c, l)
		same := true
		for _, id := range c.BrokerIDs() {
			if _, ok := c.Replica(id, topic); ok && c.Broker(id) != nil && !slices.Equal(logOf(t, c, id), want) {
				same = false
			}
		}
		if same {
			return
		}
		c.Advance(100) // past any backoff
	}
	for _, id := range c.BrokerIDs() {
		if _, ok := c.Replica(id, topic); ok {
			t.Logf("broker %d: %q", id, logOf(t, c, id))
		}
	}
	t.Fatal("the replicas did not converge")
}

// sameEpochs fails unless every running replica of topic has the same
// epoch cache.
func sameEpochs(t *testing.T, c *replica.Cluster) {
	t.Helper()
	var want string
	for _, id := range c.BrokerIDs() {
		r, ok := c.Replica(id, topic)
		if !ok {
			continue
		}
		got := fmt.Sprint(r.Epochs())
		if want == "" {
			want = got
		} else if got != want {
			t.Fatalf("broker %d epochs %s, another has %s", id, got, want)
		}
	}
}

var _ = wire.AcksAll
