package client_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// startGroupCluster is a cluster whose coordinators start a group's first
// rebalance at once and take short sessions, with a small
// __consumer_offsets.
func startGroupCluster(t *testing.T, brokers int) *clustertest.Cluster {
	t.Helper()
	return clustertest.Start(t, clustertest.Options{
		Brokers:    brokers,
		Controller: controller.Config{},
		Broker: func(cfg *replica.BrokerConfig) {
			cfg.Groups = group.DefaultConfig()
			cfg.Groups.InitialRebalanceDelayMs = 0
			cfg.Groups.MinSessionTimeoutMs = 500
			cfg.OffsetsTopicPartitions = 3
		},
	})
}

// assignments collects a member's assignments from OnAssigned.
type assignments chan assigned

type assigned struct {
	gen   int32
	parts []client.TopicPartition
}

func (a assignments) on(gen int32, parts []client.TopicPartition) { a <- assigned{gen, parts} }

// await returns the first assignment cond accepts.
func (a assignments) await(t *testing.T, what string, cond func(assigned) bool) assigned {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()
	for {
		select {
		case got := <-a:
			if cond(got) {
				return got
			}
		case <-ctx.Done():
			t.Fatalf("no assignment in %v: waited for %s", clustertest.WaitLimit, what)
		}
	}
}

func newMember(t *testing.T, cl *client.Client, cfg client.GroupConfig) (*client.GroupConsumer, assignments) {
	t.Helper()
	a := make(assignments, 100)
	cfg.OnAssigned = a.on
	cfg.SessionTimeoutMs = 6000
	cfg.HeartbeatIntervalMs = 50
	cfg.Reset = client.ResetEarliest
	m, err := cl.NewGroupConsumer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, a
}

func tps(topic string, ps ...int32) []client.TopicPartition {
	out := make([]client.TopicPartition, len(ps))
	for i, p := range ps {
		out[i] = client.TopicPartition{Topic: topic, Partition: p}
	}
	return out
}

// Two members split the topic's partitions by range, each in the same
// generation; when one leaves, the other takes them all.
func TestTwoMembersSplitThePartitionsAndTheOneLeftTakesAll(t *testing.T) {
	c := startGroupCluster(t, 1)
	cl := newClient(t, c)
	createTopic(t, c, cl, "orders", 4, 1, 1)
	cfg := client.GroupConfig{Group: "billing", Topics: []string{"orders"}}

	a, aSeen := newMember(t, cl, cfg)
	aSeen.await(t, "the first member to hold all four partitions", func(x assigned) bool {
		return slices.Equal(x.parts, tps("orders", 0, 1, 2, 3))
	})
	b, bSeen := newMember(t, cl, cfg)
	bGot := bSeen.await(t, "the second member to hold two partitions", func(x assigned) bool { return len(x.parts) == 2 })
	aGot := aSeen.await(t, "the first member to hold the other two, in the same generation", func(x assigned) bool { return x.gen == bGot.gen })
	all := slices.SortedFunc(slices.Values(append(slices.Clone(aGot.parts), bGot.parts...)), func(x, y client.TopicPartition) int {
		return int(x.Partition - y.Partition)
	})
	if !slices.Equal(all, tps("orders", 0, 1, 2, 3)) || len(aGot.parts) != 2 {
		t.Fatalf("generation %d: first member holds %v, second %v: want two each, every partition once", bGot.gen, aGot.parts, bGot.parts)
	}

	if err := a.Close(); err != nil {
		t.Fatalf("leave: %v", err)
	}
	left := bSeen.await(t, "the member left to take all four partitions", func(x assigned) bool { return len(x.parts) == 4 })
	if left.gen <= bGot.gen {
		t.Fatalf("the whole topic came in generation %d, not after %d", left.gen, bGot.gen)
	}
	if got := b.Assignment(); !slices.Equal(got, tps("orders", 0, 1, 2, 3)) {
		t.Fatalf("Assignment() = %v", got)
	}
}

