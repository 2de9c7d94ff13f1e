package wire

import "testing"

// Fuzz targets for the controller's messages: the property is fuzzDecoder's
// (no panic; a refusal matches ErrMalformed; an acceptance re-encodes to the
// same bytes). Seeds are valid encodings plus the committed corpus in
// testdata/fuzz/<FuzzName>/.

func FuzzDecodeBrokerRegistrationRequest(f *testing.F) {
	addSeeds(f, BrokerRegistrationRequest{}, BrokerRegistrationRequest{BrokerID: 2, PreviousBrokerEpoch: NoBrokerEpoch, LostData: true, Endpoint: "b2:9092", ClusterID: "c1"})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeBrokerRegistrationRequest) })
}

func FuzzDecodeBrokerRegistrationResponse(f *testing.F) {
	addSeeds(f, BrokerRegistrationResponse{}, BrokerRegistrationResponse{ErrorCode: CodeInvalidRequest, BrokerEpoch: NoBrokerEpoch}, BrokerRegistrationResponse{BrokerEpoch: 3, ClusterID: "c1"})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeBrokerRegistrationResponse) })
}

func FuzzDecodeBrokerHeartbeatRequest(f *testing.F) {
	addSeeds(f, BrokerHeartbeatRequest{}, BrokerHeartbeatRequest{BrokerID: 1, BrokerEpoch: 4, MetadataOffset: 5, WantShutDown: true})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeBrokerHeartbeatRequest) })
}

func FuzzDecodeBrokerHeartbeatResponse(f *testing.F) {
	addSeeds(f, BrokerHeartbeatResponse{}, BrokerHeartbeatResponse{IsFenced: true, MetadataEndOffset: 9})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeBrokerHeartbeatResponse) })
}

func FuzzDecodeAlterPartitionRequest(f *testing.F) {
	addSeeds(f, AlterPartitionRequest{}, AlterPartitionRequest{BrokerID: 1, BrokerEpoch: 2, Topic: "t", LeaderEpoch: 1, PartitionEpoch: 3,
		NewISR: []BrokerState{{1, 2}, {3, NoBrokerEpoch}}, LeaderRecoveryState: LeaderRecovering})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeAlterPartitionRequest) })
}

func FuzzDecodeAlterPartitionResponse(f *testing.F) {
	addSeeds(f, AlterPartitionResponse{}, AlterPartitionResponse{Leader: 1, LeaderEpoch: 2, ISR: []int32{1, 2}, PartitionEpoch: 3})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeAlterPartitionResponse) })
}

func FuzzDecodeElectLeadersRequest(f *testing.F) {
	addSeeds(f, ElectLeadersRequest{}, ElectLeadersRequest{Topic: "t", Partition: 2, Unclean: true}, ElectLeadersRequest{Topic: "t", Preferred: true})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeElectLeadersRequest) })
}

func FuzzDecodeElectLeadersResponse(f *testing.F) {
	addSeeds(f, ElectLeadersResponse{}, ElectLeadersResponse{Leader: NoLeader, LeaderEpoch: NoEpoch}, ElectLeadersResponse{Leader: 1, DataMayBeLost: true})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeElectLeadersResponse) })
}

func FuzzDecodeMetadataRequest(f *testing.F) {
	addSeeds(f, MetadataRequest{}, MetadataRequest{Topics: []string{}}, MetadataRequest{Topics: []string{"a", "b"}},
		MetadataRequest{Topics: []string{"a"}, AutoCreate: AutoCreate{Partitions: 2, ReplicationFactor: 1}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeMetadataRequest) })
}

func FuzzDecodeMetadataResponse(f *testing.F) {
	addSeeds(f, MetadataResponse{}, MetadataResponse{Brokers: []MetadataBroker{{ID: 1, Endpoint: "e"}},
		Topics: []MetadataTopic{{Name: "t", Partitions: []MetadataPartition{{Leader: 1, Replicas: []int32{1}, ISR: []int32{1}}}}}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeMetadataResponse) })
}

func FuzzDecodeInitProducerIDRequest(f *testing.F) {
	addSeeds(f, InitProducerIDRequest{}, InitProducerIDRequest{CorrelationID: 3, TransactionTimeoutMs: -1, ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch},
		InitProducerIDRequest{ProducerID: 1000, ProducerEpoch: 2})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeInitProducerIDRequest) })
}

func FuzzDecodeInitProducerIDResponse(f *testing.F) {
	addSeeds(f, InitProducerIDResponse{}, InitProducerIDResponse{CorrelationID: 3, ProducerID: 4000},
		InitProducerIDResponse{ErrorCode: CodeNotController, ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeInitProducerIDResponse) })
}
