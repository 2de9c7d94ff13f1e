package client_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
)

// A leader stopped mid-stream: an idempotent acks=all producer streams
// records while the partition's leader is killed. Its batches in flight
// fail (the connection breaks), the controller elects a new leader from
// the ISR, the producer finds it in the metadata and resends the same
// bytes there; what the old leader had replicated is answered from the
// new leader's dedupe window with its original offset. A consumer reading
// all along follows the leader too, and long-polls the new one. Every acknowledged record is read
// exactly once, at its acknowledged offset, in the order it was produced;
// no record is read twice.
func TestLeaderStoppedMidStreamEveryAckedRecordOnce(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 3, lagMs: 2000, sessionMs: 3000})
	cl := newClient(t, c)
	createTopic(t, c, cl, "stream", 1, 3, 2)
	tp := client.TopicPartition{Topic: "stream"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*clustertest.WaitLimit)
	defer cancel()

	// The consumer, from the start, all along.
	cons, err := cl.NewConsumer(client.ConsumerConfig{MaxWaitMs: 500})
	if err != nil {
		t.Fatal(err)
	}
	type read struct {
		off   uint64
		value string
		err   error
	}
	readsCh := make(chan read, 10000)
	consCtx, stopConsumer := context.WithCancel(ctx)
	defer stopConsumer()
	go func() {
		for rec, err := range cons.Records(consCtx, tp, client.FromStart()) {
			readsCh <- read{rec.Offset, string(rec.Value), err}
			if err != nil {
				return
			}
		}
	}()

	p, err := cl.NewProducer(client.ProducerConfig{LingerMs: 2})
	if err != nil {
		t.Fatal(err)
	}
	old := partition(c, "stream", 0) // the leader the records go to; read again before the kill
	var (
		mu     sync.Mutex
		acked  = map[string]uint64{}
		order  []string
		failed []error
	)
	produced := 0
	produce := func(n int) {
		for range n {
			v := fmt.Sprintf("v%06d", produced)
			produced++
			if err := p.ProduceAsync(client.Record{Topic: "stream", Value: []byte(v)}, func(off client.Offset, err error) {
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failed = append(failed, err)
					return
				}
				acked[v] = off.Offset
				order = append(order, v)
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// flush waits for every outcome; if the time runs out it tells which
	// records have none and what the producer and the cluster look like.
	flush := func(when string) {
		t.Helper()
		if err := p.Flush(ctx); err != nil {
			mu.Lock()
			var missing []string
			for i := range produced {
				v := fmt.Sprintf("v%06d", i)
				if _, ok := acked[v]; !ok {
					missing = append(missing, v)
				}
			}
			nAcked, nFailed := len(acked), len(failed)
			mu.Unlock()
			if len(missing) > 6 {
				missing = append(missing[:3], append([]string{"..."}, missing[len(missing)-3:]...)...)
			}
			t.Fatalf("Flush %s: %v: of %d records %d acknowledged, %d failed, not acknowledged: %v; the controller's partition %+v (leader %d killed); brokers: %s; client: %s",
				when, err, produced, nAcked, nFailed, missing, partition(c, "stream", 0), old.Leader, c.Describe("stream", 0), client.Describe(p, tp))
		}
	}
	produce(300)
	flush("before the kill")
	old = partition(c, "stream", 0)
	produce(500) // in flight when the leader goes
	c.Kill(old.Leader)
	produce(500)
	c.Await("a new leader", func() bool {
		now := partition(c, "stream", 0)
		return now.Leader >= 0 && now.Leader != old.Leader
	})
	produce(500)
	flush("after the change of leader")
	mu.Lock()
	if len(failed) > 0 {
		t.Errorf("%d records failed, the first with %v", len(failed), failed[0])
	}
	var last uint64
	for i, v := range order {
		if i > 0 && acked[v] <= last {
			t.Fatalf("%s acknowledged at %d after an earlier record at %d", v, acked[v], last)
		}
		last = acked[v]
	}
	mu.Unlock()
	t.Logf("%d records acknowledged, %d batches resent; leader %d killed, now %d", len(acked), client.Resends(p), old.Leader, partition(c, "stream", 0).Leader)
	if client.Resends(p) == 0 {
		t.Fatal("no batch was resent: nothing was in flight when the leader went, the test tested nothing")
	}

	// The consumer reads up to the last acknowledged offset.
	var reads []read
	for len(reads) == 0 || reads[len(reads)-1].off < last {
		select {
		case r := <-readsCh:
			if r.err != nil {
				t.Fatalf("the consumer ended after %d records: %v", len(reads), r.err)
			}
			reads = append(reads, r)
		case <-ctx.Done():
			at := "none"
			if len(reads) > 0 {
				at = fmt.Sprint(reads[len(reads)-1].off)
			}
			t.Fatalf("%v: the consumer read %d records, the last at offset %s, waiting for the last acknowledged offset %d; brokers: %s",
				ctx.Err(), len(reads), at, last, c.Describe("stream", 0))
		}
	}
	// Caught up with the new leader, the consumer long-polls it: a fetch
	// per MaxWaitMs over an idle second, not a stream of them.
	before := client.FetchesSent(cl)
	idle := time.NewTimer(time.Second) // the measure, not a wait for a condition
	<-idle.C
	if n := client.FetchesSent(cl) - before; n > 4 {
		t.Errorf("%d fetches in an idle second with MaxWaitMs 500 after the change of leader: a busy loop", n)
	}
	seen := map[string]uint64{}
	for i, r := range reads {
		if i > 0 && r.off != reads[i-1].off+1 {
			t.Fatalf("read offset %d after %d", r.off, reads[i-1].off)
		}
		if at, dup := seen[r.value]; dup {
			t.Fatalf("%s read twice, at %d and %d", r.value, at, r.off)
		}
		seen[r.value] = r.off
	}
	for v, off := range acked {
		if got, ok := seen[v]; !ok || got != off {
			t.Fatalf("%s acknowledged at %d, read at %d (%t)", v, off, got, ok)
		}
	}
}
