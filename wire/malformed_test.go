package wire

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// patch returns a copy of b with v written big-endian at off; v's Go type
// picks the width.
func patch(b []byte, off int, v any) []byte {
	out := append([]byte(nil), b...)
	switch v := v.(type) {
	case int16:
		binary.BigEndian.PutUint16(out[off:], uint16(v))
	case int32:
		binary.BigEndian.PutUint32(out[off:], uint32(v))
	case int64:
		binary.BigEndian.PutUint64(out[off:], uint64(v))
	default:
		panic("patch: unsupported type")
	}
	return out
}

func TestMalformedPayloads(t *testing.T) {
	fetchReq := mustEncode(t, FetchRequest{CorrelationID: 1, ReplicaID: 2, FetchOffset: 3, MaxBytes: 4})
	fetchResp := mustEncode(t, FetchResponse{CorrelationID: 1, HighWatermark: 2, Records: []byte("abc")})
	ofleReq := mustEncode(t, OffsetsForLeaderEpochRequest{CorrelationID: 1, ReplicaID: 2, LeaderEpoch: 3})
	ofleResp := mustEncode(t, OffsetsForLeaderEpochResponse{CorrelationID: 1, Found: true, Epoch: 1, EndOffset: 6})
	prodReq := mustEncode(t, ProduceRequest{CorrelationID: 1, Acks: AcksAll, TimeoutMs: 100, Records: []byte("abc")})
	prodResp := mustEncode(t, ProduceResponse{CorrelationID: 1, HasBaseOffset: true, BaseOffset: 4})

	decoders := map[string]func([]byte) error{
		"FetchRequest":                  func(b []byte) error { _, err := DecodeFetchRequest(b); return err },
		"FetchResponse":                 func(b []byte) error { _, err := DecodeFetchResponse(b); return err },
		"OffsetsForLeaderEpochRequest":  func(b []byte) error { _, err := DecodeOffsetsForLeaderEpochRequest(b); return err },
		"OffsetsForLeaderEpochResponse": func(b []byte) error { _, err := DecodeOffsetsForLeaderEpochResponse(b); return err },
		"ProduceRequest":                func(b []byte) error { _, err := DecodeProduceRequest(b); return err },
		"ProduceResponse":               func(b []byte) error { _, err := DecodeProduceResponse(b); return err },
	}
	valid := map[string][]byte{
		"FetchRequest":                  fetchReq,
		"FetchResponse":                 fetchResp,
		"OffsetsForLeaderEpochRequest":  ofleReq,
		"OffsetsForLeaderEpochResponse": ofleResp,
		"ProduceRequest":                prodReq,
		"ProduceResponse":               prodResp,
	}

	type tc struct {
		name      string
		msg       string
		payload   []byte
		want      error
		wantField string // the error text must name the field
	}
	var cases []tc
	for msg, b := range valid {
		other := APIFetch
		if APIKey(binary.BigEndian.Uint16(b)) == APIFetch {
			other = APIProduce
		}
		cases = append(cases,
			tc{"empty", msg, nil, ErrTruncated, "APIKey"},
			tc{"header cut", msg, b[:5], ErrTruncated, "CorrelationID"},
			tc{"body cut", msg, b[:len(b)-1], ErrTruncated, ""},
			tc{"trailing byte", msg, append(append([]byte(nil), b...), 0), ErrTrailingBytes, ""},
			tc{"other API key", msg, patch(b, 0, int16(other)), ErrWrongAPIKey, "APIKey"},
			tc{"unknown API key", msg, patch(b, 0, int16(99)), ErrWrongAPIKey, "APIKey"},
			tc{"version 1", msg, patch(b, 2, int16(1)), ErrUnsupportedVersion, "Version"},
			tc{"version -1", msg, patch(b, 2, int16(-1)), ErrUnsupportedVersion, "Version"},
		)
	}
	cases = append(cases,
		tc{"negative FetchOffset", "FetchRequest", patch(fetchReq, 12, int64(-1)), ErrNegativeOffset, "FetchOffset"},
		tc{"CurrentLeaderEpoch -2", "FetchRequest", patch(fetchReq, 20, int32(-2)), ErrInvalidEpoch, "CurrentLeaderEpoch"},
		tc{"LastFetchedEpoch min", "FetchRequest", patch(fetchReq, 24, int32(-1<<31)), ErrInvalidEpoch, "LastFetchedEpoch"},
		tc{"negative MaxBytes", "FetchRequest", patch(fetchReq, 28, int32(-1)), ErrNegativeLength, "MaxBytes"},

		tc{"negative HighWatermark", "FetchResponse", patch(fetchResp, 10, int64(-1)), ErrNegativeOffset, "HighWatermark"},
		tc{"negative LogStartOffset", "FetchResponse", patch(fetchResp, 18, int64(-5)), ErrNegativeOffset, "LogStartOffset"},
		tc{"DivergingEpoch (-1, 5)", "FetchResponse", patch(fetchResp, 30, int64(5)), ErrInvalidEpoch, "DivergingEpoch.Epoch"},
		tc{"DivergingEpoch (5, -1)", "FetchResponse", patch(fetchResp, 26, int32(5)), ErrNegativeOffset, "DivergingEpoch.EndOffset"},
		tc{"DivergingEpoch (-2, -1)", "FetchResponse", patch(fetchResp, 26, int32(-2)), ErrInvalidEpoch, "DivergingEpoch.Epoch"},
		tc{"DivergingEpoch (-1, -2)", "FetchResponse", patch(fetchResp, 30, int64(-2)), ErrInvalidEpoch, "DivergingEpoch.Epoch"},
		tc{"negative Records length", "FetchResponse", patch(fetchResp, 38, int32(-1)), ErrNegativeLength, "Records"},
		tc{"Records longer than payload", "FetchResponse", patch(fetchResp, 38, int32(4)), ErrTruncated, "Records"},
		tc{"Records length max", "FetchResponse", patch(fetchResp, 38, int32(1<<31-1)), ErrTruncated, "Records"},
		tc{"Records shorter than payload", "FetchResponse", patch(fetchResp, 38, int32(2)), ErrTrailingBytes, ""},

		tc{"CurrentLeaderEpoch -2", "OffsetsForLeaderEpochRequest", patch(ofleReq, 12, int32(-2)), ErrInvalidEpoch, "CurrentLeaderEpoch"},
		tc{"LeaderEpoch -2", "OffsetsForLeaderEpochRequest", patch(ofleReq, 16, int32(-2)), ErrInvalidEpoch, "LeaderEpoch"},

		tc{"(-1, 6)", "OffsetsForLeaderEpochResponse", patch(ofleResp, 10, int32(-1)), ErrInvalidEpoch, "Epoch"},
		tc{"(1, -1)", "OffsetsForLeaderEpochResponse", patch(ofleResp, 14, int64(-1)), ErrNegativeOffset, "EndOffset"},
		tc{"(1, min)", "OffsetsForLeaderEpochResponse", patch(ofleResp, 14, int64(-1<<63)), ErrNegativeOffset, "EndOffset"},

		tc{"negative TimeoutMs", "ProduceRequest", patch(prodReq, 10, int32(-1)), ErrNegativeTimeout, "TimeoutMs"},
		tc{"negative Records length", "ProduceRequest", patch(prodReq, 14, int32(-7)), ErrNegativeLength, "Records"},
		tc{"Records longer than payload", "ProduceRequest", patch(prodReq, 14, int32(100)), ErrTruncated, "Records"},

		tc{"BaseOffset -2", "ProduceResponse", patch(prodResp, 10, int64(-2)), ErrNegativeOffset, "BaseOffset"},
	)

	for _, c := range cases {
		t.Run(c.msg+"/"+c.name, func(t *testing.T) {
			err := decoders[c.msg](c.payload)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v does not match ErrMalformed", err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not name the message %s", err, c.msg)
			}
			if c.wantField != "" && !strings.Contains(err.Error(), c.wantField) {
				t.Errorf("error %q does not name the field %s", err, c.wantField)
			}
		})
	}
}

