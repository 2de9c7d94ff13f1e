package server_test

import (
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// A broker's group coordinators answer kaenlog's own protocol as they
// answer the Kafka listener: FindCoordinator (creating
// __consumer_offsets), KIP-394's MEMBER_ID_REQUIRED, a generation with
// its leader, the leader's assignment handed back, heartbeats, a commit
// answered once committed and read back, no offset (and no error) for a
// group with none, a leave that ends the member, the admin APIs (list,
// describe, delete an offset, delete the group); and a group request cut
// short is answered INVALID_REQUEST with the connection kept.
func TestABrokerServesTheGroupAPIsOnKaenlogsProtocol(t *testing.T) {
	c := clustertest.Start(t, clustertest.Options{Brokers: 1, Broker: func(cfg *replica.BrokerConfig) {
		cfg.Groups = group.DefaultConfig()
		cfg.Groups.InitialRebalanceDelayMs = 0
		cfg.OffsetsTopicPartitions = 1
	}})
	c.CreateTopic("orders", 1, 1, 1)
	cl := dial(t, c.Broker(1).Host.Addr().String())
	defer cl.close()

	var found *wire.FindCoordinatorResponse
	c.Await("the coordinator of group g", func() bool {
		found = cl.call(&wire.FindCoordinatorRequest{Group: "g"}).(*wire.FindCoordinatorResponse)
		return found.ErrorCode == wire.CodeNone
	})
	if found.NodeID != 1 {
		t.Fatalf("FindCoordinator: %+v", found)
	}
	join := &wire.JoinGroupRequest{Group: "g", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 10000, ProtocolType: "consumer",
		Protocols: []wire.GroupProtocol{{Name: "range", Metadata: []byte("sub")}}, ClientID: "c"}
	var first *wire.JoinGroupResponse
	c.Await("the coordinator to be loaded", func() bool {
		first = cl.call(join).(*wire.JoinGroupResponse)
		return first.ErrorCode != wire.CodeCoordinatorLoadInProgress
	})
	if first.ErrorCode != wire.CodeMemberIDRequired || first.MemberID == "" {
		t.Fatalf("first join: %+v, want MEMBER_ID_REQUIRED with an id", first)
	}
	join.MemberID = first.MemberID
	joined := cl.call(join).(*wire.JoinGroupResponse)
	if joined.ErrorCode != wire.CodeNone || joined.Leader != first.MemberID || joined.Protocol != "range" ||
		len(joined.Members) != 1 || string(joined.Members[0].Metadata) != "sub" {
		t.Fatalf("join with the id: %+v", joined)
	}
	id, gen := joined.MemberID, joined.Generation
	synced := cl.call(&wire.SyncGroupRequest{Group: "g", Generation: gen, MemberID: id,
		Assignments: []wire.GroupAssignment{{MemberID: id, Assignment: []byte("orders-0")}}}).(*wire.SyncGroupResponse)
	if synced.ErrorCode != wire.CodeNone || string(synced.Assignment) != "orders-0" {
		t.Fatalf("sync: %+v", synced)
	}
	if hb := cl.call(&wire.HeartbeatRequest{Group: "g", Generation: gen, MemberID: id}).(*wire.HeartbeatResponse); hb.ErrorCode != wire.CodeNone {
		t.Fatalf("heartbeat: %+v", hb)
	}
	commit := cl.call(&wire.OffsetCommitRequest{Group: "g", Generation: gen, MemberID: id,
		Partitions: []wire.OffsetCommitPartition{{Topic: "orders", Offset: 5, LeaderEpoch: 1, Metadata: "m"}}}).(*wire.OffsetCommitResponse)
	if len(commit.Partitions) != 1 || commit.Partitions[0].ErrorCode != wire.CodeNone {
		t.Fatalf("commit: %+v", commit)
	}
	fetched := cl.call(&wire.OffsetFetchRequest{Group: "g", Partitions: []wire.GroupPartition{{Topic: "orders"}}}).(*wire.OffsetFetchResponse)
	if want := (wire.FetchedOffset{Topic: "orders", Offset: 5, HasOffset: true, LeaderEpoch: 1, Metadata: "m"}); fetched.ErrorCode != wire.CodeNone ||
		len(fetched.Partitions) != 1 || fetched.Partitions[0] != want {
		t.Fatalf("offset fetch: %+v, want %+v", fetched, want)
	}
	none := cl.call(&wire.OffsetFetchRequest{Group: "nobody", Partitions: []wire.GroupPartition{{Topic: "orders"}}}).(*wire.OffsetFetchResponse)
	if none.ErrorCode != wire.CodeNone || len(none.Partitions) != 1 || none.Partitions[0].HasOffset || none.Partitions[0].ErrorCode != wire.CodeNone {
		t.Fatalf("offset fetch of a group with no state: %+v, want no offset and no error", none)
	}
	left := cl.call(&wire.LeaveGroupRequest{Group: "g", Members: []wire.LeavingMember{{MemberID: id}}}).(*wire.LeaveGroupResponse)
	if left.ErrorCode != wire.CodeNone || len(left.Members) != 1 || left.Members[0].ErrorCode != wire.CodeNone {
		t.Fatalf("leave: %+v", left)
	}
	if hb := cl.call(&wire.HeartbeatRequest{Group: "g", Generation: gen, MemberID: id}).(*wire.HeartbeatResponse); hb.ErrorCode != wire.CodeUnknownMemberID {
		t.Fatalf("heartbeat after the leave: %+v, want UNKNOWN_MEMBER_ID", hb)
	}

	// The admin APIs: the Empty group is listed and described, its offset
	// deleted, then the group.
	listed := cl.call(&wire.ListGroupsRequest{States: []string{"empty"}}).(*wire.ListGroupsResponse)
	if want := []wire.ListedGroup{{Group: "g", ProtocolType: "consumer", State: "Empty"}}; listed.ErrorCode != wire.CodeNone || !slices.Equal(listed.Groups, want) {
		t.Fatalf("list groups: %+v, want %+v", listed, want)
	}
	if stable := cl.call(&wire.ListGroupsRequest{States: []string{"Stable"}}).(*wire.ListGroupsResponse); len(stable.Groups) != 0 {
		t.Fatalf("list of the Stable groups: %+v, want none", stable)
	}
	described := cl.call(&wire.DescribeGroupsRequest{Groups: []string{"g"}}).(*wire.DescribeGroupsResponse)
	if len(described.Groups) != 1 || described.Groups[0].State != "Empty" || described.Groups[0].ErrorCode != wire.CodeNone {
		t.Fatalf("describe: %+v", described)
	}
	od := cl.call(&wire.OffsetDeleteRequest{Group: "g", Partitions: []wire.GroupPartition{{Topic: "orders"}}}).(*wire.OffsetDeleteResponse)
	if od.ErrorCode != wire.CodeNone || len(od.Partitions) != 1 || od.Partitions[0].ErrorCode != wire.CodeNone {
		t.Fatalf("offset delete: %+v", od)
	}
	if f := cl.call(&wire.OffsetFetchRequest{Group: "g", Partitions: []wire.GroupPartition{{Topic: "orders"}}}).(*wire.OffsetFetchResponse); f.Partitions[0].HasOffset {
		t.Fatalf("offset fetch after the offset's deletion: %+v", f)
	}
	del := cl.call(&wire.DeleteGroupsRequest{Groups: []string{"g"}}).(*wire.DeleteGroupsResponse)
	if want := []wire.GroupResult{{Group: "g"}}; !slices.Equal(del.Results, want) {
		t.Fatalf("delete groups: %+v, want %+v", del, want)
	}
	if d := cl.call(&wire.DescribeGroupsRequest{Groups: []string{"g"}}).(*wire.DescribeGroupsResponse); d.Groups[0].State != "Dead" {
		t.Fatalf("describe after the deletion: %+v, want Dead", d)
	}

	cut := encode(t, &wire.JoinGroupRequest{CorrelationID: 77, Group: "g"})
	cl.keys[77] = wire.APIJoinGroup
	cl.rawFrame(cut[:len(cut)-3])
	if r := cl.receive().(*wire.JoinGroupResponse); r.Correlation() != 77 || r.ErrorCode != wire.CodeInvalidRequest {
		t.Fatalf("answer to a JoinGroup cut short: %+v", r)
	}
	cl.corr = 100
	if hb := cl.call(&wire.HeartbeatRequest{Group: "g", Generation: gen, MemberID: id}).(*wire.HeartbeatResponse); hb.ErrorCode != wire.CodeUnknownMemberID {
		t.Fatalf("heartbeat after the malformed join: %+v", hb)
	}
}
