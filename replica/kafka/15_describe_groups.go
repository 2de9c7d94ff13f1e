package kafka

import (
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeGroups (key 15), v0-v5.
//
// Behavior:
//   - each group's state, protocol type, selected protocol and members,
//     from its coordinator (NOT_COORDINATOR for a group this broker does
//     not coordinate); members' metadata and assignments in Stable only;
//     a group with no state is Dead with no error, as in Kafka before v6;
//   - the members' ClientHost is "" (the listener does not know peer
//     addresses);
//   - v3+: IncludeAuthorizedOperations is read; there are no ACLs, so
//     AuthorizedOperations is Kafka's "not requested" value
//     (-2147483648) either way;
//   - v6 (KIP-1043: GROUP_ID_NOT_FOUND for a group with no state, and an
//     error message) is not advertised.

func init() {
	regKey(&api{key: describeGroupsKey, name: "DescribeGroups", min: 0, max: 5, decode: decodeDescribeGroups, encode: encodeDescribeGroups, shape: describeGroupsShape})
}

// describeGroupsShape is a DescribeGroups request's layout, v0-v5 (kmsg's
// DescribeGroupsRequest).
func describeGroupsShape(version int16, flexible bool) shape {
	s := shape{array(str)} // Groups
	if version >= 3 {
		s = append(s, fixedBytes(1)) // IncludeAuthorizedOperations
	}
	return append(s, tagsIf(flexible)...)
}

func decodeDescribeGroups(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.DescribeGroupsRequest)
	return groupRequest(st, replica.DescribeGroupsRequest{Groups: kr.Groups}), nil
}

func encodeDescribeGroups(_ *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, err := groupBody[replica.DescribeGroupsResponse](m)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrDescribeGroupsResponse()
	for _, g := range w.Groups {
		rg := kmsg.NewDescribeGroupsResponseGroup()
		rg.Group, rg.ErrorCode = g.Group, errCode(g.Err)
		rg.State, rg.ProtocolType, rg.Protocol = g.State.String(), g.ProtocolType, g.Protocol
		rg.Members = []kmsg.DescribeGroupsResponseGroupMember{}
		for _, dm := range g.Members {
			rm := kmsg.NewDescribeGroupsResponseGroupMember()
			rm.MemberID, rm.ClientID, rm.ClientHost = dm.MemberID, dm.ClientID, dm.ClientHost
			rm.ProtocolMetadata, rm.MemberAssignment = nonNilBytes(dm.Metadata), nonNilBytes(dm.Assignment)
			if dm.GroupInstanceID != "" {
				id := dm.GroupInstanceID
				rm.InstanceID = &id
			}
			rg.Members = append(rg.Members, rm)
		}
		resp.Groups = append(resp.Groups, rg)
	}
	return resp, nil
}

// nonNilBytes returns b, or empty bytes for none (these bytes are not
// nullable in Kafka's schema).
func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
