package server

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/wire"
)

// kaenlog's protocol carries the group APIs as wire's own messages
// (wire.JoinGroupRequest, ...), with error codes; a broker's group
// coordinators take replica.GroupRequest, whose bodies are
// replica/group's messages, with Go errors. The kaenlog codec translates
// one into the other here, as replica/kafka's codec does from Kafka's
// bytes, so that the coordinators serve both listeners alike.

// groupRequest is m as the broker's group coordinators take it, if m is
// one of wire's group requests. Its bytes are copied: wire's decoders
// alias the frame, which the host reuses once the request is answered,
// and a coordinator keeps a member's metadata and assignment for as long
// as the generation lasts. (Strings are copies already.)
func groupRequest(m wire.Message) (*replica.GroupRequest, bool) {
	var body any
	switch m := m.(type) {
	case *wire.FindCoordinatorRequest:
		body = replica.FindCoordinatorRequest{Groups: []string{m.Group}}
	case *wire.JoinGroupRequest:
		req := group.JoinGroupRequest{
			Group: m.Group, SessionTimeoutMs: m.SessionTimeoutMs, RebalanceTimeoutMs: m.RebalanceTimeoutMs,
			MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID, ProtocolType: m.ProtocolType,
			ClientID: m.ClientID, RequireKnownMemberID: true, // KIP-394, always: see wire.JoinGroupRequest
		}
		if len(m.Protocols) > 0 {
			req.Protocols = make([]group.Protocol, len(m.Protocols))
			for i, p := range m.Protocols {
				req.Protocols[i] = group.Protocol{Name: p.Name, Metadata: bytes.Clone(p.Metadata)}
			}
		}
		body = req
	case *wire.SyncGroupRequest:
		req := group.SyncGroupRequest{
			Group: m.Group, Generation: m.Generation, MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID,
			ProtocolType: m.ProtocolType, Protocol: m.Protocol,
		}
		if len(m.Assignments) > 0 {
			req.Assignments = make([]group.Assignment, len(m.Assignments))
			for i, a := range m.Assignments {
				req.Assignments[i] = group.Assignment{MemberID: a.MemberID, Assignment: bytes.Clone(a.Assignment)}
			}
		}
		body = req
	case *wire.HeartbeatRequest:
		body = group.HeartbeatRequest{Group: m.Group, Generation: m.Generation, MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID}
	case *wire.LeaveGroupRequest:
		req := group.LeaveGroupRequest{Group: m.Group, Members: make([]group.LeavingMember, len(m.Members))}
		for i, mb := range m.Members {
			req.Members[i] = group.LeavingMember{MemberID: mb.MemberID, GroupInstanceID: mb.GroupInstanceID}
		}
		body = req
	case *wire.OffsetCommitRequest:
		req := group.OffsetCommitRequest{
			Group: m.Group, Generation: m.Generation, MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID,
			Partitions: make([]group.CommitPartition, len(m.Partitions)),
		}
		for i, p := range m.Partitions {
			// The decoder refused an offset above math.MaxInt64.
			req.Partitions[i] = group.CommitPartition{Topic: p.Topic, Partition: p.Partition, Offset: int64(p.Offset),
				LeaderEpoch: p.LeaderEpoch, Metadata: p.Metadata}
		}
		body = req
	case *wire.OffsetFetchRequest:
		g := group.OffsetFetchRequest{Group: m.Group}
		if m.Partitions != nil {
			g.Partitions = make([]group.TopicPartition, len(m.Partitions))
			for i, p := range m.Partitions {
				g.Partitions[i] = group.TopicPartition{Topic: p.Topic, Partition: p.Partition}
			}
		}
		body = replica.OffsetFetchRequest{Groups: []group.OffsetFetchRequest{g}}
	case *wire.ListGroupsRequest:
		req := group.ListGroupsRequest{}
		if len(m.States) > 0 {
			req.States = []group.State{} // matches none, unless a name is a state's
			for _, name := range m.States {
				for _, st := range groupStates {
					if strings.EqualFold(name, st.String()) {
						req.States = append(req.States, st)
					}
				}
			}
		}
		body = req
	case *wire.DescribeGroupsRequest:
		body = replica.DescribeGroupsRequest{Groups: m.Groups}
	case *wire.DeleteGroupsRequest:
		body = group.DeleteGroupsRequest{Groups: m.Groups}
	case *wire.OffsetDeleteRequest:
		req := group.OffsetDeleteRequest{Group: m.Group, Partitions: make([]group.TopicPartition, len(m.Partitions))}
		for i, p := range m.Partitions {
			req.Partitions[i] = group.TopicPartition{Topic: p.Topic, Partition: p.Partition}
		}
		body = req
	default:
		return nil, false
	}
	return &replica.GroupRequest{CorrelationID: m.Correlation(), Body: body}, true
}

