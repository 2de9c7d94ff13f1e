package kafka

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListOffsets (key 2), v1-v10.
//
// Behavior:
//   - always a consumer's question (the ReplicaID is ignored): -2 (the
//     earliest) is the log start offset, -1 (the latest) the high
//     watermark, or OFFSET_NOT_AVAILABLE while a new leader's high
//     watermark lags the start of its epoch (KIP-207); both answer
//     timestamp -1;
//   - a timestamp >= 0 is a lookup by time: the first record whose
//     timestamp is at least it, answered with that record's timestamp
//     and its batch's leader epoch; -3 (KIP-734, v7) the first record
//     with the largest timestamp. Both only below the high watermark:
//     where no committed record qualifies the answer is offset -1 and
//     timestamp -1 with no error, as Kafka answers;
//   - a partition the request names more than once is answered
//     INVALID_REQUEST at each occurrence, before any other check, as
//     Kafka's ReplicaManager.fetchOffset answers
//     ListOffsetsRequest.duplicatePartitions;
//   - a negative timestamp the version does not have is answered
//     UNSUPPORTED_VERSION for its partition, before any other check, as
//     Kafka's ReplicaManager answers it (isListOffsetsTimestampUnsupported):
//     -1 and -2 from v1, -3 from v7, -4 from v8, -5 from v9, and no other;
//   - -4 (KIP-405's earliest local offset, v8) is the log start offset,
//     as Kafka answers it for a topic without tiered storage;
//   - -5 (KIP-1005's latest tiered offset, v9) is offset -1, timestamp -1
//     and leader epoch -1 with no error once the partition's leadership
//     and epoch checks pass, as Kafka's UnifiedLog answers it without
//     tiered storage;
//   - v10's TimeoutMillis (KIP-1075) bounds Kafka's wait for remote
//     storage: there is none, every answer is immediate, and it is
//     ignored;
//   - read_committed reads the same (no transactions: LSO = HW);
//   - v4+ fences on CurrentLeaderEpoch (FENCED_LEADER_EPOCH,
//     UNKNOWN_LEADER_EPOCH) and answers the leader epoch; below v5,
//     OFFSET_NOT_AVAILABLE is answered LEADER_NOT_AVAILABLE, as Kafka
//     answers clients that predate it;
//   - v0 (several offsets per partition) is not advertised: Kafka 4.0
//     dropped it (KIP-896), and librdkafka needs v1; v11 (KIP-1023's -6,
//     the earliest offset pending upload) is not either: what Kafka
//     answers it without tiered storage was not checked.

// The timestamps of KIP-405 and KIP-1005.
const (
	earliestLocalTimestamp = -4
	latestTieredTimestamp  = -5
)

// timestampSince is the first ListOffsets version of each negative
// timestamp (Kafka's ReplicaManager.timestampMinSupportedVersion).
var timestampSince = map[int64]int16{
	wire.EarliestTimestamp: 1, wire.LatestTimestamp: 1,
	wire.MaxTimestamp: 7, earliestLocalTimestamp: 8, latestTieredTimestamp: 9,
}

// timestampSupported reports whether a ListOffsets request at version
// may ask ts.
func timestampSupported(ts int64, version int16) bool {
	since, ok := timestampSince[ts]
	return ts >= 0 || ok && version >= since
}

func init() {
	regKey(&api{key: listOffsetsKey, name: "ListOffsets", min: 1, max: 10, decode: decodeListOffsets, encode: encodeListOffsets, shape: listOffsetsShape})
}

// listOffsetsShape is a ListOffsets request's layout, v1-v10 (kmsg's
// ListOffsetsRequest).
func listOffsetsShape(version int16, flexible bool) shape {
	head, partition := 4, 4+8 // ReplicaID; Partition, Timestamp
	if version >= 2 {
		head++ // IsolationLevel
	}
	if version >= 4 {
		partition += 4 // CurrentLeaderEpoch
	}
	topic := append(shape{str, array(append(shape{fixedBytes(partition)}, tagsIf(flexible)...)...)}, tagsIf(flexible)...)
	s := shape{fixedBytes(head), array(topic...)}
	if version >= 10 {
		s = append(s, fixedBytes(4)) // TimeoutMillis
	}
	return append(s, tagsIf(flexible)...)
}

func decodeListOffsets(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.ListOffsetsRequest)
	m := &wire.ListOffsetsRequest{CorrelationID: st.corr, ReplicaID: wire.ConsumerReplicaID}
	type tp struct {
		topic     string
		partition int32
	}
	named := map[tp]int{}
	for _, t := range kr.Topics {
		for _, p := range t.Partitions {
			named[tp{t.Topic, p.Partition}]++
		}
	}
	for _, t := range kr.Topics {
		for _, p := range t.Partitions {
			epoch := wire.NoEpoch
			if st.version >= 4 && p.CurrentLeaderEpoch >= 0 {
				epoch = p.CurrentLeaderEpoch
			}
			st.listTimestamps = append(st.listTimestamps, p.Timestamp)
			st.listDuplicated = append(st.listDuplicated, named[tp{t.Topic, p.Partition}] > 1)
			ts := p.Timestamp
			switch {
			case !timestampSupported(ts, st.version): // answered at Frame; the broker's answer is not used
				ts = wire.EarliestTimestamp
			case ts == earliestLocalTimestamp: // no tiered storage: the local log is the log
				ts = wire.EarliestTimestamp
			case ts == latestTieredTimestamp: // nothing is tiered: -1, after the broker's checks
				ts = wire.EarliestTimestamp
			}
			m.Partitions = append(m.Partitions, wire.ListOffsetsPartition{Topic: t.Topic, Partition: p.Partition, CurrentLeaderEpoch: epoch, Timestamp: ts})
		}
	}
	return m, nil
}

func encodeListOffsets(_ *Codec, st *request, m wire.Message) (kmsg.Response, error) {
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
		asked := st.listTimestamps[i] // the broker answers each partition in order
		switch {
		case st.listDuplicated[i]:
			rp.ErrorCode = kafkaCode(wire.CodeInvalidRequest)
		case !timestampSupported(asked, st.version):
			rp.ErrorCode = kafkaCode(wire.CodeUnsupportedVersion)
		case p.ErrorCode == wire.CodeOffsetNotAvailable && st.version < 5:
			rp.ErrorCode = kafkaCode(wire.CodeLeaderNotAvailable)
		case p.ErrorCode == wire.CodeNone && p.Found && asked != latestTieredTimestamp: // not found: -1 and -1, no error
			rp.Offset, rp.Timestamp, rp.LeaderEpoch = offsetOrNone(p.Offset, true), p.Timestamp, p.LeaderEpoch
		}
		t.Partitions = append(t.Partitions, rp)
	}
	return resp, nil
}
