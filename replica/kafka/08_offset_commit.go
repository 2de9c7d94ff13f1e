package kafka

import (
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetCommit (key 8), v0-v8.
//
// Behavior:
//   - commits a group's offsets through its coordinator, which writes them
//     to __consumer_offsets with acks=all and answers only once the write
//     is committed (the partition's high watermark passed it): an
//     acknowledged commit survives the coordinator's failover. A failed
//     write is answered with Kafka's mapping of its error (NOT_COORDINATOR,
//     COORDINATOR_NOT_AVAILABLE, ...), never with success;
//   - a member's commit is fenced by generation and member id; generation
//     -1 with no member id (v0 has neither) commits for a group outside
//     group management, accepted while the group is Empty;
//   - v1's per-partition timestamp and v2-v4's retention time are read
//     and ignored: offsets do not expire (offsets.retention.minutes is not
//     implemented);
//   - v6+: the committed leader epoch (KIP-320) is kept; v7+: static
//     members;
//   - v9 (KIP-848's member epochs; GROUP_ID_NOT_FOUND for a group with no
//     state) and v10 (topic ids) are not advertised.

func init() {
	regKey(&api{key: offsetCommitKey, name: "OffsetCommit", min: 0, max: 8, decode: decodeOffsetCommit, encode: encodeOffsetCommit, shape: offsetCommitShape})
}

// offsetCommitShape is an OffsetCommit request's layout, v0-v8 (kmsg's
// OffsetCommitRequest).
func offsetCommitShape(version int16, flexible bool) shape {
	partition := 4 + 8 // Partition, Offset
	if version == 1 {
		partition += 8 // Timestamp
	}
	if version >= 6 {
		partition += 4 // LeaderEpoch
	}
	p := append(shape{fixedBytes(partition), str}, tagsIf(flexible)...) // ..., Metadata
	topic := append(shape{str, array(p...)}, tagsIf(flexible)...)
	s := shape{str} // Group
	if version >= 1 {
		s = append(s, fixedBytes(4), str) // Generation, MemberID
	}
	if version >= 7 {
		s = append(s, str) // InstanceID
	}
	if version >= 2 && version <= 4 {
		s = append(s, fixedBytes(8)) // RetentionTimeMillis
	}
	s = append(s, array(topic...))
	return append(s, tagsIf(flexible)...)
}

func decodeOffsetCommit(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.OffsetCommitRequest)
	req := group.OffsetCommitRequest{Group: kr.Group, Generation: kr.Generation, MemberID: kr.MemberID, GroupInstanceID: strOr(kr.InstanceID)}
	if st.version == 0 {
		req.Generation, req.MemberID = -1, ""
	}
	for _, t := range kr.Topics {
		for _, p := range t.Partitions {
			epoch := p.LeaderEpoch
			if st.version < 6 {
				epoch = -1
			}
			req.Partitions = append(req.Partitions, group.CommitPartition{Topic: t.Topic, Partition: p.Partition, Offset: p.Offset,
				LeaderEpoch: epoch, Metadata: strOr(p.Metadata)})
		}
	}
	return groupRequest(st, req), nil
}

func encodeOffsetCommit(_ *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, err := groupBody[group.OffsetCommitResponse](m)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrOffsetCommitResponse()
	var prev string
	for i, p := range w.Partitions {
		if i == 0 || p.Topic != prev {
			t := kmsg.NewOffsetCommitResponseTopic()
			t.Topic = p.Topic
			resp.Topics = append(resp.Topics, t)
			prev = p.Topic
		}
		rp := kmsg.NewOffsetCommitResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p.Partition, errCode(p.Err)
		t := &resp.Topics[len(resp.Topics)-1]
		t.Partitions = append(t.Partitions, rp)
	}
	return resp, nil
}
