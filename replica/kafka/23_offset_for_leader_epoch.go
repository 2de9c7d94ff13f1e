package kafka

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetForLeaderEpoch (key 23), v0-v4 (Kafka's newest).
//
// Behavior:
//   - a consumer's question (KIP-320: ReplicaID -1, or -2 from v3, and
//     every v0-v2 request): answered by the partition's leader from its
//     epoch cache, as it answers its followers (replica's
//     EndOffsetForEpoch): the largest epoch at most the one asked and
//     the end offset of that epoch (the log end for the leader's own
//     epoch), or -1 and -1 for an epoch below the earliest the leader
//     knows, so the client knows where its log diverged;
//   - v2+ fences on CurrentLeaderEpoch: FENCED_LEADER_EPOCH when it is
//     older than the leader's, UNKNOWN_LEADER_EPOCH when newer; a broker
//     that does not lead the partition answers NOT_LEADER_OR_FOLLOWER, one
//     that does not know it UNKNOWN_TOPIC_OR_PARTITION;
//   - v0 answers no leader epoch (the field is v1+);
//   - a ReplicaID >= 0 (a Kafka broker following this one) is answered as
//     a consumer's: Kafka's brokers do not replicate from kaenlog's.

func init() {
	regKey(&api{key: offsetForLeaderEpochKey, name: "OffsetForLeaderEpoch", min: 0, max: 4, decode: decodeOffsetForLeaderEpoch, encode: encodeOffsetForLeaderEpoch, shape: offsetForLeaderEpochShape})
}

// offsetForLeaderEpochShape is an OffsetForLeaderEpoch request's layout,
// v0-v4 (kmsg's OffsetForLeaderEpochRequest).
func offsetForLeaderEpochShape(version int16, flexible bool) shape {
	partition := 4 + 4 // Partition, LeaderEpoch
	if version >= 2 {
		partition += 4 // CurrentLeaderEpoch
	}
	topic := append(shape{str, array(append(shape{fixedBytes(partition)}, tagsIf(flexible)...)...)}, tagsIf(flexible)...)
	var s shape
	if version >= 3 {
		s = append(s, fixedBytes(4)) // ReplicaID
	}
	s = append(s, array(topic...))
	return append(s, tagsIf(flexible)...)
}

func decodeOffsetForLeaderEpoch(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.OffsetForLeaderEpochRequest)
	m := &wire.OffsetsForLeaderEpochRequest{CorrelationID: st.corr, ReplicaID: wire.ConsumerReplicaID}
	for _, t := range kr.Topics {
		for _, p := range t.Partitions {
			current := wire.NoEpoch
			if st.version >= 2 && p.CurrentLeaderEpoch >= 0 {
				current = p.CurrentLeaderEpoch
			}
			asked := p.LeaderEpoch
			if asked < wire.NoEpoch {
				asked = wire.NoEpoch
			}
			m.Partitions = append(m.Partitions, wire.OffsetsForLeaderEpochPartition{
				Topic: t.Topic, Partition: p.Partition, CurrentLeaderEpoch: current, LeaderEpoch: asked,
			})
		}
	}
	return m, nil
}

func encodeOffsetForLeaderEpoch(_ *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.OffsetsForLeaderEpochResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to an OffsetForLeaderEpoch", m.APIKey())
	}
	resp := kmsg.NewPtrOffsetForLeaderEpochResponse()
	for i := range w.Partitions {
		p := &w.Partitions[i]
		if n := len(resp.Topics); n == 0 || resp.Topics[n-1].Topic != p.Topic {
			t := kmsg.NewOffsetForLeaderEpochResponseTopic()
			t.Topic = p.Topic
			resp.Topics = append(resp.Topics, t)
		}
		t := &resp.Topics[len(resp.Topics)-1]
		rp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p.Partition, kafkaCode(p.ErrorCode)
		rp.LeaderEpoch, rp.EndOffset = -1, -1
		if p.ErrorCode == wire.CodeNone && p.Found {
			rp.LeaderEpoch, rp.EndOffset = p.Epoch, offsetOrNone(p.EndOffset, true)
		}
		t.Partitions = append(t.Partitions, rp)
	}
	return resp, nil
}
