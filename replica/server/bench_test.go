package server_test

import (
	"fmt"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs the benchmark loop body b.N times, reporting the CPU time
// per operation beside the wall time: on a shared machine the CPU time is
// the steadier of the two.
func measure(b *testing.B, body func()) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		body()
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N)/1e3, "cpu-µs/op")
}

// fastPaths runs f with the fast path on and off.
func fastPaths(b *testing.B, f func(b *testing.B)) {
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("fastpath=%v", on), func(b *testing.B) {
			defer server.SetFastPath(server.SetFastPath(on))
			f(b)
		})
	}
}

// BenchmarkProduce: acks=1 produce round trips over loopback TCP to one
// broker, a batch of n 100-byte records each; allocs/op is the whole
// process's per request (client, host and broker), the same for every n.
func BenchmarkProduce(b *testing.B) {
	c := clustertest.Start(b, clustertest.Options{Brokers: 1})
	tp := replica.TopicPartition{Topic: "bench", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 1, 1)
	conn := dialRaw(b, c.Broker(1).Host.Addr().String())
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			frame := produceFrame(b, tp, wire.AcksLeader, n)
			conn.roundTrip(b, frame)
			b.SetBytes(int64(len(frame)))
			measure(b, func() { conn.roundTrip(b, frame) })
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkFetch: consumer fetch round trips over loopback TCP from one
// broker, of maxBytes each, from the start of a log of 1000-record
// batches.
func BenchmarkFetch(b *testing.B) {
	c := clustertest.Start(b, clustertest.Options{Brokers: 1})
	tp := replica.TopicPartition{Topic: "bench", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 1, 1)
	conn := dialRaw(b, c.Broker(1).Host.Addr().String())
	produce := produceFrame(b, tp, wire.AcksLeader, 1000)
	for range 100 {
		conn.roundTrip(b, produce)
	}
	for _, maxBytes := range []int32{1, 1 << 20} {
		b.Run(fmt.Sprintf("maxBytes=%d", maxBytes), func(b *testing.B) {
			fastPaths(b, func(b *testing.B) {
				frame := fetchFrame(b, tp, maxBytes)
				b.SetBytes(int64(len(conn.roundTrip(b, frame))))
				measure(b, func() { conn.roundTrip(b, frame) })
			})
		})
	}
}

// counter wraps a broker and counts the requests it receives.
type counter struct {
	*replica.Broker
	requests *atomic.Int64
}

func (c *counter) Receive(env replica.Envelope, nowMs int64) {
	if !env.Response {
		c.requests.Add(1)
	}
	c.Broker.Receive(env, nowMs)
}

// Disconnected passes the call on to the broker if it has the method.
func (c *counter) Disconnected(peer replica.Addr, nowMs int64) {
	if d, ok := any(c.Broker).(interface{ Disconnected(replica.Addr, int64) }); ok {
		d.Disconnected(peer, nowMs)
	}
}

// BenchmarkAcksAllRoundTrip: one single-record acks=all produce at a time
// over loopback TCP to a leader with two followers (replication factor 3,
// min ISR 2), all in this process: the time from the request to its answer
// (p50, p99), and the requests the three brokers received per commit (the
// client's produce and the followers' fetches).
func BenchmarkAcksAllRoundTrip(b *testing.B) {
	var requests atomic.Int64
	c := clustertest.Start(b, clustertest.Options{Brokers: 3, Wrap: func(br *replica.Broker) replica.Node {
		return &counter{Broker: br, requests: &requests}
	}})
	tp := replica.TopicPartition{Topic: "bench", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 3, 2)
	leader, _ := c.Leader(tp)
	conn := dialRaw(b, c.Broker(leader).Host.Addr().String())
	frame := produceFrame(b, tp, wire.AcksAll, 1)
	for range 100 {
		conn.roundTrip(b, frame)
	}
	fastPaths(b, func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		requests.Store(0)
		measure(b, func() {
			start := time.Now()
			conn.roundTrip(b, frame)
			lat = append(lat, time.Since(start))
		})
		reportLatency(b, lat, requests.Load())
	})
}

// reportLatency reports the p50 and p99 of lat and the requests per
// operation.
func reportLatency(b *testing.B, lat []time.Duration, requests int64) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(requests)/float64(b.N), "requests/commit")
}

// BenchmarkAcksAllPipelined: acks=all produce over loopback TCP to a
// leader with two followers (replication factor 3, min ISR 2), all in this
// process, on one connection with up to server.DefaultMaxInFlight
// requests in flight, each a batch of 1000 100-byte records: the records
// per second committed on three replicas.
func BenchmarkAcksAllPipelined(b *testing.B) {
	c := clustertest.Start(b, clustertest.Options{Brokers: 3})
	tp := replica.TopicPartition{Topic: "bench", Partition: 0}
	c.CreateTopic(tp.Topic, 1, 3, 2)
	leader, _ := c.Leader(tp)
	conn := dialRaw(b, c.Broker(leader).Host.Addr().String())
	const records = 1000
	frame := produceFrame(b, tp, wire.AcksAll, records)
	conn.roundTrip(b, frame)
	b.SetBytes(int64(len(frame)))
	inFlight := 0
	measure(b, func() {
		for inFlight < server.DefaultMaxInFlight {
			if _, err := conn.nc.Write(frame); err != nil {
				b.Fatal(err)
			}
			inFlight++
		}
		var err error
		if conn.buf, err = wire.ReadFrame(conn.br, conn.buf, 0); err != nil {
			b.Fatal(err)
		}
		inFlight--
	})
	for ; inFlight > 0; inFlight-- {
		wire.ReadFrame(conn.br, conn.buf, 0)
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
