package server_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// TestFollowerLinkCutAndHealed: a follower's connection to its leader is
// cut — the socket closes and dials are refused. Both ends are told
// (Disconnected: the follower of the leader, the leader of the client
// connection), and the follower of every refused dial; the leader takes
// the silent follower out of the ISR on its timer and commits acks=all
// with the two left; once healed the follower dials again, catches up and
// is taken back into the ISR.
func TestFollowerLinkCutAndHealed(t *testing.T) {
	var px proxies
	c := clustertest.Start(t, clustertest.Options{
		Brokers: 3, Wrap: record,
		Host:   func(id int32, _ *replica.Broker, cfg *server.Config) { cfg.Resolve = px.resolver(id) },
		Broker: func(cfg *replica.BrokerConfig) { cfg.Replica.LagMaxMs = 2000 },
	})
	px.setCluster(c)
	defer px.close()
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 3, 2)
	leader, _ := c.Leader(tp)
	if p := produce(c, tp, wire.AcksAll, "before"); p.ErrorCode != wire.CodeNone {
		t.Fatalf("produce before the cut: %+v", p)
	}
	follower := int32(1)
	for follower == leader {
		follower++
	}
	link := px.get(follower, leader)
	link.cutLink()

	f, l := c.Broker(follower).Node.(*recorder), c.Broker(leader).Node.(*recorder)
	c.Await("both ends told of the cut", func() bool {
		return f.wasDisconnected(func(a replica.Addr) bool { return a == replica.BrokerAt(leader) }) &&
			l.wasDisconnected(func(a replica.Addr) bool { return a.Kind == replica.ClientAddr })
	})

	toLeader := func(a replica.Addr) bool { return a == replica.BrokerAt(leader) }
	c.Await("a refused dial told to the follower", func() bool { return f.disconnects(toLeader) >= 2 })

	p := produce(c, tp, wire.AcksAll, "during")
	if p.ErrorCode != wire.CodeNone {
		t.Fatalf("acks=all during the cut: %+v", p)
	}
	if in := isr(c, tp); slices.Contains(in, follower) || len(in) != 2 {
		t.Fatalf("ISR %v during the cut: the cut-off follower %d should be out", in, follower)
	}

	link.heal()
	c.Await("the follower caught up and back in the ISR", func() bool {
		_, lend := c.HW(leader, tp)
		_, fend := c.HW(follower, tp)
		return fend == lend && slices.Contains(isr(c, tp), follower)
	})
	if link.accepted() < 2 {
		t.Fatalf("the follower reconnected %d times through the healed link", link.accepted()-1)
	}
}

// isr returns the ISR the controller committed for tp.
func isr(c *clustertest.Cluster, tp replica.TopicPartition) []int32 {
	p, _ := c.Partition(tp.Topic, tp.Partition)
	return p.ISR
}
