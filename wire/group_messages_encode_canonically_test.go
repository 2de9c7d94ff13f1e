package wire

import (
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func genGroupBytes(r *rand.Rand) []byte {
	if r.IntN(3) == 0 {
		return nil // empty decodes as nil
	}
	return []byte(genString(r) + "x")
}

func genFindCoordinatorRequest(r *rand.Rand) FindCoordinatorRequest {
	return FindCoordinatorRequest{CorrelationID: int32(r.Uint32()), Group: genString(r)}
}

func genFindCoordinatorResponse(r *rand.Rand) FindCoordinatorResponse {
	return FindCoordinatorResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r), NodeID: int32(r.IntN(5)) - 1}
}

func genJoinGroupRequest(r *rand.Rand) JoinGroupRequest {
	m := JoinGroupRequest{CorrelationID: int32(r.Uint32()), Group: genString(r), SessionTimeoutMs: int32(r.IntN(1 << 20)),
		RebalanceTimeoutMs: int32(r.IntN(1 << 20)), MemberID: genString(r), GroupInstanceID: genString(r),
		ProtocolType: genString(r), ClientID: genString(r)}
	for range r.IntN(3) {
		m.Protocols = append(m.Protocols, GroupProtocol{Name: genString(r), Metadata: genGroupBytes(r)})
	}
	return m
}

func genJoinGroupResponse(r *rand.Rand) JoinGroupResponse {
	m := JoinGroupResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r), Generation: int32(r.Uint32()),
		ProtocolType: genString(r), Protocol: genString(r), Leader: genString(r), SkipAssignment: r.IntN(2) == 0, MemberID: genString(r)}
	for range r.IntN(3) {
		m.Members = append(m.Members, GroupMember{MemberID: genString(r), GroupInstanceID: genString(r), Metadata: genGroupBytes(r)})
	}
	return m
}

func genSyncGroupRequest(r *rand.Rand) SyncGroupRequest {
	m := SyncGroupRequest{CorrelationID: int32(r.Uint32()), Group: genString(r), Generation: int32(r.Uint32()), MemberID: genString(r),
		GroupInstanceID: genString(r), ProtocolType: genString(r), Protocol: genString(r)}
	for range r.IntN(3) {
		m.Assignments = append(m.Assignments, GroupAssignment{MemberID: genString(r), Assignment: genGroupBytes(r)})
	}
	return m
}

func genSyncGroupResponse(r *rand.Rand) SyncGroupResponse {
	return SyncGroupResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r), ProtocolType: genString(r), Protocol: genString(r),
		Assignment: genGroupBytes(r)}
}

func genHeartbeatRequest(r *rand.Rand) HeartbeatRequest {
	return HeartbeatRequest{CorrelationID: int32(r.Uint32()), Group: genString(r), Generation: int32(r.Uint32()), MemberID: genString(r),
		GroupInstanceID: genString(r)}
}

func genHeartbeatResponse(r *rand.Rand) HeartbeatResponse {
	return HeartbeatResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r)}
}

func genLeaveGroupRequest(r *rand.Rand) LeaveGroupRequest {
	m := LeaveGroupRequest{CorrelationID: int32(r.Uint32()), Group: genString(r)}
	for range r.IntN(3) {
		m.Members = append(m.Members, LeavingMember{MemberID: genString(r), GroupInstanceID: genString(r)})
	}
	return m
}

func genLeaveGroupResponse(r *rand.Rand) LeaveGroupResponse {
	m := LeaveGroupResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r)}
	for range r.IntN(3) {
		m.Members = append(m.Members, LeftMember{MemberID: genString(r), GroupInstanceID: genString(r), ErrorCode: genCode(r)})
	}
	return m
}

