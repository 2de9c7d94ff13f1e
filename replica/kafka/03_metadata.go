package kafka

import (
	"crypto/sha256"
	"fmt"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Metadata (key 3), v0-v11.
//
// Behavior:
//   - answered by the broker from its metadata image (any broker, as in
//     Kafka), which lags the controller by at most one metadata fetch;
//   - Brokers: every registered, unfenced broker that has a Kafka
//     listener, at the endpoint it registered (BrokerConfig.KafkaEndpoint);
//   - ControllerID is the answering broker: Kafka's clients cannot reach
//     kaenlog's controller, and every broker forwards CreateTopics and
//     DeleteTopics to it (a KRaft broker names a random live broker);
//   - per partition: the leader (-1 and LEADER_NOT_AVAILABLE when there is
//     none), the leader epoch, the replicas, the real ISR the controller
//     committed, and as OfflineReplicas the replicas whose broker is not
//     registered or is fenced. KIP-966's ELR is not in Metadata at any
//     version (Kafka has it in DescribeTopicPartitions, not served);
//   - IsInternal (v1+) marks __consumer_offsets, as Kafka's
//     Topic.isInternal does: clients leave internal topics out of their
//     wildcard subscriptions by it;
//   - topic ids (v10+) are derived from the name (TopicID), the same on
//     every broker: kaenlog's metadata has none of its own;
//   - a v10 or v11 request that names a topic by id, or leaves a name
//     null, is answered INVALID_REQUEST for each topic it names, with no
//     brokers, as Kafka's KafkaApis refuses it (topic ids in requests
//     come with v12);
//   - an unknown topic is UNKNOWN_TOPIC_OR_PARTITION; with
//     Config.AutoCreateTopics (auto.create.topics.enable) and
//     AllowAutoTopicCreation (v4+; always at v0-v3) the broker creates it
//     through the controller with Config.DefaultPartitions and
//     DefaultReplicationFactor and answers LEADER_NOT_AVAILABLE (retriable)
//     until its image has it, as Kafka does; a creation the controller
//     refused (INVALID_REPLICATION_FACTOR, INVALID_TOPIC_EXCEPTION) is
//     answered with that refusal once, then tried again;
//   - v12 (topics named by id) is not advertised: Kafka answers an id it
//     does not know UNKNOWN_TOPIC_ID, which wire's error table lacks;
//     v13 (KIP-1102's top-level error code) neither, as it comes after.

func init() {
	regKey(&api{key: metadataKey, name: "Metadata", min: 0, max: 11, decode: decodeMetadata, encode: encodeMetadata, shape: metadataShape})
}

// metadataShape is a Metadata request's layout, v0-v11 (kmsg's
// MetadataRequest).
func metadataShape(version int16, flexible bool) shape {
	topic := shape{str}
	if version >= 10 {
		topic = shape{fixedBytes(16), str} // TopicID, Topic
	}
	s := shape{array(append(topic, tagsIf(flexible)...)...)}
	tail := 0
	if version >= 4 {
		tail++ // AllowAutoTopicCreation
	}
	if version >= 8 && version <= 10 {
		tail++ // IncludeClusterAuthorizedOperations
	}
	if version >= 8 {
		tail++ // IncludeTopicAuthorizedOperations
	}
	return append(append(s, fixedBytes(tail)), tagsIf(flexible)...)
}

// TopicID is the Kafka topic id the listener gives topic: the first 16
// bytes of SHA-256("kaenlog topic id\x00" + name), marked as an RFC 9562
// version 8 UUID. kaenlog's metadata log has no topic ids of its own; a
// name's id is stable across brokers and restarts. A topic deleted and
// created again under its name gets the same id (kaenlog's own identity
// for it, controller.Topic.CreatedOffset, is not in the id).
func TopicID(topic string) [16]byte {
	sum := sha256.Sum256([]byte("kaenlog topic id\x00" + topic))
	var id [16]byte
	copy(id[:], sum[:16])
	id[6] = id[6]&0x0f | 0x80
	id[8] = id[8]&0x3f | 0x80
	return id
}

func decodeMetadata(c *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.MetadataRequest)
	m := &wire.MetadataRequest{CorrelationID: st.corr}
	all := kr.Topics == nil || (st.version == 0 && len(kr.Topics) == 0)
	if all {
		return m, nil
	}
	m.Topics = []string{}
	for _, t := range kr.Topics {
		if t.Topic == nil || t.TopicID != ([16]byte{}) {
			return nil, refuseMetadata(st, kr)
		}
		m.Topics = append(m.Topics, *t.Topic)
	}
	if c.cfg.AutoCreateTopics && (st.version < 4 || kr.AllowAutoTopicCreation) {
		m.AutoCreate = wire.AutoCreate{Partitions: c.defaultPartitions(), ReplicationFactor: c.defaultReplicationFactor()}
	}
	return m, nil
}

