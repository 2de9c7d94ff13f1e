package wire

// Message is any kaenlog request or response: every request and response
// type of this package implements it, the controller's included, so a
// transport can frame, send and route any of them without knowing which.
// The methods have value receivers, so a message and a pointer to it are
// both Messages.
type Message interface {
	// APIKey is the kind of message (the header's first field).
	APIKey() APIKey
	// Correlation is the header's correlation id: a request's id, echoed by its response.
	Correlation() int32
	// AppendTo appends the encoded payload (header and body, no frame) to dst.
	AppendTo(dst []byte) ([]byte, error)
}

// DecodeRequest decodes a request payload (without its frame) of any kind,
// dispatching on the header's API key, and returns a pointer to the
// decoded value: *FetchRequest, *ProduceRequest, *MetadataRequest, and so
// on, for a type switch. It allocates that value besides what its DecodeXxx
// function allocates; a broker's hot path calls PeekHeader and then
// DecodeFetchRequestInto or DecodeProduceRequestInto itself.
//
// The header does not say whether a payload is a request or a response
// (the direction of the connection does), so a response given to
// DecodeRequest is decoded as the request with its key, which its layout
// almost always makes malformed. Errors are PeekHeader's (ErrTruncated,
// ErrUnknownAPIKey, ErrUnsupportedVersion) or the decoder's, and all match
// ErrMalformed; on error, PeekHeader gives the key and correlation id to
// address an error response with, when the header itself was readable.
func DecodeRequest(payload []byte) (Message, error) {
	key, _, err := PeekHeader(payload)
	if err != nil {
		return nil, err
	}
	switch key {
	case APIProduce:
		return decodeAs(payload, DecodeProduceRequest)
	case APIFetch:
		return decodeAs(payload, DecodeFetchRequest)
	case APIListOffsets:
		return decodeAs(payload, DecodeListOffsetsRequest)
	case APIOffsetsForLeaderEpoch:
		return decodeAs(payload, DecodeOffsetsForLeaderEpochRequest)
	case APIMetadata:
		return decodeAs(payload, DecodeMetadataRequest)
	case APICreateTopics:
		return decodeAs(payload, DecodeCreateTopicsRequest)
	case APIDeleteTopics:
		return decodeAs(payload, DecodeDeleteTopicsRequest)
	case APIIncrementalAlterConfigs:
		return decodeAs(payload, DecodeIncrementalAlterConfigsRequest)
	case APICreatePartitions:
		return decodeAs(payload, DecodeCreatePartitionsRequest)
	case APIAlterPartitionReassignments:
		return decodeAs(payload, DecodeAlterPartitionReassignmentsRequest)
	case APIListPartitionReassignments:
		return decodeAs(payload, DecodeListPartitionReassignmentsRequest)
	case APIElectLeaders:
		return decodeAs(payload, DecodeElectLeadersRequest)
	case APIAlterPartition:
		return decodeAs(payload, DecodeAlterPartitionRequest)
	case APIBrokerRegistration:
		return decodeAs(payload, DecodeBrokerRegistrationRequest)
	case APIBrokerHeartbeat:
		return decodeAs(payload, DecodeBrokerHeartbeatRequest)
	case APIInitProducerID:
		return decodeAs(payload, DecodeInitProducerIDRequest)
	case APIOffsetCommit:
		return decodeAs(payload, DecodeOffsetCommitRequest)
	case APIOffsetFetch:
		return decodeAs(payload, DecodeOffsetFetchRequest)
	case APIFindCoordinator:
		return decodeAs(payload, DecodeFindCoordinatorRequest)
	case APIJoinGroup:
		return decodeAs(payload, DecodeJoinGroupRequest)
	case APIHeartbeat:
		return decodeAs(payload, DecodeHeartbeatRequest)
	case APILeaveGroup:
		return decodeAs(payload, DecodeLeaveGroupRequest)
	case APISyncGroup:
		return decodeAs(payload, DecodeSyncGroupRequest)
	case APIDescribeGroups:
		return decodeAs(payload, DecodeDescribeGroupsRequest)
	case APIListGroups:
		return decodeAs(payload, DecodeListGroupsRequest)
	case APIDeleteGroups:
		return decodeAs(payload, DecodeDeleteGroupsRequest)
	case APIOffsetDelete:
		return decodeAs(payload, DecodeOffsetDeleteRequest)
	}
	return nil, unknownKey(key)
}

