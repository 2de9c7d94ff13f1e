// Package wallclock is the real clock: a [clock.Clock] on the machine's time
// ([time.Now]) and its timers ([time.AfterFunc]).
//
// kaenlog's library packages never read the wall clock; they are handed a
// clock.Clock. Only the commands under examples/ and tests construct this
// one, and hand it to a [github.com/kaenlog/kaenlog/replica/server.Host],
// which drives its node's timed work with it.
package wallclock

import (
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
)

// Clock reads the machine's clock. The zero value is ready to use, and safe
// for concurrent use.
type Clock struct{}

// New returns the wall clock.
func New() Clock { return Clock{} }

// NowMs returns the milliseconds since the Unix epoch, from time.Now.
func (Clock) NowMs() int64 { return time.Now().UnixMilli() }

// AfterFunc runs f in its own goroutine ms milliseconds from now (at once for
// ms <= 0), on a time.Timer. Because NowMs truncates to whole milliseconds
// and the timer never fires early, NowMs read inside f is at least the
// NowMs of the call plus ms: a clock.Driver is never woken before the tick
// it asked for.
func (Clock) AfterFunc(ms int64, f func()) clock.Timer {
	return time.AfterFunc(time.Duration(max(ms, 0))*time.Millisecond, f)
}

// Clock is a clock.Clock.
var _ clock.Clock = Clock{}
