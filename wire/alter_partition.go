package wire

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
