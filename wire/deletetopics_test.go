package wire

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func genDeleteTopicsRequest(r *rand.Rand) DeleteTopicsRequest {
	m := DeleteTopicsRequest{CorrelationID: int32(r.Uint32())}
	for range r.IntN(4) {
		m.Names = append(m.Names, genString(r))
	}
	return m
}

func genDeleteTopicsResponse(r *rand.Rand) DeleteTopicsResponse {
	m := DeleteTopicsResponse{CorrelationID: int32(r.Uint32())}
	for range r.IntN(4) {
		m.Topics = append(m.Topics, DeletedTopic{Name: genString(r), ErrorCode: genCode(r)})
	}
	return m
}

func TestDeleteTopicsMessagesRoundTrip(t *testing.T) {
	for _, m := range []DeleteTopicsRequest{{}, {CorrelationID: 1, Names: []string{"a"}}, {Names: []string{"", strings.Repeat("x", maxStringLength)}}} {
		checkRoundTrip(t, m, DecodeDeleteTopicsRequest)
	}
	for _, m := range []DeleteTopicsResponse{{}, {Topics: []DeletedTopic{{Name: "a", ErrorCode: CodeUnknownTopicOrPartition}, {Name: "b"}}}} {
		checkRoundTrip(t, m, DecodeDeleteTopicsResponse)
	}
	r := newRand(t)
	for range 200 {
		checkRoundTrip(t, genDeleteTopicsRequest(r), DecodeDeleteTopicsRequest)
		checkRoundTrip(t, genDeleteTopicsResponse(r), DecodeDeleteTopicsResponse)
	}
}

func TestDeleteTopicsEncodersRefuseNamesTooLong(t *testing.T) {
	long := strings.Repeat("x", maxStringLength+1)
	for _, m := range []encodable{DeleteTopicsRequest{Names: []string{"ok", long}}, DeleteTopicsResponse{Topics: []DeletedTopic{{Name: long}}}} {
		dst := []byte("keep")
		got, err := m.AppendTo(dst)
		if !errors.Is(err, ErrFrameTooLarge) || string(got) != "keep" {
			t.Errorf("%T: AppendTo = %q, %v; want dst unchanged and ErrFrameTooLarge", m, got, err)
		}
	}
}

func TestDeleteTopicsDecodersRefuseCountsTheBytesCannotHold(t *testing.T) {
	req := patch(mustEncode(t, DeleteTopicsRequest{}), 8, int32(1<<30))
	if _, err := DecodeDeleteTopicsRequest(req); !errors.Is(err, ErrTruncated) {
		t.Errorf("request: err = %v, want ErrTruncated", err)
	}
	resp := patch(mustEncode(t, DeleteTopicsResponse{}), 8, int32(1<<30))
	if _, err := DecodeDeleteTopicsResponse(resp); !errors.Is(err, ErrTruncated) {
		t.Errorf("response: err = %v, want ErrTruncated", err)
	}
	neg := patch(mustEncode(t, DeleteTopicsRequest{}), 8, int32(-1))
	if _, err := DecodeDeleteTopicsRequest(neg); !errors.Is(err, ErrNegativeLength) {
		t.Errorf("request with count -1: err = %v, want ErrNegativeLength", err)
	}
}

func FuzzDecodeDeleteTopicsRequest(f *testing.F) {
	addSeeds(f, DeleteTopicsRequest{}, DeleteTopicsRequest{Names: []string{"t", "u"}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeDeleteTopicsRequest) })
}

func FuzzDecodeDeleteTopicsResponse(f *testing.F) {
	addSeeds(f, DeleteTopicsResponse{}, DeleteTopicsResponse{Topics: []DeletedTopic{{Name: "t", ErrorCode: CodeUnknownTopicOrPartition}}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeDeleteTopicsResponse) })
}
