package kafka

import (
	"fmt"
	"net"
	"strconv"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Produce (key 0), v0-v12 advertised, v3-v12 served.
//
// Behavior:
//   - v0-v2 (message formats v0/v1) are advertised, as Kafka 4.0 does
//     (KAFKA-18659), because librdkafka up to 2.11.0 turns compression off
//     against a broker whose Produce range does not start at 0; every
//     partition of such a request is answered UNSUPPORTED_VERSION;
//   - the records go to the broker's produce path unchanged: acks 0, 1 and
//     all on its produce purgatory, NOT_ENOUGH_REPLICAS before the append
//     and NOT_ENOUGH_REPLICAS_AFTER_APPEND after it, an idempotent
//     producer's retries on its dedupe window (a duplicate is answered
//     with the original offsets); Kafka's numbers come from wire's table;
//   - acks=0 is never answered; a refused acks=0 produce closes the
//     connection, as Kafka does;
//   - v10+ (KIP-951): NOT_LEADER_OR_FOLLOWER carries the leader and epoch
//     the broker's metadata image knows (CurrentLeader, -1/-1 when it
//     knows none) and, in NodeEndpoints, that leader's Kafka listener
//     when it is registered and unfenced, as Kafka's KafkaApis answers
//     from its metadata cache;
//   - a transactional produce (TransactionID set) is refused per
//     partition with INVALID_REQUEST: kaenlog has no transactions;
//   - ErrorRecords stays empty: the log refuses a batch as a whole and
//     does not name the record;
//   - v11 (TRANSACTION_ABORTABLE) and v12 (KIP-890's implicit
//     AddPartitionsToTxn) change only what a transactional produce gets,
//     which is refused here at every version;
//   - v13 (topic ids instead of names) is not advertised: the wire
//     produce request names topics, and an id the image cannot map
//     would need UNKNOWN_TOPIC_ID, which wire's error table lacks.
//
// Version notes: v3 RecordBatch v2; v5 LogStartOffset; v8 ErrorRecords;
// v9 flexible; v10 CurrentLeader, NodeEndpoints.

// minServedProduce is the oldest Produce version served.
const minServedProduce = 3

func init() {
	regKey(&api{key: produceKey, name: "Produce", min: 0, max: 12, decode: decodeProduce, encode: encodeProduce, shape: produceShape})
}

// produceShape is a produce request's layout (kmsg's ProduceRequest).
func produceShape(version int16, flexible bool) shape {
	var s shape
	if version >= 3 {
		s = append(s, str) // TransactionID
	}
	partition := append(shape{fixedBytes(4), bytesField}, tagsIf(flexible)...)
	topic := append(shape{str, array(partition...)}, tagsIf(flexible)...)
	s = append(s, fixedBytes(2+4), array(topic...)) // Acks, TimeoutMillis, Topics
	return append(s, tagsIf(flexible)...)
}

func decodeProduce(_ *Codec, st *request, r *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.ProduceRequest)
	refuse := wire.CodeNone
	switch {
	case st.version < minServedProduce:
		refuse = wire.CodeUnsupportedVersion
	case kr.TransactionID != nil:
		refuse = wire.CodeInvalidRequest
	}
	if refuse != wire.CodeNone {
		if kr.Acks == wire.AcksNone {
			return nil, closeOn("a refused acks=0 produce")
		}
		resp := kmsg.NewPtrProduceResponse()
		for _, t := range kr.Topics {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition, rp.ErrorCode, rp.BaseOffset = p.Partition, kafkaCode(refuse), -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		st.local = resp
		return nil, errLocal
	}
	m := r.Produce
	parts := m.Partitions[:0]
	for _, t := range kr.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, wire.ProducePartition{Topic: t.Topic, Partition: p.Partition, Records: p.Records})
		}
	}
	*m = wire.ProduceRequest{CorrelationID: st.corr, Acks: kr.Acks, TimeoutMs: max(kr.TimeoutMillis, 0), Partitions: parts}
	return m, nil
}

func encodeProduce(c *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.ProduceResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to a Produce", m.APIKey())
	}
	resp := kmsg.NewPtrProduceResponse()
	leaders := map[int32]bool{}
	for i := range w.Partitions {
		p := &w.Partitions[i]
		if n := len(resp.Topics); n == 0 || resp.Topics[n-1].Topic != p.Topic {
			t := kmsg.NewProduceResponseTopic()
			t.Topic = p.Topic
			resp.Topics = append(resp.Topics, t)
		}
		t := &resp.Topics[len(resp.Topics)-1]
		rp := kmsg.NewProduceResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p.Partition, kafkaCode(p.ErrorCode)
		rp.BaseOffset = offsetOrNone(p.BaseOffset, p.HasBaseOffset)
		rp.LogAppendTime = -1
		rp.LogStartOffset = offsetOrNone(p.LogStartOffset, p.ErrorCode == wire.CodeNone || p.HasBaseOffset)
		if p.ErrorCode == wire.CodeNotLeaderOrFollower && st.version >= 10 {
			if ps, ok := c.b.Image().Partition(p.Topic, p.Partition); ok && ps.Leader >= 0 {
				rp.CurrentLeader.LeaderID, rp.CurrentLeader.LeaderEpoch = ps.Leader, ps.LeaderEpoch
				leaders[ps.Leader] = true
			}
		}
		t.Partitions = append(t.Partitions, rp)
	}
	for id := range leaders {
		if b, ok := c.broker(id); ok {
			rb := kmsg.NewProduceResponseBroker()
			rb.NodeID, rb.Host, rb.Port = b.id, b.host, b.port
			resp.Brokers = append(resp.Brokers, rb)
		}
	}
	return resp, nil
}

// kafkaBroker is a broker as Kafka's responses name it.
type kafkaBroker struct {
	id   int32
	host string
	port int32
}

// broker returns broker id's Kafka listener from the image: ok false when
// it is not registered, fenced, or has no Kafka listener.
func (c *Codec) broker(id int32) (kafkaBroker, bool) {
	reg, ok := c.b.Image().Broker(id)
	if !ok || reg.Fenced || reg.KafkaEndpoint == "" {
		return kafkaBroker{}, false
	}
	host, port, ok := splitEndpoint(reg.KafkaEndpoint)
	return kafkaBroker{id: id, host: host, port: port}, ok
}

// splitEndpoint splits "host:port".
func splitEndpoint(ep string) (string, int32, bool) {
	host, p, err := net.SplitHostPort(ep)
	if err != nil {
		return "", 0, false
	}
	port, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return "", 0, false
	}
	return host, int32(port), true
}
