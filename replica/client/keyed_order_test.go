package client

import (
	"slices"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// Records sent to one partition are written in the order they were sent
// (Kafka's ordering guarantee), whether the partition came from a key or
// was named: a keyed record that waits for its topic's partition count is
// not overtaken by a later unkeyed record naming the same partition.
// Kafka's send() blocks the first keyed record in waitOnMetadata, so the
// later record cannot be handed over before it.
func TestRecordsToOnePartitionKeepTheirOrderWhileAKeyWaitsForMetadata(t *testing.T) {
	for _, many := range []bool{false, true} {
		name := "ProduceAsync"
		if many {
			name = "ProduceManyAsync"
		}
		t.Run(name, func(t *testing.T) {
			fc := newFakeCluster(t, 1, 3)
			fc.mu.Lock()
			delete(fc.parts, "t")
			fc.mu.Unlock()
			clk := clock.NewManual(0)
			cl := newTestClient(t, fc, clk)
			p, err := cl.NewProducer(ProducerConfig{Acks: AcksLeader})
			if err != nil {
				t.Fatal(err)
			}
			key := []byte("foobar")
			part := PartitionForKey(key, 3)
			recs := []Record{
				{Topic: "t", Key: key, Value: []byte("first")},
				{Topic: "t", Partition: part, Value: []byte("second")},
			}
			out := make(chan outcome, 2)
			seen := cl.meta.next()
			if many {
				if _, err := p.ProduceManyAsync(recs, func(_, _ int, off Offset, err error) { out <- outcome{off, err} }); err != nil {
					t.Fatal(err)
				}
			} else {
				for _, r := range recs {
					if err := p.ProduceAsync(r, func(off Offset, err error) { out <- outcome{off, err} }); err != nil {
						t.Fatal(err)
					}
				}
			}
			awaitRefresh(t, cl, seen) // an answer without the topic: the key waits
			fc.mu.Lock()
			fc.parts["t"] = 3
			fc.mu.Unlock()
			var got []string
			guard := time.After(waitGuard)
			for len(got) < 2 {
				select {
				case r := <-fc.brokers[1].reqs:
					req := r.produce(t)
					for _, pp := range req.Partitions {
						if pp.Partition != part {
							t.Fatalf("a record went to partition %d, want %d", pp.Partition, part)
						}
						got = append(got, values(batchOf(t, pp))...)
					}
					r.answerProduce(t, wire.CodeNone, uint64(len(got)))
				case o := <-out:
					if o.err != nil {
						t.Fatalf("a record failed: %v", o.err)
					}
				case <-time.After(20 * time.Millisecond):
					clk.Advance(DefaultRetryBackoffMs)
				case <-guard:
					t.Fatalf("records never sent; got %q", got)
				}
			}
			if want := []string{"first", "second"}; !slices.Equal(got, want) {
				t.Fatalf("partition %d got %q, want %q: the unkeyed record overtook the keyed one sent before it", part, got, want)
			}
		})
	}
}
