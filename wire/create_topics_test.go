package wire

import (
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

func genCreateTopicsRequest(r *rand.Rand) CreateTopicsRequest {
	m := CreateTopicsRequest{CorrelationID: int32(r.Uint32()), ValidateOnly: r.IntN(2) == 0}
	for range r.IntN(3) {
		t := CreatableTopic{Name: genString(r), Partitions: int32(r.Uint32()), ReplicationFactor: int16(r.Uint32())}
		for range r.IntN(3) {
			t.Assignment = append(t.Assignment, genInt32s(r))
		}
		for range r.IntN(3) {
			t.Configs = append(t.Configs, TopicConfig{Name: genString(r), Value: genString(r)})
		}
		m.Topics = append(m.Topics, t)
	}
	return m
}

func genCreateTopicsResponse(r *rand.Rand) CreateTopicsResponse {
	m := CreateTopicsResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r), ErrorMessage: genString(r)}
	for range r.IntN(3) {
		m.Topics = append(m.Topics, CreateTopicResult{Name: genString(r), ErrorCode: genCode(r), ErrorMessage: genString(r),
			Partitions: int32(r.Uint32()), ReplicationFactor: int16(r.Uint32())})
	}
	return m
}

func TestCreateTopicsMessagesRoundTrip(t *testing.T) {
	for _, m := range []CreateTopicsRequest{
		{},
		{Topics: []CreatableTopic{{Name: "orders", Partitions: 3, ReplicationFactor: 3, Configs: []TopicConfig{{"min.insync.replicas", "2"}}}}},
		{Topics: []CreatableTopic{{Name: "pinned", Assignment: [][]int32{{1, 2}, nil, {3}}}, {Name: "b", Partitions: 1, ReplicationFactor: 1}}, ValidateOnly: true},
	} {
		checkRoundTrip(t, m, DecodeCreateTopicsRequest)
	}
	for _, m := range []CreateTopicsResponse{{}, {ErrorCode: CodeRequestTimedOut, ErrorMessage: "no"},
		{Topics: []CreateTopicResult{{Name: "a", Partitions: 3, ReplicationFactor: 2}, {Name: "b", ErrorCode: CodeInvalidConfig, ErrorMessage: "x", Partitions: -1, ReplicationFactor: -1}}}} {
		checkRoundTrip(t, m, DecodeCreateTopicsResponse)
	}
	r := newRand(t)
	for range 300 {
		checkRoundTrip(t, genCreateTopicsRequest(r), DecodeCreateTopicsRequest)
		checkRoundTrip(t, genCreateTopicsResponse(r), DecodeCreateTopicsResponse)
	}
}

func TestCreateTopicsEncodersRefuseStringsTooLong(t *testing.T) {
	long := strings.Repeat("x", maxStringLength+1)
	for _, m := range []encodable{
		CreateTopicsRequest{Topics: []CreatableTopic{{Name: "ok"}, {Name: long}}},
		CreateTopicsRequest{Topics: []CreatableTopic{{Name: "ok", Configs: []TopicConfig{{Name: "retention.ms", Value: long}}}}},
		CreateTopicsRequest{Topics: []CreatableTopic{{Name: "ok", Configs: []TopicConfig{{Name: long}}}}},
		CreateTopicsResponse{ErrorMessage: long},
		CreateTopicsResponse{Topics: []CreateTopicResult{{Name: "ok", ErrorMessage: long}}},
	} {
		got, err := m.AppendTo([]byte("keep"))
		if !errors.Is(err, ErrFrameTooLarge) || string(got) != "keep" {
			t.Errorf("%+v: AppendTo = %q, %v; want dst unchanged and ErrFrameTooLarge", m, got, err)
		}
	}
}

