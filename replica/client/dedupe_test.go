package client_test

import (
	"context"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
)

// A retried idempotent batch is never written twice ("a retry after
// REQUEST_TIMED_OUT, NOT_ENOUGH_REPLICAS_AFTER_APPEND, a broken connection
// or a change of leader never writes a record twice", doc.go).
//
// The break: r0 and r1 are appended by the leader (sequences 0 and 1) and
// wait for the ISR, which falls under min.insync.replicas: both are
// answered NOT_ENOUGH_REPLICAS_AFTER_APPEND (written) and retried. The
// retries meet NOT_ENOUGH_REPLICAS (19), which the leader checks before
// the append and so before its dedupe: 19 proves only that this attempt
// was not written, not the earlier one. r0's delivery time ends (a gap:
// needBump). Were r1 taken for "proved unwritten", the producer would bump
// its epoch and renumber r1 to sequence 0 of the new epoch, and when the
// followers return the new r1 would be appended again: the log would hold
// r1 twice, and the producer acknowledge the second copy. Instead r1 keeps
// its bytes and the leader's dedupe answers its first append.
func TestRetryAfterNotEnoughReplicasNeverDuplicates(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 3, lagMs: 1000, sessionMs: 1000})
	setup := newClient(t, c)
	createTopic(t, c, setup, "dedupe", 1, 3, 2)
	tp := client.TopicPartition{Topic: "dedupe"}
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()

	clk := clock.NewManual(0)
	cl, err := client.New(client.Config{Controller: c.Controller(), Clock: clk, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	p, err := cl.NewProducer(client.ProducerConfig{AckTimeoutMs: 30000, DeliveryTimeoutMs: 31000})
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		off client.Offset
		err error
	}
	produce := func(v string) chan outcome {
		ch := make(chan outcome, 1)
		if err := p.ProduceAsync(client.Record{Topic: "dedupe", Value: []byte(v)}, func(off client.Offset, err error) { ch <- outcome{off, err} }); err != nil {
			t.Fatal(err)
		}
		return ch
	}
	inFlight := func(n int) {
		t.Helper()
		if err := client.AwaitInFlight(ctx, p, tp, n); err != nil {
			t.Fatalf("waiting for %d batches in flight: %v", n, err)
		}
	}

	await := func(what string, cond func(client.PartitionView) bool) {
		t.Helper()
		if err := client.AwaitPartition(ctx, p, tp, cond); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}

	leader := partition(c, "dedupe", 0).Leader
	// The followers freeze (a SIGSTOP: each node's lock held), so they
	// neither fetch nor heartbeat; they stay in the ISR for now.
	resume := make(chan struct{})
	var frozen []chan struct{}
	for id := int32(1); id <= 3; id++ {
		if id == leader {
			continue
		}
		h := c.Broker(id).Host
		in := make(chan struct{})
		frozen = append(frozen, in)
		go h.Do(func(int64) { close(in); <-resume })
	}
	for _, in := range frozen {
		<-in
	}
	thawed := false
	thaw := func() {
		if !thawed {
			thawed = true
			close(resume)
		}
	}
	defer thaw()
	r0 := produce("r0")
	inFlight(1)
	clk.Advance(10000)
	r1 := produce("r1")
	inFlight(2)
	// The followers' sessions end, the ISR shrinks to the leader, and
	// both parked produces are answered NOT_ENOUGH_REPLICAS_AFTER_APPEND.
	inFlight(0)
	// Their retries get NOT_ENOUGH_REPLICAS.
	clk.Advance(1500)
	await("both resent and answered", func(v client.PartitionView) bool { return v.Resends >= 2 && v.InFlight == 0 })
	// r0's delivery time ends; r1's does not.
	clk.AdvanceTo(31000)
	o0 := <-r0
	t.Logf("r0: %v", o0.err)
	// Step the producer's clock, each step once nothing is in flight,
	// through r1's retries: it may have been written, so it is resent
	// with its bytes and never renumbered under a new epoch.
	for clk.NowMs() < 33000 {
		epoch := int16(0)
		await("r1 answered", func(v client.PartitionView) bool { epoch = v.Epoch; return v.InFlight == 0 })
		if epoch != 0 {
			t.Fatalf("at %d ms r1 was renumbered under epoch %d although an attempt was appended", clk.NowMs(), epoch)
		}
		clk.Advance(100)
	}
	thaw()
	lh, lb := c.Broker(leader).Host, c.Broker(leader).Broker
	c.Await("the leader's ISR back over min.insync.replicas", func() bool {
		under := true
		lh.Do(func(int64) {
			if r, ok := lb.Replica(replica.TopicPartition{Topic: "dedupe"}); ok {
				under = r.ISRState().UnderMinISR()
			}
		})
		return !under
	})
	// Step the producer's clock through r1's backoffs, within its
	// delivery time, until it is answered.
	var o1 outcome
	for got := false; !got; {
		pending := 0
		await("r1 answered", func(v client.PartitionView) bool { pending = v.Pending; return v.InFlight == 0 })
		if pending == 0 {
			select {
			case o1 = <-r1:
			case <-ctx.Done():
				t.Fatal("r1 resolved, its outcome never came")
			}
			break
		}
		select {
		case o1 = <-r1:
			got = true
		default:
			if clk.NowMs() > 40000 {
				done, stop := context.WithCancel(ctx)
				stop()
				t.Fatalf("r1 has no outcome within its delivery time: %v", client.AwaitPartition(done, p, tp, func(client.PartitionView) bool { return false }))
			}
			clk.Advance(100)
		}
	}
	if o1.err != nil {
		t.Fatalf("r1: %v", o1.err)
	}
	recs := readN(t, setup, tp, client.FromStart(), int(o1.off.Offset)+1)
	seen := map[string]uint64{}
	for _, r := range recs {
		t.Logf("offset %d: %s", r.Offset, r.Value)
		if at, dup := seen[string(r.Value)]; dup {
			t.Fatalf("%s written twice, at %d and %d; the producer acknowledged it at %d", r.Value, at, r.Offset, o1.off.Offset)
		}
		seen[string(r.Value)] = r.Offset
	}
}
