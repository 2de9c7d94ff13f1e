package kafka

import (
	"strings"

	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListGroups (key 16), v0-v5.
//
// Behavior:
//   - the groups of every coordinator this broker hosts (clients ask
//     every broker and merge), by id; COORDINATOR_LOAD_IN_PROGRESS while
//     one of them is loading, as Kafka answers;
//   - v4+ (KIP-518): StatesFilter, Kafka's state names matched
//     case-insensitively, an unknown name matching nothing;
//   - v5+ (KIP-848): TypesFilter and GroupType: every group here is a
//     classic group, so a filter keeps all of them if it names "classic"
//     (case-insensitively) and none otherwise.

func init() {
	regKey(&api{key: listGroupsKey, name: "ListGroups", min: 0, max: 5, decode: decodeListGroups, encode: encodeListGroups, shape: listGroupsShape})
}

// listGroupsShape is a ListGroups request's layout, v0-v5 (kmsg's
// ListGroupsRequest).
func listGroupsShape(version int16, flexible bool) shape {
	var s shape
	if version >= 4 {
		s = append(s, array(str)) // StatesFilter
	}
	if version >= 5 {
		s = append(s, array(str)) // TypesFilter
	}
	return append(s, tagsIf(flexible)...)
}

// groupStates are the classic states by Kafka's name.
var groupStates = []group.State{group.Empty, group.PreparingRebalance, group.CompletingRebalance, group.Stable, group.Dead}

func decodeListGroups(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.ListGroupsRequest)
	var req group.ListGroupsRequest
	if len(kr.StatesFilter) > 0 {
		req.States = []group.State{}
		for _, name := range kr.StatesFilter {
			for _, s := range groupStates {
				if strings.EqualFold(name, s.String()) {
					req.States = append(req.States, s)
				}
			}
		}
	}
	if len(kr.TypesFilter) > 0 {
		classic := false
		for _, t := range kr.TypesFilter {
			classic = classic || strings.EqualFold(t, "classic")
		}
		if !classic {
			req.States = []group.State{} // matches no group
		}
	}
	return groupRequest(st, req), nil
}

func encodeListGroups(_ *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, err := groupBody[group.ListGroupsResponse](m)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrListGroupsResponse()
	resp.ErrorCode = errCode(w.Err)
	resp.Groups = []kmsg.ListGroupsResponseGroup{}
	for _, g := range w.Groups {
		rg := kmsg.NewListGroupsResponseGroup()
		rg.Group, rg.ProtocolType, rg.GroupState, rg.GroupType = g.Group, g.ProtocolType, g.State.String(), "classic"
		resp.Groups = append(resp.Groups, rg)
	}
	return resp, nil
}