func genOffsetCommitRequest(r *rand.Rand) OffsetCommitRequest {
	m := OffsetCommitRequest{CorrelationID: int32(r.Uint32()), Group: genString(r), Generation: int32(r.Uint32()), MemberID: genString(r),
		GroupInstanceID: genString(r)}
	for range genCount(r) {
		m.Partitions = append(m.Partitions, OffsetCommitPartition{Topic: genTopic(r), Partition: genPartition(r), Offset: genOffset(r),
			LeaderEpoch: genEpoch(r), Metadata: genString(r)})
	}
	return m
}

func genOffsetCommitResponse(r *rand.Rand) OffsetCommitResponse {
	m := OffsetCommitResponse{CorrelationID: int32(r.Uint32())}
	for range genCount(r) {
		m.Partitions = append(m.Partitions, GroupPartitionResult{Topic: genTopic(r), Partition: genPartition(r), ErrorCode: genCode(r)})
	}
	return m
}

func genOffsetFetchRequest(r *rand.Rand) OffsetFetchRequest {
	m := OffsetFetchRequest{CorrelationID: int32(r.Uint32()), Group: genString(r)}
	if r.IntN(3) == 0 {
		return m // nil: every offset the group has
	}
	m.Partitions = []GroupPartition{}
	for range genCount(r) {
		m.Partitions = append(m.Partitions, GroupPartition{Topic: genTopic(r), Partition: genPartition(r)})
	}
	return m
}

func genOffsetFetchResponse(r *rand.Rand) OffsetFetchResponse {
	m := OffsetFetchResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r)}
	for range genCount(r) {
		p := FetchedOffset{Topic: genTopic(r), Partition: genPartition(r), LeaderEpoch: genEpoch(r), Metadata: genString(r), ErrorCode: genCode(r)}
		if p.HasOffset = r.IntN(3) != 0; p.HasOffset {
			p.Offset = genOffset(r)
		}
		m.Partitions = append(m.Partitions, p)
	}
	return m
}

func genListGroupsRequest(r *rand.Rand) ListGroupsRequest {
	m := ListGroupsRequest{CorrelationID: int32(r.Uint32())}
	for range r.IntN(3) {
		m.States = append(m.States, genString(r))
	}
	return m
}

func genListGroupsResponse(r *rand.Rand) ListGroupsResponse {
	m := ListGroupsResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r)}
	for range r.IntN(3) {
		m.Groups = append(m.Groups, ListedGroup{Group: genString(r), ProtocolType: genString(r), State: genString(r)})
	}
	return m
}

func genDescribeGroupsRequest(r *rand.Rand) DescribeGroupsRequest {
	m := DescribeGroupsRequest{CorrelationID: int32(r.Uint32())}
	for range r.IntN(3) {
		m.Groups = append(m.Groups, genString(r))
	}
	return m
}

func genDescribeGroupsResponse(r *rand.Rand) DescribeGroupsResponse {
	m := DescribeGroupsResponse{CorrelationID: int32(r.Uint32())}
	for range r.IntN(3) {
		g := DescribedGroup{Group: genString(r), ErrorCode: genCode(r), State: genString(r), ProtocolType: genString(r), Protocol: genString(r)}
		for range r.IntN(3) {
			g.Members = append(g.Members, DescribedMember{MemberID: genString(r), GroupInstanceID: genString(r), ClientID: genString(r),
				ClientHost: genString(r), Metadata: genGroupBytes(r), Assignment: genGroupBytes(r)})
		}
		m.Groups = append(m.Groups, g)
	}
	return m
}

func genDeleteGroupsRequest(r *rand.Rand) DeleteGroupsRequest {
	m := DeleteGroupsRequest{CorrelationID: int32(r.Uint32())}
	for range r.IntN(3) {
		m.Groups = append(m.Groups, genString(r))
	}
	return m
}

func genDeleteGroupsResponse(r *rand.Rand) DeleteGroupsResponse {
	m := DeleteGroupsResponse{CorrelationID: int32(r.Uint32())}
	for range r.IntN(3) {
		m.Results = append(m.Results, GroupResult{Group: genString(r), ErrorCode: genCode(r)})
	}
	return m
}

