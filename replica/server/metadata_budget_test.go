package server_test

import (
	"net"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
)

// TestUnreadMetadataAnswersStayWithinTheBudget: clients that pipeline
// Metadata requests (a few bytes each, read within every connection's
// free allowance) and never read the answers (each the whole cluster's
// metadata) hold no more than the budget. Responses are charged as they
// are, without waiting, so only what is read can bound them.
func TestUnreadMetadataAnswersStayWithinTheBudget(t *testing.T) {
	t.Skip("issue: a response other than a fetch's is charged whatever the budget holds; each connection that does not read keeps about one unsent answer beyond it " +
		"(40 connections and a 74 KiB Metadata answer held 2.3 MiB against a 256 KiB budget, 9.2x): bounding it needs the answer's size before its request is read")
	const budget, conns = 256 << 10, 40
	c := clustertest.Start(t, clustertest.Options{Brokers: 1, Host: func(_ int32, _ *replica.Broker, cfg *server.Config) {
		cfg.MaxHeldBytes = budget
		cfg.Logf = nil
	}})
	c.CreateTopic("wide", 2000, 1, 1)
	h := c.Broker(1).Host
	cl := dial(t, h.Addr().String())
	size := len(frameOf(t, cl.call(&wire.MetadataRequest{}).(*wire.MetadataResponse)))
	cl.close()
	req := frameOf(t, &wire.MetadataRequest{CorrelationID: 1})
	hostile(t, h.Addr().String(), conns, func(nc net.Conn) error {
		nc.(*net.TCPConn).SetReadBuffer(4 << 10)
		for range 64 {
			if _, err := nc.Write(req); err != nil {
				return err
			}
		}
		return nil
	})
	awaitSettled(t, c, h, conns, "every hostile connection's reader stopped with an answer unwritten",
		func(m server.ConnMemory) bool { return m.Waiting && m.Held > 16<<10 })
	_, shared := h.Memory()
	t.Logf("a Metadata answer of %d KiB; %d connections hold %d KiB beyond their free allowance (budget %d KiB)", size>>10, conns, shared>>10, budget>>10)
	if shared > budget {
		t.Fatalf("unread Metadata answers hold %d bytes, %.1fx the budget of %d", shared, float64(shared)/budget, budget)
	}
}
