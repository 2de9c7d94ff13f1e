package wire

import (
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

func genIDs(r *rand.Rand) []int32 {
	var ids []int32
	for range r.IntN(4) {
		ids = append(ids, int32(r.Uint32()))
	}
	return ids
}

func genAlterPartitionReassignmentsRequest(r *rand.Rand) AlterPartitionReassignmentsRequest {
	m := AlterPartitionReassignmentsRequest{CorrelationID: int32(r.Uint32()), Topic: genString(r), Partition: int32(r.Uint32())}
	if r.IntN(3) == 0 {
		m.Cancel = true
	} else {
		m.Replicas = genIDs(r)
	}
	return m
}

func genAlterPartitionReassignmentsResponse(r *rand.Rand) AlterPartitionReassignmentsResponse {
	return AlterPartitionReassignmentsResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r), ErrorMessage: genString(r)}
}

func genListPartitionReassignmentsRequest(r *rand.Rand) ListPartitionReassignmentsRequest {
	m := ListPartitionReassignmentsRequest{CorrelationID: int32(r.Uint32())}
	for range r.IntN(3) {
		m.Topics = append(m.Topics, genString(r))
	}
	return m
}

func genListPartitionReassignmentsResponse(r *rand.Rand) ListPartitionReassignmentsResponse {
	m := ListPartitionReassignmentsResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r)}
	for range r.IntN(3) {
		m.Reassignments = append(m.Reassignments, OngoingReassignment{
			Topic: genString(r), Partition: int32(r.Uint32()), Replicas: genIDs(r), AddingReplicas: genIDs(r), RemovingReplicas: genIDs(r),
		})
	}
	return m
}

func TestPartitionReassignmentMessagesRoundTrip(t *testing.T) {
	checkRoundTrip(t, AlterPartitionReassignmentsRequest{}, DecodeAlterPartitionReassignmentsRequest)
	checkRoundTrip(t, AlterPartitionReassignmentsRequest{Topic: "orders", Partition: 1, Replicas: []int32{4, 2, 3}}, DecodeAlterPartitionReassignmentsRequest)
	checkRoundTrip(t, AlterPartitionReassignmentsRequest{Topic: "orders", Cancel: true}, DecodeAlterPartitionReassignmentsRequest)
	checkRoundTrip(t, ListPartitionReassignmentsRequest{}, DecodeListPartitionReassignmentsRequest)
	checkRoundTrip(t, ListPartitionReassignmentsResponse{Reassignments: []OngoingReassignment{{Topic: "orders", Replicas: []int32{4, 2, 1}, AddingReplicas: []int32{4}, RemovingReplicas: []int32{1}}}}, DecodeListPartitionReassignmentsResponse)
	r := rand.New(rand.NewPCG(45, 46))
	for range 200 {
		checkRoundTrip(t, genAlterPartitionReassignmentsRequest(r), DecodeAlterPartitionReassignmentsRequest)
		checkRoundTrip(t, genAlterPartitionReassignmentsResponse(r), DecodeAlterPartitionReassignmentsResponse)
		checkRoundTrip(t, genListPartitionReassignmentsRequest(r), DecodeListPartitionReassignmentsRequest)
		checkRoundTrip(t, genListPartitionReassignmentsResponse(r), DecodeListPartitionReassignmentsResponse)
	}
}

// A cancellation with a target is neither: refused both ways.
func TestACancellationCarriesNoTarget(t *testing.T) {
	m := AlterPartitionReassignmentsRequest{Topic: "t", Replicas: []int32{1}, Cancel: true}
	if _, err := m.AppendTo(nil); !errors.Is(err, ErrInvalidValue) {
		t.Fatalf("encoding %+v: %v, want ErrInvalidValue", m, err)
	}
	b := mustEncode(t, AlterPartitionReassignmentsRequest{Topic: "t", Replicas: []int32{1}})
	b[len(b)-1] = 1
	if _, err := DecodeAlterPartitionReassignmentsRequest(b); !errors.Is(err, ErrInvalidValue) || !errors.Is(err, ErrMalformed) {
		t.Fatalf("decoding a cancellation with a target: %v, want ErrInvalidValue", err)
	}
}

// A count the bytes cannot hold is refused before anything is allocated.
func TestListPartitionReassignmentsDecoderRefusesCountsTheBytesCannotHold(t *testing.T) {
	resp := patch(mustEncode(t, ListPartitionReassignmentsResponse{}), 8+2, int32(1<<30))
	if _, err := DecodeListPartitionReassignmentsResponse(resp); !errors.Is(err, ErrTruncated) {
		t.Errorf("a count of 2^30: %v, want ErrTruncated", err)
	}
}

func TestPartitionReassignmentsGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    encodable
	}{
		{"alter_partition_reassignments_request", AlterPartitionReassignmentsRequest{CorrelationID: 17, Topic: "orders", Partition: 1, Replicas: []int32{4, 2, 3}}},
		{"alter_partition_reassignments_request_cancel", AlterPartitionReassignmentsRequest{CorrelationID: 18, Topic: "orders", Partition: 1, Cancel: true}},
		{"alter_partition_reassignments_response", AlterPartitionReassignmentsResponse{CorrelationID: 18, ErrorCode: CodeNoReassignmentInProgress, ErrorMessage: "none"}},
		{"list_partition_reassignments_request", ListPartitionReassignmentsRequest{CorrelationID: 19, Topics: []string{"orders"}}},
		{"list_partition_reassignments_response", ListPartitionReassignmentsResponse{CorrelationID: 19, Reassignments: []OngoingReassignment{
			{Topic: "orders", Partition: 1, Replicas: []int32{4, 2, 3, 1}, AddingReplicas: []int32{4}, RemovingReplicas: []int32{1}}}}},
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

func FuzzDecodeAlterPartitionReassignmentsRequest(f *testing.F) {
	addSeeds(f, AlterPartitionReassignmentsRequest{}, AlterPartitionReassignmentsRequest{Topic: "t", Replicas: []int32{1, 2}}, AlterPartitionReassignmentsRequest{Topic: "t", Cancel: true})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeAlterPartitionReassignmentsRequest) })
}

func FuzzDecodeAlterPartitionReassignmentsResponse(f *testing.F) {
	addSeeds(f, AlterPartitionReassignmentsResponse{}, AlterPartitionReassignmentsResponse{ErrorCode: CodeNoReassignmentInProgress, ErrorMessage: "no"})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeAlterPartitionReassignmentsResponse) })
}

func FuzzDecodeListPartitionReassignmentsRequest(f *testing.F) {
	addSeeds(f, ListPartitionReassignmentsRequest{}, ListPartitionReassignmentsRequest{Topics: []string{"t", "u"}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeListPartitionReassignmentsRequest) })
}

func FuzzDecodeListPartitionReassignmentsResponse(f *testing.F) {
	addSeeds(f, ListPartitionReassignmentsResponse{}, ListPartitionReassignmentsResponse{Reassignments: []OngoingReassignment{{Topic: "t", Replicas: []int32{2, 1}, AddingReplicas: []int32{2}, RemovingReplicas: []int32{1}}}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeListPartitionReassignmentsResponse) })
}
