package wire

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Generators for the controller's messages. Empty arrays are generated as
// nil, the one in-memory form a decoder gives them.

func genBrokerEpoch(r *rand.Rand) int64 {
	switch r.IntN(5) {
	case 0:
		return NoBrokerEpoch
	case 1:
		return math.MaxInt64
	}
	return r.Int64N(1 << 20)
}

func genString(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return ""
	}
	b := make([]byte, 1+r.IntN(40))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return string(b)
}

func genInt32s(r *rand.Rand) []int32 {
	n := r.IntN(5)
	if n == 0 {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(r.Uint32())
	}
	return out
}

func genRecoveryState(r *rand.Rand) LeaderRecoveryState {
	return LeaderRecoveryState(r.IntN(2))
}

func genBrokerRegistrationRequest(r *rand.Rand) BrokerRegistrationRequest {
	m := BrokerRegistrationRequest{
		CorrelationID:       int32(r.Uint32()),
		BrokerID:            int32(r.Uint32()),
		PreviousBrokerEpoch: genBrokerEpoch(r),
		LostData:            r.IntN(2) == 0,
		Endpoint:            genString(r),
		ClusterID:           genString(r),
	}
	for i := range m.IncarnationID {
		m.IncarnationID[i] = byte(r.Uint32())
	}
	return m
}

func genBrokerRegistrationResponse(r *rand.Rand) BrokerRegistrationResponse {
	return BrokerRegistrationResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r), BrokerEpoch: genBrokerEpoch(r), ClusterID: genString(r)}
}

func genBrokerHeartbeatRequest(r *rand.Rand) BrokerHeartbeatRequest {
	return BrokerHeartbeatRequest{
		CorrelationID:  int32(r.Uint32()),
		BrokerID:       int32(r.Uint32()),
		BrokerEpoch:    genBrokerEpoch(r),
		MetadataOffset: genOffset(r),
		WantShutDown:   r.IntN(2) == 0,
	}
}

func genBrokerHeartbeatResponse(r *rand.Rand) BrokerHeartbeatResponse {
	return BrokerHeartbeatResponse{
		CorrelationID:     int32(r.Uint32()),
		ErrorCode:         genCode(r),
		IsFenced:          r.IntN(2) == 0,
		ShouldShutDown:    r.IntN(2) == 0,
		MetadataEndOffset: genOffset(r),
	}
}

func genAlterPartitionRequest(r *rand.Rand) AlterPartitionRequest {
	m := AlterPartitionRequest{
		CorrelationID:       int32(r.Uint32()),
		BrokerID:            int32(r.Uint32()),
		BrokerEpoch:         genBrokerEpoch(r),
		Topic:               genString(r),
		Partition:           int32(r.Uint32()),
		LeaderEpoch:         genFoundEpoch(r),
		PartitionEpoch:      genFoundEpoch(r),
		LeaderRecoveryState: genRecoveryState(r),
	}
	for range r.IntN(4) {
		m.NewISR = append(m.NewISR, BrokerState{BrokerID: int32(r.Uint32()), BrokerEpoch: genBrokerEpoch(r)})
	}
	return m
}

func genAlterPartitionResponse(r *rand.Rand) AlterPartitionResponse {
	return AlterPartitionResponse{
		CorrelationID:       int32(r.Uint32()),
		ErrorCode:           genCode(r),
		Leader:              int32(r.Uint32()),
		LeaderEpoch:         genEpoch(r),
		ISR:                 genInt32s(r),
		PartitionEpoch:      genEpoch(r),
		LeaderRecoveryState: genRecoveryState(r),
	}
}

func genElectLeadersRequest(r *rand.Rand) ElectLeadersRequest {
	m := ElectLeadersRequest{CorrelationID: int32(r.Uint32()), Topic: genString(r), Partition: int32(r.Uint32())}
	switch r.IntN(3) {
	case 1:
		m.Unclean = true
	case 2:
		m.Preferred = true
	}
	return m
}

func genElectLeadersResponse(r *rand.Rand) ElectLeadersResponse {
	return ElectLeadersResponse{
		CorrelationID: int32(r.Uint32()),
		ErrorCode:     genCode(r),
		Leader:        int32(r.Uint32()),
		LeaderEpoch:   genEpoch(r),
		DataMayBeLost: r.IntN(2) == 0,
	}
}

func genMetadataRequest(r *rand.Rand) MetadataRequest {
	m := MetadataRequest{CorrelationID: int32(r.Uint32())}
	switch r.IntN(3) {
	case 0: // nil: every topic
	case 1:
		m.Topics = []string{}
	default:
		for range 1 + r.IntN(3) {
			m.Topics = append(m.Topics, genString(r))
		}
	}
	return m
}

