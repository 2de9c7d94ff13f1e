package kafka

import (
	"fmt"
	"slices"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListPartitionReassignments (key 46), v0 (Kafka's newest).
//
// Behavior:
//   - the broker forwards the request to the controller, which answers
//     with every partition of the asked-for topics (all for null topics)
//     whose reassignment is in flight: its replicas, adding and removing
//     replicas (KIP-455); the listener keeps the asked-for partitions;
//   - a partition asked for that is not being reassigned (or does not
//     exist) is left out, as Kafka leaves it out.

func init() {
	regKey(&api{key: listPartitionReassignmentsKey, name: "ListPartitionReassignments", min: 0, max: 0,
		decode: decodeListPartitionReassignments, encode: encodeListPartitionReassignments, shape: listPartitionReassignmentsShape})
}

// listPartitionReassignmentsShape is the request's layout, v0 (flexible).
func listPartitionReassignmentsShape(_ int16, flexible bool) shape {
	topic := append(shape{str, array(fixedBytes(4))}, tagsIf(flexible)...) // Topic, Partitions
	s := shape{fixedBytes(4), array(topic...)}                             // TimeoutMillis, Topics (nullable)
	return append(s, tagsIf(flexible)...)
}

func decodeListPartitionReassignments(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.ListPartitionReassignmentsRequest)
	m := &wire.ListPartitionReassignmentsRequest{CorrelationID: st.corr}
	for _, t := range kr.Topics {
		if !slices.Contains(m.Topics, t.Topic) {
			m.Topics = append(m.Topics, t.Topic)
		}
	}
	if kr.Topics != nil && len(m.Topics) == 0 {
		st.local = kmsg.NewPtrListPartitionReassignmentsResponse() // none asked for
		return nil, errLocal
	}
	return m, nil
}

func encodeListPartitionReassignments(_ *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.ListPartitionReassignmentsResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to a ListPartitionReassignments", m.APIKey())
	}
	kr := st.kreq.(*kmsg.ListPartitionReassignmentsRequest)
	asked := func(topic string, p int32) bool {
		if kr.Topics == nil {
			return true
		}
		return slices.ContainsFunc(kr.Topics, func(t kmsg.ListPartitionReassignmentsRequestTopic) bool {
			return t.Topic == topic && slices.Contains(t.Partitions, p)
		})
	}
	resp := kmsg.NewPtrListPartitionReassignmentsResponse()
	resp.ErrorCode = kafkaCode(w.ErrorCode)
	for _, r := range w.Reassignments {
		if !asked(r.Topic, r.Partition) {
			continue
		}
		if n := len(resp.Topics); n == 0 || resp.Topics[n-1].Topic != r.Topic {
			rt := kmsg.NewListPartitionReassignmentsResponseTopic()
			rt.Topic = r.Topic
			resp.Topics = append(resp.Topics, rt)
		}
		rp := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
		rp.Partition, rp.Replicas, rp.AddingReplicas, rp.RemovingReplicas = r.Partition, r.Replicas, r.AddingReplicas, r.RemovingReplicas
		for _, l := range []*[]int32{&rp.Replicas, &rp.AddingReplicas, &rp.RemovingReplicas} {
			if *l == nil {
				*l = []int32{} // an array, never null, in Kafka's answer
			}
		}
		t := &resp.Topics[len(resp.Topics)-1]
		t.Partitions = append(t.Partitions, rp)
	}
	return resp, nil
}
