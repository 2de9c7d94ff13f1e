package client

import (
	"context"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A commit's answer that leaves out a partition the commit named says
// nothing of that partition's offset: kaenlog's server answers an
// OffsetCommit it could not decode (an unsupported version, a field it
// refuses) with no partitions at all, since the message has no top-level
// error code. Commit must not take that for a success: its doc promises
// the offsets are in __consumer_offsets' committed log.
func TestACommitSucceedsOnlyForEveryPartitionTheCoordinatorAnswered(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
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
				continue // the partition's fetch, left unanswered
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

	committed := make(chan error, 1)
	go func() { committed <- m.Commit(context.Background()) }()
	r := expect("OffsetCommit")
	if oc := r.msg.(*wire.OffsetCommitRequest); len(oc.Partitions) != 1 || oc.Partitions[0].Offset != 3 {
		t.Fatalf("commit: %+v", oc)
	}
	r.reply(&wire.OffsetCommitResponse{}) // what the server answers a commit it could not read
	err = within(t, "Commit's return", committed)
	if err == nil {
		t.Fatal("Commit returned nil for an answer that names none of its partitions")
	}
	if wire.IsRetriable(err) {
		t.Fatalf("Commit: %v, a retriable error for an answer a retry gets again", err)
	}
	go m.Close()
	expect("LeaveGroup").reply(&wire.LeaveGroupResponse{Members: []wire.LeftMember{{MemberID: "m-1"}}})
}
