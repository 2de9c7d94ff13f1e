package faulttest

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica/client"
)

var costFlag = flag.Duration("durability.cost", 0, "measure acks=all produce throughput of each durability mode for this long per window (0: skip TestDurabilityCost)")

// TestDurabilityCost measures what -sync-every-append costs: acks=all
// produce throughput (idempotent producer, 100-byte records, unpaced,
// three partitions of three replicas, min ISR 2) against a cluster of
// processes on the real file system, in windows that alternate the modes
// (default, sync, default, sync) so that the machine's load falls on
// both. It prints records/s per window and the ratio of the sums. It is
// a measurement, not a check: it runs only with -durability.cost D.
func TestDurabilityCost(t *testing.T) {
	if *costFlag <= 0 {
		t.Skip("a measurement: run with -durability.cost 5s")
	}
	rates := map[string]float64{}
	var lines []string
	for round := range 2 {
		for _, m := range durabilityModes {
			r := produceRate(t, m.args, *costFlag)
			rates[m.name] += r
			lines = append(lines, fmt.Sprintf("%s window %d: %.0f records/s", m.name, round+1, r))
		}
	}
	summary := fmt.Sprintf("faulttest durability cost: %s; sync-every-append/default = %.2f",
		strings.Join(lines, "; "), rates["sync-every-append"]/rates["default"])
	t.Log(summary)
	fmt.Println(summary)
}

// produceRate starts a cluster whose brokers get args, produces to it for
// d after a warm-up, and returns the acknowledged records per second.
func produceRate(t *testing.T, args []string, d time.Duration) float64 {
	c := startCluster(t, args...)
	defer func() { // brokers first: their controlled shutdown needs the controller
		for _, b := range c.brokers {
			b.stop(t)
		}
		c.ctl.stop(t)
	}()
	cl, err := client.New(client.Config{Controller: c.ctl.addr, Clock: wallclock.New(), RequestTimeoutMs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.CreateTopic(ctx, client.TopicConfig{Name: topic, Partitions: partitions, ReplicationFactor: 3, MinISR: 2}); err != nil {
		t.Fatal(err)
	}
	eventually(t, startLimit, "every partition led with a full ISR", func() bool { return isrFull(c) })
	p, err := cl.NewProducer(client.ProducerConfig{Acks: client.AcksAll, LingerMs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var acked, failed atomic.Int64
	done := func(_ client.Offset, err error) {
		if err != nil {
			failed.Add(1)
			return
		}
		acked.Add(1)
	}
	value := make([]byte, 100)
	run := func(until time.Time) {
		for i := 0; time.Now().Before(until); i++ {
			err := p.ProduceAsync(client.Record{Topic: topic, Partition: int32(i % partitions), Value: value}, done)
			if err == client.ErrBufferFull {
				fctx, fcancel := context.WithTimeout(context.Background(), 30*time.Second)
				p.Flush(fctx)
				fcancel()
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		fctx, fcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer fcancel()
		if err := p.Flush(fctx); err != nil {
			t.Fatal(err)
		}
	}
	run(time.Now().Add(time.Second)) // warm-up
	from := acked.Load()
	start := time.Now()
	run(start.Add(d))
	elapsed := time.Since(start)
	if failed.Load() > 0 {
		t.Fatalf("%d records failed", failed.Load())
	}
	return float64(acked.Load()-from) / elapsed.Seconds()
}
