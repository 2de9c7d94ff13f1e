package kafka

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Each admin API's file writes its answers for the flexible versions it
// implements (its xxxFlexibleMax): at every version from the advertised
// cap to that one, the response it encodes reads back as kmsg's. The
// listener advertises them once it reads flexible requests.
func TestAdminAPIsWriteTheirFlexibleVersions(t *testing.T) {
	c := &Codec{cfg: Config{DefaultPartitions: 2, DefaultReplicationFactor: 1}}
	name := "t"
	for _, tc := range []struct {
		key     int16
		flexMax int16
		kreq    kmsg.Request
		answer  wire.Message
	}{
		{createTopicsKey, createTopicsFlexibleMax, &kmsg.CreateTopicsRequest{Topics: []kmsg.CreateTopicsRequestTopic{{Topic: name, NumPartitions: -1, ReplicationFactor: -1}}},
			&wire.CreateTopicsResponse{}},
		{deleteTopicsKey, deleteTopicsFlexibleMax, &kmsg.DeleteTopicsRequest{TopicNames: []string{name}},
			&wire.DeleteTopicsResponse{Topics: []wire.DeletedTopic{{Name: name, ErrorCode: wire.CodeUnknownTopicOrPartition}}}},
		{offsetForLeaderEpochKey, offsetForLeaderEpochFlexibleMax, &kmsg.OffsetForLeaderEpochRequest{},
			&wire.OffsetsForLeaderEpochResponse{Partitions: []wire.OffsetsForLeaderEpochPartitionResponse{{Topic: name, EpochEndOffset: wire.EpochEndOffset{Epoch: 3, EndOffset: 9}, Found: true}}}},
		{describeConfigsKey, describeConfigsFlexibleMax, &kmsg.DescribeConfigsRequest{Resources: []kmsg.DescribeConfigsRequestResource{{ResourceType: kmsg.ConfigResourceTypeGroupConfig, ResourceName: "g"}}},
			&wire.MetadataResponse{}},
	} {
		a := apiFor(tc.key)
		if a == nil || tc.flexMax <= a.max {
			t.Fatalf("key %d: advertised up to v%d, flexible cap v%d", tc.key, a.max, tc.flexMax)
		}
		for v := a.max + 1; v <= tc.flexMax; v++ {
			tc.kreq.SetVersion(v)
			if !tc.kreq.IsFlexible() {
				t.Fatalf("%s v%d is not flexible: advertise it now", a.name, v)
			}
			st := &request{key: tc.key, version: v, flexible: true, api: a, kreq: tc.kreq}
			resp, err := a.encode(c, st, tc.answer)
			if err != nil {
				t.Fatalf("%s v%d: %v", a.name, v, err)
			}
			resp.SetVersion(v)
			b := resp.AppendTo(nil)
			back := kmsg.ResponseForKey(tc.key)
			back.SetVersion(v)
			if err := back.ReadFrom(b); err != nil {
				t.Fatalf("%s v%d: the response does not read back: %v", a.name, v, err)
			}
			if again := back.AppendTo(nil); string(again) != string(b) {
				t.Fatalf("%s v%d: the response reads back as another", a.name, v)
			}
		}
	}
}
