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

// BrokerRegistrationRequest is a broker process introducing itself to the
// controller at start-up. A new IncarnationID gets a new broker epoch; the
// same one again (a retry) gets the same epoch back.
type BrokerRegistrationRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// BrokerID is the broker's configured id. Any int32 decodes; the
	// controller refuses negative ids.
	BrokerID int32
	// IncarnationID is random per process start, chosen by the broker.
	IncarnationID [16]byte
	// PreviousBrokerEpoch is the broker epoch of the previous process if it
	// shut down cleanly, or NoBrokerEpoch if it did not (KIP-966). Never
	// below NoBrokerEpoch.
	PreviousBrokerEpoch int64
	// LostData says the broker's log recovery cut flushed data: it must be
	// treated as an unclean shutdown whatever PreviousBrokerEpoch says.
	LostData bool
	// Endpoint is where other brokers reach this one (host:port).
	Endpoint string
	// ClusterID is the cluster id stamped in the broker's data directory,
	// or empty while the broker has not learned one: the controller
	// refuses a registration naming another cluster than its own
	// (CodeInconsistentClusterID), as Kafka's does.
	ClusterID string
	// KafkaEndpoint is where Kafka clients reach this broker (host:port,
	// its Kafka listener's advertised address), or empty when it has
	// none. It is the last field and is encoded only when set, so a
	// registration without it is byte for byte what it was before the
	// field existed; an empty string written out is refused as trailing
	// bytes (one encoding per value).
	KafkaEndpoint string
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a PreviousBrokerEpoch below NoBrokerEpoch (ErrInvalidValue) or
// an Endpoint, ClusterID or KafkaEndpoint longer than 32767 bytes
// (ErrFrameTooLarge).
func (m BrokerRegistrationRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "BrokerRegistrationRequest"
	if err := checkBrokerEpoch(name, "PreviousBrokerEpoch", m.PreviousBrokerEpoch); err != nil {
		return dst, err
	}
	if err := checkString(name, "Endpoint", m.Endpoint); err != nil {
		return dst, err
	}
	if err := checkString(name, "ClusterID", m.ClusterID); err != nil {
		return dst, err
	}
	if err := checkString(name, "KafkaEndpoint", m.KafkaEndpoint); err != nil {
		return dst, err
	}
	size := headerSize + 4 + 16 + 8 + 1 + encodedString(m.Endpoint) + encodedString(m.ClusterID)
	if m.KafkaEndpoint != "" {
		size += encodedString(m.KafkaEndpoint)
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIBrokerRegistration, m.CorrelationID)
	dst = appendInt32(dst, m.BrokerID)
	dst = append(dst, m.IncarnationID[:]...)
	dst = appendInt64(dst, m.PreviousBrokerEpoch)
	dst = appendBool(dst, m.LostData)
	dst = appendString(dst, m.Endpoint)
	dst = appendString(dst, m.ClusterID)
	if m.KafkaEndpoint != "" {
		dst = appendString(dst, m.KafkaEndpoint)
	}
	return dst, nil
}

// DecodeBrokerRegistrationRequest decodes a BrokerRegistrationRequest
// payload (without its frame). Errors match ErrMalformed and name the field.
func DecodeBrokerRegistrationRequest(payload []byte) (BrokerRegistrationRequest, error) {
	d := decoder{msg: "BrokerRegistrationRequest", buf: payload}
	m := BrokerRegistrationRequest{
		CorrelationID:       d.header(APIBrokerRegistration),
		BrokerID:            d.int32("BrokerID"),
		IncarnationID:       d.uuid("IncarnationID"),
		PreviousBrokerEpoch: d.brokerEpoch("PreviousBrokerEpoch"),
		LostData:            d.boolean("LostData"),
		Endpoint:            d.str("Endpoint"),
		ClusterID:           d.str("ClusterID"),
	}
	m.KafkaEndpoint = d.trailingStr("KafkaEndpoint")
	if err := d.finish(); err != nil {
		return BrokerRegistrationRequest{}, err
	}
	return m, nil
}

