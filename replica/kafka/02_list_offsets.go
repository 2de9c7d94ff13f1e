package kafka

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListOffsets (key 2), v1-v5 (v6 is flexible: see the package doc).
//
// Behavior:
//   - always a consumer's question (the ReplicaID is ignored): -2 (the
//     earliest) is the log start offset, -1 (the latest) the high
//     watermark, or OFFSET_NOT_AVAILABLE while a new leader's high
//     watermark lags the start of its epoch (KIP-207);
//   - read_committed reads the same (no transactions: LSO = HW);
//   - v4+ fences on CurrentLeaderEpoch (FENCED_LEADER_EPOCH,
//     UNKNOWN_LEADER_EPOCH) and answers the leader epoch;
//   - a lookup by timestamp (>= 0) is INVALID_REQUEST until the log has
//     its time index; for the same reason v7+ (-3, the max timestamp) is
//     not advertised;
//   - v0 (several offsets per partition) is not advertised: Kafka 4.0
//     dropped it (KIP-896), and librdkafka needs v1.

func init() {
	regKey(&api{key: listOffsetsKey, name: "ListOffsets", min: 1, max: 5, decode: decodeListOffsets, encode: encodeListOffsets})
}

func decodeListOffsets(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.ListOffsetsRequest)
	m := &wire.ListOffsetsRequest{CorrelationID: st.corr, ReplicaID: wire.ConsumerReplicaID}
	for _, t := range kr.Topics {
		for _, p := range t.Partitions {
			epoch := wire.NoEpoch
			if st.version >= 4 && p.CurrentLeaderEpoch >= 0 {
				epoch = p.CurrentLeaderEpoch
			}
			m.Partitions = append(m.Partitions, wire.ListOffsetsPartition{Topic: t.Topic, Partition: p.Partition, CurrentLeaderEpoch: epoch, Timestamp: p.Timestamp})
		}
	}
	return m, nil
}

func encodeListOffsets(_ *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.ListOffsetsResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to a ListOffsets", m.APIKey())
	}
	resp := kmsg.NewPtrListOffsetsResponse()
	for i := range w.Partitions {
		p := &w.Partitions[i]
		if n := len(resp.Topics); n == 0 || resp.Topics[n-1].Topic != p.Topic {
			t := kmsg.NewListOffsetsResponseTopic()
			t.Topic = p.Topic
			resp.Topics = append(resp.Topics, t)
		}
		t := &resp.Topics[len(resp.Topics)-1]
		rp := kmsg.NewListOffsetsResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p.Partition, kafkaCode(p.ErrorCode)
		rp.Timestamp, rp.Offset, rp.LeaderEpoch = -1, -1, -1
		if p.ErrorCode == wire.CodeNone {
			rp.Offset, rp.LeaderEpoch = offsetOrNone(p.Offset, true), p.LeaderEpoch
		}
		t.Partitions = append(t.Partitions, rp)
	}
	return resp, nil
}