func genOffsetDeleteRequest(r *rand.Rand) OffsetDeleteRequest {
	m := OffsetDeleteRequest{CorrelationID: int32(r.Uint32()), Group: genString(r)}
	for range genCount(r) {
		m.Partitions = append(m.Partitions, GroupPartition{Topic: genTopic(r), Partition: genPartition(r)})
	}
	return m
}

func genOffsetDeleteResponse(r *rand.Rand) OffsetDeleteResponse {
	m := OffsetDeleteResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r)}
	for range genCount(r) {
		m.Partitions = append(m.Partitions, GroupPartitionResult{Topic: genTopic(r), Partition: genPartition(r), ErrorCode: genCode(r)})
	}
	return m
}

// groupMessages is the group APIs' twin of controllerMessages.
func groupMessages() []controllerMessage {
	var out []controllerMessage
	add := func(name string, gen func(*rand.Rand) encodable, decode func([]byte) (encodable, error)) {
		out = append(out, controllerMessage{name, gen, decode})
	}
	g, d := erase(genFindCoordinatorRequest, DecodeFindCoordinatorRequest)
	add("FindCoordinatorRequest", g, d)
	g, d = erase(genFindCoordinatorResponse, DecodeFindCoordinatorResponse)
	add("FindCoordinatorResponse", g, d)
	g, d = erase(genJoinGroupRequest, DecodeJoinGroupRequest)
	add("JoinGroupRequest", g, d)
	g, d = erase(genJoinGroupResponse, DecodeJoinGroupResponse)
	add("JoinGroupResponse", g, d)
	g, d = erase(genSyncGroupRequest, DecodeSyncGroupRequest)
	add("SyncGroupRequest", g, d)
	g, d = erase(genSyncGroupResponse, DecodeSyncGroupResponse)
	add("SyncGroupResponse", g, d)
	g, d = erase(genHeartbeatRequest, DecodeHeartbeatRequest)
	add("HeartbeatRequest", g, d)
	g, d = erase(genHeartbeatResponse, DecodeHeartbeatResponse)
	add("HeartbeatResponse", g, d)
	g, d = erase(genLeaveGroupRequest, DecodeLeaveGroupRequest)
	add("LeaveGroupRequest", g, d)
	g, d = erase(genLeaveGroupResponse, DecodeLeaveGroupResponse)
	add("LeaveGroupResponse", g, d)
	g, d = erase(genOffsetCommitRequest, DecodeOffsetCommitRequest)
	add("OffsetCommitRequest", g, d)
	g, d = erase(genOffsetCommitResponse, DecodeOffsetCommitResponse)
	add("OffsetCommitResponse", g, d)
	g, d = erase(genOffsetFetchRequest, DecodeOffsetFetchRequest)
	add("OffsetFetchRequest", g, d)
	g, d = erase(genOffsetFetchResponse, DecodeOffsetFetchResponse)
	add("OffsetFetchResponse", g, d)
	g, d = erase(genDescribeGroupsRequest, DecodeDescribeGroupsRequest)
	add("DescribeGroupsRequest", g, d)
	g, d = erase(genDescribeGroupsResponse, DecodeDescribeGroupsResponse)
	add("DescribeGroupsResponse", g, d)
	g, d = erase(genListGroupsRequest, DecodeListGroupsRequest)
	add("ListGroupsRequest", g, d)
	g, d = erase(genListGroupsResponse, DecodeListGroupsResponse)
	add("ListGroupsResponse", g, d)
	g, d = erase(genDeleteGroupsRequest, DecodeDeleteGroupsRequest)
	add("DeleteGroupsRequest", g, d)
	g, d = erase(genDeleteGroupsResponse, DecodeDeleteGroupsResponse)
	add("DeleteGroupsResponse", g, d)
	g, d = erase(genOffsetDeleteRequest, DecodeOffsetDeleteRequest)
	add("OffsetDeleteRequest", g, d)
	g, d = erase(genOffsetDeleteResponse, DecodeOffsetDeleteResponse)
	add("OffsetDeleteResponse", g, d)
	return out
}