// groupResponse is the broker's answer r as wire's group response.
func groupResponse(r *replica.GroupResponse) (wire.Message, error) {
	corr := r.CorrelationID
	switch b := r.Body.(type) {
	case replica.FindCoordinatorResponse:
		if len(b.Coordinators) != 1 {
			return nil, fmt.Errorf("server: FindCoordinator answered %d groups for one", len(b.Coordinators))
		}
		c := b.Coordinators[0]
		return &wire.FindCoordinatorResponse{CorrelationID: corr, ErrorCode: wire.CodeOf(c.Err), NodeID: c.NodeID}, nil
	case group.JoinGroupResponse:
		m := &wire.JoinGroupResponse{
			CorrelationID: corr, ErrorCode: wire.CodeOf(b.Err), Generation: b.Generation, ProtocolType: b.ProtocolType,
			Protocol: b.Protocol, Leader: b.Leader, SkipAssignment: b.SkipAssignment, MemberID: b.MemberID,
		}
		if len(b.Members) > 0 {
			m.Members = make([]wire.GroupMember, len(b.Members))
			for i, mb := range b.Members {
				m.Members[i] = wire.GroupMember{MemberID: mb.MemberID, GroupInstanceID: mb.GroupInstanceID, Metadata: mb.Metadata}
			}
		}
		return m, nil
	case group.SyncGroupResponse:
		return &wire.SyncGroupResponse{CorrelationID: corr, ErrorCode: wire.CodeOf(b.Err), ProtocolType: b.ProtocolType,
			Protocol: b.Protocol, Assignment: b.Assignment}, nil
	case replica.HeartbeatResponse:
		return &wire.HeartbeatResponse{CorrelationID: corr, ErrorCode: wire.CodeOf(b.Err)}, nil
	case group.LeaveGroupResponse:
		m := &wire.LeaveGroupResponse{CorrelationID: corr, ErrorCode: wire.CodeOf(b.Err)}
		if len(b.Members) > 0 {
			m.Members = make([]wire.LeftMember, len(b.Members))
			for i, mb := range b.Members {
				m.Members[i] = wire.LeftMember{MemberID: mb.MemberID, GroupInstanceID: mb.GroupInstanceID, ErrorCode: wire.CodeOf(mb.Err)}
			}
		}
		return m, nil
	case group.OffsetCommitResponse:
		m := &wire.OffsetCommitResponse{CorrelationID: corr}
		if len(b.Partitions) > 0 {
			m.Partitions = make([]wire.GroupPartitionResult, len(b.Partitions))
			for i, p := range b.Partitions {
				m.Partitions[i] = wire.GroupPartitionResult{Topic: p.Topic, Partition: p.Partition, ErrorCode: wire.CodeOf(p.Err)}
			}
		}
		return m, nil
	case replica.OffsetFetchResponse:
		if len(b.Groups) != 1 {
			return nil, fmt.Errorf("server: OffsetFetch answered %d groups for one", len(b.Groups))
		}
		g := b.Groups[0]
		m := &wire.OffsetFetchResponse{CorrelationID: corr, ErrorCode: wire.CodeOf(g.Err)}
		if len(g.Partitions) > 0 {
			m.Partitions = make([]wire.FetchedOffset, len(g.Partitions))
			for i, p := range g.Partitions {
				f := wire.FetchedOffset{Topic: p.Topic, Partition: p.Partition, LeaderEpoch: p.LeaderEpoch, Metadata: p.Metadata}
				if p.Offset >= 0 { // -1: the group committed none
					f.Offset, f.HasOffset = uint64(p.Offset), true
				}
				if f.LeaderEpoch < wire.NoEpoch {
					f.LeaderEpoch = wire.NoEpoch
				}
				m.Partitions[i] = f
			}
		}
		return m, nil
	case group.ListGroupsResponse:
		m := &wire.ListGroupsResponse{CorrelationID: corr, ErrorCode: wire.CodeOf(b.Err)}
		for _, g := range b.Groups {
			m.Groups = append(m.Groups, wire.ListedGroup{Group: g.Group, ProtocolType: g.ProtocolType, State: g.State.String()})
		}
		return m, nil
	case replica.DescribeGroupsResponse:
		m := &wire.DescribeGroupsResponse{CorrelationID: corr}
		for _, g := range b.Groups {
			d := wire.DescribedGroup{Group: g.Group, ErrorCode: wire.CodeOf(g.Err), State: g.State.String(), ProtocolType: g.ProtocolType, Protocol: g.Protocol}
			for _, mb := range g.Members {
				d.Members = append(d.Members, wire.DescribedMember{MemberID: mb.MemberID, GroupInstanceID: mb.GroupInstanceID, ClientID: mb.ClientID,
					ClientHost: mb.ClientHost, Metadata: mb.Metadata, Assignment: mb.Assignment})
			}
			m.Groups = append(m.Groups, d)
		}
		return m, nil
	case group.DeleteGroupsResponse:
		m := &wire.DeleteGroupsResponse{CorrelationID: corr}
		for _, r := range b.Results {
			m.Results = append(m.Results, wire.GroupResult{Group: r.Group, ErrorCode: wire.CodeOf(r.Err)})
		}
		return m, nil
	case group.OffsetDeleteResponse:
		m := &wire.OffsetDeleteResponse{CorrelationID: corr, ErrorCode: wire.CodeOf(b.Err)}
		for _, p := range b.Partitions {
			m.Partitions = append(m.Partitions, wire.GroupPartitionResult{Topic: p.Topic, Partition: p.Partition, ErrorCode: wire.CodeOf(p.Err)})
		}
		return m, nil
	}
	return nil, fmt.Errorf("server: a %v answer with a %T body has no form on kaenlog's protocol", r.Key, r.Body)
}

