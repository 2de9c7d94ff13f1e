package server_test

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// fullSizeRepros runs the memory repros at the sizes against the
// default budgets (about 3 GB of traffic; minutes, not for CI).
var fullSizeRepros = flag.Bool("membudget.full", false, "run the memory-budget repros at full size with the default budgets")

// memScale is one run's sizes: the repros' sizes and the host's budgets,
// scaled together.
type memScale struct {
	maxHeld, perConn int64 // Config.MaxHeldBytes, MaxConnectionHeldBytes (0: default)
	budget, conn     int64 // the bounds those mean
	frame            int   // repro 1's produce frames (64 MiB)
	logBytes         int   // repro 2's log (100 MiB)
	idleFrame        int   // repro 3's requests (4 MiB)
	partial          int   // repro 4's frame (90 MiB), of which 8/9 are sent
	conns            int   // hostile connections of each kind (8, 4, 40, 8)
}

func scale() memScale {
	if *fullSizeRepros {
		return memScale{budget: server.DefaultMaxHeldBytes, conn: server.DefaultMaxConnectionHeldBytes,
			frame: 64 << 20, logBytes: 100 << 20, idleFrame: 4 << 20, partial: 90 << 20, conns: 8}
	}
	return memScale{maxHeld: 16 << 20, perConn: 4 << 20, budget: 16 << 20, conn: 4 << 20,
		frame: 8 << 20, logBytes: 12 << 20, idleFrame: 2 << 20, partial: 9 << 20, conns: 8}
}

// perConnSlack is what the test allows each hostile connection beyond
// the budget: its read buffer, its slots and decoded values, its
// goroutines' heap, the socket's (a few tens of KiB in all).
const perConnSlack = 48 << 10

// fixedSlack is what the test allows the process beyond the budget once:
// the broker's fetch buffers kept from event to event (at most 4 of 2 MiB,
// replica's maxKeptFetchBufs), which do not grow with connections.
const fixedSlack = 8 << 20

// heapInUse returns the process's live heap after the collector ran
// twice (so that the pools' idle buffers are gone too).
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// memBroker starts one broker whose host has s's budgets and a topic for
// the well-behaved clients and one for the hostile ones.
func memBroker(t *testing.T, s memScale) (*clustertest.Cluster, *clustertest.Broker) {
	c := clustertest.Start(t, clustertest.Options{Brokers: 1,
		Broker: func(cfg *replica.BrokerConfig) { cfg.HeartbeatIntervalMs = 5000 },
		Host: func(_ int32, _ *replica.Broker, cfg *server.Config) {
			cfg.MaxHeldBytes, cfg.MaxConnectionHeldBytes = s.maxHeld, s.perConn
			cfg.Logf = nil // thousands of refusals
		}})
	c.CreateTopic("good", 1, 1, 1)
	c.CreateTopic("bad", 1, 1, 1)
	return c, c.Broker(1)
}

// wellBehaved is a producer and a consumer of topic "good", each on its
// own connection, running until stop: their counts must keep growing
// while hostile connections hold the broker's memory.
type wellBehaved struct {
	produced, consumed atomic.Int64
	stop               chan struct{}
	wg                 sync.WaitGroup
	mu                 sync.Mutex
	err                error
}

func startWellBehaved(t *testing.T, addr string) *wellBehaved {
	w := &wellBehaved{stop: make(chan struct{})}
	tp := replica.TopicPartition{Topic: "good", Partition: 0}
	prod := produceFrame(t, tp, wire.AcksLeader, 10)
	w.run(addr, func(rc *memConn) error {
		if err := rc.write(prod); err != nil {
			return err
		}
		p, err := rc.read()
		if err != nil {
			return err
		}
		var r wire.ProduceResponse
		if err := wire.DecodeProduceResponseInto(p, &r); err != nil || r.Partitions[0].ErrorCode != wire.CodeNone {
			return fmt.Errorf("produce: %v %+v", err, r)
		}
		w.produced.Add(1)
		return nil
	})
	var offset uint64
	w.run(addr, func(rc *memConn) error {
		f := frameOfErr(&wire.FetchRequest{CorrelationID: 2, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1,
			MaxWaitMs: 100, MinBytes: 1, MaxBytes: 64 << 10,
			Partitions: []wire.FetchPartition{{Topic: tp.Topic, Partition: tp.Partition, CurrentLeaderEpoch: wire.NoEpoch,
				FetchOffset: offset, LastFetchedEpoch: wire.NoEpoch, MaxBytes: 64 << 10}}})
		if err := rc.write(f); err != nil {
			return err
		}
		p, err := rc.read()
		if err != nil {
			return err
		}
		var r wire.FetchResponse
		if err := wire.DecodeFetchResponseInto(p, &r); err != nil || r.Partitions[0].ErrorCode != wire.CodeNone {
			return fmt.Errorf("fetch: %v %+v", err, r)
		}
		n, err := log.CountRecords(r.Partitions[0].Records)
		if err != nil {
			return fmt.Errorf("fetch: records: %w", err)
		}
		offset += uint64(n)
		w.consumed.Add(int64(n / 10)) // a batch of "good" is one produce of 10 records
		return nil
	})
	t.Cleanup(w.close)
	return w
}