// DecodeResponse is DecodeRequest for responses: it returns
// *FetchResponse, *ProduceResponse, *MetadataResponse, and so on.
func DecodeResponse(payload []byte) (Message, error) {
	key, _, err := PeekHeader(payload)
	if err != nil {
		return nil, err
	}
	switch key {
	case APIProduce:
		return decodeAs(payload, DecodeProduceResponse)
	case APIFetch:
		return decodeAs(payload, DecodeFetchResponse)
	case APIListOffsets:
		return decodeAs(payload, DecodeListOffsetsResponse)
	case APIOffsetsForLeaderEpoch:
		return decodeAs(payload, DecodeOffsetsForLeaderEpochResponse)
	case APIMetadata:
		return decodeAs(payload, DecodeMetadataResponse)
	case APICreateTopics:
		return decodeAs(payload, DecodeCreateTopicsResponse)
	case APIDeleteTopics:
		return decodeAs(payload, DecodeDeleteTopicsResponse)
	case APIIncrementalAlterConfigs:
		return decodeAs(payload, DecodeIncrementalAlterConfigsResponse)
	case APICreatePartitions:
		return decodeAs(payload, DecodeCreatePartitionsResponse)
	case APIAlterPartitionReassignments:
		return decodeAs(payload, DecodeAlterPartitionReassignmentsResponse)
	case APIListPartitionReassignments:
		return decodeAs(payload, DecodeListPartitionReassignmentsResponse)
	case APIElectLeaders:
		return decodeAs(payload, DecodeElectLeadersResponse)
	case APIAlterPartition:
		return decodeAs(payload, DecodeAlterPartitionResponse)
	case APIBrokerRegistration:
		return decodeAs(payload, DecodeBrokerRegistrationResponse)
	case APIBrokerHeartbeat:
		return decodeAs(payload, DecodeBrokerHeartbeatResponse)
	case APIInitProducerID:
		return decodeAs(payload, DecodeInitProducerIDResponse)
	case APIOffsetCommit:
		return decodeAs(payload, DecodeOffsetCommitResponse)
	case APIOffsetFetch:
		return decodeAs(payload, DecodeOffsetFetchResponse)
	case APIFindCoordinator:
		return decodeAs(payload, DecodeFindCoordinatorResponse)
	case APIJoinGroup:
		return decodeAs(payload, DecodeJoinGroupResponse)
	case APIHeartbeat:
		return decodeAs(payload, DecodeHeartbeatResponse)
	case APILeaveGroup:
		return decodeAs(payload, DecodeLeaveGroupResponse)
	case APISyncGroup:
		return decodeAs(payload, DecodeSyncGroupResponse)
	case APIDescribeGroups:
		return decodeAs(payload, DecodeDescribeGroupsResponse)
	case APIListGroups:
		return decodeAs(payload, DecodeListGroupsResponse)
	case APIDeleteGroups:
		return decodeAs(payload, DecodeDeleteGroupsResponse)
	case APIOffsetDelete:
		return decodeAs(payload, DecodeOffsetDeleteResponse)
	}
	return nil, unknownKey(key)
}

// unknownKey is the error for a key PeekHeader accepted but the dispatch
// has no case for: a message added to APIKey.known but not here. A test
// keeps the two lists equal, so it is never returned.
func unknownKey(key APIKey) error {
	return fieldError(ErrUnknownAPIKey, "header", "APIKey", " = "+key.String())
}

// decodeAs runs decode and returns a pointer to its result as a Message.
func decodeAs[M any, P interface {
	*M
	Message
}](payload []byte, decode func([]byte) (M, error)) (Message, error) {
	m, err := decode(payload)
	if err != nil {
		return nil, err
	}
	return P(&m), nil
}

// Every request and response is a Message.
var (
	_ Message = ProduceRequest{}
	_ Message = ProduceResponse{}
	_ Message = FetchRequest{}
	_ Message = FetchResponse{}
	_ Message = ListOffsetsRequest{}
	_ Message = ListOffsetsResponse{}
	_ Message = OffsetsForLeaderEpochRequest{}
	_ Message = OffsetsForLeaderEpochResponse{}
	_ Message = MetadataRequest{}
	_ Message = MetadataResponse{}
	_ Message = CreateTopicsRequest{}
	_ Message = CreateTopicsResponse{}
	_ Message = DeleteTopicsRequest{}
	_ Message = DeleteTopicsResponse{}
	_ Message = IncrementalAlterConfigsRequest{}
	_ Message = IncrementalAlterConfigsResponse{}
	_ Message = CreatePartitionsRequest{}
	_ Message = CreatePartitionsResponse{}
	_ Message = AlterPartitionReassignmentsRequest{}
	_ Message = AlterPartitionReassignmentsResponse{}
	_ Message = ListPartitionReassignmentsRequest{}
	_ Message = ListPartitionReassignmentsResponse{}
	_ Message = ElectLeadersRequest{}
	_ Message = ElectLeadersResponse{}
	_ Message = AlterPartitionRequest{}
	_ Message = AlterPartitionResponse{}
	_ Message = BrokerRegistrationRequest{}
	_ Message = BrokerRegistrationResponse{}
	_ Message = BrokerHeartbeatRequest{}
	_ Message = BrokerHeartbeatResponse{}
	_ Message = InitProducerIDRequest{}
	_ Message = InitProducerIDResponse{}
)

