package kafka

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ElectLeaders (key 43), v0-v2 (Kafka's newest).
//
// Behavior:
//   - the broker forwards the election to the controller (as it forwards
//     CreateTopics); the answer comes once the new leader is in the
//     metadata log, and brokers learn it within a metadata fetch;
//   - ElectionType 0 (PREFERRED, the only kind in v0) moves the
//     leadership to the partition's first replica if it is active and in
//     the ISR: ELECTION_NOT_NEEDED when it already leads,
//     PREFERRED_LEADER_NOT_AVAILABLE when it cannot lead;
//   - ElectionType 1 (UNCLEAN) elects a leaderless partition's first live
//     replica when no ISR or ELR member can lead (records may be lost). On
//     a partition that has a leader it answers NONE where Kafka answers
//     ELECTION_NOT_NEEDED: kaenlog's controller keeps the leader and says
//     so the same way as for a clean election (package controller);
//   - any other ElectionType is INVALID_REQUEST for the whole request, as
//     Kafka's electionType;
//   - one partition per request: the first is sent to the controller, any
//     other answered INVALID_REQUEST ("one partition per ElectLeaders
//     request") — kaenlog's controller request carries one partition
//     (wire.ElectLeadersRequest). A null topic list (Kafka: every
//     partition) is INVALID_REQUEST for the whole request in v1+ and an
//     empty answer in v0, which has no request-wide code: the listener
//     would have to read the metadata image to list the partitions;
//   - TimeoutMillis is not waited on: the answer comes when the
//     controller has committed.

// onePartitionPerElection is the message of every partition but the first.
const onePartitionPerElection = "one partition per ElectLeaders request: kaenlog's controller elects one partition at a time"

func init() {
	regKey(&api{key: electLeadersKey, name: "ElectLeaders", min: 0, max: 2, decode: decodeElectLeaders, encode: encodeElectLeaders, shape: electLeadersShape})
}

// electLeadersShape is an ElectLeaders request's layout, v0-v2 (kmsg's
// ElectLeadersRequest).
func electLeadersShape(version int16, flexible bool) shape {
	var s shape
	if version >= 1 {
		s = append(s, fixedBytes(1)) // ElectionType
	}
	topic := append(shape{str, array(fixedBytes(4))}, tagsIf(flexible)...) // Topic, Partitions
	s = append(s, array(topic...), fixedBytes(4))                          // Topics (nullable), TimeoutMillis
	return append(s, tagsIf(flexible)...)
}

// electPlan is what the listener makes of an ElectLeaders request: the
// request-wide refusal, or the one partition sent to the controller (the
// first) and the request for it. A function of the request alone, so
// decode and encode compute the same one.
type electPlan struct {
	refusal wire.ErrorCode
	req     wire.ElectLeadersRequest
	ok      bool // a partition is sent
}

func planElectLeaders(kr *kmsg.ElectLeadersRequest, version int16, corr int32) electPlan {
	kind := int8(0) // PREFERRED: v0 has no ElectionType
	if version >= 1 {
		kind = kr.ElectionType
	}
	switch {
	case kind != 0 && kind != 1:
		return electPlan{refusal: wire.CodeInvalidRequest}
	case kr.Topics == nil:
		return electPlan{refusal: wire.CodeInvalidRequest}
	}
	for _, t := range kr.Topics {
		if len(t.Partitions) > 0 {
			return electPlan{ok: true, req: wire.ElectLeadersRequest{
				CorrelationID: corr, Topic: t.Topic, Partition: t.Partitions[0], Preferred: kind == 0, Unclean: kind == 1,
			}}
		}
	}
	return electPlan{}
}

func decodeElectLeaders(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.ElectLeadersRequest)
	plan := planElectLeaders(kr, st.version, st.corr)
	if !plan.ok {
		resp, err := electLeadersResponse(kr, plan, nil)
		st.local = resp
		if err != nil {
			return nil, err
		}
		return nil, errLocal
	}
	m := plan.req
	return &m, nil
}

func encodeElectLeaders(_ *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.ElectLeadersResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to an ElectLeaders", m.APIKey())
	}
	kr := st.kreq.(*kmsg.ElectLeadersRequest)
	return electLeadersResponse(kr, planElectLeaders(kr, st.version, st.corr), w)
}

// electLeadersResponse answers every partition of kr, in its order: the
// controller's answer w for the first, INVALID_REQUEST for the others.
func electLeadersResponse(kr *kmsg.ElectLeadersRequest, plan electPlan, w *wire.ElectLeadersResponse) (*kmsg.ElectLeadersResponse, error) {
	resp := kmsg.NewPtrElectLeadersResponse()
	if plan.refusal != wire.CodeNone {
		resp.ErrorCode = kafkaCode(plan.refusal)
		return resp, nil
	}
	if plan.ok && w == nil {
		return nil, fmt.Errorf("kafka: the controller did not answer for %s-%d", plan.req.Topic, plan.req.Partition)
	}
	first := true
	for _, t := range kr.Topics {
		rt := kmsg.NewElectLeadersResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewElectLeadersResponseTopicPartition()
			rp.Partition = p
			if first {
				first = false
				rp.ErrorCode = kafkaCode(w.ErrorCode)
			} else {
				msg := onePartitionPerElection
				rp.ErrorCode, rp.ErrorMessage = kafkaCode(wire.CodeInvalidRequest), &msg
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}
