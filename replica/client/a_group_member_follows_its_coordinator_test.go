package client_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// The coordinator's broker is killed under a member: the member finds the
// new coordinator (the new leader of the group's __consumer_offsets
// partition, loaded from its replica), keeps reading, and commits there;
// the commit made before the kill and the one after are both what a
// restarted member resumes from.
func TestAGroupMemberFollowsItsCoordinatorAcrossTheBrokersDeath(t *testing.T) {
	c := clustertest.Start(t, clustertest.Options{
		Brokers:    3,
		Controller: controller.Config{SessionTimeoutMs: 3000},
		Broker: func(cfg *replica.BrokerConfig) {
			cfg.Groups = group.DefaultConfig()
			cfg.Groups.InitialRebalanceDelayMs = 0
			cfg.Groups.MinSessionTimeoutMs = 500
			cfg.OffsetsTopicPartitions = 1
		},
	})
	cl := newClient(t, c)
	createTopic(t, c, cl, "payments", 1, 3, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 2*clustertest.WaitLimit)
	defer cancel()
	p, err := cl.NewProducer(client.ProducerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	produce := func(from, to int) {
		for i := from; i < to; i++ {
			if _, err := p.Produce(ctx, client.Record{Topic: "payments", Value: fmt.Appendf(nil, "p%d", i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	produce(0, 5)
	cfg := client.GroupConfig{Group: "ledger", Topics: []string{"payments"}, SessionTimeoutMs: 20000}
	m, _ := newMember(t, cl, cfg)
	next := uint64(0)
	read := func(n int) {
		t.Helper()
		for rec, err := range m.Records(ctx) {
			if err != nil {
				t.Fatalf("after offset %d: %v", next, err)
			}
			if rec.Offset != next {
				t.Fatalf("read offset %d, want %d", rec.Offset, next)
			}
			if next++; next%uint64(n) == 0 {
				return
			}
		}
	}
	read(5)
	if err := m.Commit(ctx); err != nil {
		t.Fatalf("commit before the kill: %v", err)
	}
	coord, _ := c.Leader(replica.TopicPartition{Topic: replica.OffsetsTopic})
	c.Kill(coord)
	c.Await("a new leader of __consumer_offsets-0", func() bool {
		l, _ := c.Leader(replica.TopicPartition{Topic: replica.OffsetsTopic})
		return l != coord && l != wire.NoLeader
	})
	produce(5, 10)
	read(5)
	if err := m.Commit(ctx); err != nil {
		t.Fatalf("commit after the coordinator's broker died: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Logf("leave: %v", err) // the leave may meet the move too; the commit is what counts
	}

	again, _ := newMember(t, newClient(t, c), cfg)
	produce(10, 11)
	for rec, err := range again.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Offset != 10 {
			t.Fatalf("the restarted member resumed at offset %d, want 10 (the last commit)", rec.Offset)
		}
		break
	}
}
