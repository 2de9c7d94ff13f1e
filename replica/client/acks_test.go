package client_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
)

// newClient returns a client of the cluster on the wall clock, closed at
// the end of the test.
func newClient(t *testing.T, c *clustertest.Cluster) *client.Client {
	t.Helper()
	cl, err := client.New(client.Config{Controller: c.Controller(), Clock: wallclock.New(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// createTopic creates a topic through the client and waits until every
// broker applied it.
func createTopic(t *testing.T, c *clustertest.Cluster, cl *client.Client, name string, partitions int32, rf int16, minISR int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()
	if err := cl.CreateTopic(ctx, client.TopicConfig{Name: name, Partitions: partitions, ReplicationFactor: rf, MinISR: minISR}); err != nil {
		t.Fatalf("create topic %s (%d partitions, replication factor %d, min ISR %d): %v", name, partitions, rf, minISR, err)
	}
	c.AwaitBrokers()
}

// readN consumes n records of tp from `from`.
func readN(t *testing.T, cl *client.Client, tp client.TopicPartition, from client.Position, n int) []client.Record {
	t.Helper()
	cons, err := cl.NewConsumer(client.ConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()
	var recs []client.Record
	if n == 0 {
		return nil
	}
	for rec, err := range cons.Records(ctx, tp, from) {
		if err != nil {
			t.Fatalf("after %d records: %v", len(recs), err)
		}
		recs = append(recs, rec)
		if len(recs) == n {
			break
		}
	}
	return recs
}

// Records produced with acks 0, 1 and all — through Produce, ProduceAsync
// and Flush — are consumed back in order, each once, acknowledged ones at
// their acknowledged offsets.
func TestProduceEachAcksAndConsumeBack(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 3})
	cl := newClient(t, c)
	createTopic(t, c, cl, "acks", 3, 3, 2)
	for i, acks := range []client.Acks{client.AcksNone, client.AcksLeader, client.AcksAll} {
		t.Run("acks="+acks.String(), func(t *testing.T) {
			tp := client.TopicPartition{Topic: "acks", Partition: int32(i)}
			p, err := cl.NewProducer(client.ProducerConfig{Acks: acks, LingerMs: 5})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
			defer cancel()
			const n = 200
			offsets := make([]client.Offset, n)
			errs := make(chan error, n)
			for j := range n - 1 {
				j := j
				rec := client.Record{Topic: tp.Topic, Partition: tp.Partition, Value: fmt.Appendf(nil, "%s-%d", acks, j)}
				if err := p.ProduceAsync(rec, func(off client.Offset, err error) {
					offsets[j] = off
					errs <- err
				}); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			last, err := p.Produce(ctx, client.Record{Topic: tp.Topic, Partition: tp.Partition, Value: fmt.Appendf(nil, "%s-%d", acks, n-1)})
			if err != nil {
				t.Fatal(err)
			}
			offsets[n-1] = last
			for range n - 1 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			recs := readN(t, cl, tp, client.FromStart(), n)
			for j, rec := range recs {
				if want := fmt.Sprintf("%s-%d", acks, j); string(rec.Value) != want || rec.Offset != uint64(j) {
					t.Fatalf("record %d: %q at %d, want %q at %d", j, rec.Value, rec.Offset, want, j)
				}
				if off := offsets[j]; off.HasOffset != (acks != client.AcksNone) || (off.HasOffset && off.Offset != rec.Offset) {
					t.Fatalf("record %d acknowledged as %+v, consumed at %d", j, off, rec.Offset)
				}
			}
		})
	}
}

// A consumer long-polls: over an idle second it sends a fetch per
// MaxWaitMs, not a stream of them; a record produced meanwhile arrives at
// once.
func TestConsumerLongPolls(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 1})
	cl := newClient(t, c)
	createTopic(t, c, cl, "idle", 1, 1, 1)
	cons, err := cl.NewConsumer(client.ConsumerConfig{MaxWaitMs: 500})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan client.Record, 1)
	go func() {
		for rec, err := range cons.Records(ctx, client.TopicPartition{Topic: "idle"}, client.FromEnd()) {
			if err != nil {
				return
			}
			got <- rec
		}
	}()
	before := fetchesAfterFirst(t, cl)
	idle := time.NewTimer(time.Second) // the measure: a second of nothing to read
	<-idle.C
	fetches := client.FetchesSent(cl) - before
	if fetches > 4 {
		t.Fatalf("%d fetches in an idle second with MaxWaitMs 500: a busy loop", fetches)
	}
	t.Logf("%d fetches in an idle second", fetches)
	p, err := cl.NewProducer(client.ProducerConfig{Acks: client.AcksLeader})
	if err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	if _, err := p.Produce(ctx, client.Record{Topic: "idle", Value: []byte("news")}); err != nil {
		t.Fatal(err)
	}
	select {
	case rec := <-got:
		if string(rec.Value) != "news" {
			t.Fatalf("%q", rec.Value)
		}
		if d := time.Since(sent); d > 400*time.Millisecond {
			t.Errorf("the record took %v to arrive: the parked fetch was not answered at once", d)
		}
	case <-time.After(clustertest.WaitLimit):
		t.Fatal("the record never arrived")
	}
}

// fetchesAfterFirst waits until the consumer has sent its first fetch and
// returns the count then.
func fetchesAfterFirst(t *testing.T, cl *client.Client) int64 {
	t.Helper()
	deadline := time.Now().Add(clustertest.WaitLimit)
	for client.FetchesSent(cl) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no fetch")
		}
		client.WaitForFetch(cl)
	}
	return client.FetchesSent(cl)
}