// BrokerRegistrationResponse answers a BrokerRegistrationRequest.
type BrokerRegistrationResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// BrokerEpoch is the epoch the broker must send in every later request,
	// or NoBrokerEpoch when the registration was refused.
	BrokerEpoch int64
	// ClusterID is the controller's cluster id (empty if it has none): a
	// broker that did not know it yet stamps it in its data directory.
	ClusterID string
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a BrokerEpoch below NoBrokerEpoch (ErrInvalidValue) or a
// ClusterID longer than 32767 bytes (ErrFrameTooLarge).
func (m BrokerRegistrationResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "BrokerRegistrationResponse"
	if err := checkBrokerEpoch(name, "BrokerEpoch", m.BrokerEpoch); err != nil {
		return dst, err
	}
	if err := checkString(name, "ClusterID", m.ClusterID); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+8+encodedString(m.ClusterID))
	dst = appendHeader(dst, APIBrokerRegistration, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt64(dst, m.BrokerEpoch)
	return appendString(dst, m.ClusterID), nil
}

// DecodeBrokerRegistrationResponse decodes a BrokerRegistrationResponse
// payload. Errors match ErrMalformed and name the field.
func DecodeBrokerRegistrationResponse(payload []byte) (BrokerRegistrationResponse, error) {
	d := decoder{msg: "BrokerRegistrationResponse", buf: payload}
	m := BrokerRegistrationResponse{
		CorrelationID: d.header(APIBrokerRegistration),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		BrokerEpoch:   d.brokerEpoch("BrokerEpoch"),
		ClusterID:     d.str("ClusterID"),
	}
	if err := d.finish(); err != nil {
		return BrokerRegistrationResponse{}, err
	}
	return m, nil
}

// BrokerHeartbeatRequest keeps a broker's session with the controller alive
// and tells it how far the broker has applied the metadata log.
type BrokerHeartbeatRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// BrokerID is the sender's id.
	BrokerID int32
	// BrokerEpoch is the epoch its registration returned. Never below
	// NoBrokerEpoch.
	BrokerEpoch int64
	// MetadataOffset is the end of the metadata the broker has applied: the
	// offset of the next metadata record it will apply. A fenced broker is
	// unfenced once it has applied its own registration record.
	MetadataOffset uint64
	// WantShutDown asks for a controlled shutdown.
	WantShutDown bool
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a BrokerEpoch below NoBrokerEpoch (ErrInvalidValue) or a
// MetadataOffset above math.MaxInt64 (ErrOffsetOverflow).
func (m BrokerHeartbeatRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "BrokerHeartbeatRequest"
	if err := checkBrokerEpoch(name, "BrokerEpoch", m.BrokerEpoch); err != nil {
		return dst, err
	}
	off, err := checkOffset(name, "MetadataOffset", m.MetadataOffset)
	if err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+4+8+8+1)
	dst = appendHeader(dst, APIBrokerHeartbeat, m.CorrelationID)
	dst = appendInt32(dst, m.BrokerID)
	dst = appendInt64(dst, m.BrokerEpoch)
	dst = appendInt64(dst, off)
	return appendBool(dst, m.WantShutDown), nil
}

// DecodeBrokerHeartbeatRequest decodes a BrokerHeartbeatRequest payload.
// Errors match ErrMalformed and name the field.
func DecodeBrokerHeartbeatRequest(payload []byte) (BrokerHeartbeatRequest, error) {
	d := decoder{msg: "BrokerHeartbeatRequest", buf: payload}
	m := BrokerHeartbeatRequest{
		CorrelationID:  d.header(APIBrokerHeartbeat),
		BrokerID:       d.int32("BrokerID"),
		BrokerEpoch:    d.brokerEpoch("BrokerEpoch"),
		MetadataOffset: d.offset("MetadataOffset"),
		WantShutDown:   d.boolean("WantShutDown"),
	}
	if err := d.finish(); err != nil {
		return BrokerHeartbeatRequest{}, err
	}
	return m, nil
}

// BrokerHeartbeatResponse answers a BrokerHeartbeatRequest.
type BrokerHeartbeatResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// IsFenced says the broker may not lead or be added to an ISR yet.
	IsFenced bool
	// ShouldShutDown grants a requested shutdown: the broker leads nothing
	// and may stop.
	ShouldShutDown bool
	// MetadataEndOffset is the end of the controller's metadata log.
	MetadataEndOffset uint64
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a MetadataEndOffset above math.MaxInt64 (ErrOffsetOverflow).
func (m BrokerHeartbeatResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "BrokerHeartbeatResponse"
	end, err := checkOffset(name, "MetadataEndOffset", m.MetadataEndOffset)
	if err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+1+1+8)
	dst = appendHeader(dst, APIBrokerHeartbeat, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendBool(dst, m.IsFenced)
	dst = appendBool(dst, m.ShouldShutDown)
	return appendInt64(dst, end), nil
}

