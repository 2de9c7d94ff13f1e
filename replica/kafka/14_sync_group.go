package kafka

import (
	"bytes"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// SyncGroup (key 14), v0-v5.
//
// Behavior:
//   - ends a member's part of a rebalance: followers wait for the
//     leader's assignment, which the coordinator writes to
//     __consumer_offsets and hands out once the write is committed, each
//     member exactly its bytes;
//   - v3+: static members by group.instance.id;
//   - v5+: ProtocolType and Protocol, when given, must be the group's
//     (INCONSISTENT_GROUP_PROTOCOL otherwise), and are answered.

func init() {
	regKey(&api{key: syncGroupKey, name: "SyncGroup", min: 0, max: 5, decode: decodeSyncGroup, encode: encodeSyncGroup, shape: syncGroupShape})
}

// syncGroupShape is a SyncGroup request's layout, v0-v5 (kmsg's
// SyncGroupRequest).
func syncGroupShape(version int16, flexible bool) shape {
	s := shape{str, fixedBytes(4), str} // Group, Generation, MemberID
	if version >= 3 {
		s = append(s, str) // InstanceID
	}
	if version >= 5 {
		s = append(s, str, str) // ProtocolType, Protocol
	}
	assignment := append(shape{str, bytesField}, tagsIf(flexible)...) // MemberID, MemberAssignment
	s = append(s, array(assignment...))
	return append(s, tagsIf(flexible)...)
}

func decodeSyncGroup(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.SyncGroupRequest)
	req := group.SyncGroupRequest{
		Group: kr.Group, Generation: kr.Generation, MemberID: kr.MemberID, GroupInstanceID: strOr(kr.InstanceID),
		ProtocolType: strOr(kr.ProtocolType), Protocol: strOr(kr.Protocol),
	}
	// Copies, as JoinGroup's metadata: the coordinator keeps them.
	for _, a := range kr.GroupAssignment {
		req.Assignments = append(req.Assignments, group.Assignment{MemberID: a.MemberID, Assignment: bytes.Clone(a.MemberAssignment)})
	}
	return groupRequest(st, req), nil
}

func encodeSyncGroup(_ *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, err := groupBody[group.SyncGroupResponse](m)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrSyncGroupResponse()
	resp.ErrorCode, resp.MemberAssignment = errCode(w.Err), w.Assignment
	if resp.MemberAssignment == nil {
		resp.MemberAssignment = []byte{}
	}
	if w.Err == nil {
		pt, p := w.ProtocolType, w.Protocol
		resp.ProtocolType, resp.Protocol = &pt, &p
	}
	return resp, nil
}
