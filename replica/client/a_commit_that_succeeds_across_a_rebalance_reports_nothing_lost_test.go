package client

import (
	"context"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A Commit sent before a rebalance and acknowledged after it started
// (Kafka's coordinator accepts the current generation's commits while
// PreparingRebalance) committed every record handed out: the next Commit
// must not say that a rebalance took records before they were
// committed, which tells the user to expect them again.
func TestACommitThatSucceedsAcrossARebalanceReportsNothingLost(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	sleeps := make(chan int64, 100)
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
		for {
			r := b.next(t)
			if r.key == wire.APIFetch && what != "Fetch" {
				continue // the partition's next fetch, left unanswered
			}
			if r.key.String() != what {
				t.Fatalf("request %s, want %s", r.key, what)
			}
			return r
		}
	}
	expect("FindCoordinator").reply(&wire.FindCoordinatorResponse{NodeID: 1})
	expect("JoinGroup").reply(&wire.JoinGroupResponse{Generation: 1, ProtocolType: "consumer", Protocol: "range", Leader: "m-0", MemberID: "m-1"})
	expect("SyncGroup").reply(&wire.SyncGroupResponse{Assignment: appendAssignment(nil, map[string][]int32{"t": {0}})})
	expect("OffsetFetch").reply(&wire.OffsetFetchResponse{Partitions: []wire.FetchedOffset{{Topic: "t", Partition: 0, Offset: 3, HasOffset: true, LeaderEpoch: wire.NoEpoch}}})
	if got := within(t, "the assignment", assigned); !slices.Equal(got, []TopicPartition{{"t", 0}}) {
		t.Fatalf("assigned %v", got)
	}
	expect("Fetch").reply(&wire.FetchResponse{Partitions: []wire.FetchPartitionResponse{{Topic: "t", Partition: 0, HighWatermark: 4,
		Records: encodeBatch(t, 3, 0, "a")}}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan Record, 1)
	go func() {
		for rec, err := range m.Records(ctx) {
			if err == nil {
				got <- rec
			}
			return
		}
	}()
	if rec := within(t, "the record at 3", got); rec.Offset != 3 {
		t.Fatalf("record %+v", rec)
	}

	committed := make(chan error, 1)
	go func() { committed <- m.Commit(context.Background()) }()
	commit := expect("OffsetCommit") // held while the rebalance starts
	if oc := commit.msg.(*wire.OffsetCommitRequest); len(oc.Partitions) != 1 || oc.Partitions[0].Offset != 4 || oc.Generation != 1 {
		t.Fatalf("commit: %+v", oc)
	}
	for within(t, "the wait for the heartbeat", sleeps) != 1000 { // the backoffs of other waits
		continue
	}
	clk.Advance(1000)
	expect("Heartbeat").reply(&wire.HeartbeatResponse{ErrorCode: wire.CodeRebalanceInProgress})
	join := expect("JoinGroup") // the member revoked t-0 and joins again
	commit.reply(&wire.OffsetCommitResponse{Partitions: []wire.GroupPartitionResult{{Topic: "t", Partition: 0}}})
	if err := within(t, "the first Commit's return", committed); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if err := m.Commit(context.Background()); err != nil {
		t.Fatalf("the next Commit: %v, though the commit of every record handed out succeeded", err)
	}
	join.reply(&wire.JoinGroupResponse{ErrorCode: wire.CodeRebalanceInProgress})
	go m.Close()
	for {
		if r := b.next(t); r.key == wire.APILeaveGroup {
			r.reply(&wire.LeaveGroupResponse{Members: []wire.LeftMember{{MemberID: "m-1"}}})
			return
		}
	}
}