// APIKey returns APIProduce.
func (ProduceRequest) APIKey() APIKey { return APIProduce }

// Correlation returns m.CorrelationID.
func (m ProduceRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIProduce.
func (ProduceResponse) APIKey() APIKey { return APIProduce }

// Correlation returns m.CorrelationID.
func (m ProduceResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIFetch.
func (FetchRequest) APIKey() APIKey { return APIFetch }

// Correlation returns m.CorrelationID.
func (m FetchRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIFetch.
func (FetchResponse) APIKey() APIKey { return APIFetch }

// Correlation returns m.CorrelationID.
func (m FetchResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIListOffsets.
func (ListOffsetsRequest) APIKey() APIKey { return APIListOffsets }

// Correlation returns m.CorrelationID.
func (m ListOffsetsRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIListOffsets.
func (ListOffsetsResponse) APIKey() APIKey { return APIListOffsets }

// Correlation returns m.CorrelationID.
func (m ListOffsetsResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIOffsetsForLeaderEpoch.
func (OffsetsForLeaderEpochRequest) APIKey() APIKey { return APIOffsetsForLeaderEpoch }

// Correlation returns m.CorrelationID.
func (m OffsetsForLeaderEpochRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIOffsetsForLeaderEpoch.
func (OffsetsForLeaderEpochResponse) APIKey() APIKey { return APIOffsetsForLeaderEpoch }

// Correlation returns m.CorrelationID.
func (m OffsetsForLeaderEpochResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIMetadata.
func (MetadataRequest) APIKey() APIKey { return APIMetadata }

// Correlation returns m.CorrelationID.
func (m MetadataRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIMetadata.
func (MetadataResponse) APIKey() APIKey { return APIMetadata }

// Correlation returns m.CorrelationID.
func (m MetadataResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIElectLeaders.
func (ElectLeadersRequest) APIKey() APIKey { return APIElectLeaders }

// Correlation returns m.CorrelationID.
func (m ElectLeadersRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIElectLeaders.
func (ElectLeadersResponse) APIKey() APIKey { return APIElectLeaders }

// Correlation returns m.CorrelationID.
func (m ElectLeadersResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIAlterPartition.
func (AlterPartitionRequest) APIKey() APIKey { return APIAlterPartition }

// Correlation returns m.CorrelationID.
func (m AlterPartitionRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIAlterPartition.
func (AlterPartitionResponse) APIKey() APIKey { return APIAlterPartition }

// Correlation returns m.CorrelationID.
func (m AlterPartitionResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIBrokerRegistration.
func (BrokerRegistrationRequest) APIKey() APIKey { return APIBrokerRegistration }

// Correlation returns m.CorrelationID.
func (m BrokerRegistrationRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIBrokerRegistration.
func (BrokerRegistrationResponse) APIKey() APIKey { return APIBrokerRegistration }

// Correlation returns m.CorrelationID.
func (m BrokerRegistrationResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIBrokerHeartbeat.
func (BrokerHeartbeatRequest) APIKey() APIKey { return APIBrokerHeartbeat }

// Correlation returns m.CorrelationID.
func (m BrokerHeartbeatRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIBrokerHeartbeat.
func (BrokerHeartbeatResponse) APIKey() APIKey { return APIBrokerHeartbeat }

// Correlation returns m.CorrelationID.
func (m BrokerHeartbeatResponse) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIInitProducerID.
func (InitProducerIDRequest) APIKey() APIKey { return APIInitProducerID }

// Correlation returns m.CorrelationID.
func (m InitProducerIDRequest) Correlation() int32 { return m.CorrelationID }

// APIKey returns APIInitProducerID.
func (InitProducerIDResponse) APIKey() APIKey { return APIInitProducerID }

// Correlation returns m.CorrelationID.
func (m InitProducerIDResponse) Correlation() int32 { return m.CorrelationID }

// SetCorrelation sets the correlation id of m, a pointer to one of this
// package's messages (as DecodeRequest and DecodeResponse return them):
// a client numbers its requests, and a server may give a request an id
// of its own and its response the client's back. ok is false for any
// other value.
func SetCorrelation(m Message, corr int32) (ok bool) {
	switch m := m.(type) {
	case *ProduceRequest:
		m.CorrelationID = corr
	case *ProduceResponse:
		m.CorrelationID = corr
	case *FetchRequest:
		m.CorrelationID = corr
	case *FetchResponse:
		m.CorrelationID = corr
	case *ListOffsetsRequest:
		m.CorrelationID = corr
	case *ListOffsetsResponse:
		m.CorrelationID = corr
	case *OffsetsForLeaderEpochRequest:
		m.CorrelationID = corr
	case *OffsetsForLeaderEpochResponse:
		m.CorrelationID = corr
	case *MetadataRequest:
		m.CorrelationID = corr
	case *MetadataResponse:
		m.CorrelationID = corr
	case *CreateTopicsRequest:
		m.CorrelationID = corr
	case *CreateTopicsResponse:
		m.CorrelationID = corr
	case *DeleteTopicsRequest:
		m.CorrelationID = corr
	case *DeleteTopicsResponse:
		m.CorrelationID = corr
	case *IncrementalAlterConfigsRequest:
		m.CorrelationID = corr
	case *IncrementalAlterConfigsResponse:
		m.CorrelationID = corr
	case *CreatePartitionsRequest:
		m.CorrelationID = corr
	case *CreatePartitionsResponse:
		m.CorrelationID = corr
	case *AlterPartitionReassignmentsRequest:
		m.CorrelationID = corr
	case *AlterPartitionReassignmentsResponse:
		m.CorrelationID = corr
	case *ListPartitionReassignmentsRequest:
		m.CorrelationID = corr
	case *ListPartitionReassignmentsResponse:
		m.CorrelationID = corr
	case *ElectLeadersRequest:
		m.CorrelationID = corr
	case *ElectLeadersResponse:
		m.CorrelationID = corr
	case *AlterPartitionRequest:
		m.CorrelationID = corr
	case *AlterPartitionResponse:
		m.CorrelationID = corr
	case *BrokerRegistrationRequest:
		m.CorrelationID = corr
	case *BrokerRegistrationResponse:
		m.CorrelationID = corr
	case *BrokerHeartbeatRequest:
		m.CorrelationID = corr
	case *BrokerHeartbeatResponse:
		m.CorrelationID = corr
	case *InitProducerIDRequest:
		m.CorrelationID = corr
	case *InitProducerIDResponse:
		m.CorrelationID = corr
	case *OffsetCommitRequest:
		m.CorrelationID = corr
	case *OffsetCommitResponse:
		m.CorrelationID = corr
	case *OffsetFetchRequest:
		m.CorrelationID = corr
	case *OffsetFetchResponse:
		m.CorrelationID = corr
	case *FindCoordinatorRequest:
		m.CorrelationID = corr
	case *FindCoordinatorResponse:
		m.CorrelationID = corr
	case *JoinGroupRequest:
		m.CorrelationID = corr
	case *JoinGroupResponse:
		m.CorrelationID = corr
	case *HeartbeatRequest:
		m.CorrelationID = corr
	case *HeartbeatResponse:
		m.CorrelationID = corr
	case *LeaveGroupRequest:
		m.CorrelationID = corr
	case *LeaveGroupResponse:
		m.CorrelationID = corr
	case *SyncGroupRequest:
		m.CorrelationID = corr
	case *SyncGroupResponse:
		m.CorrelationID = corr
	case *DescribeGroupsRequest:
		m.CorrelationID = corr
	case *DescribeGroupsResponse:
		m.CorrelationID = corr
	case *ListGroupsRequest:
		m.CorrelationID = corr
	case *ListGroupsResponse:
		m.CorrelationID = corr
	case *DeleteGroupsRequest:
		m.CorrelationID = corr
	case *DeleteGroupsResponse:
		m.CorrelationID = corr
	case *OffsetDeleteRequest:
		m.CorrelationID = corr
	case *OffsetDeleteResponse:
		m.CorrelationID = corr
	default:
		return false
	}
	return true
}
