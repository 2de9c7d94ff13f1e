package kafka

import (
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// LeaveGroup (key 13), v0-v5.
//
// Behavior:
//   - removes members from a group at once (the group rebalances, or
//     becomes Empty), answered by the group's coordinator;
//   - v0-v2 name one member by id; v3+ (KIP-345) a batch, each member by
//     id or by group.instance.id, each with its own result
//     (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID);
//   - v5+: the Reason is read and not kept (Kafka logs it).

func init() {
	regKey(&api{key: leaveGroupKey, name: "LeaveGroup", min: 0, max: 5, decode: decodeLeaveGroup, encode: encodeLeaveGroup, shape: leaveGroupShape})
}

// leaveGroupShape is a LeaveGroup request's layout, v0-v5 (kmsg's
// LeaveGroupRequest): one member up to v2, a batch from v3.
func leaveGroupShape(version int16, flexible bool) shape {
	s := shape{str} // Group
	if version <= 2 {
		s = append(s, str) // MemberID
	} else {
		member := shape{str, str} // MemberID, InstanceID
		if version >= 5 {
			member = append(member, str) // Reason
		}
		s = append(s, array(append(member, tagsIf(flexible)...)...))
	}
	return append(s, tagsIf(flexible)...)
}

func decodeLeaveGroup(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.LeaveGroupRequest)
	req := group.LeaveGroupRequest{Group: kr.Group}
	if st.version < 3 {
		req.Members = []group.LeavingMember{{MemberID: kr.MemberID}}
	}
	for _, m := range kr.Members {
		req.Members = append(req.Members, group.LeavingMember{MemberID: m.MemberID, GroupInstanceID: strOr(m.InstanceID)})
	}
	return groupRequest(st, req), nil
}

func encodeLeaveGroup(_ *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, err := groupBody[group.LeaveGroupResponse](m)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrLeaveGroupResponse()
	resp.ErrorCode = errCode(w.Err)
	if st.version < 3 {
		// One member: its own error is the answer's.
		if resp.ErrorCode == 0 && len(w.Members) == 1 {
			resp.ErrorCode = errCode(w.Members[0].Err)
		}
		return resp, nil
	}
	resp.Members = []kmsg.LeaveGroupResponseMember{}
	for _, lm := range w.Members {
		rm := kmsg.NewLeaveGroupResponseMember()
		rm.MemberID, rm.ErrorCode = lm.MemberID, errCode(lm.Err)
		if lm.GroupInstanceID != "" {
			id := lm.GroupInstanceID
			rm.InstanceID = &id
		}
		resp.Members = append(resp.Members, rm)
	}
	return resp, nil
}
