package clock_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
)

// TestManualRunsTimersInOrder: timers run at their due time, earliest first
// and, at equal times, in creation order, including timers scheduled by
// other timers while the clock advances.
func TestManualRunsTimersInOrder(t *testing.T) {
	c := clock.NewManual(1000)
	var got []string
	note := func(s string) func() {
		return func() { got = append(got, fmt.Sprintf("%s@%d", s, c.NowMs())) }
	}
	c.AfterFunc(30, note("c"))
	c.AfterFunc(10, note("a"))
	c.AfterFunc(10, note("b"))
	c.AfterFunc(20, func() {
		note("d")()
		c.AfterFunc(5, note("e")) // due at 1025, before c
		c.AfterFunc(0, note("f")) // due now
	})
	stopped := c.AfterFunc(15, note("never"))
	if !stopped.Stop() || stopped.Stop() {
		t.Fatal("Stop should report true once, then false")
	}
	c.Advance(29)
	want := []string{"a@1010", "b@1010", "d@1020", "f@1020", "e@1025"}
	if !slices.Equal(got, want) {
		t.Fatalf("after Advance(29): %v, want %v", got, want)
	}
	if c.NowMs() != 1029 {
		t.Fatalf("NowMs = %d, want 1029", c.NowMs())
	}
	if next, ok := c.NextMs(); !ok || next != 1030 || c.Pending() != 1 {
		t.Fatalf("NextMs = %d, %v with %d pending", next, ok, c.Pending())
	}
	c.AdvanceTo(500) // the past: time does not go back
	if c.NowMs() != 1029 {
		t.Fatalf("AdvanceTo the past moved the clock to %d", c.NowMs())
	}
	c.AdvanceTo(2000)
	if got[len(got)-1] != "c@1030" || c.NowMs() != 2000 {
		t.Fatalf("last %q, now %d", got[len(got)-1], c.NowMs())
	}
}

// ticker is a state machine that wants a tick every period ms.
type ticker struct {
	period int64
	next   int64
	ticks  []int64
}

func (k *ticker) Tick(nowMs int64) {
	if nowMs >= k.next {
		k.ticks = append(k.ticks, nowMs)
		k.next = nowMs + k.period
	}
}

func (k *ticker) NextTickMs() int64 { return k.next }

// TestDriverTicksWhenWorkFallsDue: the Driver runs Tick at NextTickMs, again
// and again, and a Kick brings an earlier deadline forward.
func TestDriverTicksWhenWorkFallsDue(t *testing.T) {
	c := clock.NewManual(0)
	k := &ticker{period: 100, next: 100}
	hooks := 0
	d := clock.NewDriver(c, clock.NoLock{}, k, func() { hooks++ })
	c.Advance(350)
	if !slices.Equal(k.ticks, []int64{100, 200, 300}) || hooks != 3 {
		t.Fatalf("ticks %v hooks %d", k.ticks, hooks)
	}
	k.next = 360 // a parked request with an earlier deadline than 400
	d.Kick()
	c.Advance(100)
	if !slices.Equal(k.ticks, []int64{100, 200, 300, 360}) {
		t.Fatalf("after Kick: ticks %v", k.ticks)
	}
	d.Stop()
	c.Advance(1000)
	if len(k.ticks) != 4 {
		t.Fatalf("ticked after Stop: %v", k.ticks)
	}
}

// TestDriverIdleTicker: a Ticker with nothing due schedules nothing.
func TestDriverIdleTicker(t *testing.T) {
	c := clock.NewManual(0)
	k := &ticker{period: 100, next: clock.Never}
	clock.NewDriver(c, clock.NoLock{}, k, nil)
	if c.Pending() != 0 {
		t.Fatalf("%d timers for an idle ticker", c.Pending())
	}
}
