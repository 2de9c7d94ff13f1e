package server_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
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
	c := startCluster(t, clusterOptions{
		brokers: 3, wrap: record,
		hostCfg:   func(id int32, cfg *server.Config) { cfg.Resolve = px.resolver(id) },
		brokerCfg: func(cfg *replica.BrokerConfig) { cfg.Replica.LagMaxMs = 2000 },
	})
	px.setCluster(c)
	defer px.close()
	tp := replica.TopicPartition{Topic: "orders", Partition: 0}
	c.createTopic(tp.Topic, 1, 3, 2)
	leader, _ := c.leader(tp)
	if p := c.produce(tp, wire.AcksAll, "before"); p.ErrorCode != wire.CodeNone {
		t.Fatalf("produce before the cut: %+v", p)
	}
	follower := int32(1)
	for follower == leader {
		follower++
	}
	link := px.get(follower, leader)
	link.cutLink()

	f, l := c.broker(follower).node.(*recorder), c.broker(leader).node.(*recorder)
	c.ev.await(t, "both ends told of the cut", func() bool {
		return f.wasDisconnected(func(a replica.Addr) bool { return a == replica.BrokerAt(leader) }) &&
			l.wasDisconnected(func(a replica.Addr) bool { return a.Kind == replica.ClientAddr })
	})

	toLeader := func(a replica.Addr) bool { return a == replica.BrokerAt(leader) }
	c.ev.await(t, "a refused dial told to the follower", func() bool { return f.disconnects(toLeader) >= 2 })

	p := c.produce(tp, wire.AcksAll, "during")
	if p.ErrorCode != wire.CodeNone {
		t.Fatalf("acks=all during the cut: %+v", p)
	}
	if isr := c.isr(tp); slices.Contains(isr, follower) || len(isr) != 2 {
		t.Fatalf("ISR %v during the cut: the cut-off follower %d should be out", isr, follower)
	}

	link.heal()
	c.ev.await(t, "the follower caught up and back in the ISR", func() bool {
		_, lend := c.hw(leader, tp)
		_, fend := c.hw(follower, tp)
		return fend == lend && slices.Contains(c.isr(tp), follower)
	})
	if link.accepted() < 2 {
		t.Fatalf("the follower reconnected %d times through the healed link", link.accepted()-1)
	}
}

// isr returns the ISR the controller committed for tp.
func (c *cluster) isr(tp replica.TopicPartition) []int32 {
	p, _ := c.image().Partition(tp.Topic, tp.Partition)
	return p.ISR
}