func genMetadataResponse(r *rand.Rand) MetadataResponse {
	m := MetadataResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r)}
	for range r.IntN(3) {
		m.Brokers = append(m.Brokers, MetadataBroker{ID: int32(r.Uint32()), Endpoint: genString(r), Fenced: r.IntN(2) == 0})
	}
	for range r.IntN(3) {
		t := MetadataTopic{Name: genString(r), ErrorCode: genCode(r)}
		for range r.IntN(3) {
			t.Partitions = append(t.Partitions, MetadataPartition{
				Partition:      int32(r.Uint32()),
				ErrorCode:      genCode(r),
				Leader:         int32(r.Uint32()),
				LeaderEpoch:    genEpoch(r),
				PartitionEpoch: genEpoch(r),
				Replicas:       genInt32s(r),
				ISR:            genInt32s(r),
				ELR:            genInt32s(r),
			})
		}
		m.Topics = append(m.Topics, t)
	}
	return m
}

func genProducerID(r *rand.Rand) int64 {
	switch r.IntN(4) {
	case 0:
		return NoProducerID
	case 1:
		return math.MaxInt64
	}
	return r.Int64N(1 << 40)
}

func genProducerEpoch(r *rand.Rand) int16 {
	switch r.IntN(4) {
	case 0:
		return NoProducerEpoch
	case 1:
		return math.MaxInt16
	}
	return int16(r.IntN(100))
}

func genInitProducerIDRequest(r *rand.Rand) InitProducerIDRequest {
	return InitProducerIDRequest{
		CorrelationID:        int32(r.Uint32()),
		TransactionTimeoutMs: int32(r.Uint32()),
		ProducerID:           genProducerID(r),
		ProducerEpoch:        genProducerEpoch(r),
	}
}

func genInitProducerIDResponse(r *rand.Rand) InitProducerIDResponse {
	return InitProducerIDResponse{
		CorrelationID: int32(r.Uint32()),
		ErrorCode:     genCode(r),
		ProducerID:    genProducerID(r),
		ProducerEpoch: genProducerEpoch(r),
	}
}

// controllerMessage pairs a generator with its decoder, type-erased, so one
// loop can drive every controller message.
type controllerMessage struct {
	name   string
	gen    func(*rand.Rand) encodable
	decode func([]byte) (encodable, error)
}

func erase[M encodable](gen func(*rand.Rand) M, decode func([]byte) (M, error)) (func(*rand.Rand) encodable, func([]byte) (encodable, error)) {
	return func(r *rand.Rand) encodable { return gen(r) },
		func(b []byte) (encodable, error) {
			m, err := decode(b)
			if err != nil {
				return nil, err
			}
			return m, nil
		}
}

