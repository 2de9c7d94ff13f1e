package client

import (
	"bufio"
	"context"
	"net"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica/internal/testkit"
	"github.com/kaenlog/kaenlog/wire"
)

// quickBroker answers every produce at once with success, reusing its
// buffers, so that a benchmark's allocations are the client's.
func quickBroker(tb testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			tb.Cleanup(func() { nc.Close() })
			go func() {
				br, bw := bufio.NewReaderSize(nc, 256<<10), bufio.NewWriterSize(nc, 64<<10)
				var (
					buf, out []byte
					req      wire.ProduceRequest
					resp     wire.ProduceResponse
					next     uint64
				)
				for {
					payload, err := wire.ReadFrame(br, buf, 0)
					if err != nil {
						return
					}
					buf = payload
					if err := wire.DecodeProduceRequestInto(payload, &req); err != nil {
						panic(err)
					}
					resp.CorrelationID = req.CorrelationID
					resp.Partitions = resp.Partitions[:0]
					for _, p := range req.Partitions {
						n, _ := countRecords(p.Records)
						resp.Partitions = append(resp.Partitions, wire.ProducePartitionResponse{Topic: p.Topic, Partition: p.Partition, BaseOffset: next, HasBaseOffset: true})
						next += uint64(n)
					}
					if req.Acks == wire.AcksNone {
						continue
					}
					out, _ = resp.AppendTo(out[:0])
					wire.WriteFrame(bw, out)
					if br.Buffered() == 0 {
						bw.Flush()
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// countRecords reads a batch's record count.
func countRecords(b []byte) (int32, bool) {
	if len(b) < 61 {
		return 0, false
	}
	return int32(b[57])<<24 | int32(b[58])<<16 | int32(b[59])<<8 | int32(b[60]), true
}

// BenchmarkProduce is the producer's path for 100-byte records, acks=all
// and idempotent, to a broker that answers at once: encoding into the
// batch, sequencing, the request, the answer, the callback. One op is one
// record; allocs/op is allocations per record, and cpu-ns/record the
// whole process's CPU time (the quick broker's share included) per
// record. The timestamped records carry their own TimestampMs, so the
// producer reads its clock once per batch rather than once per record.
// The many= cases hand records over with ProduceManyAsync, that many a
// call, the others one at a time with ProduceAsync; batch= sets
// BatchBytes (default 16 KiB).
func BenchmarkProduce(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  ProducerConfig
		ts   int64 // the records' TimestampMs; 0: the producer reads its clock
		many int   // records a ProduceManyAsync call; 0: ProduceAsync
	}{
		{"acks=all/idempotent", ProducerConfig{}, 0, 0},
		{"acks=1", ProducerConfig{Acks: AcksLeader}, 0, 0},
		{"acks=all/idempotent/timestamped", ProducerConfig{}, 1_700_000_000_000, 0},
		{"acks=all/idempotent/many=1000", ProducerConfig{}, 0, 1000},
		{"acks=all/idempotent/batch=1000012", ProducerConfig{BatchBytes: 1000012}, 0, 0},
		{"acks=all/idempotent/batch=1000012/many=1000", ProducerConfig{BatchBytes: 1000012}, 0, 1000},
	} {
		b.Run(bc.name, func(b *testing.B) {
			fc := newFakeCluster(b, 0, 1)
			broker := quickBroker(b)
			fc.mu.Lock()
			fc.endpoints = map[int32]string{1: broker}
			fc.mu.Unlock()
			c, err := New(Config{Controller: fc.controller.addr(), Clock: wallclock.New(), Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			p, err := c.NewProducer(bc.cfg)
			if err != nil {
				b.Fatal(err)
			}
			var done atomic.Int64
			callback := func(_ Offset, err error) {
				if err != nil {
					panic(err)
				}
				done.Add(1)
			}
			runCallback := func(_, n int, _ Offset, err error) {
				if err != nil {
					panic(err)
				}
				done.Add(int64(n))
			}
			rec := Record{Topic: "t", Value: make([]byte, 100), TimestampMs: bc.ts}
			recs := make([]Record, bc.many)
			for i := range recs {
				recs[i] = rec
			}
			produce := func(n int) {
				for n > 0 {
					if bc.many == 0 {
						err := p.ProduceAsync(rec, callback)
						if err == nil {
							n--
							continue
						}
						if err != ErrBufferFull {
							b.Fatal(err)
						}
						p.Flush(context.Background())
						continue
					}
					k, err := p.ProduceManyAsync(recs[:min(n, len(recs))], runCallback)
					n -= k
					if err != nil {
						if err != ErrBufferFull {
							b.Fatal(err)
						}
						p.Flush(context.Background())
					}
				}
				p.Flush(context.Background())
			}
			produce(20000) // warm: metadata, producer id, pools
			b.SetBytes(100)
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu0, cpuOK := testkit.ProcessCPU()
			b.ResetTimer()
			produce(b.N)
			b.StopTimer()
			cpu1, _ := testkit.ProcessCPU()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
			if cpuOK {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/record")
			}
			// allocs/op rounds down; this is the fraction, the broker's
			// few included.
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N), "allocs/record")
		})
	}
}

// BenchmarkProduceRoundTrip is one record at a time with Produce, acks=all
// and idempotent, to a broker that answers at once: the client's own
// share of a commit's latency (p50, p99), its goroutine handoffs
// included.
func BenchmarkProduceRoundTrip(b *testing.B) {
	fc := newFakeCluster(b, 0, 1)
	broker := quickBroker(b)
	fc.mu.Lock()
	fc.endpoints = map[int32]string{1: broker}
	fc.mu.Unlock()
	c, err := New(Config{Controller: fc.controller.addr(), Clock: wallclock.New(), Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	p, err := c.NewProducer(ProducerConfig{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rec := Record{Topic: "t", Value: make([]byte, 100)}
	for range 100 {
		if _, err := p.Produce(ctx, rec); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := p.Produce(ctx, rec); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
