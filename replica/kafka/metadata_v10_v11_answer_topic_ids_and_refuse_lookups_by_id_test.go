package kafka_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestMetadataV10And11AnswerTopicIDsAndRefuseTopicsNamedByID: Metadata
// v9-v11 (flexible) answer a topic by name with its brokers and
// partitions, from v10 with its topic id (kafka.TopicID); a v10 or v11
// request that names a topic by id, or leaves a name null, gets
// INVALID_REQUEST for each topic it names and no brokers, as Kafka's
// KafkaApis answers before v12.
func TestMetadataV10And11AnswerTopicIDsAndRefuseTopicsNamedByID(t *testing.T) {
	const topic = "ids"
	c := startCluster(t, 1)
	c.createTopic(topic, 2, 1, 1)
	rc := dialRaw(t, c.seeds()[0])
	byName := func(name string, id [16]byte) *kmsg.MetadataRequest {
		req := kmsg.NewPtrMetadataRequest()
		rt := kmsg.NewMetadataRequestTopic()
		if name != "" {
			rt.Topic = kmsg.StringPtr(name)
		}
		rt.TopicID = id
		req.Topics = append(req.Topics, rt)
		return req
	}
	for v := int16(9); v <= 11; v++ {
		resp := roundTrip(t, rc, byName(topic, [16]byte{}), v).(*kmsg.MetadataResponse)
		wantID := [16]byte{}
		if v >= 10 {
			wantID = kafka.TopicID(topic)
		}
		if len(resp.Brokers) != 1 || len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 || len(resp.Topics[0].Partitions) != 2 ||
			resp.Topics[0].TopicID != wantID || resp.ClusterID == nil || *resp.ClusterID != kafka.DefaultClusterID {
			t.Fatalf("Metadata v%d of %q: %+v; want one broker, two partitions, id %x", v, topic, resp, wantID)
		}
	}
	id := kafka.TopicID(topic)
	for v := int16(10); v <= 11; v++ {
		for _, tc := range []struct {
			name string
			id   [16]byte
		}{{"", id}, {"", [16]byte{}}, {topic, id}} {
			resp := roundTrip(t, rc, byName(tc.name, tc.id), v).(*kmsg.MetadataResponse)
			if len(resp.Brokers) != 0 || len(resp.Topics) != 1 {
				t.Fatalf("Metadata v%d of (%q, %x): %+v", v, tc.name, tc.id, resp)
			}
			rt := resp.Topics[0]
			if rt.ErrorCode != 42 || rt.Topic == nil || *rt.Topic != tc.name || rt.TopicID != tc.id || len(rt.Partitions) != 0 {
				t.Errorf("Metadata v%d of (%q, %x): error %d, name %v, id %x, %d partitions; want INVALID_REQUEST (42), the name and id asked, none",
					v, tc.name, tc.id, rt.ErrorCode, rt.Topic, rt.TopicID, len(rt.Partitions))
			}
		}
	}
	// The connection still serves.
	if resp := roundTrip(t, rc, byName(topic, [16]byte{}), 11).(*kmsg.MetadataResponse); len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 {
		t.Fatalf("Metadata v11 after the refusals: %+v", resp)
	}
}
