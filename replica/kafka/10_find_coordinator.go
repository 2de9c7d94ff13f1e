package kafka

import (
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FindCoordinator (key 10), v0-v4.
//
// Behavior:
//   - a group's coordinator is the leader of its partition of
//     __consumer_offsets, group.PartitionFor(group, partitions) (Kafka's
//     abs(hashCode) % offsets.topic.num.partitions), answered from the
//     broker's metadata image with that broker's Kafka listener;
//   - the first FindCoordinator that finds __consumer_offsets missing
//     asks the controller to create it (as Kafka's broker creates it) and
//     is answered COORDINATOR_NOT_AVAILABLE, as is a group whose
//     partition has no leader, or whose leader has no Kafka listener:
//     clients retry;
//   - v4+ (KIP-699): a batch of keys, each answered with its own error;
//   - key type 0 (group) only: kaenlog has no transaction coordinator, so
//     type 1 (transaction), like any other type, is answered
//     INVALID_REQUEST, as Kafka answers a type it does not know;
//   - v5 (TRANSACTION_ABORTABLE, KIP-890) and v6 (share groups, KIP-932)
//     are not advertised: they belong to features kaenlog lacks.

func init() {
	regKey(&api{key: findCoordinatorKey, name: "FindCoordinator", min: 0, max: 4, decode: decodeFindCoordinator, encode: encodeFindCoordinator, shape: findCoordinatorShape})
}

// findCoordinatorShape is a FindCoordinator request's layout, v0-v4
// (kmsg's FindCoordinatorRequest): one key up to v3, a batch from v4.
func findCoordinatorShape(version int16, flexible bool) shape {
	var s shape
	if version <= 3 {
		s = append(s, str) // CoordinatorKey
	}
	if version >= 1 {
		s = append(s, fixedBytes(1)) // CoordinatorType
	}
	if version >= 4 {
		s = append(s, array(str)) // CoordinatorKeys
	}
	return append(s, tagsIf(flexible)...)
}

func decodeFindCoordinator(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.FindCoordinatorRequest)
	keys := kr.CoordinatorKeys
	if st.version < 4 {
		keys = []string{kr.CoordinatorKey}
	}
	if kr.CoordinatorType != 0 {
		resp := kmsg.NewPtrFindCoordinatorResponse()
		code := kafkaCode(wire.CodeInvalidRequest)
		resp.ErrorCode, resp.NodeID = code, -1
		for _, k := range keys {
			c := kmsg.NewFindCoordinatorResponseCoordinator()
			c.Key, c.NodeID, c.ErrorCode = k, -1, code
			resp.Coordinators = append(resp.Coordinators, c)
		}
		st.local = resp
		return nil, errLocal
	}
	return groupRequest(st, replica.FindCoordinatorRequest{Groups: keys}), nil
}

func encodeFindCoordinator(c *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, err := groupBody[replica.FindCoordinatorResponse](m)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrFindCoordinatorResponse()
	for _, fc := range w.Coordinators {
		rc := kmsg.NewFindCoordinatorResponseCoordinator()
		rc.Key, rc.NodeID, rc.ErrorCode = fc.Group, -1, errCode(fc.Err)
		if fc.Err == nil {
			if kb, ok := c.broker(fc.NodeID); ok {
				rc.NodeID, rc.Host, rc.Port = kb.id, kb.host, kb.port
			} else {
				rc.ErrorCode = kafkaCode(wire.CodeCoordinatorNotAvailable)
			}
		}
		resp.Coordinators = append(resp.Coordinators, rc)
	}
	if st.version < 4 && len(resp.Coordinators) == 1 {
		rc := resp.Coordinators[0]
		resp.ErrorCode, resp.NodeID, resp.Host, resp.Port = rc.ErrorCode, rc.NodeID, rc.Host, rc.Port
		resp.Coordinators = nil
	}
	return resp, nil
}
