package clock

import "sync"

// Ticker is a state machine with timed work: Tick does whatever is due at
// nowMs, and NextTickMs says when the next work falls due (Never if none).
type Ticker interface {
	Tick(nowMs int64)
	NextTickMs() int64
}

// Driver calls a Ticker's Tick when its NextTickMs arrives on a Clock. It is
// the one place where timed work meets a timer: the ISR shrink check, the
// broker's heartbeat, the controller's session expiry and every parked
// request's deadline all run because some state machine put them in its
// NextTickMs and a Driver woke it.
//
// The Ticker is guarded by a lock the caller owns (its mutex for a network
// runtime, a no-op lock in a single-threaded simulation): the Driver holds it
// for Tick, for NextTickMs and for the after-tick hook.
type Driver struct {
	clock Clock
	lock  sync.Locker
	t     Ticker
	// ticked runs after each Tick, under lock, so the owner can send what
	// the tick produced. It may be nil.
	ticked func()

	mu      sync.Mutex // guards the fields below
	timer   Timer
	at      int64  // when timer fires; meaningful only while timer != nil
	gen     uint64 // identifies timer, so a superseded one that runs anyway does nothing
	stopped bool
}

// NewDriver returns a Driver for t on c and schedules t's first tick. lock
// guards t; ticked, if not nil, runs under lock after every Tick.
func NewDriver(c Clock, lock sync.Locker, t Ticker, ticked func()) *Driver {
	d := &Driver{clock: c, lock: lock, t: t, ticked: ticked}
	lock.Lock()
	next := t.NextTickMs()
	lock.Unlock()
	d.schedule(next)
	return d
}

// Kick tells the Driver that the Ticker's NextTickMs may have moved earlier
// (a new parked request, a role change). Call it with the Ticker's lock held,
// after the change.
func (d *Driver) Kick() { d.schedule(d.t.NextTickMs()) }

// Stop cancels the pending tick; the Driver schedules nothing afterwards.
func (d *Driver) Stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
}

// schedule makes the pending timer fire at next, unless one already fires
// no later.
func (d *Driver) schedule(next int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped || next == Never {
		return
	}
	if d.timer != nil {
		if d.at <= next {
			return
		}
		d.timer.Stop()
	}
	d.gen++
	gen := d.gen
	d.at = next
	d.timer = d.clock.AfterFunc(next-d.clock.NowMs(), func() { d.fire(gen) })
}

// fire runs the tick that fell due and schedules the next one. A timer that
// was superseded (Stop lost the race with its firing) does nothing.
func (d *Driver) fire(gen uint64) {
	d.mu.Lock()
	if d.stopped || gen != d.gen {
		d.mu.Unlock()
		return
	}
	d.timer = nil
	d.mu.Unlock()

	d.lock.Lock()
	d.t.Tick(d.clock.NowMs())
	if d.ticked != nil {
		d.ticked()
	}
	next := d.t.NextTickMs()
	d.lock.Unlock()
	d.schedule(next)
}

// NoLock is a sync.Locker that does nothing, for a Ticker driven from a
// single goroutine (the simulator, the in-process cluster).
type NoLock struct{}

// Lock does nothing.
func (NoLock) Lock() {}

// Unlock does nothing.
func (NoLock) Unlock() {}
