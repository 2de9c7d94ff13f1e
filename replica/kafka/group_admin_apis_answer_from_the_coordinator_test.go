package kafka_test

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestGroupAPIsAreAdvertisedFromV0: ApiVersions lists every group API
// from v0 (librdkafka 2.0.2 matches single versions, and without v0 turns
// groups off), up to its documented cap.
func TestGroupAPIsAreAdvertisedFromV0(t *testing.T) {
	c := startCluster(t, 1)
	resp := roundTrip(t, dialRaw(t, c.seeds()[0]), kmsg.NewPtrApiVersionsRequest(), 0).(*kmsg.ApiVersionsResponse)
	got := map[int16][2]int16{}
	for _, k := range resp.ApiKeys {
		got[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
	}
	want := map[int16][2]int16{8: {0, 8}, 9: {0, 8}, 10: {0, 4}, 11: {0, 9}, 12: {0, 4}, 13: {0, 5}, 14: {0, 5},
		15: {0, 5}, 16: {0, 5}, 42: {0, 2}, 47: {0, 0}}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("key %d: advertised %v, want %v", k, got[k], w)
		}
	}
}

// TestDescribeListDeleteAndOffsetDeleteAnswerFromTheCoordinator: with a
// member in it, a group is listed and described Stable with its member,
// and DeleteGroups refuses it NON_EMPTY_GROUP; once the member has left
// it is Empty, OffsetDelete deletes one partition's offset, DeleteGroups
// deletes the group, and OffsetFetch then answers -1 for every partition.
func TestDescribeListDeleteAndOffsetDeleteAnswerFromTheCoordinator(t *testing.T) {
	const topic, groupID = "audit", "auditors"
	c := startCluster(t, 1)
	c.createTopic(topic, 2, 1, 1)
	produceN(t, c, topic, "r", 10)
	admin := kgoClient(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()

	member := kgoClient(t, c, kgo.ConsumerGroup(groupID), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit(), kgo.ClientID("auditor"))
	read := 0
	for read < 10 {
		fs := member.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of 10 records before the wait ended", read)
		}
		read += fs.NumRecords()
	}
	if err := member.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	coord := coordinatorOf(t, c, admin, groupID)
	broker := admin.Broker(int(coord))
	request := func(req kmsg.Request) kmsg.Response {
		t.Helper()
		resp, err := broker.Request(ctx, req)
		if err != nil {
			t.Fatalf("%T: %v", req, err)
		}
		return resp
	}
	describe := func() kmsg.DescribeGroupsResponseGroup {
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Groups = []string{groupID}
		groups := request(req).(*kmsg.DescribeGroupsResponse).Groups
		if len(groups) != 1 || groups[0].ErrorCode != 0 {
			t.Fatalf("DescribeGroups: %+v", groups)
		}
		return groups[0]
	}
	listed := func() map[string]string {
		resp := request(kmsg.NewPtrListGroupsRequest()).(*kmsg.ListGroupsResponse)
		if resp.ErrorCode != 0 {
			t.Fatalf("ListGroups: error %d", resp.ErrorCode)
		}
		out := map[string]string{}
		for _, g := range resp.Groups {
			out[g.Group] = g.GroupState + "/" + g.ProtocolType
		}
		return out
	}
	deleteGroup := func() int16 {
		req := kmsg.NewPtrDeleteGroupsRequest()
		req.Groups = []string{groupID}
		groups := request(req).(*kmsg.DeleteGroupsResponse).Groups
		if len(groups) != 1 || groups[0].Group != groupID {
			t.Fatalf("DeleteGroups: %+v", groups)
		}
		return groups[0].ErrorCode
	}

	if g := describe(); g.State != "Stable" || g.ProtocolType != "consumer" || len(g.Members) != 1 || g.Members[0].ClientID != "auditor" {
		t.Fatalf("with a member: %+v", g)
	}
	if l := listed(); l[groupID] != "Stable/consumer" {
		t.Fatalf("ListGroups with a member: %v", l)
	}
	if code := deleteGroup(); code != 68 { // NON_EMPTY_GROUP
		t.Fatalf("DeleteGroups of a group with a member: error %d, want 68", code)
	}

	member.Close() // leaves the group
	c.await("the group Empty after its member left", func() bool { return describe().State == "Empty" })
	od := kmsg.NewPtrOffsetDeleteRequest()
	odt := kmsg.NewOffsetDeleteRequestTopic()
	odt.Topic = topic
	odt.Partitions = []kmsg.OffsetDeleteRequestTopicPartition{{Partition: 0}}
	od.Group, od.Topics = groupID, []kmsg.OffsetDeleteRequestTopic{odt}
	if resp := request(od).(*kmsg.OffsetDeleteResponse); resp.ErrorCode != 0 || len(resp.Topics) != 1 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("OffsetDelete: %+v", resp)
	}
	fetch := func() map[int32]int64 {
		req := kmsg.NewPtrOffsetFetchRequest()
		rg := kmsg.NewOffsetFetchRequestGroup()
		rt := kmsg.NewOffsetFetchRequestGroupTopic()
		rt.Topic, rt.Partitions = topic, []int32{0, 1}
		rg.Group, rg.Topics = groupID, []kmsg.OffsetFetchRequestGroupTopic{rt}
		req.Groups = []kmsg.OffsetFetchRequestGroup{rg}
		resp := request(req).(*kmsg.OffsetFetchResponse)
		out := map[int32]int64{}
		for _, g := range resp.Groups {
			for _, ft := range g.Topics {
				for _, p := range ft.Partitions {
					out[p.Partition] = p.Offset
				}
			}
		}
		return out
	}
	if offs := fetch(); offs[0] != -1 || offs[1] < 1 {
		t.Fatalf("after OffsetDelete of partition 0: %v, want -1 there and partition 1's commit kept", offs)
	}
	if code := deleteGroup(); code != 0 {
		t.Fatalf("DeleteGroups of the Empty group: error %d", code)
	}
	if offs := fetch(); offs[0] != -1 || offs[1] != -1 {
		t.Fatalf("after DeleteGroups: %v, want -1 everywhere", offs)
	}
	if l := listed(); l[groupID] != "" {
		t.Fatalf("ListGroups after DeleteGroups: %v", l)
	}
	if code := deleteGroup(); code != 69 { // GROUP_ID_NOT_FOUND
		t.Fatalf("DeleteGroups of a deleted group: error %d, want 69", code)
	}
}
