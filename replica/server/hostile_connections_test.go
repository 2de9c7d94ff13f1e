package server_test

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"net"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// hostileConns is how many hostile connections of each kind
// BenchmarkHostileConnections opens (issue 15 asks for 1,000).
var hostileConns = flag.Int("hostile.conns", 1000, "hostile connections of each kind in BenchmarkHostileConnections")

// hostileSamples is how many produce round trips each p99 is taken from.
var hostileSamples = flag.Int("hostile.samples", 5000, "produce round trips each p99 of BenchmarkHostileConnections is taken from")

// The bound BenchmarkHostileConnections holds the broker's heap to: the
// budget (Config.MaxHeldBytes, the default), plus what does not grow with
// connections — the broker's fetch buffers kept from event to event (at
// most 4 of 2 MiB, replica's maxKeptFetchBufs and maxKeptFetchBufBytes) —
// plus per connection what the budget does not count against
// MaxHeldBytes:
//   - the 16 KiB each connection may hold free of the shared budget
//     (budget.go, connectionFreeBytes);
//   - its 16 KiB read buffer (conn.go, readBufferSize);
//   - 16 KiB for the rest: its slots and the requests they decode, the
//     connection's structures, its socket's poll descriptor and the
//     hostile client's side of the socket, which lives in the same
//     process.
const (
	hostileFixedBytes   = 4 * (2 << 20)
	hostileFreeBytes    = 16 << 10
	hostileReadBufBytes = 16 << 10
	hostileRestBytes    = 16 << 10
	hostilePerConnBytes = hostileFreeBytes + hostileReadBufBytes + hostileRestBytes
)

// hostileWaitMs is the benchmark's Config.MaxRequestWaitMs and
// WriteTimeoutMs: longer than the defaults (30 s), so that the parked
// fetches of kind 1 and the unread responses of kind 2 still hold what
// they hold when a loaded machine takes its time to measure. The heap
// they pin is the same either way; only how long it stays pinned changes.
const hostileWaitMs = 5 * 60 * 1000

// hostileKind is one kind of hostile connection of issue 15's section 1.
type hostileKind struct {
	name string
	// prepare runs before the normal client's first sample (the log the
	// fetches of kind 2 read).
	prepare func(b *testing.B, addr string)
	// attack is what one hostile connection does; it may block for ever
	// (the broker stops reading it), until the benchmark closes it.
	attack func(nc net.Conn) error
	// settled reports whether a connection reached the state it ends in:
	// the most the broker holds for it.
	settled func(m server.ConnMemory) bool
	// done, if set, counts the connections whose attack returned, for
	// kinds whose end is the client's (kind 3).
	done *atomic.Int64
}

