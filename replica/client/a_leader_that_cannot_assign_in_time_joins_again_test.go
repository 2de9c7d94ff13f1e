package client

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A leader that cannot learn a subscribed topic's partitions within the
// rebalance timeout (the controller does not answer) gives up this
// assignment, as Kafka's leader finds its generation gone by then, and
// joins again: the member goes on. It must not end as though it were
// closed (the timeout's cancel was taken for Close's).
func TestALeaderThatCannotAssignInTimeJoinsAgain(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	m, err := c.NewGroupConsumer(GroupConfig{Group: "g", Topics: []string{"t"}, HeartbeatIntervalMs: 1000, SessionTimeoutMs: 10000,
		RebalanceTimeoutMs: 20000})
	if err != nil {
		t.Fatal(err)
	}
	b := fc.brokers[1]
	expect := func(what string) *fakeReq {
		t.Helper()
		r := b.next(t)
		if r.key.String() != what {
			t.Fatalf("request %s, want %s", r.key, what)
		}
		return r
	}
	expect("FindCoordinator").reply(&wire.FindCoordinatorResponse{NodeID: 1})
	join := expect("JoinGroup")
	sub := join.msg.(*wire.JoinGroupRequest).Protocols[0].Metadata
	fc.mu.Lock() // the controller answers no metadata from now on
	unlocked := false
	defer func() {
		if !unlocked {
			fc.mu.Unlock()
		}
	}()
	before := clk.Pending()
	// The other member subscribes to "u", which the leader never saw.
	join.reply(&wire.JoinGroupResponse{Generation: 1, ProtocolType: "consumer", Protocol: "range", Leader: "m-1", MemberID: "m-1",
		Members: []wire.GroupMember{{MemberID: "m-1", Metadata: sub}, {MemberID: "m-2", Metadata: appendSubscription(nil, []string{"u"})}}})
	ended := make(chan error, 1)
	go func() {
		for _, err := range m.Records(t.Context()) {
			if err != nil {
				ended <- err
				return
			}
		}
	}()
	// The leader is waiting for the metadata once it has set its
	// rebalance timer and its metadata request's (the join's is gone).
	guard := time.After(waitGuard)
	for clk.Pending() <= before {
		select {
		case <-guard:
			t.Fatalf("the leader never waited for the metadata: %d timers, %d before", clk.Pending(), before)
		default:
			runtime.Gosched()
		}
	}
	clk.Advance(20000) // the rebalance timeout, before the metadata request's
	fc.mu.Unlock()
	unlocked = true
	for {
		select {
		case r := <-b.reqs:
			if r.key == wire.APILeaveGroup {
				t.Fatal("the member left the group when its assignment timed out: its loop ended, as on Close")
			}
			if r.key != wire.APIJoinGroup {
				t.Fatalf("after the rebalance timeout: %s, want the member to join again", r.key)
			}
			return
		case err := <-ended:
			if errors.Is(err, ErrClosed) {
				t.Fatalf("the member ended with %v when its assignment timed out, though nobody closed it", err)
			}
			t.Fatalf("the member ended: %v", err)
		case <-guard:
			t.Fatalf("no JoinGroup within %s after the rebalance timeout", waitGuard)
		default:
			if clk.NowMs() < 40000 {
				clk.Advance(100) // the rejoin's backoff
			}
			runtime.Gosched()
		}
	}
}
