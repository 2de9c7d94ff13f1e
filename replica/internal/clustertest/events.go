package clustertest

import (
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
)

// WaitLimit bounds every wait of these tests: a condition not met by then
// fails the test. It is a bound, not a pause: waits end as soon as the
// condition holds.
const WaitLimit = 60 * time.Second

// Events is signalled by every host of a test after every event it
// handled; Await looks at its condition again each time.
type Events struct{ ch chan struct{} }

// NewEvents returns Events that no host has signalled yet.
func NewEvents() *Events { return &Events{ch: make(chan struct{}, 1)} }

// Signal is a host's server.Config.OnEvent: it never blocks.
func (e *Events) Signal() {
	select {
	case e.ch <- struct{}{}:
	default:
	}
}

// Await waits until cond holds, looking again after every event of any
// host; it fails t after WaitLimit, saying what it waited for.
func (e *Events) Await(t testing.TB, what string, cond func() bool) {
	t.Helper()
	expired := make(chan struct{})
	limit := wallclock.New().AfterFunc(WaitLimit.Milliseconds(), func() { close(expired) })
	defer limit.Stop()
	for !cond() {
		select {
		case <-e.ch:
		case <-expired:
			t.Fatalf("still waiting, after %v, for %s", WaitLimit, what)
		}
	}
}