func (w *wellBehaved) run(addr string, step func(*memConn) error) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		rc, err := dialMem(addr)
		if err != nil {
			w.fail(err)
			return
		}
		defer rc.nc.Close()
		for {
			select {
			case <-w.stop:
				return
			default:
			}
			if err := step(rc); err != nil {
				w.fail(err)
				return
			}
		}
	}()
}

func (w *wellBehaved) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

func (w *wellBehaved) close() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	w.wg.Wait()
}

// awaitProgress waits until both clients made n more round trips than
// now, failing the test if one of them failed.
func (w *wellBehaved) awaitProgress(t *testing.T, ev *clustertest.Events, n int64) {
	t.Helper()
	p0, c0 := w.produced.Load(), w.consumed.Load()
	ev.Await(t, fmt.Sprintf("%d more produces and consumed batches by the well-behaved clients (at %d and %d)", n, p0, c0), func() bool {
		w.mu.Lock()
		err := w.err
		w.mu.Unlock()
		if err != nil {
			t.Fatalf("a well-behaved client failed: %v", err)
		}
		return w.produced.Load() >= p0+n && w.consumed.Load() >= c0+n
	})
}

// memConn is a raw connection whose errors are returned, for goroutines.
type memConn struct {
	nc  net.Conn
	br  *bufio.Reader
	buf []byte
}

func dialMem(addr string) (*memConn, error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &memConn{nc: nc, br: bufio.NewReaderSize(nc, 64<<10)}, nil
}

func (m *memConn) write(b []byte) error { _, err := m.nc.Write(b); return err }

func (m *memConn) read() ([]byte, error) {
	var err error
	m.buf, err = wire.ReadFrame(m.br, m.buf, 0)
	return m.buf, err
}

func frameOfErr(m wire.Message) []byte {
	p, err := m.AppendTo(nil)
	if err != nil {
		panic(err)
	}
	f, err := wire.AppendFrame(nil, p)
	if err != nil {
		panic(err)
	}
	return f
}

// garbageProduce writes one acks=1 produce frame of topic "bad" whose
// records are size bytes of garbage (the broker refuses it, answering in
// order), from a chunk reused so that the client holds no copy.
func garbageProduce(nc net.Conn, size int, chunk []byte) error {
	head, err := (&wire.ProduceRequest{CorrelationID: 7, Acks: wire.AcksLeader, TimeoutMs: 1000,
		Partitions: []wire.ProducePartition{{Topic: "bad", Partition: 0, Records: nil}}}).AppendTo(nil)
	if err != nil {
		return err
	}
	// The records' length is the last field: replace the empty records
	// (length -1 or 0) with size bytes announced.
	head = head[:len(head)-4]
	head = binary.BigEndian.AppendUint32(head, uint32(size))
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(head)+size))
	if _, err := nc.Write(append(frame, head...)); err != nil {
		return err
	}
	return writeN(nc, size, chunk)
}

