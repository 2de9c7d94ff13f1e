package replica_test

import (
	"fmt"
	"testing"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// ineligible is a controller's metadata in which one broker may not join an
// ISR (fenced or shutting down).
type ineligible int32

func (b ineligible) BrokerEpoch(int32) (int64, bool) { return 1, true }
func (b ineligible) ISREligible(id int32) bool       { return id != int32(b) }

// advanceHWOver is isr.AdvanceHW over what the leader's exported ISR state
// shows at nowMs, with ReplicaLEO.CaughtUp as State.ProposeHW documents it:
// observed, caught up within the lag, and eligible. chapter leaves CaughtUp
// unset: the chapter's rule, under which only the maximal ISR holds back.
func advanceHWOver(st *isr.State, leaderLEO uint64, nowMs int64, eligible func(int32) bool, chapter bool) (uint64, bool) {
	if st.UnderMinISR() {
		return 0, false
	}
	var followers []isr.ReplicaLEO
	for _, id := range st.Replicas() {
		if id == st.LeaderID() {
			continue
		}
		leo, observed := st.FollowerLEO(id) // an unobserved follower counts as 0
		at, caughtUp := st.LastCaughtUpMs(id)
		f := isr.ReplicaLEO{ID: id, LEO: leo}
		f.CaughtUp = !chapter && observed && caughtUp && at >= nowMs-st.LagMaxMs() && eligible(id)
		followers = append(followers, f)
	}
	return isr.AdvanceHW(leaderLEO, followers, st.Maximal(), st.EffectiveMinISR())
}

// The leader's high watermark is what isr.AdvanceHW proposes, the caught-up
// follower outside the ISR included, whenever that is forward: the replica
// runs the exported rule, not a copy of it. The run is a busy leader whose
// follower, outside the ISR, fetches once per produce, then stops; the
// check fails if the leader used the chapter's rule alone (the follower
// outside the ISR would not hold it back) or skipped the eligibility or
// the time window.
func TestTheLeadersHighWatermarkIsIsrAdvanceHW(t *testing.T) {
	for _, tc := range []struct {
		name     string
		brokers  replica.Brokers
		eligible func(int32) bool
	}{
		{"every broker eligible", nil, func(int32) bool { return true }},
		{"the follower's broker ineligible", ineligible(2), func(id int32) bool { return id != 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGroup(t, replica.Options{LagMaxMs: 10_000, Brokers: tc.brokers}, 1, 2)
			g.elect(1, 1) // 2 is outside the ISR; no AlterPartition is ever answered
			leader := g.r[1]
			differs := 0
			// step runs do and checks the high watermark it leaves against
			// isr.AdvanceHW over the state it leaves.
			step := func(name string, do func()) {
				t.Helper()
				before := leader.HighWatermark()
				do()
				st := leader.ISRState()
				want := before
				if p, ok := advanceHWOver(st, leader.LEO(), g.now, tc.eligible, false); ok {
					want = max(before, p)
				}
				if got := leader.HighWatermark(); got != want {
					t.Fatalf("%s: leader HW %d, isr.AdvanceHW gives %d (LEO %d, maximal ISR %v)", name, got, want, leader.LEO(), st.Maximal())
				}
				if p, ok := advanceHWOver(st, leader.LEO(), g.now, tc.eligible, true); ok && max(before, p) != want {
					differs++
				}
			}
			produce := func(value string) func() {
				return func() {
					if _, _, err := g.produce(wire.AcksLeader, value); err != nil {
						t.Fatal(err)
					}
				}
			}
			for i := range 6 {
				g.now += 100
				step(fmt.Sprint("produce ", i), produce(fmt.Sprint(i)))
				step(fmt.Sprint("fetch ", i), func() { g.fetch(2) })
			}
			// 2 stops fetching: once a lag window has passed it no longer holds
			// the high watermark back, unless it is in the maximal ISR; time
			// alone (Tick) may move the high watermark.
			for i := range 3 {
				g.now += 6_000
				step(fmt.Sprint("tick ", i), func() { leader.Tick(g.now) })
				step(fmt.Sprint("late produce ", i), produce(fmt.Sprint("late ", i)))
			}
			if tc.brokers == nil && differs == 0 {
				t.Fatal("no step where the caught-up follower outside the ISR mattered: the run cannot tell the two rules apart")
			}
		})
	}
}
