package server

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/clock"
)

// A broker whose controller never answers stays fenced; WaitReady on a
// context with no deadline must still end once the broker's host is
// stopped (Kill, or a Close from another goroutine), with ErrClosed: the
// host closed its done channel and nothing will ever unfence the broker.
func TestWaitReadyEndsWhenTheHostStops(t *testing.T) {
	for _, stop := range []struct {
		name string
		do   func(*Broker)
	}{
		{"Kill", func(b *Broker) { b.Kill() }},
		{"Close", func(b *Broker) { b.Close() }},
	} {
		t.Run(stop.name, func(t *testing.T) {
			dead, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := dead.Addr().String()
			dead.Close() // a controller address nobody listens on
			b, err := StartBroker(BrokerSpec{
				Broker:     replica.BrokerConfig{ID: 1, Dir: t.TempDir()},
				Controller: addr,
				Clock:      clock.NewManual(0),
			})
			if err != nil {
				t.Fatal(err)
			}
			ready := make(chan error, 1)
			go func() { ready <- b.WaitReady(context.Background()) }()
			stop.do(b)
			select {
			case err := <-ready:
				if !errors.Is(err, ErrClosed) {
					t.Fatalf("WaitReady after %s: %v, want ErrClosed", stop.name, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("WaitReady still waiting 10s after %s: it waits for an unfencing a stopped host never brings", stop.name)
			}
		})
	}
}