func hostileKinds() []hostileKind {
	chunk := make([]byte, 64<<10)
	var idleDone atomic.Int64
	park := frameOfErr(&wire.FetchRequest{CorrelationID: 1, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1,
		MaxWaitMs: math.MaxInt32, MinBytes: math.MaxInt32, MaxBytes: math.MaxInt32,
		Partitions: []wire.FetchPartition{{Topic: "bad", Partition: 0, CurrentLeaderEpoch: wire.NoEpoch,
			FetchOffset: 0, LastFetchedEpoch: wire.NoEpoch, MaxBytes: math.MaxInt32}}})
	fetchAll := frameOfErr(&wire.FetchRequest{CorrelationID: 1, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1,
		MaxWaitMs: 0, MinBytes: 0, MaxBytes: math.MaxInt32,
		Partitions: []wire.FetchPartition{{Topic: "bad", Partition: 0, CurrentLeaderEpoch: wire.NoEpoch,
			FetchOffset: 0, LastFetchedEpoch: wire.NoEpoch, MaxBytes: math.MaxInt32}}})
	const (
		parkedFrame = 64 << 20  // kind 1's garbage produce frames, the size
		logBytes    = 100 << 20 // kind 2's log, the size
		idleFrame   = 2 << 20   // kind 3's requests (the were 4 MiB: 20 GB of traffic at 1,000 connections)
		idleFrames  = 5
		partial     = 90 << 20 // kind 4's frame, the size, of which 8/9 are sent
	)
	return []hostileKind{{
		name: "kind=parkedFetchThenLargeFrames",
		attack: func(nc net.Conn) error {
			if _, err := nc.Write(park); err != nil {
				return err
			}
			for range 4 {
				if err := garbageProduce(nc, parkedFrame, chunk); err != nil {
					return err
				}
			}
			return nil
		},
		settled: func(m server.ConnMemory) bool { return m.Waiting && m.Unanswered == 1 },
	}, {
		name: "kind=unreadPipelinedFetches",
		prepare: func(b *testing.B, addr string) {
			big := produceFrame(b, replica.TopicPartition{Topic: "bad", Partition: 0}, wire.AcksLeader, 9000) // ~1 MiB batches
			pc := dialRaw(b, addr)
			for n := 0; n < logBytes; n += len(big) {
				pc.roundTrip(b, big)
			}
			pc.nc.Close()
		},
		attack: func(nc net.Conn) error {
			for range 5 {
				if _, err := nc.Write(fetchAll); err != nil {
					return err
				}
			}
			return nil
		},
		settled: func(m server.ConnMemory) bool { return m.Waiting || (m.Delivered == 5 && m.Unanswered == 0) },
	}, {
		name: "kind=largeRequestsThenIdle",
		attack: func(nc net.Conn) error {
			br := bufio.NewReaderSize(nc, 4<<10)
			for range idleFrames {
				if err := garbageProduce(nc, idleFrame, chunk); err != nil {
					return err
				}
				if _, err := wire.ReadFrame(br, nil, 0); err != nil {
					return err
				}
			}
			idleDone.Add(1)
			return nil
		},
		settled: func(m server.ConnMemory) bool { return m.Delivered == idleFrames && m.Unanswered == 0 },
		done:    &idleDone,
	}, {
		name: "kind=partlyReadLargeFrame",
		attack: func(nc net.Conn) error {
			if _, err := nc.Write(binary.BigEndian.AppendUint32(nil, uint32(partial))); err != nil {
				return err
			}
			return writeN(nc, partial/9*8, chunk)
		},
		settled: func(m server.ConnMemory) bool { return m.Waiting || m.Held >= partial },
	}}
}

// BenchmarkHostileConnections is issue 15's benchmark for the memory
// budget: for each kind of hostile connection of section 1, over loopback
// TCP against one broker's Host with the default budget, a normal
// client's acks=1 produce round trips (a batch of ten 100-byte records,
// one at a time on its own connection) are timed unloaded, then
// -hostile.conns hostile connections of the kind are opened and left in
// the state they end in, and in the same run the broker's heap and the
// normal client's produce round trips are measured under that load.
//
// It reports the p99 of the round trips unloaded, loaded, and unloaded
// again once the hostile connections are closed; the ratio loaded to
// unloaded (the target: at most 2); the heap's growth
// (runtime.MemStats.HeapInuse after two collections, less its value
// before the hostile connections) against the bound described at
// hostilePerConnBytes; and, overriding the framework's, ns/op and
// allocs/op per loaded round trip (allocs/op counts the whole process,
// hostile clients included). Run it with -benchtime 1x: each run opens
// thousands of connections.
//
// A heap over its bound fails the benchmark; a p99 ratio over 2 is
// reported, and logged, but does not: on a shared machine the latency of
// one client is at the mercy of the other processes.
func BenchmarkHostileConnections(b *testing.B) {
	for _, k := range hostileKinds() {
		b.Run(k.name, func(b *testing.B) { runHostile(b, k) })
	}
}

