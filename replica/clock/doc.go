// Package clock is how kaenlog's state machines meet time: an injected
// [Clock] with the current time and one-shot timers, a [Manual] clock that
// tests and the simulator advance by hand, and the [Driver] that calls a
// state machine's Tick when its next timed work falls due.
//
// No library package reads the wall clock. The protocol cores (a replica,
// a broker, the controller) are pure: they are handed nowMs and say, through
// NextTickMs, when they next have something to do — shrink the ISR every
// replica.lag.time.max.ms/2, send a heartbeat, expire a broker's session or
// a parked produce. One Driver per state machine turns that into timers on
// whatever Clock it is given, so the network runtime, a client and the
// simulator run the same code: the runtime hands it a wall clock (only
// commands under examples/ construct one), tests and the simulator a
// Manual clock, on which every timer fires in a deterministic order.
//
// Times are milliseconds since the Unix epoch as int64, as everywhere in
// kaenlog. A deadline is computed with [Deadline], which saturates at
// [Never] instead of wrapping into the past.
package clock