func controllerMessages() []controllerMessage {
	var out []controllerMessage
	add := func(name string, gen func(*rand.Rand) encodable, decode func([]byte) (encodable, error)) {
		out = append(out, controllerMessage{name, gen, decode})
	}
	g, d := erase(genBrokerRegistrationRequest, DecodeBrokerRegistrationRequest)
	add("BrokerRegistrationRequest", g, d)
	g, d = erase(genBrokerRegistrationResponse, DecodeBrokerRegistrationResponse)
	add("BrokerRegistrationResponse", g, d)
	g, d = erase(genBrokerHeartbeatRequest, DecodeBrokerHeartbeatRequest)
	add("BrokerHeartbeatRequest", g, d)
	g, d = erase(genBrokerHeartbeatResponse, DecodeBrokerHeartbeatResponse)
	add("BrokerHeartbeatResponse", g, d)
	g, d = erase(genAlterPartitionRequest, DecodeAlterPartitionRequest)
	add("AlterPartitionRequest", g, d)
	g, d = erase(genAlterPartitionResponse, DecodeAlterPartitionResponse)
	add("AlterPartitionResponse", g, d)
	g, d = erase(genCreateTopicsRequest, DecodeCreateTopicsRequest)
	add("CreateTopicsRequest", g, d)
	g, d = erase(genCreateTopicsResponse, DecodeCreateTopicsResponse)
	add("CreateTopicsResponse", g, d)
	g, d = erase(genDeleteTopicsRequest, DecodeDeleteTopicsRequest)
	add("DeleteTopicsRequest", g, d)
	g, d = erase(genDeleteTopicsResponse, DecodeDeleteTopicsResponse)
	add("DeleteTopicsResponse", g, d)
	g, d = erase(genCreatePartitionsRequest, DecodeCreatePartitionsRequest)
	add("CreatePartitionsRequest", g, d)
	g, d = erase(genCreatePartitionsResponse, DecodeCreatePartitionsResponse)
	add("CreatePartitionsResponse", g, d)
	g, d = erase(genAlterPartitionReassignmentsRequest, DecodeAlterPartitionReassignmentsRequest)
	add("AlterPartitionReassignmentsRequest", g, d)
	g, d = erase(genAlterPartitionReassignmentsResponse, DecodeAlterPartitionReassignmentsResponse)
	add("AlterPartitionReassignmentsResponse", g, d)
	g, d = erase(genListPartitionReassignmentsRequest, DecodeListPartitionReassignmentsRequest)
	add("ListPartitionReassignmentsRequest", g, d)
	g, d = erase(genListPartitionReassignmentsResponse, DecodeListPartitionReassignmentsResponse)
	add("ListPartitionReassignmentsResponse", g, d)
	g, d = erase(genElectLeadersRequest, DecodeElectLeadersRequest)
	add("ElectLeadersRequest", g, d)
	g, d = erase(genElectLeadersResponse, DecodeElectLeadersResponse)
	add("ElectLeadersResponse", g, d)
	g, d = erase(genMetadataRequest, DecodeMetadataRequest)
	add("MetadataRequest", g, d)
	g, d = erase(genMetadataResponse, DecodeMetadataResponse)
	add("MetadataResponse", g, d)
	g, d = erase(genInitProducerIDRequest, DecodeInitProducerIDRequest)
	add("InitProducerIDRequest", g, d)
	g, d = erase(genInitProducerIDResponse, DecodeInitProducerIDResponse)
	add("InitProducerIDResponse", g, d)
	return out
}

func TestControllerMessagesRoundTripTable(t *testing.T) {
	id := [16]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	for _, m := range []BrokerRegistrationRequest{
		{},
		{CorrelationID: 1, BrokerID: 2, IncarnationID: id, PreviousBrokerEpoch: NoBrokerEpoch, Endpoint: "localhost:9092", ClusterID: "MkU3OEVBNTcwNTJENDM2Qk"},
		{BrokerID: -5, PreviousBrokerEpoch: math.MaxInt64, LostData: true, Endpoint: strings.Repeat("x", maxStringLength)},
	} {
		checkRoundTrip(t, m, DecodeBrokerRegistrationRequest)
	}
	for _, m := range []BrokerRegistrationResponse{{}, {ErrorCode: CodeInvalidRequest, BrokerEpoch: NoBrokerEpoch}, {BrokerEpoch: 42, ClusterID: "MkU3OEVBNTcwNTJENDM2Qk"}} {
		checkRoundTrip(t, m, DecodeBrokerRegistrationResponse)
	}
	for _, m := range []BrokerHeartbeatRequest{{}, {BrokerID: 1, BrokerEpoch: 7, MetadataOffset: math.MaxInt64, WantShutDown: true}} {
		checkRoundTrip(t, m, DecodeBrokerHeartbeatRequest)
	}
	for _, m := range []BrokerHeartbeatResponse{{}, {IsFenced: true, ShouldShutDown: true, MetadataEndOffset: 9}} {
		checkRoundTrip(t, m, DecodeBrokerHeartbeatResponse)
	}
	for _, m := range []AlterPartitionRequest{
		{},
		{BrokerID: 1, BrokerEpoch: 3, Topic: "orders", Partition: 0, LeaderEpoch: 2, PartitionEpoch: 5,
			NewISR: []BrokerState{{1, 3}, {2, NoBrokerEpoch}}, LeaderRecoveryState: LeaderRecovering},
	} {
		checkRoundTrip(t, m, DecodeAlterPartitionRequest)
	}
	for _, m := range []AlterPartitionResponse{
		{},
		{ErrorCode: CodeInvalidRequest, Leader: NoLeader, LeaderEpoch: NoEpoch, PartitionEpoch: NoEpoch},
		{Leader: 1, LeaderEpoch: 2, ISR: []int32{1, 2, 3}, PartitionEpoch: 6},
	} {
		checkRoundTrip(t, m, DecodeAlterPartitionResponse)
	}
	for _, m := range []ElectLeadersRequest{{}, {Topic: "orders", Partition: 1, Unclean: true}, {Topic: "orders", Partition: 2, Preferred: true}} {
		checkRoundTrip(t, m, DecodeElectLeadersRequest)
	}
	for _, m := range []ElectLeadersResponse{{}, {Leader: NoLeader, LeaderEpoch: NoEpoch}, {Leader: 3, LeaderEpoch: 4, DataMayBeLost: true}} {
		checkRoundTrip(t, m, DecodeElectLeadersResponse)
	}
	for _, m := range []MetadataRequest{{}, {Topics: []string{}}, {Topics: []string{"a", ""}}} {
		checkRoundTrip(t, m, DecodeMetadataRequest)
	}
	for _, m := range []MetadataResponse{
		{},
		{Brokers: []MetadataBroker{{ID: 1, Endpoint: "a:1"}, {ID: 2, Fenced: true}},
			Topics: []MetadataTopic{{Name: "orders", Partitions: []MetadataPartition{{Leader: 1, Replicas: []int32{1, 2}, ISR: []int32{1}, ELR: []int32{2}}}},
				{Name: "gone", ErrorCode: CodeInvalidRequest}}},
	} {
		checkRoundTrip(t, m, DecodeMetadataResponse)
	}
	for _, m := range []InitProducerIDRequest{
		{},
		{CorrelationID: 1, TransactionTimeoutMs: -1, ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch},
		{TransactionTimeoutMs: math.MaxInt32, ProducerID: math.MaxInt64, ProducerEpoch: math.MaxInt16},
	} {
		checkRoundTrip(t, m, DecodeInitProducerIDRequest)
	}
	for _, m := range []InitProducerIDResponse{
		{},
		{CorrelationID: 1, ProducerID: 4000, ProducerEpoch: 0},
		{ErrorCode: CodeNotController, ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch},
	} {
		checkRoundTrip(t, m, DecodeInitProducerIDResponse)
	}
}