func runHostile(b *testing.B, k hostileKind) {
	b.ReportAllocs()
	b.StopTimer()
	n := *hostileConns
	c := clustertest.Start(b, clustertest.Options{Brokers: 1,
		Broker: func(cfg *replica.BrokerConfig) { cfg.HeartbeatIntervalMs = 5000 },
		Host: func(_ int32, _ *replica.Broker, cfg *server.Config) {
			cfg.MaxRequestWaitMs, cfg.WriteTimeoutMs = hostileWaitMs, hostileWaitMs
			cfg.Logf = nil // thousands of refusals
		}})
	c.CreateTopic("good", 1, 1, 1)
	c.CreateTopic("bad", 1, 1, 1)
	h := c.Broker(1).Host
	addr := h.Addr().String()
	if k.prepare != nil {
		k.prepare(b, addr)
	}

	normal := dialRaw(b, addr)
	frame := produceFrame(b, replica.TopicPartition{Topic: "good", Partition: 0}, wire.AcksLeader, 10)
	var resp wire.ProduceResponse
	sample := func(lat []time.Duration) {
		for i := range lat {
			start := time.Now()
			p := normal.roundTrip(b, frame)
			lat[i] = time.Since(start)
			if err := wire.DecodeProduceResponseInto(p, &resp); err != nil || resp.Partitions[0].ErrorCode != wire.CodeNone {
				b.Fatalf("normal produce: %v %+v", err, resp)
			}
		}
	}
	warm := make([]time.Duration, 200)
	sample(warm)
	base := heapInuse() // and the garbage of prepare collected before the samples
	awaitQuiet(b)
	unloaded := make([]time.Duration, *hostileSamples)
	cpu0 := cpuTime()
	sample(unloaded)
	cpuUnloaded := cpuTime() - cpu0

	conns := openHostile(b, addr, n, k.attack)
	what := fmt.Sprintf("%d hostile connections (%s) settled", n, k.name)
	settledCount := func() int {
		ms, _ := h.Memory()
		s := 0
		for _, m := range ms {
			if k.settled(m) {
				s++
			}
		}
		return s
	}
	pollUntil(b, what, func() bool { return settledCount() >= n && (k.done == nil || k.done.Load() == int64(n)) })
	// Settled is the most the host holds; the bytes the hostile clients
	// still push into their sockets' buffers, or into a frame admitted
	// whole, are the end of the attack, not the load it leaves.
	awaitQuiet(b)

	grew := heapInuse() - base
	ms, shared := h.Memory()
	var held int64
	for _, m := range ms {
		held += m.Held
	}
	loaded := make([]time.Duration, *hostileSamples)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	b.StartTimer()
	start, cpu1 := time.Now(), cpuTime()
	sample(loaded)
	elapsed, cpuLoaded := time.Since(start), cpuTime()-cpu1
	b.StopTimer()
	runtime.ReadMemStats(&m1)
	if s := settledCount(); s < n {
		b.Fatalf("only %d of %d hostile connections still settled after the loaded samples: the load ended early", s, n)
	}
	closeHostile(conns)
	// A connection whose reader waits for the budget is not read, so the
	// host learns of its close only once it reads again (kind 1: when its
	// parked fetch's clamped wait ends): the samples after are taken once
	// the host saw every close, or after at most 10 s.
	awaitClosed := time.Now().Add(10 * time.Second)
	for h.OpenInbound() > 1 && time.Now().Before(awaitClosed) {
		time.Sleep(10 * time.Millisecond)
	}
	stillOpen := h.OpenInbound() - 1
	after := make([]time.Duration, *hostileSamples)
	sample(after)

	p99 := func(lat []time.Duration) float64 {
		slices.Sort(lat)
		return float64(lat[len(lat)*99/100].Nanoseconds()) / 1e3
	}
	p50 := func(lat []time.Duration) float64 { return float64(lat[len(lat)/2].Nanoseconds()) / 1e3 } // sorted by p99
	pu, pl, pa := p99(unloaded), p99(loaded), p99(after)
	bound := int64(server.DefaultMaxHeldBytes) + hostileFixedBytes + int64(n)*hostilePerConnBytes
	b.ReportMetric(pu, "p99-unloaded-µs")
	b.ReportMetric(pl, "p99-loaded-µs")
	b.ReportMetric(pa, "p99-after-µs")
	b.ReportMetric(pl/pu, "p99-ratio")
	b.ReportMetric(p50(unloaded), "p50-unloaded-µs")
	b.ReportMetric(p50(loaded), "p50-loaded-µs")
	b.ReportMetric(float64(cpuUnloaded.Nanoseconds())/float64(*hostileSamples)/1e3, "cpu-µs/op-unloaded")
	b.ReportMetric(float64(cpuLoaded.Nanoseconds())/float64(*hostileSamples)/1e3, "cpu-µs/op-loaded")
	b.ReportMetric(float64(grew)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(bound)/(1<<20), "bound-MiB")
	b.ReportMetric(float64(grew)/float64(bound), "heap/bound")
	b.ReportMetric(float64(held)/(1<<20), "held-MiB")
	b.ReportMetric(float64(stillOpen), "open-after")
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(*hostileSamples), "ns/op")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(*hostileSamples), "allocs/op")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(*hostileSamples), "B/op")
	b.Logf("%s: %d connections; p99 produce %.0f µs unloaded, %.0f µs loaded (%.2fx), %.0f µs after (%d hostile connections not yet seen closed); heap grew %.1f MiB of a bound of %.1f MiB (budget %d MiB + %d MiB fetch buffers + %d KiB x %d connections); the host counted %.1f MiB held, %.1f MiB of it shared",
		k.name, n, pu, pl, pl/pu, pa, stillOpen, float64(grew)/(1<<20), float64(bound)/(1<<20),
		server.DefaultMaxHeldBytes>>20, hostileFixedBytes>>20, hostilePerConnBytes>>10, n, float64(held)/(1<<20), float64(shared)/(1<<20))
	if grew > bound {
		b.Errorf("%s: the heap grew %d bytes with %d hostile connections, over the bound %d", k.name, grew, n, bound)
	}
	if pl > 2*pu {
		b.Logf("%s: the loaded p99 is %.2fx the unloaded one, over the issue's 2x", k.name, pl/pu)
	}
}

