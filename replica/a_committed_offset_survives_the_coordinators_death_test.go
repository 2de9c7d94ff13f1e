package replica_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	cg "github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// openGroupCluster opens three in-memory brokers that fetch continuously,
// with a one-partition __consumer_offsets (created on the first
// FindCoordinator), so that the group's coordinator is the leader of that
// partition.
func openGroupCluster(t *testing.T) *replica.Cluster {
	t.Helper()
	c, err := replica.OpenCluster(replica.ClusterConfig{
		Dir: "/groups", Brokers: []int32{1, 2, 3}, StartMs: t0, InMemory: true, Seed: 18,
		Controller: controller.Config{SessionTimeoutMs: 6_000},
		Broker:     replica.BrokerConfig{ContinuousFetch: true, ReplicaFetchWaitMs: 500, OffsetsTopicPartitions: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// groupCall sends body from client to broker and runs the cluster until the
// answer arrives, for at most 10 s of its time.
func groupCall(t *testing.T, c *replica.Cluster, client, broker int32, body any) any {
	t.Helper()
	call := c.SendGroup(client, broker, body)
	var resp any
	if err := c.Await(func() bool { var ok bool; resp, ok = call.Response(); return ok }, 10_000); err != nil {
		t.Fatalf("no answer from broker %d to %T: %v", broker, body, err)
	}
	return resp
}

// coordinator asks any running broker for the coordinator of group, again
// while __consumer_offsets is being created or has no leader, for at most
// 30 s of the cluster's time.
func coordinator(t *testing.T, c *replica.Cluster, groupID string) int32 {
	t.Helper()
	deadline := c.NowMs() + 30_000
	for c.NowMs() < deadline {
		for _, id := range c.BrokerIDs() {
			if c.Broker(id) == nil {
				continue
			}
			fc := groupCall(t, c, 0, id, replica.FindCoordinatorRequest{Groups: []string{groupID}}).(replica.FindCoordinatorResponse).Coordinators[0]
			if fc.Err == nil && c.Broker(fc.NodeID) != nil {
				return fc.NodeID
			}
			break
		}
		c.Advance(100)
	}
	t.Fatalf("no coordinator for group %q within 30 s", groupID)
	return -1
}

// untilServed repeats do while the coordinator answers that it is loading
// or has moved, finding it again each time, for at most 30 s.
func untilServed(t *testing.T, c *replica.Cluster, groupID string, do func(coord int32) error) {
	t.Helper()
	deadline := c.NowMs() + 30_000
	for {
		err := do(coordinator(t, c, groupID))
		if !errors.Is(err, wire.ErrCoordinatorLoadInProgress) && !errors.Is(err, wire.ErrNotCoordinator) && !errors.Is(err, wire.ErrCoordinatorNotAvailable) {
			if err != nil {
				t.Fatal(err)
			}
			return
		}
		if c.NowMs() >= deadline {
			t.Fatalf("group %q not served within 30 s: %v", groupID, err)
		}
		c.Advance(100)
	}
}

// An OffsetCommit is answered once replicated, so the offset it
// acknowledged is what the next coordinator loads: the coordinator's broker
// crashes, the controller elects another leader of __consumer_offsets, and
// OffsetFetch from the new coordinator answers the same offset.
func TestACommittedOffsetSurvivesTheCoordinatorsDeath(t *testing.T) {
	c := openGroupCluster(t)
	commit := func(offset int64) func(int32) error {
		return func(coord int32) error {
			resp := groupCall(t, c, 1, coord, cg.OffsetCommitRequest{Group: "billing", Generation: -1,
				Partitions: []cg.CommitPartition{{Topic: "payments", Partition: 0, Offset: offset, LeaderEpoch: -1}}})
			return resp.(cg.OffsetCommitResponse).Partitions[0].Err
		}
	}
	fetched := func(coord int32, into *int64) error {
		resp := groupCall(t, c, 1, coord, replica.OffsetFetchRequest{Groups: []cg.OffsetFetchRequest{{Group: "billing"}}})
		g := resp.(replica.OffsetFetchResponse).Groups[0]
		if g.Err == nil && len(g.Partitions) == 1 {
			*into = g.Partitions[0].Offset
		}
		return g.Err
	}
	untilServed(t, c, "billing", commit(42))
	old := coordinator(t, c, "billing")
	if err := c.CrashBroker(old, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	var got int64 = -1
	untilServed(t, c, "billing", func(coord int32) error { return fetched(coord, &got) })
	if now := coordinator(t, c, "billing"); now == old || got != 42 {
		t.Fatalf("after coordinator %d crashed, coordinator %d answers offset %d; want another coordinator answering 42", old, now, got)
	}
}

// The in-process cluster serves a group to its clients as a listener would:
// two members join (the first after MEMBER_ID_REQUIRED), the leader's
// SyncGroup hands each its assignment, and a heartbeat and a LeaveGroup are
// answered.
func TestTheClusterServesAGroupToItsClients(t *testing.T) {
	c := openGroupCluster(t)
	coord := coordinator(t, c, "reports")
	join := func(client int32, memberID string) *replica.GroupCall {
		return c.SendGroup(client, coord, cg.JoinGroupRequest{Group: "reports", MemberID: memberID, SessionTimeoutMs: 10_000,
			RebalanceTimeoutMs: 10_000, ProtocolType: "consumer", Protocols: []cg.Protocol{{Name: "range"}}, RequireKnownMemberID: true})
	}
	await := func(call *replica.GroupCall) any {
		t.Helper()
		var resp any
		if err := c.Await(func() bool { var ok bool; resp, ok = call.Response(); return ok }, 30_000); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var first cg.JoinGroupResponse
	untilServed(t, c, "reports", func(int32) error {
		first = await(join(1, "")).(cg.JoinGroupResponse)
		if errors.Is(first.Err, wire.ErrMemberIDRequired) {
			return nil
		}
		return first.Err
	})
	a, b := join(1, first.MemberID), join(2, "")
	bj := await(b).(cg.JoinGroupResponse)
	if !errors.Is(bj.Err, wire.ErrMemberIDRequired) {
		t.Fatalf("member 2's first join: %v, want MEMBER_ID_REQUIRED", bj.Err)
	}
	b = join(2, bj.MemberID)
	aj, bj := await(a).(cg.JoinGroupResponse), await(b).(cg.JoinGroupResponse)
	if aj.Err != nil || bj.Err != nil || aj.Generation != bj.Generation || aj.Leader != aj.MemberID || len(aj.Members) != 2 {
		t.Fatalf("joins: %+v / %+v", aj, bj)
	}
	sync := func(client int32, j cg.JoinGroupResponse, assign []cg.Assignment) *replica.GroupCall {
		return c.SendGroup(client, coord, cg.SyncGroupRequest{Group: "reports", Generation: j.Generation, MemberID: j.MemberID, Assignments: assign})
	}
	bs := sync(2, bj, nil)
	as := sync(1, aj, []cg.Assignment{{MemberID: aj.MemberID, Assignment: []byte("p0")}, {MemberID: bj.MemberID, Assignment: []byte("p1")}})
	if a, b := await(as).(cg.SyncGroupResponse), await(bs).(cg.SyncGroupResponse); a.Err != nil || b.Err != nil || string(a.Assignment) != "p0" || string(b.Assignment) != "p1" {
		t.Fatalf("syncs: %+v / %+v", a, b)
	}
	if hb := await(c.SendGroup(2, coord, cg.HeartbeatRequest{Group: "reports", Generation: bj.Generation, MemberID: bj.MemberID})).(replica.HeartbeatResponse); hb.Err != nil {
		t.Fatalf("heartbeat: %v", hb.Err)
	}
	leave := await(c.SendGroup(2, coord, cg.LeaveGroupRequest{Group: "reports", Members: []cg.LeavingMember{{MemberID: bj.MemberID}}})).(cg.LeaveGroupResponse)
	if leave.Err != nil || len(leave.Members) != 1 || leave.Members[0].Err != nil {
		t.Fatalf("leave: %+v", leave)
	}
}
