package wire

import (
	"encoding/binary"
	"fmt"
)

// APIKey names the kind of message a payload holds. The numbers are Kafka's
// apiKey values for the same APIs (ProduceRequest.json 0, FetchRequest.json
// 1, ListOffsetsRequest.json 2, OffsetForLeaderEpochRequest.json 23, and
// the control plane's in control_plane.go), so a packet capture reads the same;
// the layouts after the header are kaenlog's own.
type APIKey int16

const (
	// APIProduce marks ProduceRequest and ProduceResponse.
	APIProduce APIKey = 0
	// APIFetch marks FetchRequest and FetchResponse. Followers and consumers
	// use the same key: only FetchRequest.ReplicaID tells them apart.
	APIFetch APIKey = 1
	// APIListOffsets marks ListOffsetsRequest and ListOffsetsResponse.
	APIListOffsets APIKey = 2
	// APIOffsetsForLeaderEpoch marks OffsetsForLeaderEpochRequest and
	// OffsetsForLeaderEpochResponse.
	APIOffsetsForLeaderEpoch APIKey = 23
)

// String returns the API's name ("Produce", "Fetch", "ListOffsets",
// "OffsetsForLeaderEpoch", "Metadata", "CreateTopics", "CreatePartitions", "ElectLeaders",
// "AlterPartition", "BrokerRegistration", "BrokerHeartbeat",
// "InitProducerID", "IncrementalAlterConfigs", the reassignment APIs and
// the group APIs' Kafka names), or
// "APIKey(n)" for a key this package does not know.
func (k APIKey) String() string {
	switch k {
	case APIProduce:
		return "Produce"
	case APIFetch:
		return "Fetch"
	case APIListOffsets:
		return "ListOffsets"
	case APIOffsetsForLeaderEpoch:
		return "OffsetsForLeaderEpoch"
	case APIMetadata:
		return "Metadata"
	case APICreateTopics:
		return "CreateTopics"
	case APIDeleteTopics:
		return "DeleteTopics"
	case APICreatePartitions:
		return "CreatePartitions"
	case APIAlterPartitionReassignments:
		return "AlterPartitionReassignments"
	case APIListPartitionReassignments:
		return "ListPartitionReassignments"
	case APIElectLeaders:
		return "ElectLeaders"
	case APIAlterPartition:
		return "AlterPartition"
	case APIBrokerRegistration:
		return "BrokerRegistration"
	case APIBrokerHeartbeat:
		return "BrokerHeartbeat"
	case APIInitProducerID:
		return "InitProducerID"
	case APIIncrementalAlterConfigs:
		return "IncrementalAlterConfigs"
	case APIOffsetCommit:
		return "OffsetCommit"
	case APIOffsetFetch:
		return "OffsetFetch"
	case APIFindCoordinator:
		return "FindCoordinator"
	case APIJoinGroup:
		return "JoinGroup"
	case APIHeartbeat:
		return "Heartbeat"
	case APILeaveGroup:
		return "LeaveGroup"
	case APISyncGroup:
		return "SyncGroup"
	case APIDescribeGroups:
		return "DescribeGroups"
	case APIListGroups:
		return "ListGroups"
	case APIDeleteGroups:
		return "DeleteGroups"
	case APIOffsetDelete:
		return "OffsetDelete"
	}
	return fmt.Sprintf("APIKey(%d)", int16(k))
}

func (k APIKey) known() bool {
	switch k {
	case APIProduce, APIFetch, APIListOffsets, APIOffsetsForLeaderEpoch,
		APIMetadata, APICreateTopics, APIDeleteTopics, APICreatePartitions, APIElectLeaders, APIAlterPartition,
		APIAlterPartitionReassignments, APIListPartitionReassignments,
		APIBrokerRegistration, APIBrokerHeartbeat, APIInitProducerID, APIIncrementalAlterConfigs,
		APIOffsetCommit, APIOffsetFetch, APIFindCoordinator, APIJoinGroup, APIHeartbeat, APILeaveGroup, APISyncGroup,
		APIDescribeGroups, APIListGroups, APIDeleteGroups, APIOffsetDelete:
		return true
	}
	return false
}

// messageVersion is the only version of every message kaenlog speaks. It is
// on the wire so a future layout can be told apart instead of misread.
const messageVersion int16 = 0

// headerSize is the length of the header every payload starts with:
// APIKey int16, Version int16, CorrelationID int32.
const headerSize = 8

// PeekHeader reads the header of a payload so a server can route it to the
// right DecodeXxx function without decoding the body (DecodeRequest and
// DecodeResponse call it). It does not say whether the payload is a request
// or a response: as in Kafka, the direction of the connection does.
//
// Errors match ErrMalformed and one of: ErrTruncated (fewer than 8 bytes;
// key and correlation id are zero), ErrUnknownAPIKey, ErrUnsupportedVersion.
// With the last two the key and correlation id read from the wire are still
// returned, so a server can address its error response.
func PeekHeader(payload []byte) (APIKey, int32, error) {
	if len(payload) < headerSize {
		return 0, 0, fmt.Errorf("%w: header needs %d bytes, have %d", ErrTruncated, headerSize, len(payload))
	}
	key := APIKey(binary.BigEndian.Uint16(payload[0:2]))
	version := int16(binary.BigEndian.Uint16(payload[2:4]))
	corr := int32(binary.BigEndian.Uint32(payload[4:8]))
	if !key.known() {
		return key, corr, fmt.Errorf("%w: %d", ErrUnknownAPIKey, int16(key))
	}
	if version != messageVersion {
		return key, corr, fmt.Errorf("%w: %s version %d, want %d", errBadVersion, key, version, messageVersion)
	}
	return key, corr, nil
}