// A member reads the records from the start, commits after the first
// ones and closes; a new member of the group, on a new client, starts
// where the commit left off, and reads each later record once.
func TestACommittedOffsetSurvivesTheConsumersRestart(t *testing.T) {
	c := startGroupCluster(t, 1)
	cl := newClient(t, c)
	createTopic(t, c, cl, "events", 1, 1, 1)
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()
	p, err := cl.NewProducer(client.ProducerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := p.Produce(ctx, client.Record{Topic: "events", Value: fmt.Appendf(nil, "e%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := client.GroupConfig{Group: "audit", Topics: []string{"events"}}

	first, _ := newMember(t, cl, cfg)
	var read []string
	for rec, err := range first.Records(ctx) {
		if err != nil {
			t.Fatalf("reading the first 4 records, after %v: %v", read, err)
		}
		read = append(read, string(rec.Value))
		if len(read) == 4 {
			break
		}
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatalf("commit after %v: %v", read, err)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("leave: %v", err)
	}
	for _, err := range first.Records(ctx) {
		if !errors.Is(err, client.ErrClosed) {
			t.Fatalf("Records after Close: %v, want ErrClosed", err)
		}
	}

	cl2 := newClient(t, c)
	second, _ := newMember(t, cl2, cfg)
	var again []string
	for rec, err := range second.Records(ctx) {
		if err != nil {
			t.Fatalf("the restarted member reading the 6 records after the commit, after %v: %v", again, err)
		}
		if rec.Offset != uint64(4+len(again)) {
			t.Fatalf("the restarted member read offset %d after %v: want %d", rec.Offset, again, 4+len(again))
		}
		again = append(again, string(rec.Value))
		if len(again) == 6 {
			break
		}
	}
	if want := []string{"e4", "e5", "e6", "e7", "e8", "e9"}; !slices.Equal(again, want) {
		t.Fatalf("after the commit of %v the restarted member read %v, want %v", read, again, want)
	}
}

// A rebalance that takes partitions whose records were handed out and
// not committed makes the next Commit say so (REBALANCE_IN_PROGRESS), and
// a Commit after Close is refused with ErrClosed: neither is an
// acknowledgement of records the group has not committed.
func TestACommitIsNeverAcknowledgedForRecordsARebalanceOrCloseTookAway(t *testing.T) {
	c := startGroupCluster(t, 1)
	cl := newClient(t, c)
	createTopic(t, c, cl, "jobs", 2, 1, 1)
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()
	p, err := cl.NewProducer(client.ProducerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []int32{0, 1} {
		if _, err := p.Produce(ctx, client.Record{Topic: "jobs", Partition: part, Value: []byte("j")}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := client.GroupConfig{Group: "workers", Topics: []string{"jobs"}}
	a, aSeen := newMember(t, cl, cfg)
	for _, err := range a.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		break // one record handed out, not committed
	}
	_, bSeen := newMember(t, cl, cfg)
	gen := bSeen.await(t, "the second member to hold a partition", func(x assigned) bool { return len(x.parts) == 1 }).gen
	aSeen.await(t, "the first member's assignment of the new generation", func(x assigned) bool { return x.gen == gen })
	if err := a.Commit(ctx); !errors.Is(err, wire.ErrRebalanceInProgress) {
		t.Fatalf("commit after a rebalance took the record's partition: %v, want REBALANCE_IN_PROGRESS", err)
	}
	if err := a.Commit(ctx); err != nil {
		t.Fatalf("the next commit, of the new assignment's positions: %v", err)
	}
	a.Close()
	if err := a.Commit(ctx); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("commit after Close: %v, want ErrClosed", err)
	}
}

// A static member (group.instance.id) that closes does not leave; a new
// member under the same instance id takes its place within the session,
// in the same generation with the same partitions: no rebalance, though
// other requests came on the coordinator's connection since the join.
func TestAStaticMemberRestartsIntoItsOwnAssignment(t *testing.T) {
	c := startGroupCluster(t, 1)
	cl := newClient(t, c)
	createTopic(t, c, cl, "logs", 2, 1, 1)
	cfg := client.GroupConfig{Group: "shippers", Topics: []string{"logs"}, InstanceID: "host-a"}
	first, seen := newMember(t, cl, cfg)
	before := seen.await(t, "the static member to hold both partitions", func(x assigned) bool { return len(x.parts) == 2 })
	// A record read and committed: requests on the coordinator's
	// connection after the join, in the frames the join came in (a
	// coordinator that kept the join's metadata by reference would find
	// it changed, and rebalance the returning member).
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()
	p, err := cl.NewProducer(client.ProducerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Produce(ctx, client.Record{Topic: "logs", Value: []byte("l")}); err != nil {
		t.Fatal(err)
	}
	for _, err := range first.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	for range 3 {
		if err := first.Commit(ctx); err != nil {
			t.Fatalf("commit: %v", err)
		}
	}
	if err := first.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	_, again := newMember(t, newClient(t, c), cfg)
	after := again.await(t, "the restarted static member's assignment", func(assigned) bool { return true })
	if after.gen != before.gen || !slices.Equal(after.parts, before.parts) {
		t.Fatalf("restarted static member: generation %d %v, want generation %d %v (no rebalance)", after.gen, after.parts, before.gen, before.parts)
	}
}
