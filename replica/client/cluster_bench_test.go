package client_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kaenlog/kaenlog/replica/client"
)

// BenchmarkProduceToCluster produces 100-byte records, acks=all and
// idempotent, to a partition of three replicas (min ISR 2) of a cluster
// over loopback TCP in this process: the client, three brokers and the
// controller share the machine. One op is one record. It runs with the
// default BatchBytes and with 1 MiB batches.
func BenchmarkProduceToCluster(b *testing.B) {
	for _, batch := range []int{0, 1 << 20} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) { benchmarkProduceToCluster(b, batch) })
	}
}

func benchmarkProduceToCluster(b *testing.B, batchBytes int) {
	c := startCluster(b, clusterOptions{brokers: 3})
	cl, err := client.New(client.Config{Controller: c.controller(), Clock: c.clk, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	c.createTopic("bench", 1, 3, 2)
	p, err := cl.NewProducer(client.ProducerConfig{LingerMs: 1, BatchBytes: batchBytes})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rec := client.Record{Topic: "bench", Value: make([]byte, 100)}
	failed := make(chan error, 1)
	callback := func(_ client.Offset, err error) {
		if err != nil {
			select {
			case failed <- err:
			default:
			}
		}
	}
	produce := func(n int) {
		for range n {
			for {
				err := p.ProduceAsync(rec, callback)
				if err == nil {
					break
				}
				if err != client.ErrBufferFull {
					b.Fatal(err)
				}
				p.Flush(ctx)
			}
		}
		p.Flush(ctx)
	}
	produce(10000)
	b.SetBytes(100)
	b.ReportAllocs()
	b.ResetTimer()
	produce(b.N)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	select {
	case err := <-failed:
		b.Fatal(err)
	default:
	}
}
