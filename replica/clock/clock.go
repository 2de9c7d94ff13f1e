package clock

import (
	"fmt"
	"math"
	"sync"
)

// Clock tells the time and runs functions later.
type Clock interface {
	// NowMs returns the current time in milliseconds since the Unix epoch.
	NowMs() int64
	// AfterFunc arranges for f to run once, ms milliseconds from now (at
	// once for ms <= 0), and returns a Timer that can cancel it. A wall
	// clock runs f in its own goroutine; a Manual clock runs it inside
	// Advance.
	AfterFunc(ms int64, f func()) Timer
}

// Timer is a pending AfterFunc.
type Timer interface {
	// Stop cancels the call. It reports true if the call was pending, and
	// false if it has already run or was stopped before.
	Stop() bool
}

// Never is the NextTickMs of a state machine with no timed work pending.
const Never int64 = math.MaxInt64

// Deadline returns the time ms (>= 0) milliseconds after nowMs, or Never
// when that is past the range of int64: a deadline far in the future (a
// huge timeout or backoff) must not wrap around into the past and fire at
// once. It is the one saturating time addition of replica and its
// sub-packages.
func Deadline(nowMs, ms int64) int64 {
	if nowMs > Never-ms {
		return Never
	}
	return nowMs + ms
}

// Manual is a Clock that moves only when told. Timers run inside Advance and
// AdvanceTo, one at a time, in order of their due time and, for equal times,
// of their creation, with NowMs set to their due time: the same calls give
// the same order every run. It is safe for concurrent use; timer functions
// run without Manual's lock held, so they may use the clock.
type Manual struct {
	mu     sync.Mutex
	now    int64
	seq    uint64
	timers []*manualTimer // unsorted; few at a time
}

// NewManual returns a Manual clock reading startMs.
func NewManual(startMs int64) *Manual { return &Manual{now: startMs} }

type manualTimer struct {
	m   *Manual
	at  int64
	seq uint64
	f   func()
}

// NowMs returns the clock's current time.
func (m *Manual) NowMs() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// AfterFunc schedules f at NowMs()+ms (NowMs() for ms <= 0).
func (m *Manual) AfterFunc(ms int64, f func()) Timer {
	m.mu.Lock()
	defer m.mu.Unlock()
	at := m.now
	if ms > 0 {
		at = Deadline(m.now, ms)
	}
	m.seq++
	t := &manualTimer{m: m, at: at, seq: m.seq, f: f}
	m.timers = append(m.timers, t)
	return t
}

// Stop cancels the timer if it has not run.
func (t *manualTimer) Stop() bool {
	m := t.m
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, x := range m.timers {
		if x == t {
			m.timers = append(m.timers[:i], m.timers[i+1:]...)
			return true
		}
	}
	return false
}

// Advance moves the clock forward by ms (nothing for ms <= 0), running every
// timer that falls due on the way, including timers those timers schedule.
func (m *Manual) Advance(ms int64) {
	m.mu.Lock()
	target := m.now
	if ms > 0 {
		target = Deadline(m.now, ms)
	}
	m.mu.Unlock()
	m.AdvanceTo(target)
}

// AdvanceTo moves the clock to atMs, running every timer due at or before it
// in order. Time never goes backwards: an atMs in the past only runs the
// timers already due.
//
// A state machine that keeps asking to be ticked at the instant it was just
// ticked would make this loop forever; after MaxTimersPerInstant timers at
// one instant AdvanceTo panics instead, naming the livelock.
func (m *Manual) AdvanceTo(atMs int64) {
	sameInstant, instant := 0, int64(-1)
	for {
		m.mu.Lock()
		target := max(atMs, m.now)
		i := m.earliest()
		if i < 0 || m.timers[i].at > target {
			m.now = target
			m.mu.Unlock()
			return
		}
		t := m.timers[i]
		m.timers = append(m.timers[:i], m.timers[i+1:]...)
		m.now = max(m.now, t.at)
		if m.now != instant {
			sameInstant, instant = 0, m.now
		}
		sameInstant++
		m.mu.Unlock()
		if sameInstant > MaxTimersPerInstant {
			panic(fmt.Sprintf("clock: more than %d timers ran at %d ms: something keeps asking to run now (a Ticker whose NextTickMs stays in the past?)", MaxTimersPerInstant, instant))
		}
		t.f()
	}
}

// MaxTimersPerInstant bounds how many timers a Manual clock runs at one
// instant before it declares a livelock.
const MaxTimersPerInstant = 1_000_000

// NextMs returns the due time of the earliest pending timer.
func (m *Manual) NextMs() (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i := m.earliest(); i >= 0 {
		return m.timers[i].at, true
	}
	return 0, false
}

// Pending returns how many timers are waiting.
func (m *Manual) Pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.timers)
}

// earliest returns the index of the timer to run next, or -1. Callers hold mu.
func (m *Manual) earliest() int {
	best := -1
	for i, t := range m.timers {
		if best < 0 || t.at < m.timers[best].at || (t.at == m.timers[best].at && t.seq < m.timers[best].seq) {
			best = i
		}
	}
	return best
}