// TestControllerMessagesRoundTripRandom is the property: for every valid
// controller message, decode inverts encode and the encoding is canonical.
func TestControllerMessagesRoundTripRandom(t *testing.T) {
	r := newRand(t)
	for range 500 {
		checkRoundTrip(t, genBrokerRegistrationRequest(r), DecodeBrokerRegistrationRequest)
		checkRoundTrip(t, genBrokerRegistrationResponse(r), DecodeBrokerRegistrationResponse)
		checkRoundTrip(t, genBrokerHeartbeatRequest(r), DecodeBrokerHeartbeatRequest)
		checkRoundTrip(t, genBrokerHeartbeatResponse(r), DecodeBrokerHeartbeatResponse)
		checkRoundTrip(t, genAlterPartitionRequest(r), DecodeAlterPartitionRequest)
		checkRoundTrip(t, genAlterPartitionResponse(r), DecodeAlterPartitionResponse)
		checkRoundTrip(t, genCreateTopicsRequest(r), DecodeCreateTopicsRequest)
		checkRoundTrip(t, genCreateTopicsResponse(r), DecodeCreateTopicsResponse)
		checkRoundTrip(t, genElectLeadersRequest(r), DecodeElectLeadersRequest)
		checkRoundTrip(t, genElectLeadersResponse(r), DecodeElectLeadersResponse)
		checkRoundTrip(t, genMetadataRequest(r), DecodeMetadataRequest)
		checkRoundTrip(t, genMetadataResponse(r), DecodeMetadataResponse)
		checkRoundTrip(t, genInitProducerIDRequest(r), DecodeInitProducerIDRequest)
		checkRoundTrip(t, genInitProducerIDResponse(r), DecodeInitProducerIDResponse)
	}
}

// TestControllerLayoutMatchesDoc pins one message's bytes field by field
// against the layout in the package documentation, with encoding/binary as
// the oracle.
func TestControllerLayoutMatchesDoc(t *testing.T) {
	m := AlterPartitionRequest{CorrelationID: 9, BrokerID: 1, BrokerEpoch: 3, Topic: "ab", Partition: 4,
		LeaderEpoch: 5, PartitionEpoch: 6, NewISR: []BrokerState{{1, 3}, {2, -1}}, LeaderRecoveryState: LeaderRecovering}
	var want bytes.Buffer
	for _, v := range []any{int16(56), int16(0), int32(9), int32(1), int64(3), int16(2), []byte("ab"), int32(4), int32(5), int32(6),
		int32(2), int32(1), int64(3), int32(2), int64(-1), int8(1)} {
		if err := binary.Write(&want, binary.BigEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	if got := mustEncode(t, m); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("AppendTo\n% x\noracle\n% x", got, want.Bytes())
	}
	for _, c := range []struct {
		m      encodable
		fields []any
	}{
		{InitProducerIDRequest{CorrelationID: 4, TransactionTimeoutMs: -1, ProducerID: -1, ProducerEpoch: -1},
			[]any{int16(22), int16(0), int32(4), int32(-1), int64(-1), int16(-1)}},
		{InitProducerIDResponse{CorrelationID: 4, ErrorCode: CodeNone, ProducerID: 1000, ProducerEpoch: 0},
			[]any{int16(22), int16(0), int32(4), int16(0), int64(1000), int16(0)}},
	} {
		var want bytes.Buffer
		for _, v := range c.fields {
			if err := binary.Write(&want, binary.BigEndian, v); err != nil {
				t.Fatal(err)
			}
		}
		if got := mustEncode(t, c.m); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%T AppendTo\n% x\noracle\n% x", c.m, got, want.Bytes())
		}
	}
	all := mustEncode(t, MetadataRequest{})
	if got := all[headerSize:]; !bytes.Equal(got, []byte{0xff, 0xff, 0xff, 0xff}) {
		t.Fatalf("nil Topics encodes as % x, want Kafka's null array (-1)", got)
	}
}