// refuseMetadata answers a request naming topics by id before v12 as
// Kafka's MetadataRequest.getErrorResponse does: each topic it names
// with INVALID_REQUEST, a null name as "", nothing else.
func refuseMetadata(st *request, kr *kmsg.MetadataRequest) error {
	resp := kmsg.NewPtrMetadataResponse()
	resp.Topics = make([]kmsg.MetadataResponseTopic, 0, len(kr.Topics)) // one allocation: a request may name 1<<16
	noName := new(string)
	for _, t := range kr.Topics {
		rt := kmsg.NewMetadataResponseTopic()
		rt.Topic = t.Topic
		if rt.Topic == nil {
			rt.Topic = noName
		}
		rt.TopicID, rt.ErrorCode = t.TopicID, kafkaCode(wire.CodeInvalidRequest)
		rt.Partitions = []kmsg.MetadataResponseTopicPartition{}
		resp.Topics = append(resp.Topics, rt)
	}
	st.local = resp
	return errLocal
}

func encodeMetadata(c *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.MetadataResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to a Metadata", m.APIKey())
	}
	resp := kmsg.NewPtrMetadataResponse()
	resp.ClusterID = &c.cfg.ClusterID
	resp.ControllerID = -1
	if _, ok := c.broker(c.b.ID()); ok {
		// Kafka's clients send admin requests to the controller; any
		// broker forwards them to kaenlog's, so the answering broker is
		// named, as a KRaft broker names a random live broker
		// (KRaftMetadataCache.getRandomAliveBrokerId).
		resp.ControllerID = c.b.ID()
	}
	live := map[int32]bool{}
	for _, b := range w.Brokers {
		if b.Fenced {
			continue
		}
		live[b.ID] = true
		if kb, ok := c.broker(b.ID); ok {
			rb := kmsg.NewMetadataResponseBroker()
			rb.NodeID, rb.Host, rb.Port = kb.id, kb.host, kb.port
			resp.Brokers = append(resp.Brokers, rb)
		}
	}
	for i := range w.Topics {
		t := &w.Topics[i]
		rt := kmsg.NewMetadataResponseTopic()
		name := t.Name
		rt.Topic, rt.ErrorCode = &name, kafkaCode(t.ErrorCode)
		rt.IsInternal = t.Name == replica.OffsetsTopic
		if t.ErrorCode == wire.CodeNone {
			rt.TopicID = TopicID(t.Name)
		}
		for j := range t.Partitions {
			p := &t.Partitions[j]
			rp := kmsg.NewMetadataResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, kafkaCode(p.ErrorCode)
			rp.Leader, rp.LeaderEpoch = p.Leader, p.LeaderEpoch
			rp.Replicas, rp.ISR = nonNil(p.Replicas), nonNil(p.ISR)
			rp.OfflineReplicas = []int32{}
			for _, r := range p.Replicas {
				if !live[r] {
					rp.OfflineReplicas = append(rp.OfflineReplicas, r)
				}
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}

// nonNil returns ids, or an empty list for none (Kafka's arrays are not
// nullable here).
func nonNil(ids []int32) []int32 {
	if ids == nil {
		return []int32{}
	}
	return ids
}
