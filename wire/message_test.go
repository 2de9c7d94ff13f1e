package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkRoundTrip encodes m after a non-empty prefix, decodes the appended
// part, and wants m back; then re-encodes and wants the same bytes.
func checkRoundTrip[M encodable](t *testing.T, m M, decode func([]byte) (M, error)) {
	t.Helper()
	prefix := []byte("prefix")
	enc, err := m.AppendTo(append([]byte(nil), prefix...))
	if err != nil {
		t.Fatalf("AppendTo(%+v): %v", m, err)
	}
	if !bytes.HasPrefix(enc, prefix) {
		t.Fatalf("AppendTo clobbered dst: % x", enc[:len(prefix)])
	}
	payload := enc[len(prefix):]
	got, err := decode(payload)
	if err != nil {
		t.Fatalf("decode(AppendTo(%+v)): %v", m, err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Fatalf("round trip mismatch (-sent +decoded):\n%s", diff)
	}
	again := mustEncode(t, got)
	if !bytes.Equal(again, payload) {
		t.Fatalf("re-encoding differs:\nfirst  % x\nsecond % x", payload, again)
	}
}

func TestRoundTripTable(t *testing.T) {
	long := strings.Repeat("x", MaxTopicLength)
	t.Run("FetchRequest", func(t *testing.T) {
		for _, m := range []FetchRequest{
			{},
			{CorrelationID: 7, ReplicaID: 2, ReplicaEpoch: 5, MaxWaitMs: 500, MinBytes: 1, MaxBytes: 1 << 20, Partitions: []FetchPartition{
				{Topic: "orders", Partition: 0, FetchOffset: 1, MaxBytes: 1 << 20, HasLogStartOffset: true},
				{Topic: "orders", Partition: 1, CurrentLeaderEpoch: 3, FetchOffset: 9, LastFetchedEpoch: 3, HasLogStartOffset: true, LogStartOffset: 4},
				{Topic: "payments", Partition: math.MaxInt32, CurrentLeaderEpoch: math.MaxInt32, FetchOffset: math.MaxInt64, LastFetchedEpoch: math.MaxInt32, MaxBytes: math.MaxInt32},
			}},
			{CorrelationID: -1, ReplicaID: ConsumerReplicaID, ReplicaEpoch: NoBrokerEpoch, Partitions: []FetchPartition{
				{Topic: long, CurrentLeaderEpoch: NoEpoch, LastFetchedEpoch: NoEpoch},
			}},
			{CorrelationID: math.MinInt32, ReplicaID: math.MinInt32, ReplicaEpoch: math.MaxInt64, MaxWaitMs: math.MaxInt32, MinBytes: math.MaxInt32, MaxBytes: math.MaxInt32},
		} {
			checkRoundTrip(t, m, DecodeFetchRequest)
		}
	})
	t.Run("FetchResponse", func(t *testing.T) {
		for _, m := range []FetchResponse{
			{},
			{CorrelationID: 3, ErrorCode: CodeInvalidRequest},
			{CorrelationID: 7, Partitions: []FetchPartitionResponse{
				{Topic: "orders", HighWatermark: 1, Records: []byte{1, 2, 3}},
				{Topic: "orders", Partition: 1, ErrorCode: CodeFencedLeaderEpoch, HighWatermark: math.MaxInt64, LogStartOffset: math.MaxInt64,
					HasDivergingEpoch: true, DivergingEpoch: EpochEndOffset{Epoch: 0, EndOffset: 0},
					HasCurrentLeader: true, CurrentLeader: LeaderAndEpoch{LeaderID: 0, LeaderEpoch: 0}},
				{Topic: long, Partition: 2, ErrorCode: ErrorCode(math.MaxInt16), HasDivergingEpoch: true, DivergingEpoch: EpochEndOffset{Epoch: math.MaxInt32, EndOffset: math.MaxInt64},
					HasCurrentLeader: true, CurrentLeader: LeaderAndEpoch{LeaderID: math.MaxInt32, LeaderEpoch: math.MaxInt32}},
				{Topic: "a", ErrorCode: ErrorCode(math.MinInt16)},
			}},
		} {
			checkRoundTrip(t, m, DecodeFetchResponse)
		}
	})
	t.Run("ProduceRequest", func(t *testing.T) {
		for _, m := range []ProduceRequest{
			{},
			{CorrelationID: 1, Acks: AcksAll, TimeoutMs: 30000, Partitions: []ProducePartition{{Topic: "orders", Records: []byte("batch")}}},
			{Acks: AcksNone, Partitions: []ProducePartition{{Topic: "a", Partition: 1}, {Topic: "b", Partition: 2, Records: []byte("x")}}},
			{Acks: AcksLeader, TimeoutMs: math.MaxInt32},
			{Acks: 5}, // invalid acks travel; the broker refuses them
		} {
			checkRoundTrip(t, m, DecodeProduceRequest)
		}
	})
	t.Run("ProduceResponse", func(t *testing.T) {
		for _, m := range []ProduceResponse{
			{},
			{CorrelationID: 9, Partitions: []ProducePartitionResponse{
				{Topic: "orders", ErrorCode: CodeNotEnoughReplicas, LogStartOffset: 3},
				{Topic: "orders", Partition: 1, HasBaseOffset: true, BaseOffset: 4},
				{Topic: "x", ErrorCode: CodeNotEnoughReplicasAfterAppend, HasBaseOffset: true, BaseOffset: 0},
				{Topic: long, Partition: math.MaxInt32, HasBaseOffset: true, BaseOffset: math.MaxInt64, LogStartOffset: math.MaxInt64},
			}},
		} {
			checkRoundTrip(t, m, DecodeProduceResponse)
		}
	})
	t.Run("OffsetsForLeaderEpochRequest", func(t *testing.T) {
		for _, m := range []OffsetsForLeaderEpochRequest{
			{},
			{CorrelationID: 3, ReplicaID: 2, Partitions: []OffsetsForLeaderEpochPartition{
				{Topic: "orders", CurrentLeaderEpoch: 1, LeaderEpoch: 0},
				{Topic: "orders", Partition: 1, CurrentLeaderEpoch: NoEpoch, LeaderEpoch: NoEpoch},
				{Topic: long, Partition: math.MaxInt32, CurrentLeaderEpoch: math.MaxInt32, LeaderEpoch: math.MaxInt32},
			}},
			{ReplicaID: -2},
		} {
			checkRoundTrip(t, m, DecodeOffsetsForLeaderEpochRequest)
		}
	})
	t.Run("OffsetsForLeaderEpochResponse", func(t *testing.T) {
		for _, m := range []OffsetsForLeaderEpochResponse{
			{},
			{CorrelationID: 3, Partitions: []OffsetsForLeaderEpochPartitionResponse{
				{Topic: "orders", Found: true, EpochEndOffset: EpochEndOffset{Epoch: 0, EndOffset: 2}},
				{Topic: "orders", Partition: 1, Found: true},
				{Topic: "orders", Partition: 2, ErrorCode: CodeUnknownLeaderEpoch},
				{Topic: long, Found: true, EpochEndOffset: EpochEndOffset{Epoch: math.MaxInt32, EndOffset: math.MaxInt64}},
			}},
		} {
			checkRoundTrip(t, m, DecodeOffsetsForLeaderEpochResponse)
		}
	})
	t.Run("ListOffsetsRequest", func(t *testing.T) {
		for _, m := range []ListOffsetsRequest{
			{},
			{CorrelationID: 4, ReplicaID: ConsumerReplicaID, Partitions: []ListOffsetsPartition{
				{Topic: "orders", CurrentLeaderEpoch: NoEpoch, Timestamp: LatestTimestamp},
				{Topic: "orders", Partition: 1, CurrentLeaderEpoch: 7, Timestamp: EarliestTimestamp},
				{Topic: long, Partition: math.MaxInt32, CurrentLeaderEpoch: math.MaxInt32, Timestamp: LatestTimestamp},
				{Topic: "orders", CurrentLeaderEpoch: NoEpoch, Timestamp: MaxTimestamp},
				{Topic: "orders", CurrentLeaderEpoch: NoEpoch, Timestamp: 0},
				{Topic: "orders", CurrentLeaderEpoch: NoEpoch, Timestamp: math.MaxInt64},
			}},
		} {
			checkRoundTrip(t, m, DecodeListOffsetsRequest)
		}
	})
	t.Run("ListOffsetsResponse", func(t *testing.T) {
		for _, m := range []ListOffsetsResponse{
			{},
			{CorrelationID: 4, Partitions: []ListOffsetsPartitionResponse{
				{Topic: "orders", Offset: 17, Timestamp: -1, Found: true, LeaderEpoch: 3},
				{Topic: "orders", Partition: 1, ErrorCode: CodeNotLeaderOrFollower, Timestamp: -1, LeaderEpoch: NoEpoch},
				{Topic: long, Partition: math.MaxInt32, Offset: math.MaxInt64, Timestamp: math.MinInt64, Found: true, LeaderEpoch: math.MaxInt32},
				{Topic: "orders", Offset: 0, Timestamp: 1_700_000_000_000, Found: true, LeaderEpoch: 0},
				{Topic: "orders", Timestamp: -1, LeaderEpoch: 2}, // a lookup by time that found nothing
			}},
		} {
			checkRoundTrip(t, m, DecodeListOffsetsResponse)
		}
	})
}

// TestRoundTripRandom is the property: for every valid message, decode
// inverts encode and encoding is canonical.
func TestRoundTripRandom(t *testing.T) {
	r := newRand(t)
	for range 300 {
		for _, dm := range dataMessages() {
			checkRoundTrip(t, dm.gen(r), dm.decode)
		}
	}
}

// oracle writes the documented layouts with encoding/binary, field by
// field in doc.go's order, independently of the encoders: if AppendTo
// drifts from the documentation, the two disagree.
type oracle struct {
	t   *testing.T
	buf bytes.Buffer
}

func (o *oracle) put(vs ...any) *oracle {
	for _, v := range vs {
		if err := binary.Write(&o.buf, binary.BigEndian, v); err != nil {
			o.t.Fatal(err)
		}
	}
	return o
}

func (o *oracle) header(key int16, corr int32) *oracle { return o.put(key, int16(0), corr) }
func (o *oracle) str(s string) *oracle                 { o.put(int16(len(s))); o.buf.WriteString(s); return o }
func (o *oracle) records(b []byte) *oracle             { o.put(int32(len(b))); o.buf.Write(b); return o }

// none maps an in-memory optional back to Kafka's -1.
func none[T int32 | int64](has bool, v T) T {
	if !has {
		return -1
	}
	return v
}

func oracleBytes(t *testing.T, m Message) []byte {
	o := &oracle{t: t}
	switch m := m.(type) {
	case FetchRequest:
		o.header(1, m.CorrelationID).put(m.ReplicaID, m.ReplicaEpoch, m.MaxWaitMs, m.MinBytes, m.MaxBytes, int32(len(m.Partitions)))
		for _, p := range m.Partitions {
			o.str(p.Topic).put(p.Partition, p.CurrentLeaderEpoch, int64(p.FetchOffset), p.LastFetchedEpoch,
				none(p.HasLogStartOffset, int64(p.LogStartOffset)), p.MaxBytes)
		}
	case FetchResponse:
		o.header(1, m.CorrelationID).put(int16(m.ErrorCode), int32(len(m.Partitions)))
		for _, p := range m.Partitions {
			o.str(p.Topic).put(p.Partition, int16(p.ErrorCode), int64(p.HighWatermark), int64(p.LogStartOffset),
				none(p.HasDivergingEpoch, p.DivergingEpoch.Epoch), none(p.HasDivergingEpoch, int64(p.DivergingEpoch.EndOffset)),
				none(p.HasCurrentLeader, p.CurrentLeader.LeaderID), none(p.HasCurrentLeader, p.CurrentLeader.LeaderEpoch)).records(p.Records)
		}
	case ProduceRequest:
		o.header(0, m.CorrelationID).put(m.Acks, m.TimeoutMs, int32(len(m.Partitions)))
		for _, p := range m.Partitions {
			o.str(p.Topic).put(p.Partition).records(p.Records)
		}
	case ProduceResponse:
		o.header(0, m.CorrelationID).put(int32(len(m.Partitions)))
		for _, p := range m.Partitions {
			o.str(p.Topic).put(p.Partition, int16(p.ErrorCode), none(p.HasBaseOffset, int64(p.BaseOffset)), int64(p.LogStartOffset))
		}
	case ListOffsetsRequest:
		o.header(2, m.CorrelationID).put(m.ReplicaID, int32(len(m.Partitions)))
		for _, p := range m.Partitions {
			o.str(p.Topic).put(p.Partition, p.CurrentLeaderEpoch, p.Timestamp)
		}
	case ListOffsetsResponse:
		o.header(2, m.CorrelationID).put(int32(len(m.Partitions)))
		for _, p := range m.Partitions {
			ts, off := int64(-1), int64(-1)
			if p.Found {
				ts, off = p.Timestamp, int64(p.Offset)
			}
			o.str(p.Topic).put(p.Partition, int16(p.ErrorCode), ts, off, p.LeaderEpoch)
		}
	case OffsetsForLeaderEpochRequest:
		o.header(23, m.CorrelationID).put(m.ReplicaID, int32(len(m.Partitions)))
		for _, p := range m.Partitions {
			o.str(p.Topic).put(p.Partition, p.CurrentLeaderEpoch, p.LeaderEpoch)
		}
	case OffsetsForLeaderEpochResponse:
		o.header(23, m.CorrelationID).put(int32(len(m.Partitions)))
		for _, p := range m.Partitions {
			o.str(p.Topic).put(p.Partition, int16(p.ErrorCode), none(p.Found, p.Epoch), none(p.Found, int64(p.EndOffset)))
		}
	default:
		t.Fatalf("no oracle for %T", m)
	}
	return o.buf.Bytes()
}

func TestEncodingMatchesOracle(t *testing.T) {
	r := newRand(t)
	for range 300 {
		for _, dm := range dataMessages() {
			m := dm.gen(r)
			if got, want := mustEncode(t, m), oracleBytes(t, m); !bytes.Equal(got, want) {
				t.Fatalf("%s: AppendTo\n% x\noracle\n% x", dm.name, got, want)
			}
		}
	}
}

// TestNoneStaysAtTheEdge: "none" encodes as Kafka's -1s, and the in-memory
// fields beside a false flag are ignored on encode and zero after decode.
func TestNoneStaysAtTheEdge(t *testing.T) {
	ff := func(n int) []byte { return bytes.Repeat([]byte{0xff}, n) }
	for _, tc := range []struct {
		name     string
		m        Message
		at, n    int // where the -1s are, and how many bytes
		want     Message
		decodeFn func([]byte) (Message, error)
	}{
		{"FetchPartition.LogStartOffset",
			FetchRequest{Partitions: []FetchPartition{{Topic: "t", LogStartOffset: 9}}}, 59, 8,
			FetchRequest{Partitions: []FetchPartition{{Topic: "t"}}}, DecodeRequest},
		{"FetchPartitionResponse.DivergingEpoch and CurrentLeader",
			FetchResponse{Partitions: []FetchPartitionResponse{{Topic: "t", DivergingEpoch: EpochEndOffset{9, 99}, CurrentLeader: LeaderAndEpoch{3, 4}}}}, 39, 20,
			FetchResponse{Partitions: []FetchPartitionResponse{{Topic: "t"}}}, DecodeResponse},
		{"ProducePartitionResponse.BaseOffset",
			ProduceResponse{Partitions: []ProducePartitionResponse{{Topic: "t", ErrorCode: CodeNotEnoughReplicas, BaseOffset: 4}}}, 21, 8,
			ProduceResponse{Partitions: []ProducePartitionResponse{{Topic: "t", ErrorCode: CodeNotEnoughReplicas}}}, DecodeResponse},
		{"OffsetsForLeaderEpochPartitionResponse not found",
			OffsetsForLeaderEpochResponse{Partitions: []OffsetsForLeaderEpochPartitionResponse{{Topic: "t", EpochEndOffset: EpochEndOffset{3, 6}}}}, 21, 12,
			OffsetsForLeaderEpochResponse{Partitions: []OffsetsForLeaderEpochPartitionResponse{{Topic: "t"}}}, DecodeResponse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mustEncode(t, tc.m)
			if got := b[tc.at : tc.at+tc.n]; !bytes.Equal(got, ff(tc.n)) {
				t.Fatalf("none encodes as % x, want %d 0xff bytes", got, tc.n)
			}
			got, err := tc.decodeFn(b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, derefMessage(got)); diff != "" {
				t.Fatalf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

// derefMessage turns the pointer DecodeRequest and DecodeResponse return
// into the value, for comparison.
func derefMessage(m Message) Message {
	switch m := m.(type) {
	case *FetchRequest:
		return *m
	case *FetchResponse:
		return *m
	case *ProduceRequest:
		return *m
	case *ProduceResponse:
		return *m
	case *ListOffsetsRequest:
		return *m
	case *ListOffsetsResponse:
		return *m
	case *OffsetsForLeaderEpochRequest:
		return *m
	case *OffsetsForLeaderEpochResponse:
		return *m
	case *MetadataRequest:
		return *m
	case *MetadataResponse:
		return *m
	case *CreateTopicsRequest:
		return *m
	case *CreateTopicsResponse:
		return *m
	case *DeleteTopicsRequest:
		return *m
	case *DeleteTopicsResponse:
		return *m
	case *CreatePartitionsRequest:
		return *m
	case *CreatePartitionsResponse:
		return *m
	case *AlterPartitionReassignmentsRequest:
		return *m
	case *AlterPartitionReassignmentsResponse:
		return *m
	case *ListPartitionReassignmentsRequest:
		return *m
	case *ListPartitionReassignmentsResponse:
		return *m
	case *ElectLeadersRequest:
		return *m
	case *ElectLeadersResponse:
		return *m
	case *AlterPartitionRequest:
		return *m
	case *AlterPartitionResponse:
		return *m
	case *BrokerRegistrationRequest:
		return *m
	case *BrokerRegistrationResponse:
		return *m
	case *BrokerHeartbeatRequest:
		return *m
	case *BrokerHeartbeatResponse:
		return *m
	case *InitProducerIDRequest:
		return *m
	case *InitProducerIDResponse:
		return *m
	case *OffsetCommitRequest:
		return *m
	case *OffsetCommitResponse:
		return *m
	case *OffsetFetchRequest:
		return *m
	case *OffsetFetchResponse:
		return *m
	case *FindCoordinatorRequest:
		return *m
	case *FindCoordinatorResponse:
		return *m
	case *JoinGroupRequest:
		return *m
	case *JoinGroupResponse:
		return *m
	case *HeartbeatRequest:
		return *m
	case *HeartbeatResponse:
		return *m
	case *LeaveGroupRequest:
		return *m
	case *LeaveGroupResponse:
		return *m
	case *SyncGroupRequest:
		return *m
	case *SyncGroupResponse:
		return *m
	case *DescribeGroupsRequest:
		return *m
	case *DescribeGroupsResponse:
		return *m
	case *ListGroupsRequest:
		return *m
	case *ListGroupsResponse:
		return *m
	case *DeleteGroupsRequest:
		return *m
	case *DeleteGroupsResponse:
		return *m
	case *OffsetDeleteRequest:
		return *m
	case *OffsetDeleteResponse:
		return *m
	}
	return m
}

func TestDecodedRecordsAliasPayload(t *testing.T) {
	records := bytes.Repeat([]byte{0xab}, 64)
	fetch := mustEncode(t, FetchResponse{Partitions: []FetchPartitionResponse{{Topic: "t", Records: []byte("x")}, {Topic: "t", Records: records}}})
	produce := mustEncode(t, ProduceRequest{Partitions: []ProducePartition{{Topic: "t", Records: []byte("x")}, {Topic: "t", Records: records}}})
	var fr FetchResponse
	var pr ProduceRequest
	for _, tc := range []struct {
		name    string
		payload []byte
		decode  func([]byte) ([]byte, error)
	}{
		{"FetchResponse", fetch, func(b []byte) ([]byte, error) {
			err := DecodeFetchResponseInto(b, &fr)
			if err != nil {
				return nil, err
			}
			return fr.Partitions[1].Records, nil
		}},
		{"ProduceRequest", produce, func(b []byte) ([]byte, error) {
			err := DecodeProduceRequestInto(b, &pr)
			if err != nil {
				return nil, err
			}
			return pr.Partitions[1].Records, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			payload := append(tc.payload, "spare capacity"...)[:len(tc.payload)]
			got, err := tc.decode(payload)
			if err != nil {
				t.Fatal(err)
			}
			if &got[0] != &payload[len(payload)-len(records)] {
				t.Fatal("Records was copied; want it to alias the payload")
			}
			if cap(got) != len(got) {
				t.Fatalf("cap(Records) = %d, want %d so appending cannot overwrite the payload's buffer", cap(got), len(got))
			}
			allocs := testing.AllocsPerRun(100, func() {
				if _, err := tc.decode(payload); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Fatalf("decoding into a warm value allocated %v times, want 0", allocs)
			}
		})
	}
}

func TestEmptyRecordsDecodeAsNil(t *testing.T) {
	m, err := DecodeFetchResponse(mustEncode(t, FetchResponse{Partitions: []FetchPartitionResponse{{Topic: "t", Records: []byte{}}}}))
	if err != nil {
		t.Fatal(err)
	}
	if m.Partitions[0].Records != nil {
		t.Fatalf("Records = %#v, want nil", m.Partitions[0].Records)
	}
	p, err := DecodeProduceRequest(mustEncode(t, ProduceRequest{Partitions: []ProducePartition{}}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Partitions != nil {
		t.Fatalf("Partitions = %#v, want nil", p.Partitions)
	}
}

// TestEncodersRefuseWhatDecodersRefuse pairs every value an encoder refuses
// with the bytes that would carry it and wants the decoder to refuse those
// with the same sentinel (ErrOffsetOverflow's twin on the wire is a
// negative offset, ErrNegativeOffset) and name the same field. Each
// refusal leaves dst untouched, so nothing half-encoded reaches a frame.
// Messages have one partition, topic "t", so the offsets are fixed.
func TestEncodersRefuseWhatDecodersRefuse(t *testing.T) {
	const over = math.MaxInt64 + 1
	fr := func(f func(*FetchRequest, *FetchPartition)) FetchRequest {
		m := FetchRequest{Partitions: []FetchPartition{{Topic: "t"}}}
		f(&m, &m.Partitions[0])
		return m
	}
	fp := func(f func(*FetchPartitionResponse)) FetchResponse {
		m := FetchResponse{Partitions: []FetchPartitionResponse{{Topic: "t"}}}
		f(&m.Partitions[0])
		return m
	}
	pr := func(f func(*ProduceRequest, *ProducePartition)) ProduceRequest {
		m := ProduceRequest{Partitions: []ProducePartition{{Topic: "t"}}}
		f(&m, &m.Partitions[0])
		return m
	}
	pp := func(f func(*ProducePartitionResponse)) ProduceResponse {
		m := ProduceResponse{Partitions: []ProducePartitionResponse{{Topic: "t"}}}
		f(&m.Partitions[0])
		return m
	}
	oq := func(f func(*OffsetsForLeaderEpochPartition)) OffsetsForLeaderEpochRequest {
		m := OffsetsForLeaderEpochRequest{Partitions: []OffsetsForLeaderEpochPartition{{Topic: "t"}}}
		f(&m.Partitions[0])
		return m
	}
	op := func(f func(*OffsetsForLeaderEpochPartitionResponse)) OffsetsForLeaderEpochResponse {
		m := OffsetsForLeaderEpochResponse{Partitions: []OffsetsForLeaderEpochPartitionResponse{{Topic: "t"}}}
		f(&m.Partitions[0])
		return m
	}
	lq := func(f func(*ListOffsetsPartition)) ListOffsetsRequest {
		m := ListOffsetsRequest{Partitions: []ListOffsetsPartition{{Topic: "t", Timestamp: LatestTimestamp}}}
		f(&m.Partitions[0])
		return m
	}
	lp := func(f func(*ListOffsetsPartitionResponse)) ListOffsetsResponse {
		m := ListOffsetsResponse{Partitions: []ListOffsetsPartitionResponse{{Topic: "t", Found: true}}}
		f(&m.Partitions[0])
		return m
	}
	type patchFn func(valid []byte) []byte
	at := func(off int, v any) patchFn { return func(b []byte) []byte { return patch(b, off, v) } }
	then := func(fs ...patchFn) patchFn {
		return func(b []byte) []byte {
			for _, f := range fs {
				b = f(b)
			}
			return b
		}
	}
	topicByte := func(off int, c byte) patchFn { return func(b []byte) []byte { return patchByte(b, off, c) } }
	// topicTooLong rewrites the one-byte topic at lenAt as MaxTopicLength+1 bytes.
	topicTooLong := func(lenAt int) patchFn {
		return func(b []byte) []byte {
			out := append([]byte(nil), b[:lenAt]...)
			out = binary.BigEndian.AppendUint16(out, MaxTopicLength+1)
			out = append(out, strings.Repeat("t", MaxTopicLength+1)...)
			return append(out, b[lenAt+3:]...)
		}
	}
	for _, tc := range []struct {
		name    string
		m       Message
		encWant error
		wire    patchFn // applied to the encoding of the same message with the bad field reset
		decWant error
	}{
		{"FetchRequest.ReplicaEpoch", fr(func(m *FetchRequest, _ *FetchPartition) { m.ReplicaEpoch = -2 }), ErrInvalidValue, at(12, int64(-2)), ErrInvalidValue},
		{"FetchRequest.MaxWaitMs", fr(func(m *FetchRequest, _ *FetchPartition) { m.MaxWaitMs = -1 }), ErrNegativeTimeout, at(20, int32(-1)), ErrNegativeTimeout},
		{"FetchRequest.MinBytes", fr(func(m *FetchRequest, _ *FetchPartition) { m.MinBytes = -1 }), ErrNegativeLength, at(24, int32(-1)), ErrNegativeLength},
		{"FetchRequest.MaxBytes", fr(func(m *FetchRequest, _ *FetchPartition) { m.MaxBytes = math.MinInt32 }), ErrNegativeLength, at(28, int32(math.MinInt32)), ErrNegativeLength},
		{"FetchRequest.Partitions[0].Topic", fr(func(_ *FetchRequest, p *FetchPartition) { p.Topic = "" }), ErrInvalidTopic, at(36, int16(0)), ErrInvalidTopic},
		{"FetchRequest.Partitions[0].Topic", fr(func(_ *FetchRequest, p *FetchPartition) { p.Topic = "/" }), ErrInvalidTopic, topicByte(38, '/'), ErrInvalidTopic},
		{"FetchRequest.Partitions[0].Topic", fr(func(_ *FetchRequest, p *FetchPartition) { p.Topic = "." }), ErrInvalidTopic, topicByte(38, '.'), ErrInvalidTopic},
		{"FetchRequest.Partitions[0].Topic", fr(func(_ *FetchRequest, p *FetchPartition) { p.Topic = strings.Repeat("t", MaxTopicLength+1) }), ErrInvalidTopic, topicTooLong(36), ErrInvalidTopic},
		{"FetchRequest.Partitions[0].Partition", fr(func(_ *FetchRequest, p *FetchPartition) { p.Partition = -1 }), ErrInvalidPartition, at(39, int32(-1)), ErrInvalidPartition},
		{"FetchRequest.Partitions[0].CurrentLeaderEpoch", fr(func(_ *FetchRequest, p *FetchPartition) { p.CurrentLeaderEpoch = -2 }), ErrInvalidEpoch, at(43, int32(-2)), ErrInvalidEpoch},
		{"FetchRequest.Partitions[0].FetchOffset", fr(func(_ *FetchRequest, p *FetchPartition) { p.FetchOffset = over }), ErrOffsetOverflow, at(47, int64(math.MinInt64)), ErrNegativeOffset},
		{"FetchRequest.Partitions[0].LastFetchedEpoch", fr(func(_ *FetchRequest, p *FetchPartition) { p.LastFetchedEpoch = math.MinInt32 }), ErrInvalidEpoch, at(55, int32(math.MinInt32)), ErrInvalidEpoch},
		{"FetchRequest.Partitions[0].LogStartOffset", fr(func(_ *FetchRequest, p *FetchPartition) { p.HasLogStartOffset, p.LogStartOffset = true, math.MaxUint64 }), ErrOffsetOverflow, at(59, int64(-2)), ErrNegativeOffset},
		{"FetchRequest.Partitions[0].MaxBytes", fr(func(_ *FetchRequest, p *FetchPartition) { p.MaxBytes = -1 }), ErrNegativeLength, at(67, int32(-1)), ErrNegativeLength},

		{"FetchResponse.Partitions[0].Topic", fp(func(p *FetchPartitionResponse) { p.Topic = "a b" }), ErrInvalidTopic, topicByte(16, ' '), ErrInvalidTopic},
		{"FetchResponse.Partitions[0].Partition", fp(func(p *FetchPartitionResponse) { p.Partition = math.MinInt32 }), ErrInvalidPartition, at(17, int32(math.MinInt32)), ErrInvalidPartition},
		{"FetchResponse.Partitions[0].HighWatermark", fp(func(p *FetchPartitionResponse) { p.HighWatermark = over }), ErrOffsetOverflow, at(23, int64(-1)), ErrNegativeOffset},
		{"FetchResponse.Partitions[0].LogStartOffset", fp(func(p *FetchPartitionResponse) { p.LogStartOffset = over }), ErrOffsetOverflow, at(31, int64(-1)), ErrNegativeOffset},
		{"FetchResponse.Partitions[0].DivergingEpoch.Epoch", fp(func(p *FetchPartitionResponse) {
			p.HasDivergingEpoch, p.DivergingEpoch = true, EpochEndOffset{Epoch: -1, EndOffset: 5}
		}), ErrInvalidEpoch, at(43, int64(5)), ErrInvalidEpoch},
		{"FetchResponse.Partitions[0].DivergingEpoch.EndOffset", fp(func(p *FetchPartitionResponse) {
			p.HasDivergingEpoch, p.DivergingEpoch = true, EpochEndOffset{Epoch: 1, EndOffset: over}
		}), ErrOffsetOverflow, at(39, int32(1)), ErrNegativeOffset},
		{"FetchResponse.Partitions[0].CurrentLeader.LeaderID", fp(func(p *FetchPartitionResponse) {
			p.HasCurrentLeader, p.CurrentLeader = true, LeaderAndEpoch{LeaderID: -1, LeaderEpoch: 3}
		}), ErrInvalidValue, at(55, int32(3)), ErrInvalidValue},
		{"FetchResponse.Partitions[0].CurrentLeader.LeaderEpoch", fp(func(p *FetchPartitionResponse) {
			p.HasCurrentLeader, p.CurrentLeader = true, LeaderAndEpoch{LeaderID: 2, LeaderEpoch: -1}
		}), ErrInvalidEpoch, at(51, int32(2)), ErrInvalidEpoch},

		{"ProduceRequest.TimeoutMs", pr(func(m *ProduceRequest, _ *ProducePartition) { m.TimeoutMs = -1 }), ErrNegativeTimeout, at(10, int32(-1)), ErrNegativeTimeout},
		{"ProduceRequest.Partitions[0].Topic", pr(func(_ *ProduceRequest, p *ProducePartition) { p.Topic = "é" }), ErrInvalidTopic,
			then(at(18, int16(2)), func(b []byte) []byte { return append(append(append([]byte(nil), b[:20]...), "é"...), b[21:]...) }), ErrInvalidTopic},
		{"ProduceRequest.Partitions[0].Partition", pr(func(_ *ProduceRequest, p *ProducePartition) { p.Partition = -1 }), ErrInvalidPartition, at(21, int32(-1)), ErrInvalidPartition},

		{"ProduceResponse.Partitions[0].Partition", pp(func(p *ProducePartitionResponse) { p.Partition = -1 }), ErrInvalidPartition, at(15, int32(-1)), ErrInvalidPartition},
		{"ProduceResponse.Partitions[0].BaseOffset", pp(func(p *ProducePartitionResponse) { p.HasBaseOffset, p.BaseOffset = true, over }), ErrOffsetOverflow, at(21, int64(-2)), ErrNegativeOffset},
		{"ProduceResponse.Partitions[0].LogStartOffset", pp(func(p *ProducePartitionResponse) { p.LogStartOffset = over }), ErrOffsetOverflow, at(29, int64(-1)), ErrNegativeOffset},

		{"OffsetsForLeaderEpochRequest.Partitions[0].Partition", oq(func(p *OffsetsForLeaderEpochPartition) { p.Partition = -1 }), ErrInvalidPartition, at(19, int32(-1)), ErrInvalidPartition},
		{"OffsetsForLeaderEpochRequest.Partitions[0].CurrentLeaderEpoch", oq(func(p *OffsetsForLeaderEpochPartition) { p.CurrentLeaderEpoch = -2 }), ErrInvalidEpoch, at(23, int32(-2)), ErrInvalidEpoch},
		{"OffsetsForLeaderEpochRequest.Partitions[0].LeaderEpoch", oq(func(p *OffsetsForLeaderEpochPartition) { p.LeaderEpoch = -2 }), ErrInvalidEpoch, at(27, int32(-2)), ErrInvalidEpoch},

		{"OffsetsForLeaderEpochResponse.Partitions[0].Partition", op(func(p *OffsetsForLeaderEpochPartitionResponse) { p.Partition = -1 }), ErrInvalidPartition, at(15, int32(-1)), ErrInvalidPartition},
		{"OffsetsForLeaderEpochResponse.Partitions[0].Epoch", op(func(p *OffsetsForLeaderEpochPartitionResponse) {
			p.Found, p.EpochEndOffset = true, EpochEndOffset{Epoch: -1, EndOffset: 6}
		}), ErrInvalidEpoch, at(25, int64(6)), ErrInvalidEpoch},
		{"OffsetsForLeaderEpochResponse.Partitions[0].EndOffset", op(func(p *OffsetsForLeaderEpochPartitionResponse) {
			p.Found, p.EpochEndOffset = true, EpochEndOffset{Epoch: 1, EndOffset: over}
		}), ErrOffsetOverflow, at(21, int32(1)), ErrNegativeOffset},

		{"ListOffsetsRequest.Partitions[0].Partition", lq(func(p *ListOffsetsPartition) { p.Partition = -1 }), ErrInvalidPartition, at(19, int32(-1)), ErrInvalidPartition},
		{"ListOffsetsRequest.Partitions[0].CurrentLeaderEpoch", lq(func(p *ListOffsetsPartition) { p.CurrentLeaderEpoch = -2 }), ErrInvalidEpoch, at(23, int32(-2)), ErrInvalidEpoch},
		{"ListOffsetsRequest.Partitions[0].Timestamp", lq(func(p *ListOffsetsPartition) { p.Timestamp = -4 }), ErrInvalidValue, at(27, int64(-4)), ErrInvalidValue},
		{"ListOffsetsRequest.Partitions[0].Timestamp", lq(func(p *ListOffsetsPartition) { p.Timestamp = math.MinInt64 }), ErrInvalidValue, at(27, int64(math.MinInt64)), ErrInvalidValue},

		{"ListOffsetsResponse.Partitions[0].Partition", lp(func(p *ListOffsetsPartitionResponse) { p.Partition = -1 }), ErrInvalidPartition, at(15, int32(-1)), ErrInvalidPartition},
		{"ListOffsetsResponse.Partitions[0].Offset", lp(func(p *ListOffsetsPartitionResponse) { p.Offset = over }), ErrOffsetOverflow, at(29, int64(-2)), ErrNegativeOffset},
		{"ListOffsetsResponse.Partitions[0].LeaderEpoch", lp(func(p *ListOffsetsPartitionResponse) { p.LeaderEpoch = -2 }), ErrInvalidEpoch, at(37, int32(-2)), ErrInvalidEpoch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.m.AppendTo([]byte("keep"))
			if !errors.Is(err, tc.encWant) {
				t.Fatalf("AppendTo err = %v, want %v", err, tc.encWant)
			}
			if string(got) != "keep" {
				t.Fatalf("dst = %q after refusal, want it unchanged", got)
			}
			if !strings.Contains(err.Error(), tc.name) {
				t.Errorf("AppendTo error %q does not name %s", err, tc.name)
			}
			// The decoder, given the bad value on the wire, refuses it too.
			valid := mustEncode(t, resetPartition(tc.m))
			b := tc.wire(valid)
			decode := DecodeRequest
			if strings.Contains(tc.name, "Response") {
				decode = DecodeResponse
			}
			_, derr := decode(b)
			if !errors.Is(derr, tc.decWant) || !errors.Is(derr, ErrMalformed) {
				t.Fatalf("decoder err = %v, want %v and ErrMalformed", derr, tc.decWant)
			}
			if !strings.Contains(derr.Error(), tc.name) {
				t.Errorf("decoder error %q does not name %s", derr, tc.name)
			}
		})
	}
}

// resetPartition returns m with every field the refusal table makes
// invalid set back to a valid value: the message whose encoding the table
// patches.
func resetPartition(m Message) Message {
	switch m.(type) {
	case FetchRequest:
		return FetchRequest{Partitions: []FetchPartition{{Topic: "t"}}}
	case FetchResponse:
		return FetchResponse{Partitions: []FetchPartitionResponse{{Topic: "t"}}}
	case ProduceRequest:
		return ProduceRequest{Partitions: []ProducePartition{{Topic: "t"}}}
	case ProduceResponse:
		return ProduceResponse{Partitions: []ProducePartitionResponse{{Topic: "t"}}}
	case OffsetsForLeaderEpochRequest:
		return OffsetsForLeaderEpochRequest{Partitions: []OffsetsForLeaderEpochPartition{{Topic: "t"}}}
	case OffsetsForLeaderEpochResponse:
		return OffsetsForLeaderEpochResponse{Partitions: []OffsetsForLeaderEpochPartitionResponse{{Topic: "t"}}}
	case ListOffsetsRequest:
		return ListOffsetsRequest{Partitions: []ListOffsetsPartition{{Topic: "t", Timestamp: LatestTimestamp}}}
	case ListOffsetsResponse:
		return ListOffsetsResponse{Partitions: []ListOffsetsPartitionResponse{{Topic: "t"}}}
	}
	return m
}

func TestCheckRecordsRefusesMoreThanInt32(t *testing.T) {
	// A >2 GiB slice is impractical in a test; the length check is the
	// whole of the guard, so test it directly.
	if fitsInt32(math.MaxInt32 + 1) {
		t.Fatal("fitsInt32(MaxInt32+1) = true")
	}
	if !fitsInt32(math.MaxInt32) || !fitsInt32(0) {
		t.Fatal("fitsInt32 refuses a valid length")
	}
	if fitsInt32(-1) {
		t.Fatal("fitsInt32(-1) = true")
	}
}

func TestMutatedPayloadsNeverPanicAndStayCanonical(t *testing.T) {
	r := newRand(t)
	msgs := dataMessages()
	for i := range 8000 {
		dm := msgs[i%len(msgs)]
		b := mustEncode(t, dm.gen(r))
		switch r.IntN(3) {
		case 0: // flip bytes
			for range 1 + r.IntN(3) {
				b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
			}
		case 1: // cut
			b = b[:r.IntN(len(b))]
		case 2: // extend
			b = append(b, byte(r.Uint32()))
		}
		m, err := dm.decode(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("%s: decode(% x): %v does not match ErrMalformed", dm.name, b, err)
			}
			continue
		}
		if again := mustEncode(t, m); !bytes.Equal(again, b) {
			t.Fatalf("%s: accepted % x but re-encodes as % x", dm.name, b, again)
		}
	}
}

// TestSteadyStateDoesNotAllocate: with a reused dst, encoding every
// message allocates nothing, and the Into decoders with a warm destination
// allocate nothing either.
func TestSteadyStateDoesNotAllocate(t *testing.T) {
	r := newRand(t)
	dst := make([]byte, 0, 1<<16)
	var (
		fq FetchRequest
		fp FetchResponse
		pq ProduceRequest
		pp ProduceResponse
	)
	for _, tc := range []struct {
		m      Message
		decode func([]byte) error
	}{
		{genFetchRequest(r), func(b []byte) error { return DecodeFetchRequestInto(b, &fq) }},
		{genFetchResponse(r), func(b []byte) error { return DecodeFetchResponseInto(b, &fp) }},
		{genProduceRequest(r), func(b []byte) error { return DecodeProduceRequestInto(b, &pq) }},
		{genProduceResponse(r), func(b []byte) error { return DecodeProduceResponseInto(b, &pp) }},
		{genOffsetsForLeaderEpochRequest(r), nil},
		{genOffsetsForLeaderEpochResponse(r), nil},
		{genListOffsetsRequest(r), nil},
		{genListOffsetsResponse(r), nil},
	} {
		allocs := testing.AllocsPerRun(50, func() {
			var err error
			if dst, err = tc.m.AppendTo(dst[:0]); err != nil {
				t.Fatal(err)
			}
			if tc.decode != nil {
				if err := tc.decode(dst); err != nil {
					t.Fatal(err)
				}
			}
		})
		if allocs != 0 {
			t.Errorf("%T: encode (+ decode into a warm value) allocated %v times, want 0", tc.m, allocs)
		}
	}
}