func TestControllerEncodersRefuseWhatDecodersRefuse(t *testing.T) {
	long := strings.Repeat("x", maxStringLength+1)
	for _, tc := range []struct {
		name string
		m    encodable
		want error
	}{
		{"BrokerRegistrationRequest.PreviousBrokerEpoch", BrokerRegistrationRequest{PreviousBrokerEpoch: -2}, ErrInvalidValue},
		{"BrokerRegistrationRequest.Endpoint", BrokerRegistrationRequest{Endpoint: long}, ErrFrameTooLarge},
		{"BrokerRegistrationResponse.BrokerEpoch", BrokerRegistrationResponse{BrokerEpoch: math.MinInt64}, ErrInvalidValue},
		{"BrokerHeartbeatRequest.BrokerEpoch", BrokerHeartbeatRequest{BrokerEpoch: -2}, ErrInvalidValue},
		{"BrokerHeartbeatRequest.MetadataOffset", BrokerHeartbeatRequest{MetadataOffset: math.MaxInt64 + 1}, ErrOffsetOverflow},
		{"BrokerHeartbeatResponse.MetadataEndOffset", BrokerHeartbeatResponse{MetadataEndOffset: math.MaxUint64}, ErrOffsetOverflow},
		{"AlterPartitionRequest.LeaderEpoch", AlterPartitionRequest{LeaderEpoch: -1}, ErrInvalidEpoch},
		{"AlterPartitionRequest.PartitionEpoch", AlterPartitionRequest{PartitionEpoch: -1}, ErrInvalidEpoch},
		{"AlterPartitionRequest.NewISR.BrokerEpoch", AlterPartitionRequest{NewISR: []BrokerState{{1, -2}}}, ErrInvalidValue},
		{"AlterPartitionRequest.LeaderRecoveryState", AlterPartitionRequest{LeaderRecoveryState: 2}, ErrInvalidValue},
		{"AlterPartitionRequest.Topic", AlterPartitionRequest{Topic: long}, ErrFrameTooLarge},
		{"AlterPartitionResponse.LeaderEpoch", AlterPartitionResponse{LeaderEpoch: -2}, ErrInvalidEpoch},
		{"AlterPartitionResponse.LeaderRecoveryState", AlterPartitionResponse{LeaderRecoveryState: -1}, ErrInvalidValue},
		{"ElectLeadersRequest.Topic", ElectLeadersRequest{Topic: long}, ErrFrameTooLarge},
		{"ElectLeadersRequest.Preferred", ElectLeadersRequest{Unclean: true, Preferred: true}, ErrInvalidValue},
		{"ElectLeadersResponse.LeaderEpoch", ElectLeadersResponse{LeaderEpoch: -2}, ErrInvalidEpoch},
		{"MetadataRequest.Topics", MetadataRequest{Topics: []string{long}}, ErrFrameTooLarge},
		{"MetadataResponse.Brokers.Endpoint", MetadataResponse{Brokers: []MetadataBroker{{Endpoint: long}}}, ErrFrameTooLarge},
		{"MetadataResponse.Partitions.LeaderEpoch", MetadataResponse{Topics: []MetadataTopic{{Partitions: []MetadataPartition{{LeaderEpoch: -2}}}}}, ErrInvalidEpoch},
		{"InitProducerIDRequest.ProducerID", InitProducerIDRequest{ProducerID: -2}, ErrInvalidValue},
		{"InitProducerIDRequest.ProducerEpoch", InitProducerIDRequest{ProducerEpoch: -2}, ErrInvalidValue},
		{"InitProducerIDResponse.ProducerID", InitProducerIDResponse{ProducerID: math.MinInt64}, ErrInvalidValue},
		{"InitProducerIDResponse.ProducerEpoch", InitProducerIDResponse{ProducerEpoch: math.MinInt16}, ErrInvalidValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.m.AppendTo([]byte("keep"))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if string(got) != "keep" {
				t.Fatalf("dst = %q after refusal, want it unchanged", got)
			}
		})
	}
}

