package kafka

import (
	"fmt"
	"math"

	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Fetch (key 1), v4-v12.
//
// Behavior:
//   - always a consumer's fetch: the ReplicaID a request carries is
//     ignored (followers fetch on kaenlog's own protocol and port), so it
//     reads up to the high watermark and never moves it;
//   - the broker's parked fetch is the long poll: answered once MinBytes
//     are past the fetch offsets (a move of the high watermark counts),
//     the leadership changes, or MaxWaitMillis ends;
//   - KIP-74: MaxBytes bounds the whole response and PartitionMaxBytes
//     each partition, the first batch whole however large;
//   - HighWatermark, LastStableOffset (= the high watermark: no
//     transactions, so read_committed reads what read_uncommitted reads)
//     and LogStartOffset; a partition in error answers -1 for each, as
//     Kafka does;
//   - fetch sessions (KIP-227) are answered as full fetches: SessionID 0,
//     which tells a client to send every partition each time;
//     ForgottenTopics, which only an incremental fetch carries, is ignored;
//   - a negative FetchOffset is OFFSET_OUT_OF_RANGE;
//   - v12 (flexible): a LastFetchedEpoch >= 0 is checked against the
//     leader's epoch cache for a consumer as for a follower, as Kafka's
//     Partition.readRecords does (KIP-320): a fetch whose epoch ended on
//     the leader below its FetchOffset, or that the leader's epochs place
//     at an older epoch, is answered DivergingEpoch (that epoch and its
//     end offset) and no records; an epoch the leader cannot place
//     (it has none) is OFFSET_OUT_OF_RANGE. kaenlog's epoch lookup
//     places an epoch above the leader's latest at the latest
//     (epoch.EndOffsetForEpoch), where Kafka's answers OFFSET_OUT_OF_RANGE;
//   - CurrentLeader is left -1/-1: Kafka writes it to a fetch response
//     only from v16 (KIP-951, with NodeEndpoints), which is not
//     advertised; PreferredReadReplica is -1 (no rack awareness);
//   - v13+ (topic ids) is not advertised: the wire fetch names topics,
//     and an id the image cannot map would need UNKNOWN_TOPIC_ID, which
//     wire's error table lacks; v0-v3 (before RecordBatch v2) are not
//     either, as Kafka 4.0 (KIP-896).

func init() {
	regKey(&api{key: fetchKey, name: "Fetch", min: 4, max: 12, decode: decodeFetch, encode: encodeFetch, shape: fetchShape})
}

// fetchShape is a fetch request's layout, v4-v12 (kmsg's FetchRequest).
func fetchShape(version int16, flexible bool) shape {
	head := 4 + 4 + 4 + 4 + 1 // ReplicaID, MaxWaitMillis, MinBytes, MaxBytes, IsolationLevel
	if version >= 7 {
		head += 4 + 4 // SessionID, SessionEpoch
	}
	partition := 4 + 8 + 4 // Partition, FetchOffset, PartitionMaxBytes
	if version >= 5 {
		partition += 8 // LogStartOffset
	}
	if version >= 9 {
		partition += 4 // CurrentLeaderEpoch
	}
	if version >= 12 {
		partition += 4 // LastFetchedEpoch
	}
	topic := append(shape{str, array(append(shape{fixedBytes(partition)}, tagsIf(flexible)...)...)}, tagsIf(flexible)...)
	s := shape{fixedBytes(head), array(topic...)}
	if version >= 7 {
		s = append(s, array(append(shape{str, array(fixedBytes(4))}, tagsIf(flexible)...)...)) // ForgottenTopics
	}
	if version >= 11 {
		s = append(s, str) // Rack
	}
	return append(s, tagsIf(flexible)...)
}

func decodeFetch(_ *Codec, st *request, r *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.FetchRequest)
	m := r.Fetch
	parts := m.Partitions[:0]
	for _, t := range kr.Topics {
		for _, p := range t.Partitions {
			offset := uint64(math.MaxUint64) // past every log end: OFFSET_OUT_OF_RANGE
			if p.FetchOffset >= 0 {
				offset = uint64(p.FetchOffset)
			}
			epoch, lastFetched := wire.NoEpoch, wire.NoEpoch
			if st.version >= 9 && p.CurrentLeaderEpoch >= 0 {
				epoch = p.CurrentLeaderEpoch
			}
			if st.version >= 12 && p.LastFetchedEpoch >= 0 {
				lastFetched = p.LastFetchedEpoch
			}
			parts = append(parts, wire.FetchPartition{
				Topic: t.Topic, Partition: p.Partition, CurrentLeaderEpoch: epoch,
				FetchOffset: offset, LastFetchedEpoch: lastFetched, MaxBytes: max(p.PartitionMaxBytes, 0),
			})
		}
	}
	maxBytes := kr.MaxBytes
	if st.version < 3 || maxBytes < 0 {
		maxBytes = math.MaxInt32
	}
	*m = wire.FetchRequest{
		CorrelationID: st.corr, ReplicaID: wire.ConsumerReplicaID, ReplicaEpoch: -1,
		MaxWaitMs: max(kr.MaxWaitMillis, 0), MinBytes: max(kr.MinBytes, 0), MaxBytes: maxBytes, Partitions: parts,
	}
	return m, nil
}

func encodeFetch(_ *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, ok := m.(*wire.FetchResponse)
	if !ok {
		return nil, fmt.Errorf("kafka: a %v answer to a Fetch", m.APIKey())
	}
	resp := kmsg.NewPtrFetchResponse()
	resp.ErrorCode = kafkaCode(w.ErrorCode)
	for i := range w.Partitions {
		p := &w.Partitions[i]
		if n := len(resp.Topics); n == 0 || resp.Topics[n-1].Topic != p.Topic {
			t := kmsg.NewFetchResponseTopic()
			t.Topic = p.Topic
			resp.Topics = append(resp.Topics, t)
		}
		t := &resp.Topics[len(resp.Topics)-1]
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p.Partition, kafkaCode(p.ErrorCode)
		rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = -1, -1, -1
		// No records are empty records, never null: librdkafka 2.0.2
		// refuses a null record set ("invalid MessageSetSize -1"), and
		// Kafka answers MemoryRecords.EMPTY.
		rp.RecordBatches = []byte{}
		if p.ErrorCode == wire.CodeNone {
			rp.HighWatermark = offsetOrNone(p.HighWatermark, true)
			rp.LastStableOffset = rp.HighWatermark
			rp.LogStartOffset = offsetOrNone(p.LogStartOffset, true)
			if p.Records != nil {
				rp.RecordBatches = p.Records
			}
		}
		if p.HasDivergingEpoch {
			rp.DivergingEpoch.Epoch, rp.DivergingEpoch.EndOffset = p.DivergingEpoch.Epoch, offsetOrNone(p.DivergingEpoch.EndOffset, true)
		}
		rp.PreferredReadReplica = -1
		t.Partitions = append(t.Partitions, rp)
	}
	return resp, nil
}