// groupStates are the classic states, matched by Kafka's names.
var groupStates = []group.State{group.Empty, group.PreparingRebalance, group.CompletingRebalance, group.Stable, group.Dead}

// groupErrorResponse is the answer to a group request that could not be
// decoded: its error code, and nothing the request would have named.
func groupErrorResponse(key wire.APIKey, corr int32, code wire.ErrorCode) (wire.Message, bool) {
	switch key {
	case wire.APIFindCoordinator:
		return &wire.FindCoordinatorResponse{CorrelationID: corr, ErrorCode: code, NodeID: wire.NoLeader}, true
	case wire.APIJoinGroup:
		return &wire.JoinGroupResponse{CorrelationID: corr, ErrorCode: code, Generation: -1}, true
	case wire.APISyncGroup:
		return &wire.SyncGroupResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APIHeartbeat:
		return &wire.HeartbeatResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APILeaveGroup:
		return &wire.LeaveGroupResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APIOffsetCommit:
		return &wire.OffsetCommitResponse{CorrelationID: corr}, true // Kafka answers each partition named, which it does not tell
	case wire.APIOffsetFetch:
		return &wire.OffsetFetchResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APIListGroups:
		return &wire.ListGroupsResponse{CorrelationID: corr, ErrorCode: code}, true
	case wire.APIDescribeGroups:
		return &wire.DescribeGroupsResponse{CorrelationID: corr}, true // no group to answer: the request names none readable
	case wire.APIDeleteGroups:
		return &wire.DeleteGroupsResponse{CorrelationID: corr}, true
	case wire.APIOffsetDelete:
		return &wire.OffsetDeleteResponse{CorrelationID: corr, ErrorCode: code}, true
	}
	return nil, false
}