func TestControllerMalformedPayloads(t *testing.T) {
	valid := func(m encodable) []byte { return mustEncode(t, m) }
	reg := valid(BrokerRegistrationRequest{Endpoint: "e"})
	hb := valid(BrokerHeartbeatRequest{})
	ap := valid(AlterPartitionRequest{Topic: "t", NewISR: []BrokerState{{1, 1}}})
	md := valid(MetadataRequest{Topics: []string{"t"}})
	ipq := valid(InitProducerIDRequest{ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch})
	ips := valid(InitProducerIDResponse{ProducerID: 5})
	for _, tc := range []struct {
		name    string
		payload []byte
		decode  func([]byte) error
		want    error
		field   string
	}{
		{"LostData 2", patchByte(reg, 36, 2), decodeErr(DecodeBrokerRegistrationRequest), ErrInvalidValue, "LostData"},
		{"PreviousBrokerEpoch -2", patch(reg, 28, int64(-2)), decodeErr(DecodeBrokerRegistrationRequest), ErrInvalidValue, "PreviousBrokerEpoch"},
		{"Endpoint length -1", patch(reg, 37, int16(-1)), decodeErr(DecodeBrokerRegistrationRequest), ErrNegativeLength, "Endpoint"},
		{"Endpoint longer than payload", patch(reg, 37, int16(1000)), decodeErr(DecodeBrokerRegistrationRequest), ErrTruncated, "Endpoint"},
		{"negative MetadataOffset", patch(hb, 20, int64(-1)), decodeErr(DecodeBrokerHeartbeatRequest), ErrNegativeOffset, "MetadataOffset"},
		{"WantShutDown 255", patchByte(hb, 28, 255), decodeErr(DecodeBrokerHeartbeatRequest), ErrInvalidValue, "WantShutDown"},
		{"LeaderEpoch -1", patch(ap, 27, int32(-1)), decodeErr(DecodeAlterPartitionRequest), ErrInvalidEpoch, "LeaderEpoch"},
		{"NewISR count -1", patch(ap, 35, int32(-1)), decodeErr(DecodeAlterPartitionRequest), ErrNegativeLength, "NewISR"},
		{"NewISR count huge", patch(ap, 35, int32(math.MaxInt32)), decodeErr(DecodeAlterPartitionRequest), ErrTruncated, "NewISR"},
		{"LeaderRecoveryState 7", patchByte(ap, len(ap)-1, 7), decodeErr(DecodeAlterPartitionRequest), ErrInvalidValue, "LeaderRecoveryState"},
		{"Topics count -2", patch(md, 8, int32(-2)), decodeErr(DecodeMetadataRequest), ErrNegativeLength, "Topics"},
		{"Topics count huge", patch(md, 8, int32(1<<30)), decodeErr(DecodeMetadataRequest), ErrTruncated, "Topics"},
		{"ProducerID -2", patch(ipq, 12, int64(-2)), decodeErr(DecodeInitProducerIDRequest), ErrInvalidValue, "ProducerID"},
		{"ProducerEpoch -2", patch(ipq, 20, int16(-2)), decodeErr(DecodeInitProducerIDRequest), ErrInvalidValue, "ProducerEpoch"},
		{"response ProducerID -5", patch(ips, 10, int64(-5)), decodeErr(DecodeInitProducerIDResponse), ErrInvalidValue, "ProducerID"},
		{"response ProducerEpoch -2", patch(ips, 18, int16(-2)), decodeErr(DecodeInitProducerIDResponse), ErrInvalidValue, "ProducerEpoch"},
		{"request with a trailing byte", append(bytes.Clone(ipq), 0), decodeErr(DecodeInitProducerIDRequest), ErrTrailingBytes, "InitProducerIDRequest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.decode(tc.payload)
			if !errors.Is(err, tc.want) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want %v (and ErrMalformed)", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %q does not name the field %s", err, tc.field)
			}
		})
	}
}

func patchByte(b []byte, off int, v byte) []byte {
	out := append([]byte(nil), b...)
	out[off] = v
	return out
}

func decodeErr[M any](decode func([]byte) (M, error)) func([]byte) error {
	return func(b []byte) error { _, err := decode(b); return err }
}

