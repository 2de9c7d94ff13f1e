package kafka

import (
	"bytes"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// JoinGroup (key 11), v0-v9.
//
// Behavior:
//   - the classic group protocol's join, answered by the group's
//     coordinator (replica/group) once the rebalance completes: the
//     generation, the selected protocol, the leader, and for the leader
//     every member with its metadata;
//   - v0 has no rebalance timeout: the session timeout stands for it, as
//     in Kafka;
//   - v4+ (KIP-394): a dynamic member's first join without a member id is
//     answered MEMBER_ID_REQUIRED with its new id;
//   - v5+ (KIP-345): static members by group.instance.id;
//   - v8+: the Reason is read and not kept (Kafka logs it);
//   - v9 (KIP-814): SkipAssignment for a static leader rejoining a stable
//     group;
//   - the member's ClientHost is not known to the listener (the host does
//     not hand codecs the peer address): DescribeGroups answers "" for it.

func init() {
	regKey(&api{key: joinGroupKey, name: "JoinGroup", min: 0, max: 9, decode: decodeJoinGroup, encode: encodeJoinGroup, shape: joinGroupShape})
}

// joinGroupShape is a JoinGroup request's layout, v0-v9 (kmsg's
// JoinGroupRequest).
func joinGroupShape(version int16, flexible bool) shape {
	s := shape{str, fixedBytes(4)} // Group, SessionTimeoutMillis
	if version >= 1 {
		s = append(s, fixedBytes(4)) // RebalanceTimeoutMillis
	}
	s = append(s, str) // MemberID
	if version >= 5 {
		s = append(s, str) // InstanceID
	}
	protocol := append(shape{str, bytesField}, tagsIf(flexible)...) // Name, Metadata
	s = append(s, str, array(protocol...))                          // ProtocolType, Protocols
	if version >= 8 {
		s = append(s, str) // Reason
	}
	return append(s, tagsIf(flexible)...)
}

func decodeJoinGroup(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.JoinGroupRequest)
	req := group.JoinGroupRequest{
		Group: kr.Group, SessionTimeoutMs: kr.SessionTimeoutMillis, RebalanceTimeoutMs: kr.RebalanceTimeoutMillis,
		MemberID: kr.MemberID, GroupInstanceID: strOr(kr.InstanceID), ProtocolType: kr.ProtocolType,
		ClientID: string(st.clientID), RequireKnownMemberID: st.version >= 4,
	}
	if st.version == 0 {
		req.RebalanceTimeoutMs = kr.SessionTimeoutMillis
	}
	// Copies: kmsg aliases the frame, which the host reuses once the
	// request is answered, and the coordinator keeps a member's metadata.
	for _, p := range kr.Protocols {
		req.Protocols = append(req.Protocols, group.Protocol{Name: p.Name, Metadata: bytes.Clone(p.Metadata)})
	}
	return groupRequest(st, req), nil
}

func encodeJoinGroup(_ *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, err := groupBody[group.JoinGroupResponse](m)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrJoinGroupResponse()
	resp.ErrorCode, resp.Generation, resp.LeaderID, resp.MemberID = errCode(w.Err), w.Generation, w.Leader, w.MemberID
	resp.SkipAssignment = w.SkipAssignment
	if w.Err == nil {
		pt, p := w.ProtocolType, w.Protocol
		resp.ProtocolType, resp.Protocol = &pt, &p
	}
	resp.Members = []kmsg.JoinGroupResponseMember{}
	for _, jm := range w.Members {
		rm := kmsg.NewJoinGroupResponseMember()
		rm.MemberID, rm.ProtocolMetadata = jm.MemberID, jm.Metadata
		if jm.GroupInstanceID != "" {
			id := jm.GroupInstanceID
			rm.InstanceID = &id
		}
		resp.Members = append(resp.Members, rm)
	}
	return resp, nil
}
