package kafka

import (
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetDelete (key 47), v0.
//
// Behavior (KIP-496):
//   - deletes a group's committed offsets of the partitions named, by
//     tombstones written to __consumer_offsets with acks=all, answered
//     once they are committed: every offset of an Empty group; of a
//     consumer group with members, those of topics none of its members
//     subscribes to (GROUP_SUBSCRIBED_TO_TOPIC per partition for the
//     others); another group with members is NON_EMPTY_GROUP;
//     GROUP_ID_NOT_FOUND for a group with no state.

func init() {
	regKey(&api{key: offsetDeleteKey, name: "OffsetDelete", min: 0, max: 0, decode: decodeOffsetDelete, encode: encodeOffsetDelete, shape: offsetDeleteShape})
}

// offsetDeleteShape is an OffsetDelete request's layout, v0 (kmsg's
// OffsetDeleteRequest).
func offsetDeleteShape(int16, bool) shape {
	topic := shape{str, array(fixedBytes(4))} // Topic, Partitions
	return shape{str, array(topic...)}        // Group, Topics
}

func decodeOffsetDelete(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.OffsetDeleteRequest)
	req := group.OffsetDeleteRequest{Group: kr.Group}
	for _, t := range kr.Topics {
		for _, p := range t.Partitions {
			req.Partitions = append(req.Partitions, group.TopicPartition{Topic: t.Topic, Partition: p.Partition})
		}
	}
	return groupRequest(st, req), nil
}

func encodeOffsetDelete(_ *Codec, _ *request, m wire.Message) (kmsg.Response, error) {
	w, err := groupBody[group.OffsetDeleteResponse](m)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrOffsetDeleteResponse()
	resp.ErrorCode = errCode(w.Err)
	resp.Topics = []kmsg.OffsetDeleteResponseTopic{}
	var prev string
	for i, p := range w.Partitions {
		if i == 0 || p.Topic != prev {
			t := kmsg.NewOffsetDeleteResponseTopic()
			t.Topic = p.Topic
			resp.Topics = append(resp.Topics, t)
			prev = p.Topic
		}
		rp := kmsg.NewOffsetDeleteResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p.Partition, errCode(p.Err)
		t := &resp.Topics[len(resp.Topics)-1]
		t.Partitions = append(t.Partitions, rp)
	}
	return resp, nil
}