// TestEveryPrefixIsTruncated: cutting a valid payload anywhere gives
// ErrTruncated, never a panic and never a partial success.
func TestEveryPrefixIsTruncated(t *testing.T) {
	payloads := map[string][]byte{
		"FetchRequest":                  mustEncode(t, FetchRequest{FetchOffset: 1}),
		"FetchResponse":                 mustEncode(t, FetchResponse{Records: []byte("records")}),
		"OffsetsForLeaderEpochRequest":  mustEncode(t, OffsetsForLeaderEpochRequest{}),
		"OffsetsForLeaderEpochResponse": mustEncode(t, OffsetsForLeaderEpochResponse{}),
		"ProduceRequest":                mustEncode(t, ProduceRequest{Records: []byte("records")}),
		"ProduceResponse":               mustEncode(t, ProduceResponse{}),
	}
	decode := map[string]func([]byte) error{
		"FetchRequest":                  func(b []byte) error { _, err := DecodeFetchRequest(b); return err },
		"FetchResponse":                 func(b []byte) error { _, err := DecodeFetchResponse(b); return err },
		"OffsetsForLeaderEpochRequest":  func(b []byte) error { _, err := DecodeOffsetsForLeaderEpochRequest(b); return err },
		"OffsetsForLeaderEpochResponse": func(b []byte) error { _, err := DecodeOffsetsForLeaderEpochResponse(b); return err },
		"ProduceRequest":                func(b []byte) error { _, err := DecodeProduceRequest(b); return err },
		"ProduceResponse":               func(b []byte) error { _, err := DecodeProduceResponse(b); return err },
	}
	for name, b := range payloads {
		for n := range len(b) {
			if err := decode[name](b[:n]); !errors.Is(err, ErrTruncated) {
				t.Errorf("%s cut to %d of %d bytes: err = %v, want ErrTruncated", name, n, len(b), err)
			}
		}
	}
}

