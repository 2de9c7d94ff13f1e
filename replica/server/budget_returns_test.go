package server_test

import (
	"encoding/binary"
	"math"
	"net"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// TestEveryByteHeldReturnsWhenItsConnectionCloses: whichever way a
// connection ends — its client gone mid-frame, while waiting for the
// budget, with responses unread, or closed by the host's write deadline
// or idle sweep — the bytes it held go back, so the budget does not
// shrink for ever; while connections live, the shared count is what they
// hold beyond their free allowance. A frame needing the whole budget is
// read after all of them.
func TestEveryByteHeldReturnsWhenItsConnectionCloses(t *testing.T) {
	const budget, perConn = 2 << 20, 1 << 20
	c := clustertest.Start(t, clustertest.Options{Brokers: 1, Host: func(_ int32, _ *replica.Broker, cfg *server.Config) {
		cfg.MaxHeldBytes, cfg.MaxConnectionHeldBytes = budget, perConn
		cfg.WriteTimeoutMs, cfg.ConnectionsMaxIdleMs = 1000, 2000
		cfg.Logf = nil
	}})
	c.CreateTopic("bad", 1, 1, 1)
	h := c.Broker(1).Host
	addr := h.Addr().String()
	tp := replica.TopicPartition{Topic: "bad", Partition: 0}
	big := produceFrame(t, tp, wire.AcksLeader, 3000) // ~300 KiB
	pc := dial(t, addr)
	for range 12 {
		if _, err := pc.nc.Write(big); err != nil {
			t.Fatal(err)
		}
		pc.keys[1] = wire.APIProduce
		pc.receive()
	}
	pc.close()
	consistent := func() {
		t.Helper()
		conns, shared := h.Memory()
		var want int64
		for _, m := range conns {
			want += max(0, m.Held-16<<10)
		}
		if shared != want {
			t.Fatalf("the budget counts %d shared bytes, the %d connections hold %d beyond their free allowance", shared, len(conns), want)
		}
	}

	chunk := make([]byte, 64<<10)
	fetch := frameOfErr(&wire.FetchRequest{CorrelationID: 1, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1,
		MaxBytes: math.MaxInt32, Partitions: []wire.FetchPartition{{Topic: "bad", Partition: 0, CurrentLeaderEpoch: wire.NoEpoch,
			FetchOffset: 0, LastFetchedEpoch: wire.NoEpoch, MaxBytes: math.MaxInt32}}})
	var (
		mu    sync.Mutex
		mine  []net.Conn
		kinds = []func(nc net.Conn) error{
			func(nc net.Conn) error { // mid-frame, then waiting for the budget
				if _, err := nc.Write(binary.BigEndian.AppendUint32(nil, perConn)); err != nil {
					return err
				}
				return writeN(nc, perConn/2, chunk)
			},
			func(nc net.Conn) error { // unread fetch responses: the write deadline
				nc.(*net.TCPConn).SetReadBuffer(4 << 10)
				for range 5 {
					if _, err := nc.Write(fetch); err != nil {
						return err
					}
				}
				return nil
			},
			func(nc net.Conn) error { // a large request answered, then idle
				_, err := nc.Write(big)
				return err
			},
		}
	)
	for _, k := range kinds {
		hostile(t, addr, 4, func(nc net.Conn) error {
			mu.Lock()
			mine = append(mine, nc)
			mu.Unlock()
			return k(nc)
		})
	}
	c.Await("the hostile connections holding the budget", func() bool {
		_, shared := h.Memory()
		return shared >= budget/2
	})
	consistent()
	c.Await("the write deadline and the idle sweep closing what they close", func() bool {
		consistent()
		return h.OpenInbound() <= 4 // the mid-frame ones, and the broker's own none
	})
	mu.Lock()
	for _, nc := range mine {
		nc.Close()
	}
	mu.Unlock()
	// A connection is dead (OpenInbound) a moment before its close gives
	// its bytes back (Memory): wait for both, or fail naming what stayed.
	c.Await("every hostile connection closed and its bytes given back to the budget", func() bool {
		conns, shared := h.Memory()
		return h.OpenInbound() == 0 && shared == 0 && len(conns) == 0
	})
	// ~2 MiB, the whole budget: read and answered (its batch is over the
	// log's limit, MESSAGE_TOO_LARGE) only if no byte stayed counted.
	whole := produceFrame(t, tp, wire.AcksLeader, 19000)
	cl := dial(t, addr)
	defer cl.close()
	if _, err := cl.nc.Write(whole); err != nil {
		t.Fatal(err)
	}
	cl.keys[1] = wire.APIProduce
	if r := cl.receive().(*wire.ProduceResponse); r.Partitions[0].ErrorCode != wire.CodeMessageTooLarge {
		t.Fatalf("a produce of the whole budget after the hostile connections: %+v", r.Partitions[0])
	}
}
