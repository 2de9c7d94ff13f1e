package kafka

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// CreatePartitions (key 37), v0-v3 (Kafka's newest).
//
// Behavior:
//   - the broker forwards the request to the controller, which adds the
//     partitions to the topic's metadata, placed round-robin over the
//     active brokers or as Assignment gives them (one replica list per
//     partition added); the answer comes once they are in the metadata
//     log, and brokers create the new replicas within a metadata fetch,
//     as for a new topic;
//   - refusals as Kafka numbers them: UNKNOWN_TOPIC_OR_PARTITION,
//     INVALID_PARTITIONS for a Count not above the topic's partitions,
//     INVALID_REPLICATION_FACTOR when the active brokers are too few; an
//     Assignment the controller refuses is INVALID_REQUEST where Kafka
//     answers INVALID_REPLICA_ASSIGNMENT, which wire's table lacks;
//     ValidateOnly checks all that at the controller and adds nothing;
//   - one topic per request: the first is sent to the controller, any
//     other answered INVALID_REQUEST ("one topic per CreatePartitions
//     request"), a topic named twice INVALID_REQUEST for each (as Kafka);
//   - TimeoutMillis is not waited on: the answer comes when the
//     controller has committed.

// oneTopicPerCreatePartitions is the message of every topic but the first.
const oneTopicPerCreatePartitions = "one topic per CreatePartitions request: kaenlog's controller adds partitions to one topic at a time"

func init() {
	regKey(&api{key: createPartitionsKey, name: "CreatePartitions", min: 0, max: 3, decode: decodeCreatePartitions, encode: encodeCreatePartitions, shape: createPartitionsShape})
}

// createPartitionsShape is a CreatePartitions request's layout, v0-v3
// (kmsg's CreatePartitionsRequest).
func createPartitionsShape(_ int16, flexible bool) shape {
	assignment := append(shape{array(fixedBytes(4))}, tagsIf(flexible)...)                // Replicas
	topic := append(shape{str, fixedBytes(4), array(assignment...)}, tagsIf(flexible)...) // Topic, Count, Assignment (nullable)
	s := shape{array(topic...), fixedBytes(4 + 1)}                                        // Topics, TimeoutMillis, ValidateOnly
	return append(s, tagsIf(flexible)...)
}

// createPartitionsPlan is what the listener makes of a request: each
// topic's local answer, and the one topic (forward, -1 for none) sent to
// the controller. A function of the request alone, so decode and encode
// compute the same one.
type createPartitionsPlan struct {
	answers []kmsg.CreatePartitionsResponseTopic
	forward int
	req     wire.CreatePartitionsRequest
}

func planCreatePartitions(kr *kmsg.CreatePartitionsRequest, corr int32) createPartitionsPlan {
	plan := createPartitionsPlan{forward: -1, answers: make([]kmsg.CreatePartitionsResponseTopic, len(kr.Topics))}
	count := map[string]int{}
	for _, t := range kr.Topics {
		count[t.Topic]++
	}
	for i, t := range kr.Topics {
		a := kmsg.NewCreatePartitionsResponseTopic()
		a.Topic = t.Topic
		refuse := func(msg string) {
			a.ErrorCode, a.ErrorMessage = kafkaCode(wire.CodeInvalidRequest), &msg
		}
		switch {
		case count[t.Topic] > 1:
			refuse(duplicateTopicInList)
		case plan.forward >= 0:
			refuse(oneTopicPerCreatePartitions)
		default:
			plan.forward = i
			plan.req = wire.CreatePartitionsRequest{CorrelationID: corr, Topic: t.Topic, Count: t.Count, ValidateOnly: kr.ValidateOnly}
			for _, as := range t.Assignment {
				plan.req.Assignment = append(plan.req.Assignment, as.Replicas)
			}
		}
		plan.answers[i] = a
	}
	return plan
}

func decodeCreatePartitions(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	plan := planCreatePartitions(st.kreq.(*kmsg.CreatePartitionsRequest), st.corr)
	if plan.forward < 0 {
		resp := kmsg.NewPtrCreatePartitionsResponse()
		resp.Topics = plan.answers
		st.local = resp
		return nil, errLocal
	}
	m := plan.req
	return &m, nil
}

func encodeCreatePartitions(_ *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.CreatePartitionsResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to a CreatePartitions", m.APIKey())
	}
	plan := planCreatePartitions(st.kreq.(*kmsg.CreatePartitionsRequest), st.corr)
	resp := kmsg.NewPtrCreatePartitionsResponse()
	resp.Topics = plan.answers
	if plan.forward >= 0 && w.ErrorCode != wire.CodeNone {
		a := &resp.Topics[plan.forward]
		msg := w.ErrorMessage
		a.ErrorCode, a.ErrorMessage = kafkaCode(w.ErrorCode), &msg
	}
	return resp, nil
}
