package client_test

import (
	"bufio"
	"context"
	"net"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// blackhole is a connection to a broker that never arrives: what the
// client writes is read and dropped (a SIGSTOPped or partitioned broker
// whose socket stays open), nothing is ever answered. produced is closed
// once a whole Produce request went in.
type blackhole struct {
	client, far net.Conn
	once        sync.Once
	produced    chan struct{}
}

func newBlackhole() *blackhole {
	c, f := net.Pipe()
	h := &blackhole{client: c, far: f, produced: make(chan struct{})}
	go func() {
		br := bufio.NewReader(f)
		for {
			payload, err := wire.ReadFrame(br, nil, 0)
			if err != nil {
				return
			}
			if key, _, err := wire.PeekHeader(payload); err == nil && key == wire.APIProduce {
				h.once.Do(func() { close(h.produced) })
			}
		}
	}()
	return h
}

// An idempotent producer keeps a partition's records in the order they
// were produced, whatever happens to its leaders ("the partition's order
// on the wire never changes", doc.go).
//
// The break: record r1's batch (sequence 0) is in flight to leader L1,
// which stops answering (its socket stays open). L1 is replaced by L2,
// which never had this producer. The client learns of L2 (here through a
// consumer of the same client) and sends r2's batch (sequence 1) to L2
// while r1's is still in flight to L1, unless take() holds a new batch
// back while an earlier one is in flight to another leader. L2 knows no
// state for the producer and accepts sequence 1 (log: "a producer the log
// has no state for may start at any epoch and sequence"). When r1's
// request fails, its resend meets OUT_OF_ORDER_SEQUENCE_NUMBER (sequence 0
// after 1), the client takes that for a gap, bumps the epoch and writes r1
// again, after r2: both acknowledged, in the wrong order.
func TestIdempotentProducerKeepsOrderAcrossALeaderChange(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 3, lagMs: 2000, sessionMs: 1000})
	setup := newClient(t, c)
	createTopic(t, c, setup, "order", 1, 3, 2)
	tp := client.TopicPartition{Topic: "order"}
	old := partition(c, "order", 0).Leader
	oldAddr := c.Broker(old).Host.Addr().String()

	var (
		mu   sync.Mutex
		hole *blackhole
		arm  = true
	)
	dialed := make(chan struct{})
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		defer mu.Unlock()
		if addr == oldAddr && arm {
			arm = false
			hole = newBlackhole()
			close(dialed)
			return hole.client, nil
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	cl, err := client.New(client.Config{Controller: c.Controller(), Clock: wallclock.New(), Seed: 1, Dial: dial})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	p, err := cl.NewProducer(client.ProducerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()

	type outcome struct {
		off client.Offset
		err error
	}
	produce := func(v string) chan outcome {
		ch := make(chan outcome, 1)
		if err := p.ProduceAsync(client.Record{Topic: "order", Value: []byte(v)}, func(off client.Offset, err error) { ch <- outcome{off, err} }); err != nil {
			t.Fatal(err)
		}
		return ch
	}
	wait := func(what string, ch chan outcome) outcome {
		select {
		case o := <-ch:
			if o.err != nil {
				t.Fatalf("%s: %v", what, o.err)
			}
			return o
		case <-ctx.Done():
			t.Fatalf("%s: no outcome", what)
		}
		return outcome{}
	}

	r1 := produce("r1")
	select {
	case <-dialed:
	case <-ctx.Done():
		t.Fatal("the leader was never dialled")
	}
	select {
	case <-hole.produced:
	case <-ctx.Done():
		t.Fatal("r1 never sent to the leader")
	}
	c.Kill(old)
	c.Await("a new leader", func() bool {
		now := partition(c, "order", 0)
		return now.Leader >= 0 && now.Leader != old
	})
	// A consumer of the same client: its connection to the old leader
	// fails, and the client's metadata follows the new leader.
	cons, err := cl.NewConsumer(client.ConsumerConfig{MaxWaitMs: 200})
	if err != nil {
		t.Fatal(err)
	}
	consCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for _, err := range cons.Records(consCtx, tp, client.FromStart()) {
			if err != nil {
				return
			}
		}
	}()
	now, err := client.AwaitLeaderOtherThan(ctx, cl, tp, old)
	if err != nil {
		t.Fatal(err)
	}
	// r2 waits while r1 is in flight to the old leader: sent to the new
	// one now, it would get there first.
	r2 := produce("r2")
	// The stopped leader's connection breaks at last (its request timeout,
	// or the peer's death noticed): r1 is resent to the new leader, then r2
	// goes.
	hole.far.Close()
	o1 := wait("r1", r1)
	o2 := wait("r2", r2)
	t.Logf("leader %d -> %d; r1 acknowledged at %d, r2 at %d; %d resends", old, now, o1.off.Offset, o2.off.Offset, client.Resends(p))
	if o1.off.Offset >= o2.off.Offset {
		t.Fatalf("r1, produced first, acknowledged at offset %d, after r2 at %d: the producer reordered the partition", o1.off.Offset, o2.off.Offset)
	}
}
