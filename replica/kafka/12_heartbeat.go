package kafka

import (
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Heartbeat (key 12), v0-v4.
//
// Behavior:
//   - keeps a member's session alive, answered at once by the group's
//     coordinator: REBALANCE_IN_PROGRESS while a rebalance prepares (the
//     member joins again), ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID or
//     FENCED_INSTANCE_ID for a member the group no longer has as it was;
//   - v3+: static members by group.instance.id.

func init() {
	regKey(&api{key: heartbeatKey, name: "Heartbeat", min: 0, max: 4, decode: decodeHeartbeat, encode: encodeHeartbeat, shape: heartbeatShape})
}

// heartbeatShape is a Heartbeat request's layout, v0-v4 (kmsg's
// HeartbeatRequest).
func heartbeatShape(version int16, flexible bool) shape {
	s := shape{str, fixedBytes(4), str} // Group, Generation, MemberID
	if version >= 3 {
		s = append(s, str) // InstanceID
	}
	return append(s, tagsIf(flexible)...)
}

func decodeHeartbeat(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.HeartbeatRequest)
	return groupRequest(st, group.HeartbeatRequest{Group: kr.Group, Generation: kr.Generation, MemberID: kr.MemberID,
		GroupInstanceID: strOr(kr.InstanceID)}), nil
}

func encodeHeartbeat(_ *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, err := groupBody[replica.HeartbeatResponse](m)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrHeartbeatResponse()
	resp.ErrorCode = errCode(w.Err)
	return resp, nil
}
