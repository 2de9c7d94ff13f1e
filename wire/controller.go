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
// request; kaenlog's carry one (AlterPartition, CreateTopics, ElectLeaders),
// which is all a broker or the simulator sends at a time. Broker epochs are
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
	// APIInitProducerID marks InitProducerIDRequest and
	// InitProducerIDResponse.
	APIInitProducerID APIKey = 22
	// APIElectLeaders marks ElectLeadersRequest and ElectLeadersResponse.
	APIElectLeaders APIKey = 43
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

// CreateTopicsRequest asks the controller to create one topic.
type CreateTopicsRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Name is the topic's name.
	Name string
	// Partitions is the number of partitions. With an Assignment it must
	// be 0 or len(Assignment).
	Partitions int32
	// ReplicationFactor is the number of replicas per partition. With an
	// Assignment it must be 0 or the length of every replica list.
	ReplicationFactor int16
	// MinISR is the topic's min.insync.replicas, or 0 for the controller's
	// default.
	MinISR int32
	// UncleanLeaderElection is the topic's unclean.leader.election.enable.
	UncleanLeaderElection bool
	// Assignment optionally gives each partition's replica list
	// explicitly, in preference order; nil lets the controller place them.
	// Empty decodes as nil, as does each empty replica list.
	Assignment [][]int32
	// ValidateOnly asks the controller to check the request as it would
	// create the topic, and answer so, without creating it (Kafka's
	// CreateTopics validateOnly).
	ValidateOnly bool
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a Name longer than 32767 bytes (ErrFrameTooLarge).
func (m CreateTopicsRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "CreateTopicsRequest"
	if err := checkString(name, "Name", m.Name); err != nil {
		return dst, err
	}
	if err := checkCount(name, "Assignment", len(m.Assignment)); err != nil {
		return dst, err
	}
	size := headerSize + encodedString(m.Name) + 4 + 2 + 4 + 1 + 4 + 1
	for _, replicas := range m.Assignment {
		if err := checkCount(name, "Assignment.Replicas", len(replicas)); err != nil {
			return dst, err
		}
		size += 4 + 4*len(replicas)
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APICreateTopics, m.CorrelationID)
	dst = appendString(dst, m.Name)
	dst = appendInt32(dst, m.Partitions)
	dst = appendInt16(dst, m.ReplicationFactor)
	dst = appendInt32(dst, m.MinISR)
	dst = appendBool(dst, m.UncleanLeaderElection)
	dst = appendInt32(dst, int32(len(m.Assignment)))
	for _, replicas := range m.Assignment {
		dst = appendInt32s(dst, replicas)
	}
	return appendBool(dst, m.ValidateOnly), nil
}

// DecodeCreateTopicsRequest decodes a CreateTopicsRequest payload. Errors
// match ErrMalformed and name the field.
func DecodeCreateTopicsRequest(payload []byte) (CreateTopicsRequest, error) {
	d := decoder{msg: "CreateTopicsRequest", buf: payload}
	var m CreateTopicsRequest
	m.CorrelationID = d.header(APICreateTopics)
	m.Name = d.str("Name")
	m.Partitions = d.int32("Partitions")
	m.ReplicationFactor = d.int16("ReplicationFactor")
	m.MinISR = d.int32("MinISR")
	m.UncleanLeaderElection = d.boolean("UncleanLeaderElection")
	if n := d.count("Assignment", 4); n > 0 {
		m.Assignment = make([][]int32, n)
		for i := range m.Assignment {
			m.Assignment[i] = d.int32s("Assignment.Replicas")
		}
	}
	m.ValidateOnly = d.boolean("ValidateOnly")
	if err := d.finish(); err != nil {
		return CreateTopicsRequest{}, err
	}
	return m, nil
}

// CreateTopicsResponse answers a CreateTopicsRequest.
type CreateTopicsResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// ErrorMessage says why, in English, when ErrorCode is not CodeNone;
	// empty otherwise.
	ErrorMessage string
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, an ErrorMessage longer than 32767 bytes (ErrFrameTooLarge).
func (m CreateTopicsResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "CreateTopicsResponse"
	if err := checkString(name, "ErrorMessage", m.ErrorMessage); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+encodedString(m.ErrorMessage))
	dst = appendHeader(dst, APICreateTopics, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	return appendString(dst, m.ErrorMessage), nil
}

// DecodeCreateTopicsResponse decodes a CreateTopicsResponse payload. Errors
// match ErrMalformed and name the field.
func DecodeCreateTopicsResponse(payload []byte) (CreateTopicsResponse, error) {
	d := decoder{msg: "CreateTopicsResponse", buf: payload}
	m := CreateTopicsResponse{
		CorrelationID: d.header(APICreateTopics),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		ErrorMessage:  d.str("ErrorMessage"),
	}
	if err := d.finish(); err != nil {
		return CreateTopicsResponse{}, err
	}
	return m, nil
}
