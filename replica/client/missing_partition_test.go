package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// stepUntil advances clk by RetryBackoffMs after each of the producer's
// events (or a short real-time pause while a refresh is on its way) until
// out has the outcome, failing once the clock reaches limitMs.
func stepUntil(t *testing.T, p *Producer, clk *clock.Manual, out chan outcome, limitMs int64) outcome {
	t.Helper()
	guard := time.After(waitGuard)
	for clk.NowMs() < limitMs {
		p.mu.Lock()
		ev := p.nextEvent()
		p.mu.Unlock()
		select {
		case o := <-out:
			return o
		case <-ev:
		case <-time.After(20 * time.Millisecond):
		case <-guard:
			t.Fatalf("no outcome within %s", waitGuard)
		}
		clk.Advance(DefaultRetryBackoffMs)
	}
	t.Fatalf("no outcome before %d ms of the client's clock", limitMs)
	return outcome{}
}

// A record for a topic that does not exist, or for a partition its topic
// does not have, fails with UNKNOWN_TOPIC_OR_PARTITION once
// UnknownTopicRetries fresh metadata answers in a row said so (franz-go's
// rule), long before MaxBlockMs — not after a 120 s delivery timeout.
func TestARecordForAMissingPartitionFailsWithUnknownTopicOrPartition(t *testing.T) {
	for _, c := range []struct {
		name string
		rec  Record
		want string
	}{
		{"unknown topic", Record{Topic: "nope", Value: []byte("x")}, "name no topic nope"},
		{"partition 3 of 3", Record{Topic: "t", Partition: 3, Value: []byte("x")}, "give topic t 3 partitions, 0 to 2"},
		{"keyed, unknown topic", Record{Topic: "nope", Key: []byte("k"), Value: []byte("x")}, "name no topic nope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fc := newFakeCluster(t, 1, 3)
			clk := clock.NewManual(0)
			cl := newTestClient(t, fc, clk)
			p, err := cl.NewProducer(ProducerConfig{})
			if err != nil {
				t.Fatal(err)
			}
			out := make(chan outcome, 1)
			if err := p.ProduceAsync(c.rec, func(off Offset, err error) { out <- outcome{off, err} }); err != nil {
				t.Fatal(err)
			}
			o := stepUntil(t, p, clk, out, DefaultMaxBlockMs)
			if !errors.Is(o.err, wire.ErrUnknownTopicOrPartition) || errors.Is(o.err, ErrMetadataTimeout) || errors.Is(o.err, ErrDeliveryTimeout) {
				t.Fatalf("outcome %v; want UNKNOWN_TOPIC_OR_PARTITION, neither a metadata nor a delivery timeout", o.err)
			}
			if !strings.Contains(o.err.Error(), c.want) || !strings.Contains(o.err.Error(), fc.controller.addr()) {
				t.Errorf("error %q does not say %q and the controller's address", o.err, c.want)
			}
			fc.mu.Lock()
			asked := fc.metadataRequests
			fc.mu.Unlock()
			if asked < DefaultUnknownTopicRetries {
				t.Errorf("failed after %d metadata requests; want at least UnknownTopicRetries = %d", asked, DefaultUnknownTopicRetries)
			}
			t.Logf("after %d ms and %d metadata requests: %v", clk.NowMs(), asked, o.err)
		})
	}
}

// The topic the producer waits for may appear: a record waiting for it
// is then written, not failed.
func TestAKeyedRecordWaitsForItsTopicToAppear(t *testing.T) {
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
	out := make(chan outcome, 1)
	if err := p.ProduceAsync(Record{Topic: "t", Key: []byte("foobar"), Value: []byte("x")}, func(off Offset, err error) { out <- outcome{off, err} }); err != nil {
		t.Fatal(err)
	}
	awaitRefresh(t, cl, cl.meta.next())
	fc.mu.Lock()
	fc.parts["t"] = 3 // created by someone else
	fc.mu.Unlock()
	guard := time.After(waitGuard)
	for {
		select {
		case r := <-fc.brokers[1].reqs:
			req := r.produce(t)
			if got, want := req.Partitions[0].Partition, PartitionForKey([]byte("foobar"), 3); got != want {
				t.Fatalf("keyed record sent to partition %d, want %d", got, want)
			}
			r.answerProduce(t, wire.CodeNone, 7)
			if o := await(t, out); o.err != nil || o.off.Partition != PartitionForKey([]byte("foobar"), 3) || o.off.Offset != 7 {
				t.Fatalf("outcome %+v", o)
			}
			return
		case o := <-out:
			t.Fatalf("the record failed: %v", o.err)
		case <-time.After(20 * time.Millisecond):
			clk.Advance(DefaultRetryBackoffMs)
		case <-guard:
			t.Fatal("the record was never sent")
		}
	}
}

// The consumer's Records ends likewise for a partition that does not
// exist, with UNKNOWN_TOPIC_OR_PARTITION.
func TestConsumingAMissingPartitionEndsWithUnknownTopicOrPartition(t *testing.T) {
	for _, tp := range []TopicPartition{{"nope", 0}, {"t", 3}} {
		t.Run(tp.String(), func(t *testing.T) {
			fc := newFakeCluster(t, 1, 3)
			clk := clock.NewManual(0)
			cl := newTestClient(t, fc, clk)
			co, err := cl.NewConsumer(ConsumerConfig{})
			if err != nil {
				t.Fatal(err)
			}
			ended := make(chan error, 1)
			go func() {
				for _, err := range co.Records(context.Background(), tp, FromStart()) {
					ended <- err
					return
				}
			}()
			guard := time.After(waitGuard)
			for {
				select {
				case err := <-ended:
					if !errors.Is(err, wire.ErrUnknownTopicOrPartition) || errors.Is(err, ErrMetadataTimeout) {
						t.Fatalf("iteration ended with %v; want UNKNOWN_TOPIC_OR_PARTITION", err)
					}
					if clk.NowMs() >= DefaultAPITimeoutMs {
						t.Fatalf("ended at %d ms, not before DefaultAPITimeoutMs", clk.NowMs())
					}
					t.Logf("after %d ms: %v", clk.NowMs(), err)
					return
				case <-time.After(20 * time.Millisecond):
					clk.Advance(DefaultRetryBackoffMs)
				case <-guard:
					t.Fatal("the iteration never ended")
				}
			}
		})
	}
}
