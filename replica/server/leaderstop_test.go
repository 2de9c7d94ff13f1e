package server_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// TestLeaderKilledNewLeaderElected: the leader's host stops hard (no
// controlled shutdown). Its session expires on the controller, which
// fences it and elects an ISR member at the next leader epoch; acks=all
// then commits on the two brokers left.
func TestLeaderKilledNewLeaderElected(t *testing.T) {
	c := clustertest.Start(t, clustertest.Options{Brokers: 3, Controller: controller.Config{SessionTimeoutMs: 2000}})
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 3, 2)
	old, oldEpoch := c.Leader(tp)
	if p := produce(c, tp, wire.AcksAll, "a"); p.ErrorCode != wire.CodeNone {
		t.Fatalf("produce: %+v", p)
	}
	c.Kill(old)

	c.Await("a new leader", func() bool {
		l, _ := c.Leader(tp)
		return l != old && l != wire.NoLeader
	})
	leader, epoch := c.Leader(tp)
	if epoch <= oldEpoch {
		t.Fatalf("new leader %d at epoch %d, not above %d", leader, epoch, oldEpoch)
	}
	c.Await("the new leader leading", func() bool {
		b := c.Broker(leader)
		leads := false
		b.Host.Do(func(int64) {
			r, ok := b.Broker.Replica(tp)
			leads = ok && r.Role() == replica.RoleLeader && r.LeaderEpoch() == epoch
		})
		return leads
	})
	p := produce(c, tp, wire.AcksAll, "b")
	if p.ErrorCode != wire.CodeNone || p.BaseOffset != 1 {
		t.Fatalf("acks=all at the new leader: %+v", p)
	}
}

// TestLeaderClosedHandsOverFirst: Close on the leader's host runs the
// controlled shutdown — the controller moves the leadership away before
// the broker goes — and the broker leaves its clean-shutdown marker.
func TestLeaderClosedHandsOverFirst(t *testing.T) {
	c := clustertest.Start(t, clustertest.Options{Brokers: 3})
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 3, 2)
	old, _ := c.Leader(tp)
	if p := produce(c, tp, wire.AcksAll, "a"); p.ErrorCode != wire.CodeNone {
		t.Fatalf("produce: %+v", p)
	}
	b := c.Broker(old)
	if err := b.Host.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	c.Forget(old)
	if l, _ := c.Leader(tp); l == old || l == wire.NoLeader {
		t.Fatalf("after Close the leader is %d", l)
	}
	if _, err := os.Stat(filepath.Join(b.Dir, "broker-clean-shutdown")); err != nil {
		t.Fatalf("no clean-shutdown marker: %v", err)
	}
	if err := b.Host.Close(); err == nil {
		t.Fatal("a second Close succeeded")
	}
}
