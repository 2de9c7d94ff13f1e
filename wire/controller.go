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

// ElectLeadersRequest asks the controller to elect a leader for one
// partition: a clean election, or an unclean one when Unclean is set.
type ElectLeadersRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Topic names the partition's topic.
	Topic string
	// Partition is the partition index within Topic.
	Partition int32
	// Unclean allows electing a replica outside the ISR and ELR, which may
	// lose committed records (Kafka's ElectionType UNCLEAN).
	Unclean bool
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a Topic longer than 32767 bytes (ErrFrameTooLarge).
func (m ElectLeadersRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "ElectLeadersRequest"
	if err := checkString(name, "Topic", m.Topic); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+encodedString(m.Topic)+4+1)
	dst = appendHeader(dst, APIElectLeaders, m.CorrelationID)
	dst = appendString(dst, m.Topic)
	dst = appendInt32(dst, m.Partition)
	return appendBool(dst, m.Unclean), nil
}

// DecodeElectLeadersRequest decodes an ElectLeadersRequest payload. Errors
// match ErrMalformed and name the field.
func DecodeElectLeadersRequest(payload []byte) (ElectLeadersRequest, error) {
	d := decoder{msg: "ElectLeadersRequest", buf: payload}
	m := ElectLeadersRequest{
		CorrelationID: d.header(APIElectLeaders),
		Topic:         d.str("Topic"),
		Partition:     d.int32("Partition"),
		Unclean:       d.boolean("Unclean"),
	}
	if err := d.finish(); err != nil {
		return ElectLeadersRequest{}, err
	}
	return m, nil
}

// ElectLeadersResponse answers an ElectLeadersRequest.
type ElectLeadersResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// Leader is the partition's leader after the request, or NoLeader.
	Leader int32
	// LeaderEpoch is the partition's leader epoch after the request, or
	// NoEpoch in a refusal. Never below NoEpoch.
	LeaderEpoch int32
	// DataMayBeLost is set when this request elected a leader uncleanly:
	// records committed before the election may be gone.
	DataMayBeLost bool
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a LeaderEpoch below NoEpoch (ErrInvalidEpoch).
func (m ElectLeadersResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "ElectLeadersResponse"
	if err := checkEpoch(name, "LeaderEpoch", m.LeaderEpoch, NoEpoch); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+4+4+1)
	dst = appendHeader(dst, APIElectLeaders, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, m.Leader)
	dst = appendInt32(dst, m.LeaderEpoch)
	return appendBool(dst, m.DataMayBeLost), nil
}

// DecodeElectLeadersResponse decodes an ElectLeadersResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeElectLeadersResponse(payload []byte) (ElectLeadersResponse, error) {
	d := decoder{msg: "ElectLeadersResponse", buf: payload}
	m := ElectLeadersResponse{
		CorrelationID: d.header(APIElectLeaders),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		Leader:        d.int32("Leader"),
		LeaderEpoch:   d.epoch("LeaderEpoch"),
		DataMayBeLost: d.boolean("DataMayBeLost"),
	}
	if err := d.finish(); err != nil {
		return ElectLeadersResponse{}, err
	}
	return m, nil
}

// MetadataRequest asks the controller for the cluster's brokers and the
// state of some topics' partitions.
type MetadataRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// Topics lists the topics wanted. nil means every topic (count -1 on
	// the wire, Kafka's null); an empty non-nil slice means none.
	Topics []string
	// AutoCreate, when set (Partitions > 0), asks a broker to create each
	// named topic that does not exist, through the controller, with these
	// partitions and replication factor: Kafka's AllowAutoTopicCreation
	// under auto.create.topics.enable. Encoded last, and only when set.
	AutoCreate AutoCreate
}

