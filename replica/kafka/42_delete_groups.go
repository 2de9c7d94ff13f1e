package kafka

import (
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteGroups (key 42), v0-v2.
//
// Behavior:
//   - deletes Empty groups and their committed offsets by tombstones
//     written to __consumer_offsets with acks=all, answered once they are
//     committed; NON_EMPTY_GROUP for a group with members,
//     GROUP_ID_NOT_FOUND for a group with no state, NOT_COORDINATOR for
//     one this broker does not coordinate (the broker splits a request
//     over its coordinators and answers once all have);
//   - v3 (an error message per group) is not advertised.

func init() {
	regKey(&api{key: deleteGroupsKey, name: "DeleteGroups", min: 0, max: 2, decode: decodeDeleteGroups, encode: encodeDeleteGroups, shape: deleteGroupsShape})
}

// deleteGroupsShape is a DeleteGroups request's layout, v0-v2 (kmsg's
// DeleteGroupsRequest).
func deleteGroupsShape(_ int16, flexible bool) shape {
	return append(shape{array(str)}, tagsIf(flexible)...) // Groups
}

func decodeDeleteGroups(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.DeleteGroupsRequest)
	return groupRequest(st, group.DeleteGroupsRequest{Groups: kr.Groups}), nil
}

func encodeDeleteGroups(_ *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, err := groupBody[group.DeleteGroupsResponse](m)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrDeleteGroupsResponse()
	resp.Groups = []kmsg.DeleteGroupsResponseGroup{}
	for _, g := range w.Results {
		rg := kmsg.NewDeleteGroupsResponseGroup()
		rg.Group, rg.ErrorCode = g.Group, errCode(g.Err)
		resp.Groups = append(resp.Groups, rg)
	}
	return resp, nil
}
