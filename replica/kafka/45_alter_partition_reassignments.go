package kafka

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AlterPartitionReassignments (key 45), v0 (kmsg's
// AlterPartitionAssignmentsRequest).
//
// Behavior:
//   - the broker forwards the reassignment to the controller (KIP-455):
//     the answer comes once the target's replicas are added in the
//     metadata log, not once the reassignment is done (brokers then create
//     and fill the new replicas, which join the ISR; the old ones leave
//     after). ListPartitionReassignments shows it in flight;
//   - null Replicas cancels the partition's reassignment in flight
//     (NO_REASSIGNMENT_IN_PROGRESS when there is none); a target the
//     controller refuses (empty, a broker twice or unregistered) is
//     INVALID_REQUEST where Kafka answers INVALID_REPLICA_ASSIGNMENT,
//     which wire's table lacks;
//   - one partition per request: the first is sent to the controller, any
//     other answered INVALID_REQUEST ("one partition per
//     AlterPartitionReassignments request");
//   - v1 (KIP-860's AllowReplicationFactorChange) is not advertised: the
//     listener would have to read the metadata image to compare the
//     factors, and v0's answer is Kafka's with the change allowed.

// onePartitionPerReassignment is the message of every partition but the first.
const onePartitionPerReassignment = "one partition per AlterPartitionReassignments request: kaenlog's controller reassigns one partition at a time"

func init() {
	regKey(&api{key: alterPartitionReassignmentsKey, name: "AlterPartitionReassignments", min: 0, max: 0,
		decode: decodeAlterPartitionReassignments, encode: encodeAlterPartitionReassignments, shape: alterPartitionReassignmentsShape})
}

// alterPartitionReassignmentsShape is the request's layout, v0 (flexible).
func alterPartitionReassignmentsShape(_ int16, flexible bool) shape {
	partition := append(shape{fixedBytes(4), array(fixedBytes(4))}, tagsIf(flexible)...) // Partition, Replicas (nullable)
	topic := append(shape{str, array(partition...)}, tagsIf(flexible)...)                // Topic, Partitions
	s := shape{fixedBytes(4), array(topic...)}                                           // TimeoutMillis, Topics
	return append(s, tagsIf(flexible)...)
}

// planReassignment returns the controller request for the first partition
// of kr, ok false when it names none.
func planReassignment(kr *kmsg.AlterPartitionAssignmentsRequest, corr int32) (req wire.AlterPartitionReassignmentsRequest, ok bool) {
	for _, t := range kr.Topics {
		if len(t.Partitions) > 0 {
			p := t.Partitions[0]
			return wire.AlterPartitionReassignmentsRequest{
				CorrelationID: corr, Topic: t.Topic, Partition: p.Partition, Replicas: p.Replicas, Cancel: p.Replicas == nil,
			}, true
		}
	}
	return wire.AlterPartitionReassignmentsRequest{}, false
}

func decodeAlterPartitionReassignments(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.AlterPartitionAssignmentsRequest)
	req, ok := planReassignment(kr, st.corr)
	if !ok {
		st.local = reassignmentsResponse(kr, nil)
		return nil, errLocal
	}
	if req.Replicas != nil && len(req.Replicas) == 0 {
		// An empty, not null, target: the controller's refusal, said here
		// so the request stays a target and not a cancellation.
		msg := "an empty target"
		st.local = reassignmentsResponse(kr, &wire.AlterPartitionReassignmentsResponse{ErrorCode: wire.CodeInvalidRequest, ErrorMessage: msg})
		return nil, errLocal
	}
	return &req, nil
}

func encodeAlterPartitionReassignments(_ *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.AlterPartitionReassignmentsResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to an AlterPartitionReassignments", m.APIKey())
	}
	return reassignmentsResponse(st.kreq.(*kmsg.AlterPartitionAssignmentsRequest), w), nil
}

// reassignmentsResponse answers every partition of kr, in its order: w for
// the first, INVALID_REQUEST for the others.
func reassignmentsResponse(kr *kmsg.AlterPartitionAssignmentsRequest, w *wire.AlterPartitionReassignmentsResponse) *kmsg.AlterPartitionAssignmentsResponse {
	resp := kmsg.NewPtrAlterPartitionAssignmentsResponse()
	first := true
	for _, t := range kr.Topics {
		rt := kmsg.NewAlterPartitionAssignmentsResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
			rp.Partition = p.Partition
			if first && w != nil {
				rp.ErrorCode = kafkaCode(w.ErrorCode)
				if w.ErrorCode != wire.CodeNone {
					msg := w.ErrorMessage
					rp.ErrorMessage = &msg
				}
			} else {
				msg := onePartitionPerReassignment
				rp.ErrorCode, rp.ErrorMessage = kafkaCode(wire.CodeInvalidRequest), &msg
			}
			first = false
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}
