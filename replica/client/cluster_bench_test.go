package client_test

import (
	"context"
	"fmt"

	"testing"

	"github.com/kaenlog/kaenlog/log"

	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/internal/testkit"
)

// BenchmarkProduceToCluster produces 100-byte records, acks=all and
// idempotent, to a partition of three replicas (min ISR 2) of a cluster
// over loopback TCP in this process: the client, three brokers and the
// controller share the machine. One op is one record; cpu-ns/record is
// the whole process's CPU time per record. It runs with the default
// BatchBytes and with 1 MiB batches, handing records over one at a time
// with ProduceAsync, and with 1 MiB batches and ProduceManyAsync, 1000
// records a call.
func BenchmarkProduceToCluster(b *testing.B) {
	for _, bc := range []struct{ batch, many int }{{0, 0}, {1 << 20, 0}, {1 << 20, 1000}} {
		name := fmt.Sprintf("batch=%d", bc.batch)
		if bc.many > 0 {
			name += fmt.Sprintf("/many=%d", bc.many)
		}
		b.Run(name, func(b *testing.B) { benchmarkProduceToCluster(b, bc.batch, bc.many) })
	}
}

func benchmarkProduceToCluster(b *testing.B, batchBytes, many int) {
	c := startCluster(b, clusterOptions{brokers: 3})
	cl, err := client.New(client.Config{Controller: c.Controller(), Clock: c.Clock, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	c.CreateTopic("bench", 1, 3, 2)
	p, err := cl.NewProducer(client.ProducerConfig{LingerMs: 1, BatchBytes: batchBytes})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rec := client.Record{Topic: "bench", Value: make([]byte, 100)}
	recs := make([]client.Record, many)
	for i := range recs {
		recs[i] = rec
	}
	failed := make(chan error, 1)
	callback := func(_ client.Offset, err error) {
		if err != nil {
			select {
			case failed <- err:
			default:
			}
		}
	}
	runCallback := func(_, _ int, off client.Offset, err error) { callback(off, err) }
	produce := func(n int) {
		for n > 0 {
			var err error
			if many == 0 {
				if err = p.ProduceAsync(rec, callback); err == nil {
					n--
				}
			} else {
				var k int
				k, err = p.ProduceManyAsync(recs[:min(n, many)], runCallback)
				n -= k
			}
			if err != nil {
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
	cpu0, cpuOK := testkit.ProcessCPU()
	b.ResetTimer()
	produce(b.N)
	b.StopTimer()
	cpu1, _ := testkit.ProcessCPU()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	if cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/record")
	}
	select {
	case err := <-failed:
		b.Fatal(err)
	default:
	}
}

// BenchmarkConsume reads 100-byte records, produced beforehand in batches
// of 1000, from the start of a partition: over loopback TCP from the
// leader of three replicas in this process (with and without the
// consumer's prefetch), and, for the ratio, from a local log with
// log.Read and log.Batch.Decode — the read rate of one local log.
// One op is one record.
func BenchmarkConsume(b *testing.B) {
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("tcp/prefetch=%v", on), func(b *testing.B) {
			defer client.SetPrefetch(client.SetPrefetch(on))
			benchmarkConsumeTCP(b)
		})
	}
	b.Run("local", benchmarkConsumeLocal)
}

// benchRecords is a batch of 1000 100-byte records.
func benchRecords(b *testing.B) []byte {
	recs := make([]log.Record, 1000)
	for i := range recs {
		recs[i] = log.Record{OffsetDelta: int32(i), Value: make([]byte, 100)}
	}
	batch, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs})
	if err != nil {
		b.Fatal(err)
	}
	return batch
}

func benchmarkConsumeTCP(b *testing.B) {
	c := startCluster(b, clusterOptions{brokers: 3})
	cl, err := client.New(client.Config{Controller: c.Controller(), Clock: c.Clock, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	c.CreateTopic("bench", 1, 3, 2)
	p, err := cl.NewProducer(client.ProducerConfig{LingerMs: 1, BatchBytes: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rec := client.Record{Topic: "bench", Value: make([]byte, 100)}
	for range b.N {
		for {
			err := p.ProduceAsync(rec, nil)
			if err == nil {
				break
			}
			if err != client.ErrBufferFull {
				b.Fatal(err)
			}
			p.Flush(ctx)
		}
	}
	if err := p.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	cons, err := cl.NewConsumer(client.ConsumerConfig{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(100)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for _, err := range cons.Records(ctx, client.TopicPartition{Topic: "bench"}, client.FromStart()) {
		if err != nil {
			b.Fatal(err)
		}
		if n++; n == b.N {
			break
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func benchmarkConsumeLocal(b *testing.B) {
	l, err := log.Open(b.TempDir(), log.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	batch := benchRecords(b)
	for range (b.N + 999) / 1000 {
		if err := log.SetBaseOffset(batch, 0); err != nil {
			b.Fatal(err)
		}
		if _, err := l.AppendAsLeader(batch, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(100)
	b.ReportAllocs()
	b.ResetTimer()
	var (
		dst []byte
		bt  log.Batch
	)
	n, off := 0, uint64(0)
	for n < b.N {
		dst, err = l.Read(dst[:0], off, client.DefaultPartitionMaxBytes, log.IsolationLogEnd)
		if err != nil {
			b.Fatal(err)
		}
		for buf := dst; len(buf) > 0 && n < b.N; {
			k, err := bt.Decode(buf)
			if err != nil {
				b.Fatal(err)
			}
			buf = buf[k:]
			for i := range bt.Records {
				if n++; n == b.N {
					break
				}
				_ = bt.Records[i].Value
			}
			off = bt.BaseOffset + uint64(len(bt.Records))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
