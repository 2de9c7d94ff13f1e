package kafkatest

import (
	"slices"
	"sync"

	"github.com/kaenlog/kaenlog/replica/clock"
)

// skewClock is one node's clock: the cluster's clock plus a skew that
// only moves forward (Cluster.AdvanceClock). Its timers are the base
// clock's, each remembering when it falls due on this clock, so that a
// jump runs at once every timer it passes, as a clock that moved by
// itself would have.
type skewClock struct {
	base clock.Clock

	mu     sync.Mutex
	skew   int64
	timers map[*skewTimer]struct{}
}

type skewTimer struct {
	c    *skewClock
	at   int64
	f    func()
	base clock.Timer
}

func newSkewClock(base clock.Clock) *skewClock {
	return &skewClock{base: base, timers: map[*skewTimer]struct{}{}}
}

// NowMs is the base clock's time plus the skew.
func (c *skewClock) NowMs() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base.NowMs() + c.skew
}

// AfterFunc runs f ms from now on this clock: when the base clock has
// moved ms, or earlier if advance jumps past it.
func (c *skewClock) AfterFunc(ms int64, f func()) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &skewTimer{c: c, at: c.base.NowMs() + c.skew + max(ms, 0), f: f}
	c.timers[t] = struct{}{}
	t.base = c.base.AfterFunc(ms, t.fire)
	return t
}

// take removes t from the pending timers, reporting whether it was there:
// whoever takes it runs or cancels it, once.
func (c *skewClock) take(t *skewTimer) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.timers[t]
	delete(c.timers, t)
	return ok
}

func (t *skewTimer) fire() {
	if t.c.take(t) {
		t.f()
	}
}

// Stop cancels the timer if it has not run.
func (t *skewTimer) Stop() bool {
	if !t.c.take(t) {
		return false
	}
	t.base.Stop()
	return true
}

// advance moves the clock forward by ms and runs, in order of their due
// times and in the caller's goroutine, every timer now due.
func (c *skewClock) advance(ms int64) {
	c.mu.Lock()
	c.skew += max(ms, 0)
	now := c.base.NowMs() + c.skew
	var due []*skewTimer
	for t := range c.timers {
		if t.at <= now {
			due = append(due, t)
			delete(c.timers, t)
		}
	}
	c.mu.Unlock()
	slices.SortStableFunc(due, func(a, b *skewTimer) int { return int(min(max(a.at-b.at, -1), 1)) })
	for _, t := range due {
		t.base.Stop()
		t.f()
	}
}