// writeN writes n bytes of chunk, repeated.
func writeN(nc net.Conn, n int, chunk []byte) error {
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := nc.Write(chunk[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// hostile runs f on n connections to addr, each in its own goroutine,
// until the test ends; a write that fails once the test closes the
// connections is the end, not an error.
func hostile(t *testing.T, addr string, n int, f func(nc net.Conn) error) {
	var wg sync.WaitGroup
	conns := make([]net.Conn, n)
	for i := range conns {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = nc
	}
	for _, nc := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(nc); err != nil && !errors.Is(err, net.ErrClosed) {
				_ = err // the broker may close them: that is its right
			}
		}()
	}
	t.Cleanup(func() {
		for _, nc := range conns {
			nc.Close()
		}
		wg.Wait()
	})
}

// awaitSettled waits until n hostile connections (beyond the
// well-behaved two) are each in the state settled says they end in: the
// most the broker will hold for them.
func awaitSettled(t *testing.T, c *clustertest.Cluster, h *server.Host, n int, what string, settled func(server.ConnMemory) bool) {
	t.Helper()
	c.Await(what, func() bool {
		conns, _ := h.Memory()
		k := 0
		for _, m := range conns {
			if settled(m) {
				k++
			}
		}
		return k >= n
	})
}

// checkHeap fails the test if the heap grew by more than the budget and
// perConnSlack per connection since base.
func checkHeap(t *testing.T, s memScale, base int64, conns int, what string) {
	t.Helper()
	grew := heapInUse() - base
	limit := s.budget + fixedSlack + int64(conns)*perConnSlack
	t.Logf("%s: the heap grew %.1f MiB with %d hostile connections (limit %.1f MiB: budget %.1f MiB + %d MiB + %d KiB each)",
		what, float64(grew)/(1<<20), conns, float64(limit)/(1<<20), float64(s.budget)/(1<<20), fixedSlack>>20, perConnSlack>>10)
	if grew > limit {
		t.Fatalf("%s: the heap grew %d bytes, over the budget %d plus %d plus %d per connection", what, grew, s.budget, fixedSlack, perConnSlack)
	}
}

// TestAParkedFetchDoesNotPinTheFramesReadAfterIt is repro 1: a consumer
// fetch parked with MaxWaitMs and MinBytes at 2^31-1, then four large
// produce frames of garbage, on each of several connections. A frame
// larger than what the connection may hold is read only once it holds
// nothing else, so the parked fetch (its wait clamped, MaxRequestWaitMs)
// holds back the frames instead of their bytes being held.
func TestAParkedFetchDoesNotPinTheFramesReadAfterIt(t *testing.T) {
	s := scale()
	c, b := memBroker(t, s)
	addr := b.Host.Addr().String()
	w := startWellBehaved(t, addr)
	w.awaitProgress(t, c.Events, 5)
	base := heapInUse()

	chunk := make([]byte, 64<<10)
	park := frameOfErr(&wire.FetchRequest{CorrelationID: 1, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1,
		MaxWaitMs: math.MaxInt32, MinBytes: math.MaxInt32, MaxBytes: math.MaxInt32,
		Partitions: []wire.FetchPartition{{Topic: "bad", Partition: 0, CurrentLeaderEpoch: wire.NoEpoch,
			FetchOffset: 0, LastFetchedEpoch: wire.NoEpoch, MaxBytes: math.MaxInt32}}})
	hostile(t, addr, s.conns, func(nc net.Conn) error {
		if _, err := nc.Write(park); err != nil {
			return err
		}
		for range 4 {
			if err := garbageProduce(nc, s.frame, chunk); err != nil {
				return err
			}
		}
		return nil
	})
	awaitSettled(t, c, b.Host, s.conns, "every hostile connection's reader held back behind its parked fetch",
		func(m server.ConnMemory) bool { return m.Waiting && m.Unanswered == 1 })
	w.awaitProgress(t, c.Events, 5)
	checkHeap(t, s, base, s.conns, "parked fetch, then large frames")
}

// TestAClientThatDoesNotReadHoldsAtMostItsShare is repro 2: pipelined
// consumer fetches asking for 2^31-1 bytes of a log larger than the
// budget, never read. What the socket does not take is held in pooled
// buffers counted against the budget; each response carries no more
// records than the budget grants (replica.FetchBudget), and a connection
// over its share is not read further.
func TestAClientThatDoesNotReadHoldsAtMostItsShare(t *testing.T) {
	s := scale()
	c, b := memBroker(t, s)
	addr := b.Host.Addr().String()
	bad := replica.TopicPartition{Topic: "bad", Partition: 0}
	big := produceFrame(t, bad, wire.AcksLeader, 9000) // ~1 MiB batches
	pc, err := dialMem(addr)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < s.logBytes; n += len(big) {
		if err := pc.write(big); err != nil {
			t.Fatal(err)
		}
		if _, err := pc.read(); err != nil {
			t.Fatal(err)
		}
	}
	pc.nc.Close()
	w := startWellBehaved(t, addr)
	w.awaitProgress(t, c.Events, 5)
	base := heapInUse()

	fetch := frameOfErr(&wire.FetchRequest{CorrelationID: 1, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1,
		MaxWaitMs: 0, MinBytes: 0, MaxBytes: math.MaxInt32,
		Partitions: []wire.FetchPartition{{Topic: "bad", Partition: 0, CurrentLeaderEpoch: wire.NoEpoch,
			FetchOffset: 0, LastFetchedEpoch: wire.NoEpoch, MaxBytes: math.MaxInt32}}})
	hostile(t, addr, s.conns, func(nc net.Conn) error {
		for range 5 {
			if _, err := nc.Write(fetch); err != nil {
				return err
			}
		}
		return nil
	})
	awaitSettled(t, c, b.Host, s.conns, "every hostile connection over its share or all its fetches answered",
		func(m server.ConnMemory) bool { return m.Waiting || (m.Delivered == 5 && m.Unanswered == 0) })
	w.awaitProgress(t, c.Events, 5)
	conns, shared := b.Host.Memory()
	var held int64
	for _, m := range conns {
		held += m.Held
	}
	t.Logf("the host holds %d KiB for %d connections, %d KiB of them shared", held>>10, len(conns), shared>>10)
	checkHeap(t, s, base, s.conns, "unread fetch responses")
}

// TestAnIdleConnectionKeepsNoLargeBuffer is repro 3: connections that
// each sent five large requests, read their answers and went idle hold
// no buffer grown for them: a few tens of KiB each.
func TestAnIdleConnectionKeepsNoLargeBuffer(t *testing.T) {
	s := scale()
	c, b := memBroker(t, s)
	addr := b.Host.Addr().String()
	w := startWellBehaved(t, addr)
	w.awaitProgress(t, c.Events, 5)
	base := heapInUse()

	n := 5 * s.conns
	chunk := make([]byte, 64<<10)
	var answered atomic.Int64
	hostile(t, addr, n, func(nc net.Conn) error {
		br := bufio.NewReaderSize(nc, 4<<10)
		for range 5 {
			if err := garbageProduce(nc, s.idleFrame, chunk); err != nil {
				return err
			}
			if _, err := wire.ReadFrame(br, nil, 0); err != nil {
				return err
			}
		}
		answered.Add(1)
		return nil
	})
	c.Await(fmt.Sprintf("%d connections' five large requests answered", n), func() bool { return answered.Load() == int64(n) })
	w.awaitProgress(t, c.Events, 5)
	grew := heapInUse() - base
	t.Logf("%d idle connections after 5 requests of %d KiB: the heap grew %d KiB, %d KiB each", n, s.idleFrame>>10, grew>>10, grew/int64(n)>>10)
	if grew > int64(n)*perConnSlack {
		t.Fatalf("%d idle connections hold %d bytes, %d each: more than %d", n, grew, grew/int64(n), perConnSlack)
	}
}

// TestPartlyReadFramesCountAgainstTheBudget is repro 4: connections each
// 8/9 into a large frame that never ends. A frame counts whole from its
// length prefix, so those beyond the budget are not read at all.
func TestPartlyReadFramesCountAgainstTheBudget(t *testing.T) {
	s := scale()
	c, b := memBroker(t, s)
	addr := b.Host.Addr().String()
	w := startWellBehaved(t, addr)
	w.awaitProgress(t, c.Events, 5)
	base := heapInUse()

	chunk := make([]byte, 64<<10)
	hostile(t, addr, s.conns, func(nc net.Conn) error {
		if _, err := nc.Write(binary.BigEndian.AppendUint32(nil, uint32(s.partial))); err != nil {
			return err
		}
		return writeN(nc, s.partial/9*8, chunk)
	})
	// Admitted frames are held whole; the others' readers wait.
	awaitSettled(t, c, b.Host, s.conns, "every hostile connection reading its frame or waiting for the budget",
		func(m server.ConnMemory) bool { return m.Waiting || m.Held >= int64(s.partial) })
	_, shared := b.Host.Memory()
	if shared > max(s.budget, int64(s.partial)) {
		t.Fatalf("the budget counts %d shared bytes, over %d", shared, s.budget)
	}
	w.awaitProgress(t, c.Events, 5)
	checkHeap(t, s, base, s.conns, "partly read frames")
}
