package server_test

import (
	"encoding/binary"
	"net"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// TestAFollowerReplicatesWhileClientsHoldTheBudget: clients that spend the
// leader's whole memory budget (here frames announced and never finished,
// held whole from their length prefix until the idle close, ten minutes)
// do not stop a follower fetching over the same host. A producer whose
// batch fits its connection's free allowance is read and appended; the
// follower must then be able to fetch that batch, or the acks=all produce
// never completes and the follower falls out of the ISR: clients that
// are only held back would shrink the ISR of every partition the broker
// leads.
func TestAFollowerReplicatesWhileClientsHoldTheBudget(t *testing.T) {
	const budget, perConn = 4 << 20, 1 << 20
	c := clustertest.Start(t, clustertest.Options{Brokers: 2, Host: func(_ int32, _ *replica.Broker, cfg *server.Config) {
		cfg.MaxHeldBytes, cfg.MaxConnectionHeldBytes = budget, perConn
		cfg.Logf = nil
	}})
	tp := replica.TopicPartition{Topic: "replicated", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 2, 2)
	leader, _ := c.Leader(tp)
	follower := 3 - leader
	lh := c.Broker(leader).Host
	if r := produce(c, tp, wire.AcksAll, "before"); r.ErrorCode != wire.CodeNone {
		t.Fatalf("produce before the hostile clients: %+v", r)
	}

	// Eight connections each 1 MiB frame announced, half sent: the
	// budget is spent, and later readers wait for it.
	chunk := make([]byte, 64<<10)
	hostile(t, lh.Addr().String(), 8, func(nc net.Conn) error {
		if _, err := nc.Write(binary.BigEndian.AppendUint32(nil, perConn)); err != nil {
			return err
		}
		return writeN(nc, perConn/2, chunk)
	})
	c.Await("the hostile frames holding the leader's budget", func() bool {
		_, shared := lh.Memory()
		return shared >= budget-perConn
	})

	// A produce of one batch of ~15.5 KiB: its frame is within the free
	// allowance (16 KiB), so it is read at once; its batch is more than a
	// follower's free allowance less its own fetch request.
	records := recordsOf(t, 148, 100)
	req := &wire.ProduceRequest{Acks: wire.AcksAll, TimeoutMs: 10_000,
		Partitions: []wire.ProducePartition{{Topic: tp.Topic, Partition: tp.Partition, Records: records}}}
	if n := len(frameOf(t, req)); n > 16<<10 || len(records) <= 15<<10 {
		t.Fatalf("the batch is %d bytes in a frame of %d: the test needs more than 15 KiB in at most 16 KiB", len(records), n)
	}
	cl := dial(t, lh.Addr().String())
	defer cl.close()
	resp := cl.call(req).(*wire.ProduceResponse)
	if p := resp.Partitions[0]; p.ErrorCode != wire.CodeNone {
		_, fleo := c.HW(follower, tp)
		_, lleo := c.HW(leader, tp)
		t.Fatalf("an acks=all produce of %d bytes while clients hold the budget: %v (follower's log end %d, leader's %d)", len(records), p.ErrorCode, fleo, lleo)
	}
}
