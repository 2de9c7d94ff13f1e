package client

import (
	"context"
	"fmt"
)

// FetchesSent returns how many fetches c's consumers have sent.
func FetchesSent(c *Client) int64 { return c.fetches.Load() }

// WaitForFetch waits until c's consumers send their next fetch.
func WaitForFetch(c *Client) {
	c.mu.Lock()
	if c.fetchSent == nil {
		c.fetchSent = make(chan struct{})
	}
	ch := c.fetchSent
	c.mu.Unlock()
	<-ch
}

// Resends returns how many batches p has sent again.
func Resends(p *Producer) int64 { return p.resends.Load() }

// AwaitLeaderOtherThan waits until c's metadata names a leader of tp other
// than old, and returns it.
func AwaitLeaderOtherThan(ctx context.Context, c *Client, tp TopicPartition, old int32) (int32, error) {
	for {
		seen := c.meta.next()
		if id, _, _, err := c.meta.leader(tp); err == nil && id != old {
			return id, nil
		}
		if err := c.meta.wait(ctx, seen); err != nil {
			return 0, err
		}
	}
}

// AwaitInFlight waits until n batches of tp are in flight in p and none
// waits to be sent.
func AwaitInFlight(ctx context.Context, p *Producer, tp TopicPartition, n int) error {
	for {
		p.mu.Lock()
		part := p.parts[tp]
		ok := part != nil && part.inflight == n
		ch := p.nextEvent()
		p.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return partitionGaveUp(ctx, p, part)
		}
	}
}

// PartitionView is what a test may see of a producer's partition.
type PartitionView struct {
	InFlight int
	Epoch    int16 // the producer epoch of its sequences
	Resends  int64 // batches the producer sent again, all partitions
	Pending  int   // batches without an outcome yet
}

// AwaitPartition waits until cond holds for tp's state in p, looking
// after each of the producer's events.
func AwaitPartition(ctx context.Context, p *Producer, tp TopicPartition, cond func(PartitionView) bool) error {
	for {
		p.mu.Lock()
		part := p.parts[tp]
		ok := part != nil && cond(PartitionView{InFlight: part.inflight, Epoch: part.ident.epoch, Resends: p.resends.Load(), Pending: len(part.batches)})
		ch := p.nextEvent()
		p.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return partitionGaveUp(ctx, p, part)
		}
	}
}

// partitionGaveUp is the error of a wait on part that ran out of time,
// with what the partition looked like.
func partitionGaveUp(ctx context.Context, p *Producer, part *partition) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if part == nil {
		return ctx.Err()
	}
	var bs []string
	for _, b := range part.batches {
		bs = append(bs, fmt.Sprintf("{state %d seq %d hasSeq %t maybeWritten %t created %d err %v}", b.state, b.seq, b.hasSeq, b.maybeWritten, b.createdMs, b.lastErr))
	}
	return fmt.Errorf("%w: now %d, partition: inflight %d (to %d) ident %+v producer ident %+v needBump %t retryAt %d nextSeq %d batches %v",
		ctx.Err(), p.c.clock.NowMs(), part.inflight, part.inflightTo, part.ident, p.ident, part.needBump, part.retryAt, part.nextSeq, bs)
}

// SetPrefetch turns the consumer's prefetch on or off and returns what it
// was.
func SetPrefetch(on bool) bool {
	was := prefetch
	prefetch = on
	return was
}

// ProcessCPU is the process's CPU time so far, for benchmarks.
var ProcessCPU = processCPU
