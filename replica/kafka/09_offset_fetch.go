package kafka

import (
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/server"
	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetFetch (key 9), v0-v8.
//
// Behavior:
//   - a group's committed offsets, from its coordinator's cache: only
//     commits whose write is committed in __consumer_offsets are seen. A
//     partition, or a group, with no committed offset answers -1 with no
//     error (so does a group with no state);
//   - v0 and v1 name partitions (Kafka's v0 read ZooKeeper's offsets; here
//     it is v1's answer); a coordinator's refusal goes on each
//     partition; v2+ may ask for all of a group's offsets (null topics),
//     and a refusal is the top-level ErrorCode;
//   - v5+: the committed leader epoch (KIP-320), else -1;
//   - v7's RequireStable is read and needs nothing: without transactional
//     offset commits there is never a pending offset, so
//     UNSTABLE_OFFSET_COMMIT is never answered;
//   - v8+ (KIP-709): a batch of groups, each with its own error;
//   - v9 (KIP-848's member id and epoch) and v10 (topic ids) are not
//     advertised.

func init() {
	regKey(&api{key: offsetFetchKey, name: "OffsetFetch", min: 0, max: 8, decode: decodeOffsetFetch, encode: encodeOffsetFetch, shape: offsetFetchShape})
}

// offsetFetchShape is an OffsetFetch request's layout, v0-v8 (kmsg's
// OffsetFetchRequest): one group up to v7, a batch of groups from v8.
func offsetFetchShape(version int16, flexible bool) shape {
	topic := append(shape{str, array(fixedBytes(4))}, tagsIf(flexible)...) // Topic, Partitions
	var s shape
	if version <= 7 {
		s = shape{str, array(topic...)} // Group, Topics
	} else {
		group := append(shape{str, array(topic...)}, tagsIf(flexible)...)
		s = shape{array(group...)} // Groups
	}
	if version >= 7 {
		s = append(s, fixedBytes(1)) // RequireStable
	}
	return append(s, tagsIf(flexible)...)
}

func decodeOffsetFetch(_ *Codec, st *request, _ *server.Request) (wire.Message, error) {
	kr := st.kreq.(*kmsg.OffsetFetchRequest)
	var req replica.OffsetFetchRequest
	if st.version < 8 {
		g := group.OffsetFetchRequest{Group: kr.Group}
		if kr.Topics != nil || st.version < 2 {
			g.Partitions = []group.TopicPartition{}
			for _, t := range kr.Topics {
				for _, p := range t.Partitions {
					g.Partitions = append(g.Partitions, group.TopicPartition{Topic: t.Topic, Partition: p})
				}
			}
		}
		req.Groups = []group.OffsetFetchRequest{g}
		return groupRequest(st, req), nil
	}
	for _, kg := range kr.Groups {
		g := group.OffsetFetchRequest{Group: kg.Group}
		if kg.Topics != nil {
			g.Partitions = []group.TopicPartition{}
			for _, t := range kg.Topics {
				for _, p := range t.Partitions {
					g.Partitions = append(g.Partitions, group.TopicPartition{Topic: t.Topic, Partition: p})
				}
			}
		}
		req.Groups = append(req.Groups, g)
	}
	return groupRequest(st, req), nil
}

func encodeOffsetFetch(_ *Codec, st *request, m wire.Message) (kmsg.Response, error) {
	w, err := groupBody[replica.OffsetFetchResponse](m)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrOffsetFetchResponse()
	kr, _ := st.kreq.(*kmsg.OffsetFetchRequest)
	if st.version >= 8 {
		for i, g := range w.Groups {
			rg := kmsg.NewOffsetFetchResponseGroup()
			if kr != nil && i < len(kr.Groups) {
				rg.Group = kr.Groups[i].Group
			}
			rg.ErrorCode = errCode(g.Err)
			rg.Topics = []kmsg.OffsetFetchResponseGroupTopic{}
			var prev string
			for i, p := range g.Partitions {
				if i == 0 || p.Topic != prev {
					t := kmsg.NewOffsetFetchResponseGroupTopic()
					t.Topic = p.Topic
					rg.Topics = append(rg.Topics, t)
					prev = p.Topic
				}
				rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				meta := p.Metadata
				rp.Partition, rp.Offset, rp.LeaderEpoch, rp.Metadata = p.Partition, p.Offset, p.LeaderEpoch, &meta
				t := &rg.Topics[len(rg.Topics)-1]
				t.Partitions = append(t.Partitions, rp)
			}
			resp.Groups = append(resp.Groups, rg)
		}
		return resp, nil
	}
	if len(w.Groups) != 1 {
		return resp, nil
	}
	g := w.Groups[0]
	code := errCode(g.Err)
	if st.version >= 2 {
		resp.ErrorCode = code
		if code != 0 {
			resp.Topics = []kmsg.OffsetFetchResponseTopic{}
			return resp, nil
		}
	}
	if code != 0 && kr != nil { // v0, v1: the refusal on each partition asked
		for _, t := range kr.Topics {
			rt := kmsg.NewOffsetFetchResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewOffsetFetchResponseTopicPartition()
				meta := ""
				rp.Partition, rp.Offset, rp.LeaderEpoch, rp.Metadata, rp.ErrorCode = p, -1, -1, &meta, code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil
	}
	var prev string
	for i, p := range g.Partitions {
		if i == 0 || p.Topic != prev {
			t := kmsg.NewOffsetFetchResponseTopic()
			t.Topic = p.Topic
			resp.Topics = append(resp.Topics, t)
			prev = p.Topic
		}
		rp := kmsg.NewOffsetFetchResponseTopicPartition()
		meta := p.Metadata
		rp.Partition, rp.Offset, rp.LeaderEpoch, rp.Metadata = p.Partition, p.Offset, p.LeaderEpoch, &meta
		t := &resp.Topics[len(resp.Topics)-1]
		t.Partitions = append(t.Partitions, rp)
	}
	if resp.Topics == nil {
		resp.Topics = []kmsg.OffsetFetchResponseTopic{}
	}
	return resp, nil
}