// TestControllerHugeCountsDoNotAllocate: a count that claims more elements
// than the payload could hold is refused before anything is allocated for
// them; only the error's text is.
func TestControllerHugeCountsDoNotAllocate(t *testing.T) {
	for name, b := range map[string][]byte{
		"MetadataResponse.Brokers":     patch(mustEncode(t, MetadataResponse{}), 10, int32(math.MaxInt32)),
		"AlterPartitionRequest.NewISR": patch(mustEncode(t, AlterPartitionRequest{}), 34, int32(math.MaxInt32)),
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 10 {
			if err := decodeAny(b); !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s: err = %v, want ErrTruncated", name, err)
			}
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 10*1024 {
			t.Errorf("%s: refusing a huge count 10 times allocated %d bytes", name, n)
		}
	}
}

// decodeAny routes a payload to its decoder by API key.
func decodeAny(b []byte) error {
	switch APIKey(binary.BigEndian.Uint16(b)) {
	case APIMetadata:
		_, err := DecodeMetadataResponse(b)
		return err
	case APIAlterPartition:
		_, err := DecodeAlterPartitionRequest(b)
		return err
	}
	return nil
}

func TestControllerEveryPrefixIsTruncated(t *testing.T) {
	r := newRand(t)
	for _, cm := range controllerMessages() {
		for range 20 {
			b := mustEncode(t, cm.gen(r))
			for n := range len(b) {
				if _, err := cm.decode(b[:n]); !errors.Is(err, ErrTruncated) {
					t.Fatalf("%s cut to %d of %d bytes: err = %v, want ErrTruncated", cm.name, n, len(b), err)
				}
			}
		}
	}
}

func TestControllerMutatedPayloadsNeverPanicAndStayCanonical(t *testing.T) {
	r := newRand(t)
	msgs := controllerMessages()
	for i := range 6000 {
		cm := msgs[i%len(msgs)]
		b := mustEncode(t, cm.gen(r))
		switch r.IntN(3) {
		case 0:
			for range 1 + r.IntN(3) {
				b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
			}
		case 1:
			b = b[:r.IntN(len(b))]
		case 2:
			b = append(b, byte(r.Uint32()))
		}
		m, err := cm.decode(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("%s: decode(% x): %v does not match ErrMalformed", cm.name, b, err)
			}
			continue
		}
		if again := mustEncode(t, m); !bytes.Equal(again, b) {
			t.Fatalf("%s: accepted % x but re-encodes as % x", cm.name, b, again)
		}
	}
}

func TestControllerAPIKeys(t *testing.T) {
	for k, want := range map[APIKey]string{
		APIMetadata: "Metadata", APICreateTopics: "CreateTopics", APIDeleteTopics: "DeleteTopics", APICreatePartitions: "CreatePartitions", APIElectLeaders: "ElectLeaders",
		APIAlterPartitionReassignments: "AlterPartitionReassignments", APIListPartitionReassignments: "ListPartitionReassignments",
		APIAlterPartition: "AlterPartition", APIBrokerRegistration: "BrokerRegistration", APIBrokerHeartbeat: "BrokerHeartbeat",
		APIInitProducerID: "InitProducerID",
	} {
		if got := k.String(); got != want {
			t.Errorf("APIKey(%d).String() = %q, want %q", int16(k), got, want)
		}
	}
	// Kafka's numbers, from clients/src/main/resources/common/message/*.json.
	for k, want := range map[APIKey]int16{APIMetadata: 3, APICreateTopics: 19, APIDeleteTopics: 20, APICreatePartitions: 37, APIInitProducerID: 22, APIElectLeaders: 43,
		APIAlterPartitionReassignments: 45, APIListPartitionReassignments: 46,
		APIAlterPartition: 56, APIBrokerRegistration: 62, APIBrokerHeartbeat: 63} {
		if int16(k) != want {
			t.Errorf("%s = %d, want Kafka's %d", k, int16(k), want)
		}
	}
	r := newRand(t)
	for _, cm := range controllerMessages() {
		b := mustEncode(t, cm.gen(r))
		key, _, err := PeekHeader(b)
		if err != nil || key.String() != strings.TrimSuffix(strings.TrimSuffix(cm.name, "Request"), "Response") {
			t.Errorf("PeekHeader(%s) = %v, %v", cm.name, key, err)
		}
	}
	for s, want := range map[LeaderRecoveryState]string{LeaderRecovered: "RECOVERED", LeaderRecovering: "RECOVERING", 9: "LeaderRecoveryState(9)"} {
		if got := s.String(); got != want {
			t.Errorf("LeaderRecoveryState(%d).String() = %q, want %q", int8(s), got, want)
		}
	}
}

