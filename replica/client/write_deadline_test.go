package client

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
)

// A write may take as long as the requests it carries may wait: a
// produce's own deadline is AckTimeoutMs + RequestTimeoutMs (Kafka counts
// a send's time against request.timeout.ms likewise). A large produce
// written to a broker that reads it steadily, if slowly, is not broken
// after RequestTimeoutMs alone while its own deadline is still ahead.
func TestAProgressingWriteIsNotTimedOut(t *testing.T) {
	const reqTimeout = 1000
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	client, peer := net.Pipe() // synchronous: the client's Write moves as the peer reads
	t.Cleanup(func() { peer.Close() })
	broker1 := fc.brokers[1].addr()
	c, err := New(Config{Controller: fc.controller.addr(), Clock: clk, Seed: 1, RequestTimeoutMs: reqTimeout,
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == broker1 {
				return client, nil
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
	p, err := c.NewProducer(ProducerConfig{Acks: AcksAll, AckTimeoutMs: 20 * reqTimeout})
	if err != nil {
		t.Fatal(err)
	}
	produceAsync(t, p, tp, strings.Repeat("v", 256<<10))

	// The peer reads the frame 8 KiB at a time; the client's clock moves
	// reqTimeout/8 between reads: about 4 request timeouts in all, the
	// peer reading all along.
	peer.SetReadDeadline(time.Now().Add(waitGuard)) // a guard against a hang, not a wait
	var size [4]byte
	if _, err := io.ReadFull(peer, size[:]); err != nil {
		t.Fatalf("reading the frame's size: %v", err)
	}
	left := int(binary.BigEndian.Uint32(size[:]))
	total := left
	buf := make([]byte, 8<<10)
	for left > 0 {
		n, err := io.ReadFull(peer, buf[:min(len(buf), left)])
		left -= n
		if err != nil {
			t.Fatalf("the client broke the connection after %d of %d bytes at %d ms on its clock (request timeout %d ms, the request's deadline %d ms), though the peer read all along: %v",
				total-left, total, clk.NowMs(), reqTimeout, 21*reqTimeout, err)
		}
		clk.Advance(reqTimeout / 8)
	}
}