// TestCreateTopicsDecodersRefuseCountsTheBytesCannotHold: every count is
// checked against the bytes left before anything is allocated for it.
func TestCreateTopicsDecodersRefuseCountsTheBytesCannotHold(t *testing.T) {
	one := mustEncode(t, CreateTopicsRequest{Topics: []CreatableTopic{{Assignment: [][]int32{{1}}, Configs: []TopicConfig{{"a", "b"}}}}})
	for _, tc := range []struct {
		name    string
		payload []byte
		decode  func([]byte) error
		want    error
		field   string
	}{
		{"Topics huge", patch(mustEncode(t, CreateTopicsRequest{}), 8, int32(math.MaxInt32)), decodeErr(DecodeCreateTopicsRequest), ErrTruncated, "Topics"},
		{"Topics -1", patch(mustEncode(t, CreateTopicsRequest{}), 8, int32(-1)), decodeErr(DecodeCreateTopicsRequest), ErrNegativeLength, "Topics"},
		{"Assignment huge", patch(one, 20, int32(math.MaxInt32)), decodeErr(DecodeCreateTopicsRequest), ErrTruncated, "Assignment"},
		{"Assignment replicas huge", patch(one, 24, int32(math.MaxInt32)), decodeErr(DecodeCreateTopicsRequest), ErrTruncated, "Assignment.Replicas"},
		{"Configs huge", patch(one, 32, int32(math.MaxInt32)), decodeErr(DecodeCreateTopicsRequest), ErrTruncated, "Configs"},
		{"response Topics huge", patch(mustEncode(t, CreateTopicsResponse{}), 12, int32(math.MaxInt32)), decodeErr(DecodeCreateTopicsResponse), ErrTruncated, "Topics"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var err error
			for range 10 {
				err = tc.decode(tc.payload)
			}
			runtime.ReadMemStats(&after)
			if !errors.Is(err, tc.want) || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("err = %v, want %v naming %s", err, tc.want, tc.field)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 10*1024 {
				t.Errorf("refusing the count 10 times allocated %d bytes", n)
			}
		})
	}
}

func TestCreateTopicsResponseErrNamesTheFirstRefusal(t *testing.T) {
	ok := CreateTopicsResponse{Topics: []CreateTopicResult{{Name: "a"}, {Name: "b"}}}
	if err := ok.Err(); err != nil {
		t.Fatalf("Err() = %v for every topic created", err)
	}
	bad := CreateTopicsResponse{Topics: []CreateTopicResult{{Name: "a"}, {Name: "b", ErrorCode: CodeInvalidConfig, ErrorMessage: "why"}}}
	if err := bad.Err(); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `"b"`) || !strings.Contains(err.Error(), "why") {
		t.Fatalf("Err() = %v, want ErrInvalidConfig naming topic b and why", err)
	}
	whole := CreateTopicsResponse{ErrorCode: CodeRequestTimedOut}
	if err := whole.Err(); !errors.Is(err, ErrRequestTimedOut) {
		t.Fatalf("Err() = %v, want ErrRequestTimedOut", err)
	}
}

// TestCreateTopicsGoldenEncodings pins the exact bytes. After an intended
// layout change: go test ./wire -run CreateTopicsGolden -update
func TestCreateTopicsGoldenEncodings(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    encodable
	}{
		{"create_topics_request", CreateTopicsRequest{CorrelationID: 5, Topics: []CreatableTopic{
			{Name: "orders", Partitions: 2, ReplicationFactor: 3, Configs: []TopicConfig{{"min.insync.replicas", "2"}, {"cleanup.policy", "compact"}}},
			{Name: "pinned", Assignment: [][]int32{{1, 2}, {2, 3}}},
		}}},
		{"create_topics_request_validate_only", CreateTopicsRequest{CorrelationID: 12, Topics: []CreatableTopic{{Name: "orders", Partitions: 1, ReplicationFactor: 1}}, ValidateOnly: true}},
		{"create_topics_response", CreateTopicsResponse{CorrelationID: 6, Topics: []CreateTopicResult{
			{Name: "orders", Partitions: 2, ReplicationFactor: 3},
			{Name: "pinned", ErrorCode: CodeInvalidConfig, ErrorMessage: "bad", Partitions: -1, ReplicationFactor: -1},
		}}},
		{"create_topics_response_refused", CreateTopicsResponse{CorrelationID: 7, ErrorCode: CodeRequestTimedOut, ErrorMessage: "late"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hex.Dump(mustEncode(t, tc.m))
			path := filepath.Join("testdata", "golden", tc.name+".hex")
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

func FuzzDecodeCreateTopicsRequest(f *testing.F) {
	addSeeds(f, CreateTopicsRequest{}, CreateTopicsRequest{Topics: []CreatableTopic{{Name: "t", Partitions: 3, ReplicationFactor: 2, Configs: []TopicConfig{{"retention.ms", "1"}}}}},
		CreateTopicsRequest{Topics: []CreatableTopic{{Name: "t", Assignment: [][]int32{{1, 2}, nil}}, {Name: "u"}}, ValidateOnly: true})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeCreateTopicsRequest) })
}

func FuzzDecodeCreateTopicsResponse(f *testing.F) {
	addSeeds(f, CreateTopicsResponse{}, CreateTopicsResponse{ErrorCode: CodeRequestTimedOut, ErrorMessage: "why"},
		CreateTopicsResponse{Topics: []CreateTopicResult{{Name: "t", ErrorCode: CodeInvalidConfig, ErrorMessage: "no", Partitions: -1, ReplicationFactor: -1}}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeCreateTopicsResponse) })
}