func TestDecodeErrorLeavesZeroValue(t *testing.T) {
	b := patch(mustEncode(t, FetchResponse{CorrelationID: 5, HighWatermark: 9, Records: []byte("x")}), 18, int64(-1))
	m, err := DecodeFetchResponse(b)
	if err == nil {
		t.Fatal("want an error")
	}
	if m.CorrelationID != 0 || m.HighWatermark != 0 || m.Records != nil {
		t.Fatalf("half-decoded message escaped: %+v", m)
	}
}

func TestPeekHeader(t *testing.T) {
	for _, tc := range []struct {
		name     string
		payload  []byte
		wantKey  APIKey
		wantCorr int32
		wantErr  error
	}{
		{"fetch", mustEncode(t, FetchRequest{CorrelationID: 42}), APIFetch, 42, nil},
		{"produce", mustEncode(t, ProduceRequest{CorrelationID: -3}), APIProduce, -3, nil},
		{"offsets for leader epoch", mustEncode(t, OffsetsForLeaderEpochResponse{CorrelationID: 7}), APIOffsetsForLeaderEpoch, 7, nil},
		{"header only", mustEncode(t, FetchRequest{CorrelationID: 1})[:headerSize], APIFetch, 1, nil},
		{"short", []byte{0, 1, 0, 0, 0, 0, 0}, 0, 0, ErrTruncated},
		{"empty", nil, 0, 0, ErrTruncated},
		{"unknown key keeps corr", patch(mustEncode(t, FetchRequest{CorrelationID: 11}), 0, int16(99)), 99, 11, ErrUnknownAPIKey},
		{"bad version keeps corr", patch(mustEncode(t, FetchRequest{CorrelationID: 12}), 2, int16(3)), APIFetch, 12, ErrUnsupportedVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, corr, err := PeekHeader(tc.payload)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr != nil && !errors.Is(err, ErrMalformed)) {
				t.Fatalf("err = %v, want %v (and ErrMalformed)", err, tc.wantErr)
			}
			if key != tc.wantKey || corr != tc.wantCorr {
				t.Fatalf("PeekHeader = (%v, %d), want (%v, %d)", key, corr, tc.wantKey, tc.wantCorr)
			}
		})
	}
}

func TestAPIKeyString(t *testing.T) {
	for k, want := range map[APIKey]string{
		APIProduce: "Produce", APIFetch: "Fetch", APIOffsetsForLeaderEpoch: "OffsetsForLeaderEpoch", 99: "APIKey(99)",
	} {
		if got := k.String(); got != want {
			t.Errorf("APIKey(%d).String() = %q, want %q", int16(k), got, want)
		}
	}
}