// DecodeBrokerHeartbeatResponse decodes a BrokerHeartbeatResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeBrokerHeartbeatResponse(payload []byte) (BrokerHeartbeatResponse, error) {
	d := decoder{msg: "BrokerHeartbeatResponse", buf: payload}
	m := BrokerHeartbeatResponse{
		CorrelationID:     d.header(APIBrokerHeartbeat),
		ErrorCode:         ErrorCode(d.int16("ErrorCode")),
		IsFenced:          d.boolean("IsFenced"),
		ShouldShutDown:    d.boolean("ShouldShutDown"),
		MetadataEndOffset: d.offset("MetadataEndOffset"),
	}
	if err := d.finish(); err != nil {
		return BrokerHeartbeatResponse{}, err
	}
	return m, nil
}

// BrokerState is one member of a proposed ISR: a broker id and the broker
// epoch the leader knows it by (from the member's fetch requests), so the
// controller can refuse a member that restarted since (Kafka's
// NewIsrWithEpochs, AlterPartition v3).
type BrokerState struct {
	// BrokerID is the member's id.
	BrokerID int32
	// BrokerEpoch is the member's broker epoch, or NoBrokerEpoch to skip
	// the check (as Kafka does for -1). Never below NoBrokerEpoch.
	BrokerEpoch int64
}

// AlterPartitionRequest is a partition leader proposing a new ISR (and
// leader recovery state) under the leader and partition epochs it holds.
// One partition per request.
type AlterPartitionRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// BrokerID is the proposing leader's id.
	BrokerID int32
	// BrokerEpoch is the proposing leader's broker epoch. Never below
	// NoBrokerEpoch.
	BrokerEpoch int64
	// Topic and Partition name the partition.
	Topic string
	// Partition is the partition index within Topic.
	Partition int32
	// LeaderEpoch is the leader epoch the proposer leads under. Never
	// negative.
	LeaderEpoch int32
	// PartitionEpoch is the partition epoch the proposal is based on.
	// Never negative.
	PartitionEpoch int32
	// NewISR is the proposed ISR, the leader included. Empty decodes as nil.
	NewISR []BrokerState
	// LeaderRecoveryState is LeaderRecovered once a leader elected
	// uncleanly has finished recovering; LeaderRecovering otherwise.
	LeaderRecoveryState LeaderRecoveryState
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, exactly what DecodeAlterPartitionRequest refuses: a broker epoch
// below NoBrokerEpoch or an unknown LeaderRecoveryState (ErrInvalidValue), a
// negative epoch (ErrInvalidEpoch), a Topic longer than 32767 bytes
// (ErrFrameTooLarge).
func (m AlterPartitionRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "AlterPartitionRequest"
	if err := checkBrokerEpoch(name, "BrokerEpoch", m.BrokerEpoch); err != nil {
		return dst, err
	}
	if err := checkString(name, "Topic", m.Topic); err != nil {
		return dst, err
	}
	if err := checkEpoch(name, "LeaderEpoch", m.LeaderEpoch, 0); err != nil {
		return dst, err
	}
	if err := checkEpoch(name, "PartitionEpoch", m.PartitionEpoch, 0); err != nil {
		return dst, err
	}
	if err := checkCount(name, "NewISR", len(m.NewISR)); err != nil {
		return dst, err
	}
	for _, s := range m.NewISR {
		if err := checkBrokerEpoch(name, "NewISR.BrokerEpoch", s.BrokerEpoch); err != nil {
			return dst, err
		}
	}
	if err := checkRecoveryState(name, "LeaderRecoveryState", m.LeaderRecoveryState); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+4+8+encodedString(m.Topic)+4+4+4+4+12*len(m.NewISR)+1)
	dst = appendHeader(dst, APIAlterPartition, m.CorrelationID)
	dst = appendInt32(dst, m.BrokerID)
	dst = appendInt64(dst, m.BrokerEpoch)
	dst = appendString(dst, m.Topic)
	dst = appendInt32(dst, m.Partition)
	dst = appendInt32(dst, m.LeaderEpoch)
	dst = appendInt32(dst, m.PartitionEpoch)
	dst = appendInt32(dst, int32(len(m.NewISR)))
	for _, s := range m.NewISR {
		dst = appendInt32(dst, s.BrokerID)
		dst = appendInt64(dst, s.BrokerEpoch)
	}
	return appendInt8(dst, int8(m.LeaderRecoveryState)), nil
}

