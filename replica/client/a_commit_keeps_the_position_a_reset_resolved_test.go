package client

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A partition the group has no offset for starts where Reset resolves it
// (here the high watermark, 10). A Commit before any record is handed out
// must commit that position, as Kafka's commitSync commits every
// assigned partition's position: a Commit that left it out let the
// partition's next owner resolve "latest" again after a rebalance, and
// skip every record produced in between, which no member ever read.
func TestACommitKeepsThePositionAResetResolved(t *testing.T) {
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
	expect("OffsetFetch").reply(&wire.OffsetFetchResponse{Partitions: []wire.FetchedOffset{{Topic: "t", Partition: 0, LeaderEpoch: wire.NoEpoch}}})
	if got := within(t, "the assignment", assigned); !slices.Equal(got, []TopicPartition{{"t", 0}}) {
		t.Fatalf("assigned %v", got)
	}
	r := expect("ListOffsets")
	if lo := r.msg.(*wire.ListOffsetsRequest); len(lo.Partitions) != 1 || lo.Partitions[0].Timestamp != wire.LatestTimestamp {
		t.Fatalf("list offsets: %+v", lo)
	}
	r.reply(&wire.ListOffsetsResponse{Partitions: []wire.ListOffsetsPartitionResponse{{Topic: "t", Partition: 0, Offset: 10, Found: true, Timestamp: -1}}})
	if f := expect("Fetch").msg.(*wire.FetchRequest); f.Partitions[0].FetchOffset != 10 {
		t.Fatalf("fetch from %d, want 10", f.Partitions[0].FetchOffset)
	}

	committed := make(chan error, 1)
	go func() { committed <- m.Commit(context.Background()) }()
	select {
	case r = <-b.reqs:
	case err := <-committed:
		t.Fatalf("Commit returned %v without committing the position the reset resolved", err)
	case <-time.After(waitGuard):
		t.Fatalf("no OffsetCommit, nor Commit's return, within %s", waitGuard)
	}
	if r.key != wire.APIOffsetCommit {
		t.Fatalf("after Commit: request %s, want OffsetCommit", r.key)
	}
	oc := r.msg.(*wire.OffsetCommitRequest)
	if len(oc.Partitions) != 1 || oc.Partitions[0].Offset != 10 {
		t.Fatalf("commit: %+v, want t-0 at 10", oc.Partitions)
	}
	r.reply(&wire.OffsetCommitResponse{Partitions: []wire.GroupPartitionResult{{Topic: "t", Partition: 0}}})
	if err := within(t, "Commit's return", committed); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	go m.Close()
	expect("LeaveGroup").reply(&wire.LeaveGroupResponse{Members: []wire.LeftMember{{MemberID: "m-1"}}})
}