// groupGolden is one message of each group kind, pinned byte for byte.
var groupGolden = []struct {
	name string
	m    encodable
}{
	{"find_coordinator_request", FindCoordinatorRequest{CorrelationID: 1, Group: "billing"}},
	{"find_coordinator_response", FindCoordinatorResponse{CorrelationID: 1, NodeID: 2}},
	{"join_group_request", JoinGroupRequest{CorrelationID: 2, Group: "billing", SessionTimeoutMs: 45000, RebalanceTimeoutMs: 300000,
		MemberID: "c-1", GroupInstanceID: "host-a", ProtocolType: "consumer",
		Protocols: []GroupProtocol{{Name: "range", Metadata: []byte{0, 0, 0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', 0xff, 0xff, 0xff, 0xff}}},
		ClientID:  "c"}},
	{"join_group_response", JoinGroupResponse{CorrelationID: 2, Generation: 3, ProtocolType: "consumer", Protocol: "range", Leader: "c-1",
		MemberID: "c-1", Members: []GroupMember{{MemberID: "c-1", GroupInstanceID: "host-a", Metadata: []byte("sub")}, {MemberID: "c-2"}}}},
	{"join_group_response_member_id_required", JoinGroupResponse{CorrelationID: 3, ErrorCode: CodeMemberIDRequired, Generation: -1, MemberID: "c-3"}},
	{"sync_group_request", SyncGroupRequest{CorrelationID: 4, Group: "billing", Generation: 3, MemberID: "c-1", ProtocolType: "consumer",
		Protocol: "range", Assignments: []GroupAssignment{{MemberID: "c-1", Assignment: []byte("a")}, {MemberID: "c-2", Assignment: []byte("b")}}}},
	{"sync_group_response", SyncGroupResponse{CorrelationID: 4, ProtocolType: "consumer", Protocol: "range", Assignment: []byte("a")}},
	{"heartbeat_request", HeartbeatRequest{CorrelationID: 5, Group: "billing", Generation: 3, MemberID: "c-1"}},
	{"heartbeat_response", HeartbeatResponse{CorrelationID: 5, ErrorCode: CodeRebalanceInProgress}},
	{"leave_group_request", LeaveGroupRequest{CorrelationID: 6, Group: "billing", Members: []LeavingMember{{MemberID: "c-1"}, {GroupInstanceID: "host-b"}}}},
	{"leave_group_response", LeaveGroupResponse{CorrelationID: 6, Members: []LeftMember{{MemberID: "c-1"}, {GroupInstanceID: "host-b", ErrorCode: CodeUnknownMemberID}}}},
	{"offset_commit_request", OffsetCommitRequest{CorrelationID: 7, Group: "billing", Generation: 3, MemberID: "c-1",
		Partitions: []OffsetCommitPartition{{Topic: "orders", Partition: 0, Offset: 42, LeaderEpoch: 2, Metadata: "m"}, {Topic: "orders", Partition: 1, Offset: 0, LeaderEpoch: NoEpoch}}}},
	{"offset_commit_response", OffsetCommitResponse{CorrelationID: 7, Partitions: []GroupPartitionResult{{Topic: "orders"}, {Topic: "orders", Partition: 1, ErrorCode: CodeIllegalGeneration}}}},
	{"offset_fetch_request", OffsetFetchRequest{CorrelationID: 8, Group: "billing", Partitions: []GroupPartition{{Topic: "orders"}, {Topic: "orders", Partition: 1}}}},
	{"offset_fetch_request_all", OffsetFetchRequest{CorrelationID: 9, Group: "billing"}},
	{"offset_fetch_response", OffsetFetchResponse{CorrelationID: 8, Partitions: []FetchedOffset{
		{Topic: "orders", Offset: 42, HasOffset: true, LeaderEpoch: 2, Metadata: "m"}, {Topic: "orders", Partition: 1, LeaderEpoch: NoEpoch}}}}, {"list_groups_request", ListGroupsRequest{CorrelationID: 10, States: []string{"Stable", "Empty"}}},
	{"list_groups_response", ListGroupsResponse{CorrelationID: 10, Groups: []ListedGroup{{Group: "billing", ProtocolType: "consumer", State: "Stable"}}}},
	{"describe_groups_request", DescribeGroupsRequest{CorrelationID: 11, Groups: []string{"billing", "none"}}},
	{"describe_groups_response", DescribeGroupsResponse{CorrelationID: 11, Groups: []DescribedGroup{
		{Group: "billing", State: "Stable", ProtocolType: "consumer", Protocol: "range",
			Members: []DescribedMember{{MemberID: "c-1", ClientID: "c", ClientHost: "/127.0.0.1", Metadata: []byte("sub"), Assignment: []byte("a")}}},
		{Group: "none", State: "Dead"}}}},
	{"delete_groups_request", DeleteGroupsRequest{CorrelationID: 12, Groups: []string{"old", "busy"}}},
	{"delete_groups_response", DeleteGroupsResponse{CorrelationID: 12, Results: []GroupResult{{Group: "old"}, {Group: "busy", ErrorCode: CodeNonEmptyGroup}}}},
	{"offset_delete_request", OffsetDeleteRequest{CorrelationID: 13, Group: "billing", Partitions: []GroupPartition{{Topic: "orders", Partition: 3}}}},
	{"offset_delete_response", OffsetDeleteResponse{CorrelationID: 13, Partitions: []GroupPartitionResult{{Topic: "orders", Partition: 3, ErrorCode: CodeGroupSubscribedToTopic}}}},
}

// TestGroupMessagesKeepTheirGoldenBytes pins the group messages' layouts,
// as TestGoldenEncodings does the others'. After an intended change, run:
// go test ./wire -run Golden -update
func TestGroupMessagesKeepTheirGoldenBytes(t *testing.T) {
	for _, tc := range groupGolden {
		t.Run(tc.name, func(t *testing.T) {
			b := mustEncode(t, tc.m)
			got := hex.Dump(b)
			path := filepath.Join("testdata", "golden", tc.name+".hex")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Fatalf("encoding of %+v changed:\ngot\n%swant\n%s", tc.m, got, want)
			}
		})
	}
}

// TestGroupMessagesRoundTrip: random messages of every group kind decode
// to what was encoded.
func TestGroupMessagesRoundTrip(t *testing.T) {
	r := newRand(t)
	for _, mk := range groupMessages() {
		for range 200 {
			m := mk.gen(r)
			b := mustEncode(t, m)
			fuzzDecoder(t, b, mk.decode)
		}
	}
}

// TestAGroupMessagesCountIsBoundedBeforeItAllocates: a count larger than
// the bytes left could hold is refused as truncated, before any slice is
// made for it; -1 is refused except where it means null (OffsetFetch's
// partitions).
func TestAGroupMessagesCountIsBoundedBeforeItAllocates(t *testing.T) {
	for _, tc := range []struct {
		name   string
		m      encodable
		decode func([]byte) error
	}{
		{"JoinGroupRequest.Protocols", JoinGroupRequest{}, decodeErr(DecodeJoinGroupRequest)},
		{"JoinGroupResponse.Members", JoinGroupResponse{}, decodeErr(DecodeJoinGroupResponse)},
		{"SyncGroupRequest.Assignments", SyncGroupRequest{}, decodeErr(DecodeSyncGroupRequest)},
		{"LeaveGroupRequest.Members", LeaveGroupRequest{}, decodeErr(DecodeLeaveGroupRequest)},
		{"LeaveGroupResponse.Members", LeaveGroupResponse{}, decodeErr(DecodeLeaveGroupResponse)},
		{"OffsetCommitRequest.Partitions", OffsetCommitRequest{}, decodeErr(DecodeOffsetCommitRequest)},
		{"OffsetCommitResponse.Partitions", OffsetCommitResponse{}, decodeErr(DecodeOffsetCommitResponse)},
		{"OffsetFetchRequest.Partitions", OffsetFetchRequest{Partitions: []GroupPartition{}}, decodeErr(DecodeOffsetFetchRequest)},
		{"OffsetFetchResponse.Partitions", OffsetFetchResponse{}, decodeErr(DecodeOffsetFetchResponse)},
		{"ListGroupsRequest.States", ListGroupsRequest{}, decodeErr(DecodeListGroupsRequest)},
		{"ListGroupsResponse.Groups", ListGroupsResponse{}, decodeErr(DecodeListGroupsResponse)},
		{"DescribeGroupsRequest.Groups", DescribeGroupsRequest{}, decodeErr(DecodeDescribeGroupsRequest)},
		{"DescribeGroupsResponse.Groups", DescribeGroupsResponse{}, decodeErr(DecodeDescribeGroupsResponse)},
		{"DescribeGroupsResponse.Groups.Members", DescribeGroupsResponse{Groups: []DescribedGroup{{}}}, decodeErr(DecodeDescribeGroupsResponse)},
		{"DeleteGroupsRequest.Groups", DeleteGroupsRequest{}, decodeErr(DecodeDeleteGroupsRequest)},
		{"DeleteGroupsResponse.Results", DeleteGroupsResponse{}, decodeErr(DecodeDeleteGroupsResponse)},
		{"OffsetDeleteRequest.Partitions", OffsetDeleteRequest{}, decodeErr(DecodeOffsetDeleteRequest)},
		{"OffsetDeleteResponse.Partitions", OffsetDeleteResponse{}, decodeErr(DecodeOffsetDeleteResponse)},
	} {
		b := mustEncode(t, tc.m)
		at := len(b) - 4 // the empty array's count, the last field but JoinGroupRequest's ClientID ("")
		if _, ok := tc.m.(JoinGroupRequest); ok {
			at -= 2
		}
		huge := append([]byte(nil), b...)
		huge[at] = 0x40 // 1<<30
		if err := tc.decode(huge); !errors.Is(err, ErrTruncated) {
			t.Errorf("%s: count 1<<30 with no bytes: err = %v, want ErrTruncated", tc.name, err)
		}
		if tc.name == "OffsetFetchRequest.Partitions" {
			continue // -1 is null there
		}
		neg := append([]byte(nil), b...)
		copy(neg[at:], []byte{0xff, 0xff, 0xff, 0xff})
		if err := tc.decode(neg); !errors.Is(err, ErrNegativeLength) {
			t.Errorf("%s: count -1: err = %v, want ErrNegativeLength", tc.name, err)
		}
	}
	// A metadata or assignment length past the payload is refused before
	// it is taken.
	b := mustEncode(t, SyncGroupResponse{})
	copy(b[len(b)-4:], []byte{0x7f, 0xff, 0xff, 0xff})
	if _, err := DecodeSyncGroupResponse(b); !errors.Is(err, ErrTruncated) {
		t.Errorf("SyncGroupResponse.Assignment of 2 GiB in no bytes: err = %v, want ErrTruncated", err)
	}
}

func FuzzDecodeFindCoordinatorRequest(f *testing.F) {
	addGroupSeeds(f, "FindCoordinatorRequest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeFindCoordinatorRequest) })
}

func FuzzDecodeFindCoordinatorResponse(f *testing.F) {
	addGroupSeeds(f, "FindCoordinatorResponse")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeFindCoordinatorResponse) })
}