// TestControllerGoldenEncodings pins the exact bytes of one message of each
// kind. After an intended layout change: go test ./wire -run ControllerGolden -update
func TestControllerGoldenEncodings(t *testing.T) {
	id := [16]byte{0x6b, 0x61, 0x65, 0x6e, 0x6c, 0x6f, 0x67, 0x21, 1, 2, 3, 4, 5, 6, 7, 8}
	for _, tc := range []struct {
		name string
		m    encodable
	}{
		{"broker_registration_request", BrokerRegistrationRequest{CorrelationID: 1, BrokerID: 2, IncarnationID: id, PreviousBrokerEpoch: 7, Endpoint: "b2:9092", ClusterID: "c1"}},
		{"broker_registration_request_unclean", BrokerRegistrationRequest{CorrelationID: 2, BrokerID: 2, IncarnationID: id, PreviousBrokerEpoch: NoBrokerEpoch, LostData: true, Endpoint: "b2:9092"}},
		{"broker_registration_response", BrokerRegistrationResponse{CorrelationID: 1, BrokerEpoch: 12, ClusterID: "c1"}},
		{"broker_heartbeat_request", BrokerHeartbeatRequest{CorrelationID: 3, BrokerID: 2, BrokerEpoch: 12, MetadataOffset: 13, WantShutDown: true}},
		{"broker_heartbeat_response", BrokerHeartbeatResponse{CorrelationID: 3, IsFenced: false, ShouldShutDown: true, MetadataEndOffset: 20}},
		{"alter_partition_request", AlterPartitionRequest{CorrelationID: 4, BrokerID: 1, BrokerEpoch: 5, Topic: "orders", Partition: 0,
			LeaderEpoch: 2, PartitionEpoch: 7, NewISR: []BrokerState{{1, 5}, {2, 12}}, LeaderRecoveryState: LeaderRecovered}},
		{"alter_partition_response", AlterPartitionResponse{CorrelationID: 4, Leader: 1, LeaderEpoch: 2, ISR: []int32{1, 2}, PartitionEpoch: 8}},
		{"delete_topics_request", DeleteTopicsRequest{CorrelationID: 13, Names: []string{"orders", "gone"}}},
		{"delete_topics_response", DeleteTopicsResponse{CorrelationID: 13, Topics: []DeletedTopic{{Name: "orders"}, {Name: "gone", ErrorCode: CodeUnknownTopicOrPartition}}}},
		{"elect_leaders_request", ElectLeadersRequest{CorrelationID: 7, Topic: "orders", Partition: 1, Unclean: true}},
		{"elect_leaders_request_preferred", ElectLeadersRequest{CorrelationID: 7, Topic: "orders", Partition: 2, Preferred: true}},
		{"elect_leaders_response", ElectLeadersResponse{CorrelationID: 7, Leader: 3, LeaderEpoch: 4, DataMayBeLost: true}},
		{"init_producer_id_request", InitProducerIDRequest{CorrelationID: 10, TransactionTimeoutMs: -1, ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch}},
		{"init_producer_id_response", InitProducerIDResponse{CorrelationID: 10, ProducerID: 4000, ProducerEpoch: 0}},
		{"init_producer_id_response_refused", InitProducerIDResponse{CorrelationID: 11, ErrorCode: CodeNotController, ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch}},
		{"metadata_request_all", MetadataRequest{CorrelationID: 8}},
		{"metadata_request", MetadataRequest{CorrelationID: 9, Topics: []string{"orders"}}},
		{"metadata_request_auto_create", MetadataRequest{CorrelationID: 14, Topics: []string{"new"}, AutoCreate: AutoCreate{Partitions: 3, ReplicationFactor: 2}}},
		{"metadata_response", MetadataResponse{CorrelationID: 9, Brokers: []MetadataBroker{{ID: 1, Endpoint: "b1:9092"}, {ID: 2, Endpoint: "b2:9092", Fenced: true}},
			Topics: []MetadataTopic{{Name: "orders", Partitions: []MetadataPartition{{Partition: 0, Leader: 1, LeaderEpoch: 2, PartitionEpoch: 8,
				Replicas: []int32{1, 2, 3}, ISR: []int32{1}, ELR: []int32{2}}}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hex.Dump(mustEncode(t, tc.m))
			path := filepath.Join("testdata", "golden", "controller_"+tc.name+".hex")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Fatalf("encoding of %+v changed:\ngot\n%swant\n%s", tc.m, got, want)
			}
		})
	}
}
