package wire

import (
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

func genCreatePartitionsRequest(r *rand.Rand) CreatePartitionsRequest {
	m := CreatePartitionsRequest{CorrelationID: int32(r.Uint32()), Topic: genString(r), Count: int32(r.Uint32()), ValidateOnly: r.IntN(2) == 0}
	for range r.IntN(3) {
		replicas := make([]int32, 1+r.IntN(3))
		for i := range replicas {
			replicas[i] = int32(r.Uint32())
		}
		m.Assignment = append(m.Assignment, replicas)
	}
	return m
}

func genCreatePartitionsResponse(r *rand.Rand) CreatePartitionsResponse {
	return CreatePartitionsResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r), ErrorMessage: genString(r)}
}

func TestCreatePartitionsMessagesRoundTrip(t *testing.T) {
	for _, m := range []CreatePartitionsRequest{{}, {Topic: "orders", Count: 4}, {Topic: "orders", Count: 3, Assignment: [][]int32{{1, 2}}, ValidateOnly: true}} {
		checkRoundTrip(t, m, DecodeCreatePartitionsRequest)
	}
	for _, m := range []CreatePartitionsResponse{{}, {ErrorCode: CodeInvalidPartitions, ErrorMessage: "not an increase"}} {
		checkRoundTrip(t, m, DecodeCreatePartitionsResponse)
	}
	r := rand.New(rand.NewPCG(37, 37))
	for range 200 {
		checkRoundTrip(t, genCreatePartitionsRequest(r), DecodeCreatePartitionsRequest)
		checkRoundTrip(t, genCreatePartitionsResponse(r), DecodeCreatePartitionsResponse)
	}
}

// A count the bytes cannot hold is refused before anything is allocated.
func TestCreatePartitionsDecoderRefusesCountsTheBytesCannotHold(t *testing.T) {
	req := mustEncode(t, CreatePartitionsRequest{Topic: "t", Count: 2})
	req = patch(req, 8+2+1+4, int32(1<<30)) // header, Topic "t", Count: the Assignment count
	if _, err := DecodeCreatePartitionsRequest(req); !errors.Is(err, ErrTruncated) {
		t.Errorf("an assignment count of 2^30: err = %v, want ErrTruncated", err)
	}
}

func TestCreatePartitionsGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    encodable
	}{
		{"create_partitions_request", CreatePartitionsRequest{CorrelationID: 15, Topic: "orders", Count: 4}},
		{"create_partitions_request_assigned", CreatePartitionsRequest{CorrelationID: 16, Topic: "orders", Count: 3, Assignment: [][]int32{{2, 3}}, ValidateOnly: true}},
		{"create_partitions_response", CreatePartitionsResponse{CorrelationID: 16, ErrorCode: CodeInvalidPartitions, ErrorMessage: "not an increase"}},
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

func FuzzDecodeCreatePartitionsRequest(f *testing.F) {
	addSeeds(f, CreatePartitionsRequest{}, CreatePartitionsRequest{Topic: "t", Count: 3, Assignment: [][]int32{{1}, {2, 3}}, ValidateOnly: true})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeCreatePartitionsRequest) })
}

func FuzzDecodeCreatePartitionsResponse(f *testing.F) {
	addSeeds(f, CreatePartitionsResponse{}, CreatePartitionsResponse{ErrorCode: CodeInvalidPartitions, ErrorMessage: "no"})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeCreatePartitionsResponse) })
}