// DecodeAlterPartitionRequest decodes an AlterPartitionRequest payload.
// Errors match ErrMalformed and name the field.
func DecodeAlterPartitionRequest(payload []byte) (AlterPartitionRequest, error) {
	d := decoder{msg: "AlterPartitionRequest", buf: payload}
	var m AlterPartitionRequest
	m.CorrelationID = d.header(APIAlterPartition)
	m.BrokerID = d.int32("BrokerID")
	m.BrokerEpoch = d.brokerEpoch("BrokerEpoch")
	m.Topic = d.str("Topic")
	m.Partition = d.int32("Partition")
	m.LeaderEpoch = d.nonNegativeEpoch("LeaderEpoch")
	m.PartitionEpoch = d.nonNegativeEpoch("PartitionEpoch")
	if n := d.count("NewISR", 12); n > 0 {
		m.NewISR = make([]BrokerState, n)
		for i := range m.NewISR {
			m.NewISR[i] = BrokerState{BrokerID: d.int32("NewISR.BrokerID"), BrokerEpoch: d.brokerEpoch("NewISR.BrokerEpoch")}
		}
	}
	m.LeaderRecoveryState = d.recoveryState("LeaderRecoveryState")
	if err := d.finish(); err != nil {
		return AlterPartitionRequest{}, err
	}
	return m, nil
}

// AlterPartitionResponse answers an AlterPartitionRequest with the
// partition's state after it: the committed ISR the leader must adopt.
type AlterPartitionResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// Leader is the partition's leader, or NoLeader. Any int32 decodes.
	Leader int32
	// LeaderEpoch is the partition's leader epoch, or NoEpoch in a refusal.
	// Never below NoEpoch.
	LeaderEpoch int32
	// ISR is the committed ISR. Empty decodes as nil.
	ISR []int32
	// PartitionEpoch is the partition epoch, or NoEpoch in a refusal.
	// Never below NoEpoch.
	PartitionEpoch int32
	// LeaderRecoveryState is the partition's leader recovery state.
	LeaderRecoveryState LeaderRecoveryState
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, an epoch below NoEpoch (ErrInvalidEpoch) or an unknown
// LeaderRecoveryState (ErrInvalidValue).
func (m AlterPartitionResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "AlterPartitionResponse"
	if err := checkEpoch(name, "LeaderEpoch", m.LeaderEpoch, NoEpoch); err != nil {
		return dst, err
	}
	if err := checkEpoch(name, "PartitionEpoch", m.PartitionEpoch, NoEpoch); err != nil {
		return dst, err
	}
	if err := checkCount(name, "ISR", len(m.ISR)); err != nil {
		return dst, err
	}
	if err := checkRecoveryState(name, "LeaderRecoveryState", m.LeaderRecoveryState); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+4+4+4+4*len(m.ISR)+4+1)
	dst = appendHeader(dst, APIAlterPartition, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, m.Leader)
	dst = appendInt32(dst, m.LeaderEpoch)
	dst = appendInt32s(dst, m.ISR)
	dst = appendInt32(dst, m.PartitionEpoch)
	return appendInt8(dst, int8(m.LeaderRecoveryState)), nil
}

// DecodeAlterPartitionResponse decodes an AlterPartitionResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeAlterPartitionResponse(payload []byte) (AlterPartitionResponse, error) {
	d := decoder{msg: "AlterPartitionResponse", buf: payload}
	m := AlterPartitionResponse{
		CorrelationID:       d.header(APIAlterPartition),
		ErrorCode:           ErrorCode(d.int16("ErrorCode")),
		Leader:              d.int32("Leader"),
		LeaderEpoch:         d.epoch("LeaderEpoch"),
		ISR:                 d.int32s("ISR"),
		PartitionEpoch:      d.epoch("PartitionEpoch"),
		LeaderRecoveryState: d.recoveryState("LeaderRecoveryState"),
	}
	if err := d.finish(); err != nil {
		return AlterPartitionResponse{}, err
	}
	return m, nil
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
