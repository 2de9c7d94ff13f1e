package wire

import "fmt"

// The API keys of the controller's messages: what a broker says to the
// controller that owns the ISR (package replica/controller) and what it
// answers, and what a client asks it (Metadata, InitProducerID: kaenlog's
// clients talk to the controller for metadata, so they ask it for
// producer ids too, where Kafka's ask a broker's transaction coordinator).
// The API key
// numbers are Kafka's; the bodies are kaenlog's own, fixed-layout and
// big-endian like the data plane's. Their layouts are in the package
// documentation (doc.go), with every other message's.
//
// Kafka's versions of these messages carry many partitions or topics per
// request; kaenlog's AlterPartition and ElectLeaders carry one, which is
// all a broker or the simulator sends at a time (CreateTopics and
// DeleteTopics carry many, as a client's do). Broker epochs are
// int64 identifiers, as in Kafka, with NoBrokerEpoch (-1) for "none"; broker
// ids and leaders are int32 identifiers with NoLeader (-1) for "none", like
// ReplicaID; producer ids and epochs are identifiers with NoProducerID and
// NoProducerEpoch (-1). Metadata offsets are offsets: uint64 in memory.
const (
	// APIMetadata marks MetadataRequest and MetadataResponse.
	APIMetadata APIKey = 3
	// APICreateTopics marks CreateTopicsRequest and CreateTopicsResponse.
	APICreateTopics APIKey = 19
	// APIDeleteTopics marks DeleteTopicsRequest and DeleteTopicsResponse.
	APIDeleteTopics APIKey = 20
	// APICreatePartitions marks CreatePartitionsRequest and
	// CreatePartitionsResponse.
	APICreatePartitions APIKey = 37
	// APIInitProducerID marks InitProducerIDRequest and
	// InitProducerIDResponse.
	APIInitProducerID APIKey = 22
	// APIElectLeaders marks ElectLeadersRequest and ElectLeadersResponse.
	APIElectLeaders APIKey = 43
	// APIAlterPartitionReassignments marks
	// AlterPartitionReassignmentsRequest and its response.
	APIAlterPartitionReassignments APIKey = 45
	// APIListPartitionReassignments marks
	// ListPartitionReassignmentsRequest and its response.
	APIListPartitionReassignments APIKey = 46
	// APIAlterPartition marks AlterPartitionRequest and AlterPartitionResponse.
	APIAlterPartition APIKey = 56
	// APIBrokerRegistration marks BrokerRegistrationRequest and
	// BrokerRegistrationResponse.
	APIBrokerRegistration APIKey = 62
	// APIBrokerHeartbeat marks BrokerHeartbeatRequest and
	// BrokerHeartbeatResponse.
	APIBrokerHeartbeat APIKey = 63
)

// NoProducerID is the producer id of a message that has none, Kafka's
// NO_PRODUCER_ID (-1): an InitProducerIDRequest of a new producer, a
// refused InitProducerIDResponse. Decoders refuse anything lower.
const NoProducerID int64 = -1

// NoProducerEpoch is the producer epoch of a message that has none,
// Kafka's NO_PRODUCER_EPOCH (-1). Decoders refuse anything lower.
const NoProducerEpoch int16 = -1

// NoLeader is the leader id of a partition that has none, Kafka's NO_LEADER
// (-1).
const NoLeader int32 = -1

// NoBrokerEpoch is the broker epoch a message carries when it has none:
// BrokerRegistrationRequest.PreviousBrokerEpoch after an unclean shutdown, a
// refused registration's BrokerEpoch, or an ISR member's epoch the controller
// should not check. Decoders refuse anything lower.
const NoBrokerEpoch int64 = -1

// LeaderRecoveryState says whether a partition's leader is still recovering
// from an unclean election (Kafka's LeaderRecoveryState, an int8 on the wire).
type LeaderRecoveryState int8

const (
	// LeaderRecovered (0) is the normal state: the leader was elected
	// cleanly, or has finished recovering.
	LeaderRecovered LeaderRecoveryState = 0
	// LeaderRecovering (1) follows an unclean election: the leader may lack
	// committed records, and until it says otherwise its ISR is itself alone.
	LeaderRecovering LeaderRecoveryState = 1
)

func (s LeaderRecoveryState) valid() bool { return s == LeaderRecovered || s == LeaderRecovering }

// String returns "RECOVERED", "RECOVERING" or "LeaderRecoveryState(n)".
func (s LeaderRecoveryState) String() string {
	switch s {
	case LeaderRecovered:
		return "RECOVERED"
	case LeaderRecovering:
		return "RECOVERING"
	}
	return fmt.Sprintf("LeaderRecoveryState(%d)", int8(s))
}
