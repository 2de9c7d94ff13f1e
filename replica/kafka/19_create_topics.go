package kafka

import (
	"fmt"
	"slices"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// CreateTopics (key 19), v0-v7 (Kafka's newest).
//
// Behavior:
//   - the broker forwards the creation to the controller (as it forwards
//     InitProducerID), which places the replicas and commits the topic;
//     the answer comes once it is in the metadata log, and brokers learn
//     it within a metadata fetch;
//   - NumPartitions -1 is Config.DefaultPartitions, ReplicationFactor -1
//     Config.DefaultReplicationFactor (KIP-464); explicit
//     ReplicaAssignment with NumPartitions and ReplicationFactor -1, its
//     partitions numbered 0 to n-1 (INVALID_REQUEST otherwise, where Kafka
//     answers INVALID_REPLICA_ASSIGNMENT, which wire's table lacks);
//   - configs are passed to the controller by Kafka's names, which
//     checks each (INVALID_CONFIG for one it does not know or a value out
//     of its range); a null value is the default, as if not given;
//   - refusals as Kafka numbers them: TOPIC_ALREADY_EXISTS,
//     INVALID_TOPIC_EXCEPTION, INVALID_PARTITIONS,
//     INVALID_REPLICATION_FACTOR (above the live brokers), a name given
//     twice INVALID_REQUEST for each; ValidateOnly (v1+) checks all that
//     at the controller and creates nothing;
//   - v5+ answers NumPartitions and ReplicationFactor as resolved, v7 the
//     topic id (TopicID); the created topic's Configs (v5+) are not
//     listed: DescribeConfigs answers them;
//   - every topic that passes the listener's own checks goes to the
//     controller in one wire.CreateTopicsRequest, which answers each;
//   - TimeoutMillis is not waited on: the answer comes when the
//     controller has committed.

// The topic configs the listener reports (Kafka's names).
const (
	configMinISR         = "min.insync.replicas"
	configUncleanLeader  = "unclean.leader.election.enable"
	duplicateTopicInList = "the topic is named more than once in the request"
)

func init() {
	regKey(&api{key: createTopicsKey, name: "CreateTopics", min: 0, max: 7, decode: decodeCreateTopics, encode: encodeCreateTopics, shape: createTopicsShape})
}

// createTopicsShape is a CreateTopics request's layout, v0-v7 (kmsg's
// CreateTopicsRequest).
func createTopicsShape(version int16, flexible bool) shape {
	assignment := append(shape{fixedBytes(4), array(fixedBytes(4))}, tagsIf(flexible)...) // Partition, Replicas
	config := append(shape{str, str}, tagsIf(flexible)...)                                // Name, Value (nullable)
	topic := append(shape{str, fixedBytes(4 + 2), array(assignment...), array(config...)}, tagsIf(flexible)...)
	s := shape{array(topic...), fixedBytes(4)} // Topics, TimeoutMillis
	if version >= 1 {
		s = append(s, fixedBytes(1)) // ValidateOnly
	}
	return append(s, tagsIf(flexible)...)
}

// createPlan is what the listener makes of a CreateTopics request: each
// topic's local answer, and the topics sent to the controller (forward
// holds their indexes in the request). It is a function of the request
// and the Config only, so decode and encode compute the same one.
type createPlan struct {
	answers []kmsg.CreateTopicsResponseTopic
	forward []int
	req     wire.CreateTopicsRequest
}

func (c *Codec) planCreateTopics(kr *kmsg.CreateTopicsRequest, corr int32) createPlan {
	plan := createPlan{answers: make([]kmsg.CreateTopicsResponseTopic, len(kr.Topics))}
	plan.req = wire.CreateTopicsRequest{CorrelationID: corr, ValidateOnly: kr.ValidateOnly}
	count := map[string]int{}
	for _, t := range kr.Topics {
		count[t.Topic]++
	}
	for i, t := range kr.Topics {
		a := kmsg.NewCreateTopicsResponseTopic()
		a.Topic, a.NumPartitions, a.ReplicationFactor = t.Topic, -1, -1
		refuse := func(code wire.ErrorCode, format string, args ...any) {
			msg := fmt.Sprintf(format, args...)
			a.ErrorCode, a.ErrorMessage = kafkaCode(code), &msg
		}
		ct, code, msg := c.createRequest(t)
		switch {
		case count[t.Topic] > 1:
			refuse(wire.CodeInvalidRequest, "%s", duplicateTopicInList)
		case code != wire.CodeNone:
			refuse(code, "%s", msg)
		default:
			plan.forward = append(plan.forward, i)
			plan.req.Topics = append(plan.req.Topics, ct)
		}
		plan.answers[i] = a
	}
	return plan
}

// createRequest turns one topic of a CreateTopics request into the
// controller's, or the refusal the listener answers itself.
func (c *Codec) createRequest(t kmsg.CreateTopicsRequestTopic) (wire.CreatableTopic, wire.ErrorCode, string) {
	ct := wire.CreatableTopic{Name: t.Topic, Partitions: t.NumPartitions, ReplicationFactor: t.ReplicationFactor}
	for _, cfg := range t.Configs {
		if cfg.Value == nil {
			continue // the default
		}
		ct.Configs = append(ct.Configs, wire.TopicConfig{Name: cfg.Name, Value: *cfg.Value})
	}
	if len(t.ReplicaAssignment) > 0 {
		if t.NumPartitions != -1 || t.ReplicationFactor != -1 {
			return ct, wire.CodeInvalidRequest, "both a replica assignment and NumPartitions or ReplicationFactor: one or the other"
		}
		as := slices.Clone(t.ReplicaAssignment)
		slices.SortFunc(as, func(x, y kmsg.CreateTopicsRequestTopicReplicaAssignment) int {
			return int(x.Partition) - int(y.Partition)
		})
		ct.Partitions, ct.ReplicationFactor = 0, 0
		for p, a := range as {
			if a.Partition != int32(p) {
				return ct, wire.CodeInvalidRequest, "the assignment's partitions are not numbered 0 to n-1"
			}
			ct.Assignment = append(ct.Assignment, a.Replicas)
		}
		return ct, wire.CodeNone, ""
	}
	if ct.Partitions == -1 {
		ct.Partitions = c.defaultPartitions()
	}
	if ct.ReplicationFactor == -1 {
		ct.ReplicationFactor = c.defaultReplicationFactor()
	}
	return ct, wire.CodeNone, ""
}

func decodeCreateTopics(c *Codec, st *request, _ *server.Request) (wire.Message, error) {
	plan := c.planCreateTopics(st.kreq.(*kmsg.CreateTopicsRequest), st.corr)
	if len(plan.forward) == 0 {
		resp := kmsg.NewPtrCreateTopicsResponse()
		resp.Topics = plan.answers
		st.local = resp
		return nil, errLocal
	}
	m := plan.req
	return &m, nil
}

func encodeCreateTopics(c *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.CreateTopicsResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to a CreateTopics", m.APIKey())
	}
	plan := c.planCreateTopics(st.kreq.(*kmsg.CreateTopicsRequest), st.corr)
	resp := kmsg.NewPtrCreateTopicsResponse()
	resp.Topics = plan.answers
	for j, i := range plan.forward {
		a := &resp.Topics[i]
		code, msg := w.ErrorCode, w.ErrorMessage
		switch {
		case code != wire.CodeNone:
		case j >= len(w.Topics) || w.Topics[j].Name != a.Topic:
			code, msg = wire.CodeUnknownServerError, "the controller's answer does not name this topic"
		default:
			r := w.Topics[j]
			code, msg = r.ErrorCode, r.ErrorMessage
			if code == wire.CodeNone {
				a.NumPartitions, a.ReplicationFactor, a.TopicID = r.Partitions, r.ReplicationFactor, TopicID(a.Topic)
			}
		}
		if code != wire.CodeNone {
			a.ErrorCode, a.ErrorMessage = kafkaCode(code), &msg
		}
	}
	return resp, nil
}