// AutoCreate is how a MetadataRequest's unknown topics are created; the
// zero value creates none.
type AutoCreate struct {
	// Partitions is the new topics' partition count: > 0 when set.
	Partitions int32
	// ReplicationFactor is their replication factor: > 0 when set.
	ReplicationFactor int16
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a topic name longer than 32767 bytes (ErrFrameTooLarge).
func (m MetadataRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "MetadataRequest"
	if err := checkCount(name, "Topics", len(m.Topics)); err != nil {
		return dst, err
	}
	if a := m.AutoCreate; a != (AutoCreate{}) && (a.Partitions < 1 || a.ReplicationFactor < 1) {
		return dst, fieldError(ErrInvalidValue, name, "AutoCreate", fmt.Sprintf(" = %+v, want both > 0 or both 0", a))
	}
	size := headerSize + 4 + 6
	for _, t := range m.Topics {
		if err := checkString(name, "Topics", t); err != nil {
			return dst, err
		}
		size += encodedString(t)
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIMetadata, m.CorrelationID)
	if m.Topics == nil {
		dst = appendInt32(dst, -1)
	} else {
		dst = appendInt32(dst, int32(len(m.Topics)))
		for _, t := range m.Topics {
			dst = appendString(dst, t)
		}
	}
	if m.AutoCreate != (AutoCreate{}) {
		dst = appendInt32(dst, m.AutoCreate.Partitions)
		dst = appendInt16(dst, m.AutoCreate.ReplicationFactor)
	}
	return dst, nil
}

// TopicSet returns the topics m names, each once, in the order first
// named, or nil when m names none (every topic): a Metadata request is
// answered for the set of its names, as Kafka's KafkaApis answers it, so
// a request naming one topic many times cannot make its answer many
// times the topic's metadata.
func (m MetadataRequest) TopicSet() []string {
	if len(m.Topics) < 2 {
		return m.Topics
	}
	seen := make(map[string]struct{}, min(len(m.Topics), 1024))
	out := make([]string, 0, min(len(m.Topics), 1024))
	for _, n := range m.Topics {
		if _, ok := seen[n]; !ok {
			seen[n] = struct{}{}
			out = append(out, n)
		}
	}
	return out
}

// DecodeMetadataRequest decodes a MetadataRequest payload. A Topics count of
// -1 decodes as nil (every topic) and 0 as an empty non-nil slice; any other
// negative count is malformed. Errors match ErrMalformed and name the field.
func DecodeMetadataRequest(payload []byte) (MetadataRequest, error) {
	d := decoder{msg: "MetadataRequest", buf: payload}
	var m MetadataRequest
	m.CorrelationID = d.header(APIMetadata)
	if n, null := d.nullableCount("Topics", 2); !null && d.err == nil {
		m.Topics = make([]string, n)
		for i := range m.Topics {
			m.Topics[i] = d.str("Topics")
		}
	}
	if d.err == nil && d.off < len(d.buf) {
		// Present only when set: zeros written out are not its encoding.
		m.AutoCreate = AutoCreate{Partitions: d.int32("AutoCreate.Partitions"), ReplicationFactor: d.int16("AutoCreate.ReplicationFactor")}
		if d.err == nil && (m.AutoCreate.Partitions < 1 || m.AutoCreate.ReplicationFactor < 1) {
			d.fail(ErrInvalidValue, "AutoCreate", fmt.Sprintf(" = %+v, want both > 0", m.AutoCreate))
		}
	}
	if err := d.finish(); err != nil {
		return MetadataRequest{}, err
	}
	return m, nil
}

// MetadataBroker is one registered broker in a MetadataResponse.
type MetadataBroker struct {
	// ID is the broker's id.
	ID int32
	// Endpoint is where the broker is reached.
	Endpoint string
	// Fenced says the broker may not lead or join an ISR right now.
	Fenced bool
}

// MetadataPartition is one partition's state in a MetadataResponse.
type MetadataPartition struct {
	// Partition is the partition index.
	Partition int32
	// ErrorCode is CodeNone, or e.g. CodeLeaderNotAvailable when the
	// partition has no leader. Any int16 decodes.
	ErrorCode ErrorCode
	// Leader is the partition's leader, or NoLeader.
	Leader int32
	// LeaderEpoch is the leader epoch. Never below NoEpoch.
	LeaderEpoch int32
	// PartitionEpoch is the partition epoch. Never below NoEpoch.
	PartitionEpoch int32
	// Replicas is the replica assignment in preference order.
	Replicas []int32
	// ISR is the in-sync replica set.
	ISR []int32
	// ELR is KIP-966's eligible leader replicas.
	ELR []int32
}

// MetadataTopic is one topic in a MetadataResponse.
type MetadataTopic struct {
	// Name is the topic's name.
	Name string
	// ErrorCode is CodeNone, or CodeUnknownTopicOrPartition for a topic
	// that does not exist. Any int16 decodes.
	ErrorCode ErrorCode
	// Partitions lists the topic's partitions in index order. Empty
	// decodes as nil.
	Partitions []MetadataPartition
}

// MetadataResponse answers a MetadataRequest.
type MetadataResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone unless the whole request failed (e.g. the
	// controller has failed). Any int16 decodes.
	ErrorCode ErrorCode
	// Brokers lists every registered broker, by id. Empty decodes as nil.
	Brokers []MetadataBroker
	// Topics lists the topics asked for. Empty decodes as nil.
	Topics []MetadataTopic
}

// Minimum encoded sizes of MetadataResponse's array elements, for bounding
// counts before allocation.
const (
	minMetadataBrokerSize    = 4 + 2 + 1
	minMetadataTopicSize     = 2 + 2 + 4
	minMetadataPartitionSize = 4 + 2 + 4 + 4 + 4 + 4 + 4 + 4
)

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a string longer than 32767 bytes (ErrFrameTooLarge) or an
// epoch below NoEpoch (ErrInvalidEpoch).
func (m MetadataResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "MetadataResponse"
	size := headerSize + 2 + 4 + 4
	if err := checkCount(name, "Brokers", len(m.Brokers)); err != nil {
		return dst, err
	}
	for _, b := range m.Brokers {
		if err := checkString(name, "Brokers.Endpoint", b.Endpoint); err != nil {
			return dst, err
		}
		size += minMetadataBrokerSize + len(b.Endpoint)
	}
	if err := checkCount(name, "Topics", len(m.Topics)); err != nil {
		return dst, err
	}
	for _, t := range m.Topics {
		if err := checkString(name, "Topics.Name", t.Name); err != nil {
			return dst, err
		}
		if err := checkCount(name, "Topics.Partitions", len(t.Partitions)); err != nil {
			return dst, err
		}
		size += minMetadataTopicSize + len(t.Name)
		for _, p := range t.Partitions {
			if err := checkEpoch(name, "Topics.Partitions.LeaderEpoch", p.LeaderEpoch, NoEpoch); err != nil {
				return dst, err
			}
			if err := checkEpoch(name, "Topics.Partitions.PartitionEpoch", p.PartitionEpoch, NoEpoch); err != nil {
				return dst, err
			}
			for _, f := range [...]struct {
				field string
				n     int
			}{{"Replicas", len(p.Replicas)}, {"ISR", len(p.ISR)}, {"ELR", len(p.ELR)}} {
				if err := checkCount(name, "Topics.Partitions."+f.field, f.n); err != nil {
					return dst, err
				}
			}
			size += minMetadataPartitionSize + 4*(len(p.Replicas)+len(p.ISR)+len(p.ELR))
		}
	}
	dst = grow(dst, size)
	dst = appendHeader(dst, APIMetadata, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt32(dst, int32(len(m.Brokers)))
	for _, b := range m.Brokers {
		dst = appendInt32(dst, b.ID)
		dst = appendString(dst, b.Endpoint)
		dst = appendBool(dst, b.Fenced)
	}
	dst = appendInt32(dst, int32(len(m.Topics)))
	for _, t := range m.Topics {
		dst = appendString(dst, t.Name)
		dst = appendInt16(dst, int16(t.ErrorCode))
		dst = appendInt32(dst, int32(len(t.Partitions)))
		for _, p := range t.Partitions {
			dst = appendInt32(dst, p.Partition)
			dst = appendInt16(dst, int16(p.ErrorCode))
			dst = appendInt32(dst, p.Leader)
			dst = appendInt32(dst, p.LeaderEpoch)
			dst = appendInt32(dst, p.PartitionEpoch)
			dst = appendInt32s(dst, p.Replicas)
			dst = appendInt32s(dst, p.ISR)
			dst = appendInt32s(dst, p.ELR)
		}
	}
	return dst, nil
}

// DecodeMetadataResponse decodes a MetadataResponse payload. Errors match
// ErrMalformed and name the field.
func DecodeMetadataResponse(payload []byte) (MetadataResponse, error) {
	d := decoder{msg: "MetadataResponse", buf: payload}
	var m MetadataResponse
	m.CorrelationID = d.header(APIMetadata)
	m.ErrorCode = ErrorCode(d.int16("ErrorCode"))
	if n := d.count("Brokers", minMetadataBrokerSize); n > 0 {
		m.Brokers = make([]MetadataBroker, n)
		for i := range m.Brokers {
			m.Brokers[i] = MetadataBroker{
				ID:       d.int32("Brokers.ID"),
				Endpoint: d.str("Brokers.Endpoint"),
				Fenced:   d.boolean("Brokers.Fenced"),
			}
		}
	}
	if n := d.count("Topics", minMetadataTopicSize); n > 0 {
		m.Topics = make([]MetadataTopic, n)
		for i := range m.Topics {
			t := &m.Topics[i]
			t.Name = d.str("Topics.Name")
			t.ErrorCode = ErrorCode(d.int16("Topics.ErrorCode"))
			if n := d.count("Topics.Partitions", minMetadataPartitionSize); n > 0 {
				t.Partitions = make([]MetadataPartition, n)
				for j := range t.Partitions {
					t.Partitions[j] = MetadataPartition{
						Partition:      d.int32("Topics.Partitions.Partition"),
						ErrorCode:      ErrorCode(d.int16("Topics.Partitions.ErrorCode")),
						Leader:         d.int32("Topics.Partitions.Leader"),
						LeaderEpoch:    d.epoch("Topics.Partitions.LeaderEpoch"),
						PartitionEpoch: d.epoch("Topics.Partitions.PartitionEpoch"),
						Replicas:       d.int32s("Topics.Partitions.Replicas"),
						ISR:            d.int32s("Topics.Partitions.ISR"),
						ELR:            d.int32s("Topics.Partitions.ELR"),
					}
				}
			}
		}
	}
	if err := d.finish(); err != nil {
		return MetadataResponse{}, err
	}
	return m, nil
}

// InitProducerIDRequest asks the controller for a producer id, as an
// idempotent producer does before its first produce (Kafka's
// InitProducerId, without a transactional id: kaenlog has no
// transactions).
type InitProducerIDRequest struct {
	// CorrelationID is echoed in the response so the sender can match it.
	CorrelationID int32
	// TransactionTimeoutMs is Kafka's field, ignored without transactions;
	// producers send -1. Any int32 decodes.
	TransactionTimeoutMs int32
	// ProducerID is the producer's current id, or NoProducerID (a new
	// producer). Never below NoProducerID.
	ProducerID int64
	// ProducerEpoch is the producer's current epoch, or NoProducerEpoch.
	// Never below NoProducerEpoch.
	ProducerEpoch int16
}

// AppendTo appends the encoded request to dst. It refuses, with dst
// unchanged, a ProducerID or ProducerEpoch below -1 (ErrInvalidValue).
func (m InitProducerIDRequest) AppendTo(dst []byte) ([]byte, error) {
	const name = "InitProducerIDRequest"
	if err := checkProducer(name, m.ProducerID, m.ProducerEpoch); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+4+8+2)
	dst = appendHeader(dst, APIInitProducerID, m.CorrelationID)
	dst = appendInt32(dst, m.TransactionTimeoutMs)
	dst = appendInt64(dst, m.ProducerID)
	return appendInt16(dst, m.ProducerEpoch), nil
}

// DecodeInitProducerIDRequest decodes an InitProducerIDRequest payload.
// Errors match ErrMalformed and name the field.
func DecodeInitProducerIDRequest(payload []byte) (InitProducerIDRequest, error) {
	d := decoder{msg: "InitProducerIDRequest", buf: payload}
	m := InitProducerIDRequest{
		CorrelationID:        d.header(APIInitProducerID),
		TransactionTimeoutMs: d.int32("TransactionTimeoutMs"),
		ProducerID:           d.producerID("ProducerID"),
		ProducerEpoch:        d.producerEpoch("ProducerEpoch"),
	}
	if err := d.finish(); err != nil {
		return InitProducerIDRequest{}, err
	}
	return m, nil
}

// InitProducerIDResponse answers an InitProducerIDRequest.
type InitProducerIDResponse struct {
	// CorrelationID echoes the request's.
	CorrelationID int32
	// ErrorCode is CodeNone on success. Any int16 decodes.
	ErrorCode ErrorCode
	// ProducerID is the id the producer must write its batches with, or
	// NoProducerID in a refusal. Never below NoProducerID.
	ProducerID int64
	// ProducerEpoch is the epoch to write them with, or NoProducerEpoch in
	// a refusal. Never below NoProducerEpoch.
	ProducerEpoch int16
}

// AppendTo appends the encoded response to dst. It refuses, with dst
// unchanged, a ProducerID or ProducerEpoch below -1 (ErrInvalidValue).
func (m InitProducerIDResponse) AppendTo(dst []byte) ([]byte, error) {
	const name = "InitProducerIDResponse"
	if err := checkProducer(name, m.ProducerID, m.ProducerEpoch); err != nil {
		return dst, err
	}
	dst = grow(dst, headerSize+2+8+2)
	dst = appendHeader(dst, APIInitProducerID, m.CorrelationID)
	dst = appendInt16(dst, int16(m.ErrorCode))
	dst = appendInt64(dst, m.ProducerID)
	return appendInt16(dst, m.ProducerEpoch), nil
}

// DecodeInitProducerIDResponse decodes an InitProducerIDResponse payload.
// Errors match ErrMalformed and name the field.
func DecodeInitProducerIDResponse(payload []byte) (InitProducerIDResponse, error) {
	d := decoder{msg: "InitProducerIDResponse", buf: payload}
	m := InitProducerIDResponse{
		CorrelationID: d.header(APIInitProducerID),
		ErrorCode:     ErrorCode(d.int16("ErrorCode")),
		ProducerID:    d.producerID("ProducerID"),
		ProducerEpoch: d.producerEpoch("ProducerEpoch"),
	}
	if err := d.finish(); err != nil {
		return InitProducerIDResponse{}, err
	}
	return m, nil
}