func FuzzDecodeJoinGroupRequest(f *testing.F) {
	addGroupSeeds(f, "JoinGroupRequest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeJoinGroupRequest) })
}

func FuzzDecodeJoinGroupResponse(f *testing.F) {
	addGroupSeeds(f, "JoinGroupResponse")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeJoinGroupResponse) })
}

func FuzzDecodeSyncGroupRequest(f *testing.F) {
	addGroupSeeds(f, "SyncGroupRequest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeSyncGroupRequest) })
}

func FuzzDecodeSyncGroupResponse(f *testing.F) {
	addGroupSeeds(f, "SyncGroupResponse")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeSyncGroupResponse) })
}

func FuzzDecodeHeartbeatRequest(f *testing.F) {
	addGroupSeeds(f, "HeartbeatRequest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeHeartbeatRequest) })
}

func FuzzDecodeHeartbeatResponse(f *testing.F) {
	addGroupSeeds(f, "HeartbeatResponse")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeHeartbeatResponse) })
}

func FuzzDecodeLeaveGroupRequest(f *testing.F) {
	addGroupSeeds(f, "LeaveGroupRequest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeLeaveGroupRequest) })
}

func FuzzDecodeLeaveGroupResponse(f *testing.F) {
	addGroupSeeds(f, "LeaveGroupResponse")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeLeaveGroupResponse) })
}

