package client

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
)

// stuckConn is a connection to a broker that stopped reading (SIGSTOP,
// a peer gone without a reset, full socket buffers): every Write blocks
// until the connection is closed.
type stuckConn struct {
	net.Conn // the client end of a pipe nobody reads
	once     sync.Once
	writing  chan struct{} // closed at the first Write
}

func (c *stuckConn) Write(p []byte) (int, error) {
	c.once.Do(func() { close(c.writing) })
	return c.Conn.Write(p)
}

// A request that cannot even be written is in flight like any other:
// Kafka's NetworkClient times out every in-flight request after
// request.timeout.ms — acks=0 produces included, which sit in its
// in-flight requests until their send completes — and closes the
// connection. The client times out only requests that await an answer
// (conn.send arms no deadline without a handle, and nothing sets a write
// deadline), so an acks=0 batch written to a broker that stopped reading
// stays in flight for ever: its partition's leader barrier then keeps
// every later batch from the new leader, no metadata refresh is ever
// asked, and the records' callbacks never run.
func TestAnUnwrittenAcksZeroRequestTimesOut(t *testing.T) {
	fc := newFakeCluster(t, 2, 1)
	clk := clock.NewManual(0)
	stuck := &stuckConn{writing: make(chan struct{})}
	var peer net.Conn
	stuck.Conn, peer = net.Pipe() // synchronous: a Write blocks until read
	t.Cleanup(func() { peer.Close() })
	broker1 := fc.brokers[1].addr()
	c, err := New(Config{Controller: fc.controller.addr(), Clock: clk, Seed: 1,
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == broker1 {
				return stuck, nil
			}
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksNone})
	if err != nil {
		t.Fatal(err)
	}
	produceAsync(t, p, tp, "a")
	select {
	case <-stuck.writing:
	case <-time.After(waitGuard):
		t.Fatal("the producer never wrote to broker 1")
	}
	// Broker 1 stopped reading; broker 2 leads now.
	fc.setLeader(tp, 2, 1)
	b := produceAsync(t, p, tp, "b")
	// The write's deadline passes; from then on the clock moves in small
	// steps (retry backoffs), after each of the producer's events, while
	// the refreshed metadata comes back over the network.
	clk.Advance(DefaultRequestTimeoutMs)
	guard := time.After(waitGuard)
	for clk.NowMs() < DefaultRequestTimeoutMs+DefaultDeliveryTimeoutMs/2 {
		p.mu.Lock()
		ev := p.nextEvent()
		p.mu.Unlock()
		select {
		case r := <-fc.brokers[2].reqs:
			r.produce(t)
			await(t, b)
			return
		case <-ev:
		case <-time.After(20 * time.Millisecond):
		case <-guard:
			stalled(t, p, tp, clk)
		}
		clk.Advance(100)
	}
	stalled(t, p, tp, clk)
}

// stalled fails the test with the partition's state.
func stalled(t *testing.T, p *Producer, tp TopicPartition, clk *clock.Manual) {
	t.Helper()
	inPartition(p, tp, func(part *partition) {
		t.Fatalf("after %d ms of the client's clock (request timeout %d ms, delivery timeout %d ms), partition %s still has %d batch(es) in flight to broker %d, which never read them; nothing reached its new leader, broker 2",
			clk.NowMs(), DefaultRequestTimeoutMs, DefaultDeliveryTimeoutMs, tp, part.inflight, part.inflightTo)
	})
}
