package kafka

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Each admin API's file writes its answers at every version it
// advertises, flexible ones included: the response it encodes reads back
// as kmsg's, byte for byte.
func TestAdminAPIsWriteEveryVersionTheyAdvertise(t *testing.T) {
	c := &Codec{cfg: Config{DefaultPartitions: 2, DefaultReplicationFactor: 1}}
	name := "t"
	for _, tc := range []struct {
		key    int16
		kreq   kmsg.Request
		answer wire.Message
	}{
		{createTopicsKey, &kmsg.CreateTopicsRequest{Topics: []kmsg.CreateTopicsRequestTopic{{Topic: name, NumPartitions: -1, ReplicationFactor: -1}}},
			&wire.CreateTopicsResponse{Topics: []wire.CreateTopicResult{{Name: name, Partitions: 2, ReplicationFactor: 1}}}},
		{incrementalAlterConfigsKey, &kmsg.IncrementalAlterConfigsRequest{Resources: []kmsg.IncrementalAlterConfigsRequestResource{{ResourceType: kmsg.ConfigResourceTypeTopic, ResourceName: name,
			Configs: []kmsg.IncrementalAlterConfigsRequestResourceConfig{{Name: "retention.ms", Value: kmsg.StringPtr("1")}}}}},
			&wire.IncrementalAlterConfigsResponse{Resources: []wire.AlterConfigsResourceResponse{{ResourceType: wire.ResourceTopic, ResourceName: name, ErrorCode: wire.CodeInvalidConfig, ErrorMessage: "no"}}}},
		{deleteTopicsKey, &kmsg.DeleteTopicsRequest{TopicNames: []string{name}},
			&wire.DeleteTopicsResponse{Topics: []wire.DeletedTopic{{Name: name, ErrorCode: wire.CodeUnknownTopicOrPartition}}}},
		{createPartitionsKey, &kmsg.CreatePartitionsRequest{Topics: []kmsg.CreatePartitionsRequestTopic{{Topic: name, Count: 3}, {Topic: "u", Count: 2}}},
			&wire.CreatePartitionsResponse{ErrorCode: wire.CodeInvalidPartitions, ErrorMessage: "no"}},
		{alterPartitionReassignmentsKey, &kmsg.AlterPartitionAssignmentsRequest{Topics: []kmsg.AlterPartitionAssignmentsRequestTopic{{Topic: name,
			Partitions: []kmsg.AlterPartitionAssignmentsRequestTopicPartition{{Partition: 0, Replicas: []int32{1}}, {Partition: 1}}}}},
			&wire.AlterPartitionReassignmentsResponse{ErrorCode: wire.CodeNoReassignmentInProgress, ErrorMessage: "none"}},
		{listPartitionReassignmentsKey, &kmsg.ListPartitionReassignmentsRequest{},
			&wire.ListPartitionReassignmentsResponse{Reassignments: []wire.OngoingReassignment{{Topic: name, Replicas: []int32{2, 1}, AddingReplicas: []int32{2}}}}},
		{electLeadersKey, &kmsg.ElectLeadersRequest{Topics: []kmsg.ElectLeadersRequestTopic{{Topic: name, Partitions: []int32{0, 1}}}},
			&wire.ElectLeadersResponse{ErrorCode: wire.CodeElectionNotNeeded, Leader: 1, LeaderEpoch: 2}},
		{offsetForLeaderEpochKey, &kmsg.OffsetForLeaderEpochRequest{},
			&wire.OffsetsForLeaderEpochResponse{Partitions: []wire.OffsetsForLeaderEpochPartitionResponse{{Topic: name, EpochEndOffset: wire.EpochEndOffset{Epoch: 3, EndOffset: 9}, Found: true}}}},
		{describeConfigsKey, &kmsg.DescribeConfigsRequest{Resources: []kmsg.DescribeConfigsRequestResource{{ResourceType: kmsg.ConfigResourceTypeGroupConfig, ResourceName: "g"}}},
			&wire.MetadataResponse{}},
	} {
		a := apiFor(tc.key)
		if a == nil {
			t.Fatalf("key %d is not served", tc.key)
		}
		for v := a.min; v <= a.max; v++ {
			tc.kreq.SetVersion(v)
			st := &request{key: tc.key, version: v, flexible: tc.kreq.IsFlexible(), api: a, kreq: tc.kreq}
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
