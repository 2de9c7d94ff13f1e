package client

import (
	"slices"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A member's life against a coordinator the test plays, on a manual
// clock: it finds the coordinator, joins again with the id
// MEMBER_ID_REQUIRED gave it (KIP-394), assigns as the leader with the
// range assignor, heartbeats only once HeartbeatIntervalMs has passed on
// the client's clock, joins again at once on REBALANCE_IN_PROGRESS, reads
// its new partition from the group's committed offset, and leaves on
// Close.
func TestAMemberJoinsHeartbeatsAndRebalancesOnTheClientsClock(t *testing.T) {
	fc := newFakeCluster(t, 1, 2)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	sleeps := make(chan int64, 10)
	c.onSleep = func(ms int64) { sleeps <- ms }
	assigned := make(chan []TopicPartition, 10)
	m, err := c.NewGroupConsumer(GroupConfig{Group: "g", Topics: []string{"t"}, HeartbeatIntervalMs: 1000, SessionTimeoutMs: 10000,
		OnAssigned: func(_ int32, parts []TopicPartition) { assigned <- parts }})
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
	r := expect("JoinGroup")
	if j := r.msg.(*wire.JoinGroupRequest); j.MemberID != "" || j.ProtocolType != "consumer" || len(j.Protocols) != 1 || j.Protocols[0].Name != "range" {
		t.Fatalf("first join: %+v", j)
	}
	r.reply(&wire.JoinGroupResponse{ErrorCode: wire.CodeMemberIDRequired, Generation: -1, MemberID: "m-1"})
	r = expect("JoinGroup")
	j := r.msg.(*wire.JoinGroupRequest)
	if j.MemberID != "m-1" {
		t.Fatalf("second join: member id %q, want the one MEMBER_ID_REQUIRED gave", j.MemberID)
	}
	if topics, err := decodeSubscription(j.Protocols[0].Metadata); err != nil || !slices.Equal(topics, []string{"t"}) {
		t.Fatalf("subscription %v, %v", topics, err)
	}
	r.reply(&wire.JoinGroupResponse{Generation: 1, ProtocolType: "consumer", Protocol: "range", Leader: "m-1", MemberID: "m-1",
		Members: []wire.GroupMember{{MemberID: "m-1", Metadata: j.Protocols[0].Metadata}}})
	r = expect("SyncGroup")
	s := r.msg.(*wire.SyncGroupRequest)
	if len(s.Assignments) != 1 || s.Assignments[0].MemberID != "m-1" || s.Generation != 1 {
		t.Fatalf("the leader's sync: %+v", s)
	}
	if parts, err := decodeAssignment(s.Assignments[0].Assignment); err != nil || !slices.Equal(parts, []TopicPartition{{"t", 0}, {"t", 1}}) {
		t.Fatalf("the leader's assignment: %v, %v", parts, err)
	}
	r.reply(&wire.SyncGroupResponse{ProtocolType: "consumer", Protocol: "range"}) // the test gives it nothing, so nothing is fetched
	if got := within(t, "the first assignment", assigned); len(got) != 0 {
		t.Fatalf("assigned %v", got)
	}

	select {
	case ms := <-sleeps:
		if ms != 1000 {
			t.Fatalf("waits %d ms before its heartbeat, want 1000", ms)
		}
	case <-time.After(waitGuard):
		t.Fatal("no wait for the heartbeat interval")
	}
	b.none(t) // no heartbeat before the interval passed
	clk.Advance(1000)
	r = expect("Heartbeat")
	if h := r.msg.(*wire.HeartbeatRequest); h.Generation != 1 || h.MemberID != "m-1" {
		t.Fatalf("heartbeat: %+v", h)
	}
	r.reply(&wire.HeartbeatResponse{ErrorCode: wire.CodeRebalanceInProgress})

	r = expect("JoinGroup")
	if j := r.msg.(*wire.JoinGroupRequest); j.MemberID != "m-1" {
		t.Fatalf("join after REBALANCE_IN_PROGRESS: %+v", j)
	}
	r.reply(&wire.JoinGroupResponse{Generation: 2, ProtocolType: "consumer", Protocol: "range", Leader: "m-0", MemberID: "m-1"})
	r = expect("SyncGroup")
	if s := r.msg.(*wire.SyncGroupRequest); s.Generation != 2 || len(s.Assignments) != 0 {
		t.Fatalf("a follower's sync: %+v", s)
	}
	r.reply(&wire.SyncGroupResponse{Assignment: appendAssignment(nil, map[string][]int32{"t": {1}})})
	r = expect("OffsetFetch")
	if f := r.msg.(*wire.OffsetFetchRequest); !slices.Equal(f.Partitions, []wire.GroupPartition{{Topic: "t", Partition: 1}}) {
		t.Fatalf("offset fetch: %+v", f)
	}
	r.reply(&wire.OffsetFetchResponse{Partitions: []wire.FetchedOffset{{Topic: "t", Partition: 1, Offset: 3, HasOffset: true, LeaderEpoch: wire.NoEpoch}}})
	if got := within(t, "the second assignment", assigned); !slices.Equal(got, []TopicPartition{{"t", 1}}) {
		t.Fatalf("assigned %v", got)
	}
	// The heartbeat's next wait and the partition's fetch, from the
	// committed offset, in either order.
	within(t, "the wait for the next heartbeat", sleeps)
	r = expect("Fetch")
	if f := r.msg.(*wire.FetchRequest); len(f.Partitions) != 1 || f.Partitions[0].Partition != 1 || f.Partitions[0].FetchOffset != 3 {
		t.Fatalf("fetch: %+v", f)
	}

	closed := make(chan error, 1)
	go func() { closed <- m.Close() }()
	r = expect("LeaveGroup")
	if l := r.msg.(*wire.LeaveGroupRequest); l.Group != "g" || !slices.Equal(l.Members, []wire.LeavingMember{{MemberID: "m-1"}}) {
		t.Fatalf("leave: %+v", l)
	}
	r.reply(&wire.LeaveGroupResponse{Members: []wire.LeftMember{{MemberID: "m-1"}}})
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(waitGuard):
		t.Fatal("Close did not return after the leave was answered")
	}
}

// within receives from ch, failing the test after waitGuard with what it
// waited for.
func within[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitGuard):
		t.Fatalf("no %s within %s", what, waitGuard)
		panic("unreachable")
	}
}
