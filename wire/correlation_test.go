package wire_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// SetCorrelation reaches every message of the package, and refuses what
// is not one of them.
func TestSetCorrelationSetsEveryMessage(t *testing.T) {
	for _, m := range []wire.Message{
		&wire.ProduceRequest{},
		&wire.ProduceResponse{},
		&wire.FetchRequest{},
		&wire.FetchResponse{},
		&wire.ListOffsetsRequest{},
		&wire.ListOffsetsResponse{},
		&wire.OffsetsForLeaderEpochRequest{},
		&wire.OffsetsForLeaderEpochResponse{},
		&wire.MetadataRequest{},
		&wire.MetadataResponse{},
		&wire.CreateTopicsRequest{},
		&wire.CreateTopicsResponse{},
		&wire.DeleteTopicsRequest{},
		&wire.DeleteTopicsResponse{},
		&wire.CreatePartitionsRequest{},
		&wire.CreatePartitionsResponse{},
		&wire.AlterPartitionReassignmentsRequest{},
		&wire.AlterPartitionReassignmentsResponse{},
		&wire.ListPartitionReassignmentsRequest{},
		&wire.ListPartitionReassignmentsResponse{},
		&wire.ElectLeadersRequest{},
		&wire.ElectLeadersResponse{},
		&wire.AlterPartitionRequest{},
		&wire.AlterPartitionResponse{},
		&wire.BrokerRegistrationRequest{},
		&wire.BrokerRegistrationResponse{},
		&wire.BrokerHeartbeatRequest{},
		&wire.BrokerHeartbeatResponse{},
		&wire.InitProducerIDRequest{},
		&wire.InitProducerIDResponse{},
	} {
		if !wire.SetCorrelation(m, 42) || m.Correlation() != 42 {
			t.Errorf("%T: correlation %d after SetCorrelation(42)", m, m.Correlation())
		}
	}
	if wire.SetCorrelation(wire.FetchRequest{}, 1) {
		t.Error("SetCorrelation of a value (not a pointer) reported success")
	}
}
