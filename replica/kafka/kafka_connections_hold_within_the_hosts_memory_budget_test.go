package kafka_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The host's budgets in the memory test, and what the hostile
// connections offer against them.
const (
	memBudget    = 8 << 20 // server.Config.MaxHeldBytes
	memPerConn   = 2 << 20 // server.Config.MaxConnectionHeldBytes
	memWaitMs    = 1000    // server.Config.MaxRequestWaitMs
	memFrameMax  = 16 << 20
	hostileFrame = 6 << 20 // over memPerConn: read only when its connection holds nothing else
	hostileConns = 6       // of each kind
	// memPerConnSlack is what a hostile connection may take beyond the
	// budget: its 16 KiB read buffer, its slots, the codec's state, its
	// goroutines, the socket's.
	memPerConnSlack = 64 << 10
	// memFixedSlack is what the process may take beyond the budget once:
	// the broker's kept fetch buffers, kgo's and the cluster's working
	// set, which do not grow with connections.
	memFixedSlack = 8 << 20
)

// liveHeap returns the live heap after the collector ran twice (so that
// the pools' idle buffers are gone too).
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// kafkaFrame is req at version v (request header v2 if flexible) with its
// length prefix.
func kafkaFrame(req kmsg.Request, v int16) []byte {
	req.SetVersion(v)
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(req.Key()))
	b = binary.BigEndian.AppendUint16(b, uint16(v))
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint16(b, 0xffff)
	if req.IsFlexible() {
		b = append(b, 0)
	}
	b = req.AppendTo(b)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// parkedFetch is a Fetch v12 of topic's partition 0 that asks to wait
// 2^31-1 ms for 2^31-1 bytes.
func parkedFetch(topic string) []byte {
	req := fetchFrom(topic, 0, -1)
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes = math.MaxInt32, math.MaxInt32, math.MaxInt32
	return kafkaFrame(req, 12)
}

// TestKafkaConnectionsHoldNoMoreThanTheHostsBudgetWhileKgoProduces: the
// host's memory limits hold on the Kafka listener. Connections that stop
// halfway through a large frame, and connections that park a fetch
// asking to wait 2^31-1 ms and then send large produce frames without
// ever reading an answer, leave the heap within the budget
// (MaxHeldBytes, MaxConnectionHeldBytes) and a small constant per
// connection, while a kgo producer on the same listener keeps
// acknowledging; a parked fetch is answered once MaxRequestWaitMs ends,
// whatever it asked; a length prefix over MaxFrameSize closes its
// connection before anything is read.
func TestKafkaConnectionsHoldNoMoreThanTheHostsBudgetWhileKgoProduces(t *testing.T) {
	c := startClusterWith(t, 1, func(cfg *server.Config) {
		cfg.MaxHeldBytes, cfg.MaxConnectionHeldBytes, cfg.MaxRequestWaitMs = memBudget, memPerConn, memWaitMs
		cfg.MaxFrameSize = memFrameMax
	})
	c.createTopic("good", 1, 1, 1)
	c.createTopic("bad", 1, 1, 1)
	addr := c.seeds()[0]

	// The well-behaved producer: one acks=all record at a time.
	prod := kgoClient(t, c, kgo.DefaultProduceTopic("good"), kgo.RequiredAcks(kgo.AllISRAcks()))
	var acked atomic.Int64
	var prodErr atomic.Value
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			if err := prod.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "good-%d", i)}).FirstErr(); err != nil {
				if ctx.Err() == nil {
					prodErr.Store(err)
				}
				return
			}
			acked.Add(1)
			c.Events.Signal()
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	progress := func(n int64, what string) {
		t.Helper()
		from := acked.Load()
		c.await(fmt.Sprintf("%d more records acknowledged to kgo (at %d) %s", n, from, what), func() bool {
			if err, _ := prodErr.Load().(error); err != nil {
				t.Fatalf("the kgo producer failed: %v", err)
			}
			return acked.Load() >= from+n
		})
	}
	progress(20, "before the hostile connections")

	produce := kafkaFrame(produceTo("bad", 0, make([]byte, hostileFrame)), 9) // refused as corrupt, once read
	chunk := make([]byte, 64<<10)
	base := liveHeap()

	var hostile []net.Conn
	var hwg sync.WaitGroup
	t.Cleanup(func() {
		for _, nc := range hostile {
			nc.Close()
		}
		hwg.Wait()
	})
	dial := func(f func(nc net.Conn)) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		hostile = append(hostile, nc)
		hwg.Add(1)
		go func() { defer hwg.Done(); f(nc) }() // a write the test's close ends is the end
	}
	for range hostileConns {
		dial(func(nc net.Conn) { // 8/9 of a frame, never finished
			if _, err := nc.Write(binary.BigEndian.AppendUint32(nil, hostileFrame)); err != nil {
				return
			}
			for n := hostileFrame / 9 * 8; n > 0; n -= len(chunk) {
				if _, err := nc.Write(chunk[:min(n, len(chunk))]); err != nil {
					return
				}
			}
		})
		dial(func(nc net.Conn) { // a parked fetch, then large frames, never reading
			if _, err := nc.Write(parkedFetch("bad")); err != nil {
				return
			}
			for range 3 {
				if _, err := nc.Write(produce); err != nil {
					return
				}
			}
		})
	}

	// A parked fetch that asked for 2^31-1 ms is answered after
	// MaxRequestWaitMs.
	rc := dialRaw(t, addr)
	start := time.Now()
	if _, err := rc.nc.Write(parkedFetch("good")); err != nil {
		t.Fatal(err)
	}
	if corr, _ := rc.response(); corr != 1 {
		t.Fatalf("the parked fetch: correlation %d", corr)
	}
	t.Logf("a fetch asking to wait 2^31-1 ms was answered after %v (MaxRequestWaitMs %d)", time.Since(start), memWaitMs)

	// A frame over MaxFrameSize closes its connection unread.
	big := dialRaw(t, addr)
	if _, err := big.nc.Write(binary.BigEndian.AppendUint32(nil, memFrameMax+1)); err != nil {
		t.Fatal(err)
	}
	big.expectClosed()

	progress(50, "while the hostile connections hold what they can")
	grew := liveHeap() - base
	limit := int64(memBudget + memFixedSlack + (2*hostileConns+2)*memPerConnSlack)
	t.Logf("%d hostile Kafka connections offered %d MiB: the heap grew %.1f MiB (limit %.1f MiB: budget %d MiB + %d MiB + %d KiB each)",
		2*hostileConns, hostileConns*(hostileFrame/9*8+3*hostileFrame)>>20, float64(grew)/(1<<20), float64(limit)/(1<<20),
		memBudget>>20, memFixedSlack>>20, memPerConnSlack>>10)
	if grew > limit {
		t.Fatalf("the heap grew %d bytes with %d hostile Kafka connections, over %d", grew, 2*hostileConns, limit)
	}
}
