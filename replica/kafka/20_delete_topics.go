package kafka

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteTopics (key 20), v0-v5 (v6 names topics by id: see below).
//
// Behavior:
//   - the broker forwards the deletion to the controller, which removes
//     each topic that exists with a RemoveTopicRecord in its metadata log
//     (all of the request's in one batch) and answers once it is durable;
//     every broker then stops the topic's replicas and deletes their logs
//     from disk, and answers UNKNOWN_TOPIC_OR_PARTITION for them;
//   - a topic that does not exist is UNKNOWN_TOPIC_OR_PARTITION, a name
//     given twice INVALID_REQUEST for each (as Kafka);
//   - v6 (topics named by id) is not implemented: the listener would have
//     to read the metadata image while it decodes, outside the node lock;
//   - TimeoutMillis is not waited on: the answer comes when the
//     controller has committed, and brokers apply it within a metadata
//     fetch (a produce meanwhile may still reach the old replica);
//   - a topic created again under a deleted one's name starts empty.

func init() {
	regKey(&api{key: deleteTopicsKey, name: "DeleteTopics", min: 0, max: 5, decode: decodeDeleteTopics, encode: encodeDeleteTopics, shape: deleteTopicsShape})
}

// deleteTopicsShape is a DeleteTopics request's layout, v0-v5 (kmsg's
// DeleteTopicsRequest; v6's topics by id are not served).
func deleteTopicsShape(_ int16, flexible bool) shape {
	return append(shape{array(str), fixedBytes(4)}, tagsIf(flexible)...) // TopicNames, TimeoutMillis
}

// deleteNames returns the names of kr that go to the controller: each
// named once (a name given twice is the listener's INVALID_REQUEST).
func deleteNames(kr *kmsg.DeleteTopicsRequest) (forward []string, twice map[string]bool) {
	count := map[string]int{}
	for _, n := range kr.TopicNames {
		count[n]++
	}
	twice = map[string]bool{}
	for _, n := range kr.TopicNames {
		if count[n] > 1 {
			twice[n] = true
		} else {
			forward = append(forward, n)
		}
	}
	return forward, twice
}

func decodeDeleteTopics(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.DeleteTopicsRequest)
	forward, _ := deleteNames(kr)
	if len(forward) == 0 {
		resp, err := deleteTopicsResponse(kr, &wire.DeleteTopicsResponse{})
		st.local = resp
		if err != nil {
			return nil, err
		}
		return nil, errLocal
	}
	return &wire.DeleteTopicsRequest{CorrelationID: st.corr, Names: forward}, nil
}

func encodeDeleteTopics(_ *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.DeleteTopicsResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to a DeleteTopics", m.APIKey())
	}
	return deleteTopicsResponse(st.kreq.(*kmsg.DeleteTopicsRequest), w)
}

// deleteTopicsResponse answers every name of kr, in its order: the
// listener's refusal, or the controller's answer in w.
func deleteTopicsResponse(kr *kmsg.DeleteTopicsRequest, w *wire.DeleteTopicsResponse) (*kmsg.DeleteTopicsResponse, error) {
	_, twice := deleteNames(kr)
	answers := map[string]wire.ErrorCode{}
	for _, t := range w.Topics {
		answers[t.Name] = t.ErrorCode
	}
	resp := kmsg.NewPtrDeleteTopicsResponse()
	for _, n := range kr.TopicNames {
		t := kmsg.NewDeleteTopicsResponseTopic()
		name := n
		t.Topic = &name
		switch code, ok := answers[n]; {
		case twice[n]:
			t.ErrorCode = kafkaCode(wire.CodeInvalidRequest)
		case !ok:
			return nil, fmt.Errorf("kafka: the controller did not answer for topic %q", n)
		default:
			t.ErrorCode = kafkaCode(code)
		}
		resp.Topics = append(resp.Topics, t)
	}
	return resp, nil
}
