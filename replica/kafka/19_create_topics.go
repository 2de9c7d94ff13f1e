package kafka

import (
	"fmt"
	"slices"
	"strconv"

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
//   - configs: min.insync.replicas (a positive integer) and
//     unclean.leader.election.enable (true or false); a null value is the
//     default; any other config, or another value, is INVALID_CONFIG;
//   - refusals as Kafka numbers them: TOPIC_ALREADY_EXISTS,
//     INVALID_TOPIC_EXCEPTION, INVALID_PARTITIONS,
//     INVALID_REPLICATION_FACTOR (above the live brokers), a name given
//     twice INVALID_REQUEST for each; ValidateOnly (v1+) checks all that
//     at the controller and creates nothing;
//   - v5+ answers NumPartitions and ReplicationFactor as resolved, v7 the
//     topic id (TopicID); the created topic's Configs (v5+) are not
//     listed: DescribeConfigs answers them;
//   - one topic per request: the first that passes the checks above is
//     created, any other is answered INVALID_REQUEST ("one topic per
//     CreateTopics request") — kaenlog's controller request carries one
//     topic (wire.CreateTopicsRequest). Clients that create several
//     topics send one request each (kadm.Client.CreateTopic);
//   - TimeoutMillis is not waited on: the answer comes when the
//     controller has committed.

// The topic configs the listener applies (Kafka's names).
const (
	configMinISR         = "min.insync.replicas"
	configUncleanLeader  = "unclean.leader.election.enable"
	oneTopicPerRequest   = "one topic per CreateTopics request: kaenlog's controller creates topics one at a time"
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
// topic's local answer, and the one topic (forward, -1 for none) sent to
// the controller. It is a function of the request and the Config only, so
// decode and encode compute the same one.
type createPlan struct {
	answers []kmsg.CreateTopicsResponseTopic
	forward int
	req     wire.CreateTopicsRequest
}

func (c *Codec) planCreateTopics(kr *kmsg.CreateTopicsRequest, corr int32) createPlan {
	plan := createPlan{forward: -1, answers: make([]kmsg.CreateTopicsResponseTopic, len(kr.Topics))}
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
		req, code, msg := c.createRequest(t, kr.ValidateOnly)
		switch {
		case count[t.Topic] > 1:
			refuse(wire.CodeInvalidRequest, "%s", duplicateTopicInList)
		case code != wire.CodeNone:
			refuse(code, "%s", msg)
		case plan.forward >= 0:
			refuse(wire.CodeInvalidRequest, "%s", oneTopicPerRequest)
		default:
			plan.forward, plan.req = i, req
			plan.req.CorrelationID = corr
			a.NumPartitions, a.ReplicationFactor = req.Partitions, req.ReplicationFactor
			if req.Assignment != nil {
				a.NumPartitions, a.ReplicationFactor = int32(len(req.Assignment)), int16(len(req.Assignment[0]))
			}
		}
		plan.answers[i] = a
	}
	return plan
}

// createRequest turns one topic of a CreateTopics request into the
// controller's request, or the refusal the listener answers itself.
func (c *Codec) createRequest(t kmsg.CreateTopicsRequestTopic, validateOnly bool) (wire.CreateTopicsRequest, wire.ErrorCode, string) {
	req := wire.CreateTopicsRequest{Name: t.Topic, Partitions: t.NumPartitions, ReplicationFactor: t.ReplicationFactor, ValidateOnly: validateOnly}
	for _, cfg := range t.Configs {
		if cfg.Value == nil {
			continue // the default
		}
		switch v := *cfg.Value; cfg.Name {
		case configMinISR:
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n < 1 {
				return req, wire.CodeInvalidConfig, fmt.Sprintf("%s = %q: want a positive integer", cfg.Name, v)
			}
			req.MinISR = int32(n)
		case configUncleanLeader:
			b, err := strconv.ParseBool(v)
			if err != nil || (v != "true" && v != "false") {
				return req, wire.CodeInvalidConfig, fmt.Sprintf("%s = %q: want true or false", cfg.Name, v)
			}
			req.UncleanLeaderElection = b
		default:
			return req, wire.CodeInvalidConfig, fmt.Sprintf("config %s: kaenlog applies only %s and %s at creation", cfg.Name, configMinISR, configUncleanLeader)
		}
	}
	if len(t.ReplicaAssignment) > 0 {
		if t.NumPartitions != -1 || t.ReplicationFactor != -1 {
			return req, wire.CodeInvalidRequest, "both a replica assignment and NumPartitions or ReplicationFactor: one or the other"
		}
		as := slices.Clone(t.ReplicaAssignment)
		slices.SortFunc(as, func(x, y kmsg.CreateTopicsRequestTopicReplicaAssignment) int {
			return int(x.Partition) - int(y.Partition)
		})
		req.Partitions, req.ReplicationFactor = 0, 0
		for p, a := range as {
			if a.Partition != int32(p) {
				return req, wire.CodeInvalidRequest, "the assignment's partitions are not numbered 0 to n-1"
			}
			req.Assignment = append(req.Assignment, a.Replicas)
		}
		return req, wire.CodeNone, ""
	}
	if req.Partitions == -1 {
		req.Partitions = c.defaultPartitions()
	}
	if req.ReplicationFactor == -1 {
		req.ReplicationFactor = c.defaultReplicationFactor()
	}
	return req, wire.CodeNone, ""
}

func decodeCreateTopics(c *Codec, st *request, _ *server.Request) (wire.Message, error) {
	plan := c.planCreateTopics(st.kreq.(*kmsg.CreateTopicsRequest), st.corr)
	if plan.forward < 0 {
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
	if plan.forward >= 0 {
		a := &resp.Topics[plan.forward]
		if w.ErrorCode != wire.CodeNone {
			msg := w.ErrorMessage
			a.ErrorCode, a.ErrorMessage, a.NumPartitions, a.ReplicationFactor = kafkaCode(w.ErrorCode), &msg, -1, -1
		} else {
			a.TopicID = TopicID(a.Topic)
		}
	}
	return resp, nil
}