func FuzzDecodeOffsetCommitRequest(f *testing.F) {
	addGroupSeeds(f, "OffsetCommitRequest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeOffsetCommitRequest) })
}

func FuzzDecodeOffsetCommitResponse(f *testing.F) {
	addGroupSeeds(f, "OffsetCommitResponse")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeOffsetCommitResponse) })
}

func FuzzDecodeOffsetFetchRequest(f *testing.F) {
	addGroupSeeds(f, "OffsetFetchRequest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeOffsetFetchRequest) })
}

func FuzzDecodeOffsetFetchResponse(f *testing.F) {
	addGroupSeeds(f, "OffsetFetchResponse")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeOffsetFetchResponse) })
}

func FuzzDecodeDescribeGroupsRequest(f *testing.F) {
	addGroupSeeds(f, "DescribeGroupsRequest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeDescribeGroupsRequest) })
}

func FuzzDecodeDescribeGroupsResponse(f *testing.F) {
	addGroupSeeds(f, "DescribeGroupsResponse")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeDescribeGroupsResponse) })
}

func FuzzDecodeListGroupsRequest(f *testing.F) {
	addGroupSeeds(f, "ListGroupsRequest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeListGroupsRequest) })
}

func FuzzDecodeListGroupsResponse(f *testing.F) {
	addGroupSeeds(f, "ListGroupsResponse")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeListGroupsResponse) })
}

func FuzzDecodeDeleteGroupsRequest(f *testing.F) {
	addGroupSeeds(f, "DeleteGroupsRequest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeDeleteGroupsRequest) })
}

func FuzzDecodeDeleteGroupsResponse(f *testing.F) {
	addGroupSeeds(f, "DeleteGroupsResponse")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeDeleteGroupsResponse) })
}

func FuzzDecodeOffsetDeleteRequest(f *testing.F) {
	addGroupSeeds(f, "OffsetDeleteRequest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeOffsetDeleteRequest) })
}

func FuzzDecodeOffsetDeleteResponse(f *testing.F) {
	addGroupSeeds(f, "OffsetDeleteResponse")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeOffsetDeleteResponse) })
}

// addGroupSeeds seeds a group decoder's corpus with the golden messages of
// its type and the empty one.
func addGroupSeeds(f *testing.F, typ string) {
	for _, g := range groupGolden {
		if name := typeName(g.m); name == typ {
			addSeeds(f, g.m)
		}
	}
	for _, mk := range groupMessages() {
		if mk.name == typ {
			addSeeds(f, mk.gen(rand.New(rand.NewPCG(1, 2))))
		}
	}
}

func typeName(m encodable) string { return reflect.TypeOf(m).Name() }
