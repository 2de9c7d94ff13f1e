package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// An address that cannot be dialled is refused at New, naming it, as
// Kafka's clients refuse a bootstrap.servers entry they cannot parse;
// before, every produce retried it for DeliveryTimeoutMs.
func TestAnAddressThatCannotParseIsRefusedAtNew(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"", "no address"},
		{"localhost", `"localhost" is not host:port: missing port in address`},
		{"nonsense:xx", `"nonsense:xx": port "xx" is not a number from 1 to 65535`},
		{"127.0.0.1:0", `port "0" is not a number`},
		{"127.0.0.1:70000", `port "70000" is not a number`},
		{":9093", `":9093" has no host`},
		{"a:b:c", `"a:b:c" is not host:port`},
	} {
		_, err := New(Config{Controller: c.addr, Clock: clock.NewManual(0)})
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "Config.Controller") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New with Controller %q: %v; want ErrInvalidConfig naming Config.Controller and saying %q", c.addr, err, c.want)
		}
	}
	for _, addr := range []string{"localhost:9093", "127.0.0.1:1", "[::1]:9093", "controller.example:9093"} {
		c, err := New(Config{Controller: addr, Clock: clock.NewManual(0)})
		if err != nil {
			t.Errorf("New with Controller %q: %v", addr, err)
			continue
		}
		c.Close()
	}
}

// closedPort returns an address on loopback where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// awaitMetadataFailure waits until a refresh of c's metadata failed.
func awaitMetadataFailure(t *testing.T, c *Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitGuard)
	defer cancel()
	for {
		seen := c.meta.next()
		if c.meta.lastError() != nil {
			return
		}
		if err := c.meta.wait(ctx, seen); err != nil {
			t.Fatalf("no metadata refresh failed: %v", err)
		}
	}
}

// checkMetadataTimeout checks err is the metadata timeout after ms that
// names addr and wraps cause.
func checkMetadataTimeout(t *testing.T, err error, addr string, ms int64, cause error) {
	t.Helper()
	if !errors.Is(err, ErrMetadataTimeout) || !errors.Is(err, cause) {
		t.Fatalf("error %v; want ErrMetadataTimeout wrapping %v", err, cause)
	}
	msg := err.Error()
	for _, want := range []string{addr, fmt.Sprintf("after %d ms", ms)} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	for _, bad := range []string{"delivery timeout", "context deadline exceeded"} {
		if strings.Contains(msg, bad) {
			t.Errorf("error %q says %q", msg, bad)
		}
	}
}

// A cluster that cannot be reached fails the first record within
// MaxBlockMs (Kafka's max.block.ms), with an error naming the address
// tried and the last cause — not a delivery timeout after 120 s.
func TestAnUnreachableClusterFailsTheFirstProduceWithinMaxBlockMs(t *testing.T) {
	t.Run("closed port", func(t *testing.T) {
		addr := closedPort(t)
		testUnreachableProduce(t, addr, DefaultMaxBlockMs, 0, wire.ErrNetworkException, true)
	})
	t.Run("a listener that never answers", func(t *testing.T) {
		silent := newFakeServer(t, func(*fakeReq) {})
		// The metadata request times out after RequestTimeoutMs, breaking
		// the connection, and MaxBlockMs ends the record's wait.
		testUnreachableProduce(t, silent.addr(), 45_000, DefaultRequestTimeoutMs, wire.ErrRequestTimedOut, false)
	})
}

// advanceSettling moves clk to target timer by timer, and after each
// timer that began a metadata refresh it waits for the refresh to end:
// a dial to a closed port fails at once in real time, and the manual
// clock must not run past the refresh's request timeout meanwhile.
func advanceSettling(t *testing.T, c *Client, clk *clock.Manual, target int64) {
	t.Helper()
	for {
		next, ok := clk.NextMs()
		if !ok || next > target {
			clk.AdvanceTo(target)
			return
		}
		seen := c.meta.next()
		clk.AdvanceTo(next)
		if refreshStarted(c, seen) {
			awaitRefresh(t, c, seen)
		}
	}
}

func testUnreachableProduce(t *testing.T, addr string, maxBlockMs, firstFailureMs int64, cause error, settle bool) {
	clk := clock.NewManual(0)
	c, err := New(Config{Controller: addr, Clock: clk, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// acks=1: the idempotent producer's InitProducerId would go to the
	// same address, failing the same way, with timers of its own.
	cfg := ProducerConfig{Acks: AcksLeader}
	if maxBlockMs != DefaultMaxBlockMs {
		cfg.MaxBlockMs = maxBlockMs
	}
	p, err := c.NewProducer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{"orders", 0}
	out := produceAsync(t, p, tp, "x")
	clk.Advance(firstFailureMs)
	awaitMetadataFailure(t, c)
	if settle {
		advanceSettling(t, c, clk, maxBlockMs-1)
	} else {
		clk.AdvanceTo(maxBlockMs - 1)
	}
	inPartition(p, tp, func(part *partition) {
		if part.open == nil && len(part.batches) == 0 {
			t.Fatalf("the record failed before MaxBlockMs %d ms", maxBlockMs)
		}
	})
	clk.AdvanceTo(maxBlockMs)
	o := await(t, out)
	checkMetadataTimeout(t, o.err, addr, maxBlockMs, cause)
	t.Logf("%v", o.err)
}

// The consumer's first iteration ends likewise, after its
// DefaultAPITimeoutMs.
func TestAnUnreachableClusterEndsTheFirstConsumeWithinDefaultAPITimeoutMs(t *testing.T) {
	addr := closedPort(t)
	clk := clock.NewManual(0)
	c, err := New(Config{Controller: addr, Clock: clk, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	armed := make(chan struct{}, 1)
	c.onMetadataWait = func() { armed <- struct{}{} }
	co, err := c.NewConsumer(ConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		for _, err := range co.Records(context.Background(), TopicPartition{"orders", 0}, FromStart()) {
			ended <- err
			return
		}
		ended <- nil
	}()
	awaitSignal(t, armed, "the consumer to begin waiting for metadata")
	awaitMetadataFailure(t, c)
	advanceSettling(t, c, clk, DefaultAPITimeoutMs-1)
	select {
	case err := <-ended:
		t.Fatalf("the iteration ended before DefaultAPITimeoutMs: %v", err)
	default:
	}
	clk.AdvanceTo(DefaultAPITimeoutMs)
	select {
	case err := <-ended:
		checkMetadataTimeout(t, err, addr, DefaultAPITimeoutMs, wire.ErrNetworkException)
		t.Logf("%v", err)
	case <-time.After(waitGuard):
		t.Fatal("the iteration did not end at DefaultAPITimeoutMs")
	}
}