// awaitQuiet waits until the process used less than a tenth of a core
// over a quarter of a second, or 30 s passed (logged, not a failure: the
// samples are then taken under whatever load remains).
func awaitQuiet(b *testing.B) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		cpu := cpuTime()
		time.Sleep(250 * time.Millisecond)
		if cpuTime()-cpu < 25*time.Millisecond {
			return
		}
	}
	b.Logf("the process did not become quiet within 30 s")
}

// heapInuse returns the process's HeapInuse after the collector ran
// twice (so that the pools' idle buffers are gone too).
func heapInuse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// hostileConnSet is the hostile connections of one run and their
// goroutines.
type hostileConnSet struct {
	conns []net.Conn
	wg    sync.WaitGroup
}

// openHostile dials n connections to addr and runs attack on each in its
// own goroutine.
func openHostile(b *testing.B, addr string, n int, attack func(nc net.Conn) error) *hostileConnSet {
	s := &hostileConnSet{conns: make([]net.Conn, 0, n)}
	b.Cleanup(func() { closeHostile(s) })
	for range n {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatalf("dial hostile connection %d: %v", len(s.conns), err)
		}
		s.conns = append(s.conns, nc)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			_ = attack(nc) // a write the broker or the end of the run cuts short is the end
		}()
	}
	return s
}

// closeHostile closes the connections and waits for their goroutines.
func closeHostile(s *hostileConnSet) {
	for _, nc := range s.conns {
		nc.Close()
	}
	s.wg.Wait()
}

// pollUntil waits until cond holds, checking it every 10 ms, and fails
// after clustertest.WaitLimit: some states (a reader that began to wait for the
// budget) come with no event of the host to wake a waiter.
func pollUntil(b *testing.B, what string, cond func() bool) {
	b.Helper()
	deadline := time.Now().Add(clustertest.WaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("still waiting, after %v, for %s", clustertest.WaitLimit, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
