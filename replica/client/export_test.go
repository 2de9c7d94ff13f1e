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
	if part == nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w: %s", ctx.Err(), Describe(p, part.tp))
}

// Describe tells what p holds of tp, and what the client knows of tp's
// leader and its connections, for a test that waited in vain.
func Describe(p *Producer, tp TopicPartition) string {
	leader, epoch, addr, lerr := p.c.meta.leader(tp)
	metaErr := p.c.meta.lastError()
	p.c.mu.Lock()
	var conns []string
	for k, cn := range p.c.conns {
		conns = append(conns, fmt.Sprintf("{controller %t broker %d %s err %v}", k.controller, k.broker, cn.addr, cn.cause()))
	}
	p.c.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	s := fmt.Sprintf("now %d; metadata: leader %d epoch %d at %q (%v), last refresh error %v; conns %v; producer ident %+v initing %t initRetryAt %d",
		p.c.clock.NowMs(), leader, epoch, addr, lerr, metaErr, conns, p.ident, p.initing, p.initRetryAt)
	part := p.parts[tp]
	if part == nil {
		return s + "; no such partition in the producer"
	}
	var bs []string
	for _, b := range part.batches {
		bs = append(bs, fmt.Sprintf("{state %d seq %d count %d hasSeq %t maybeWritten %t attempts %d created %d err %v}",
			b.state, b.seq, b.count, b.hasSeq, b.maybeWritten, b.attempts, b.createdMs, b.lastErr))
	}
	open := "none"
	if part.open != nil {
		open = fmt.Sprintf("{count %d created %d}", part.open.count, part.open.createdMs)
	}
	return fmt.Sprintf("%s; partition: inflight %d (to %d) ident %+v needBump %t retryAt %d attempts %d lastErr %v nextSeq %d open %s batches %v",
		s, part.inflight, part.inflightTo, part.ident, part.needBump, part.retryAt, part.attempts, part.lastErr, part.nextSeq, open, bs)
}

// SetPrefetch turns the consumer's prefetch on or off and returns what it
// was.
func SetPrefetch(on bool) bool {
	was := prefetch
	prefetch = on
	return was
}
