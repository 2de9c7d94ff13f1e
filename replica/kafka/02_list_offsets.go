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
//     watermark lags the start of its epoch (KIP-207); both answer
//     timestamp -1;
//   - a timestamp >= 0 is a lookup by time: the first record whose
//     timestamp is at least it, answered with that record's timestamp
//     and its batch's leader epoch; -3 (KIP-734) the first record with
//     the largest timestamp. Both only below the high watermark: where
//     no committed record qualifies the answer is offset -1 and
//     timestamp -1 with no error, as Kafka answers;
//   - -3 is answered at every served version: Kafka's clients send it
//     only from v7 (flexible, not advertised yet: see the package doc),
//     but its broker, like this listener, does not check the version;
//   - -4 (KIP-405's earliest local offset) is the log start offset, as
//     Kafka answers it for a topic without tiered storage; other
//     timestamps below -3 (KIP-1005's -5 included, which Kafka's clients
//     send only from v9) are looked up as times, so they answer the first
//     record: kaenlog differs from Kafka there;
//   - read_committed reads the same (no transactions: LSO = HW);
//   - v4+ fences on CurrentLeaderEpoch (FENCED_LEADER_EPOCH,
//     UNKNOWN_LEADER_EPOCH) and answers the leader epoch;
//   - v0 (several offsets per partition) is not advertised: Kafka 4.0
//     dropped it (KIP-896), and librdkafka needs v1.

// earliestLocalTimestamp is KIP-405's EARLIEST_LOCAL_TIMESTAMP.
const earliestLocalTimestamp = -4

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
			ts := p.Timestamp
			if ts == earliestLocalTimestamp { // no tiered storage: the local log is the log
				ts = wire.EarliestTimestamp
			}
			m.Partitions = append(m.Partitions, wire.ListOffsetsPartition{Topic: t.Topic, Partition: p.Partition, CurrentLeaderEpoch: epoch, Timestamp: ts})
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
		if p.ErrorCode == wire.CodeNone && p.Found { // not found: -1 and -1, no error
			rp.Offset, rp.Timestamp, rp.LeaderEpoch = offsetOrNone(p.Offset, true), p.Timestamp, p.LeaderEpoch
		}
		t.Partitions = append(t.Partitions, rp)
	}
	return resp, nil
}
