package client

import (
	"context"
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
)

// The metadata is refreshed unasked once it is Config.MetadataMaxAgeMs
// old (Kafka's metadata.max.age.ms, 5 minutes by default), counted from
// the last refresh that succeeded, so that the client learns of a new
// leader no error told it of.

// refreshStarted reports whether a refresh began since seen was taken: one
// in flight, or one that already ended.
func refreshStarted(c *Client, seen <-chan struct{}) bool {
	c.meta.mu.Lock()
	inflight := c.meta.inflight
	c.meta.mu.Unlock()
	select {
	case <-seen:
		return true
	default:
		return inflight
	}
}

// awaitRefresh waits for the refresh that closes seen.
func awaitRefresh(t *testing.T, c *Client, seen <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitGuard)
	defer cancel()
	if err := c.meta.wait(ctx, seen); err != nil {
		t.Fatal(err)
	}
}

func TestMetadataRefreshedAtMaxAge(t *testing.T) {
	const maxAge = DefaultMetadataMaxAgeMs
	fc := newFakeCluster(t, 2, 1)
	clk := clock.NewManual(1_000_000)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	fc.setLeader(tp, 2, 1) // no error will tell the client

	for round := range 2 {
		seen := c.meta.next()
		clk.Advance(maxAge - 1)
		if refreshStarted(c, seen) {
			t.Fatalf("round %d: a refresh %d ms after the last one", round, maxAge-1)
		}
		clk.Advance(1)
		if !refreshStarted(c, seen) {
			t.Fatalf("round %d: no refresh once the metadata was %d ms old", round, maxAge)
		}
		awaitRefresh(t, c, seen)
		if id, _, _, err := c.meta.leader(tp); err != nil || id != 2 {
			t.Fatalf("round %d: leader %d, %v after the refresh; want 2", round, id, err)
		}
	}
}

func TestMetadataAgeCountsFromTheLastRefresh(t *testing.T) {
	const maxAge = 1000
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(1_000_000)
	c, err := New(Config{Controller: fc.controller.addr(), Clock: clk, Seed: 1, MetadataMaxAgeMs: maxAge})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)

	clk.Advance(maxAge / 2)
	seen := c.meta.next()
	c.meta.refresh() // asked for (a broker's error, say) halfway
	awaitRefresh(t, c, seen)
	seen = c.meta.next()
	clk.Advance(maxAge - 1)
	if refreshStarted(c, seen) {
		t.Fatalf("a refresh %d ms after the last one", maxAge-1)
	}
	clk.Advance(1)
	if !refreshStarted(c, seen) {
		t.Fatalf("no refresh %d ms after the last one", maxAge)
	}
	awaitRefresh(t, c, seen)
}

func TestNegativeMetadataMaxAgeRefused(t *testing.T) {
	_, err := New(Config{Controller: "127.0.0.1:1", Clock: clock.NewManual(0), MetadataMaxAgeMs: -1})
	if !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("New with MetadataMaxAgeMs -1: %v, want ErrInvalidConfig", err)
	}
}
