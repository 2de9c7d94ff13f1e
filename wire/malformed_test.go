package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"runtime"
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

// twoPartitions returns a valid payload of each data-plane message with two
// partitions of topic "t" (and records "abc" where the message has them),
// for the malformed cases to patch.
func twoPartitions(t *testing.T) map[string][]byte {
	rec := []byte("abc")
	return map[string][]byte{
		"FetchRequest": mustEncode(t, FetchRequest{CorrelationID: 1, ReplicaID: 2,
			Partitions: []FetchPartition{{Topic: "t", FetchOffset: 3, MaxBytes: 4}, {Topic: "t", Partition: 1}}}),
		"FetchResponse": mustEncode(t, FetchResponse{CorrelationID: 1,
			Partitions: []FetchPartitionResponse{{Topic: "t", HighWatermark: 2, Records: rec}, {Topic: "t", Partition: 1, Records: rec}}}),
		"ProduceRequest": mustEncode(t, ProduceRequest{CorrelationID: 1, Acks: AcksAll, TimeoutMs: 100,
			Partitions: []ProducePartition{{Topic: "t", Records: rec}, {Topic: "t", Partition: 1, Records: rec}}}),
		"ProduceResponse": mustEncode(t, ProduceResponse{CorrelationID: 1,
			Partitions: []ProducePartitionResponse{{Topic: "t", HasBaseOffset: true, BaseOffset: 4}, {Topic: "t", Partition: 1}}}),
		"OffsetsForLeaderEpochRequest": mustEncode(t, OffsetsForLeaderEpochRequest{CorrelationID: 1, ReplicaID: 2,
			Partitions: []OffsetsForLeaderEpochPartition{{Topic: "t", LeaderEpoch: 3}, {Topic: "t", Partition: 1}}}),
		"OffsetsForLeaderEpochResponse": mustEncode(t, OffsetsForLeaderEpochResponse{CorrelationID: 1,
			Partitions: []OffsetsForLeaderEpochPartitionResponse{{Topic: "t", Found: true, EpochEndOffset: EpochEndOffset{1, 6}}, {Topic: "t", Partition: 1}}}),
		"ListOffsetsRequest": mustEncode(t, ListOffsetsRequest{CorrelationID: 1,
			Partitions: []ListOffsetsPartition{{Topic: "t", Timestamp: LatestTimestamp}, {Topic: "t", Partition: 1, Timestamp: EarliestTimestamp}}}),
		"ListOffsetsResponse": mustEncode(t, ListOffsetsResponse{CorrelationID: 1,
			Partitions: []ListOffsetsPartitionResponse{{Topic: "t", Offset: 5, Timestamp: 9, Found: true}, {Topic: "t", Partition: 1}}}),
	}
}

// partitionsAt is where each message's Partitions count is, and how long
// its one-byte-topic partition element is (records "abc" included).
var partitionsAt = map[string]struct{ count, elem int }{
	"FetchRequest":                  {32, 35},
	"FetchResponse":                 {10, 52},
	"ProduceRequest":                {14, 14},
	"ProduceResponse":               {8, 25},
	"OffsetsForLeaderEpochRequest":  {12, 15},
	"OffsetsForLeaderEpochResponse": {8, 21},
	"ListOffsetsRequest":            {12, 19},
	"ListOffsetsResponse":           {8, 29},
}

func decoderFor(name string) func([]byte) error {
	for _, dm := range allMessages() {
		if dm.name == name {
			return func(b []byte) error { _, err := dm.decode(b); return err }
		}
	}
	panic("no decoder for " + name)
}

func TestMalformedPayloads(t *testing.T) {
	valid := twoPartitions(t)
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
		at := partitionsAt[msg]
		second := at.count + 4 + at.elem // the second partition's topic length
		cases = append(cases,
			tc{"empty", msg, nil, ErrTruncated, "APIKey"},
			tc{"header cut", msg, b[:5], ErrTruncated, "CorrelationID"},
			tc{"body cut", msg, b[:len(b)-1], ErrTruncated, "Partitions"},
			tc{"trailing byte", msg, append(append([]byte(nil), b...), 0), ErrTrailingBytes, ""},
			tc{"other API key", msg, patch(b, 0, int16(other)), ErrWrongAPIKey, "APIKey"},
			tc{"unknown API key", msg, patch(b, 0, int16(99)), ErrWrongAPIKey, "APIKey"},
			tc{"version 1", msg, patch(b, 2, int16(1)), ErrUnsupportedVersion, "Version"},
			tc{"version -1", msg, patch(b, 2, int16(-1)), ErrUnsupportedVersion, "Version"},
			tc{"Partitions count -1", msg, patch(b, at.count, int32(-1)), ErrNegativeLength, "Partitions"},
			tc{"Partitions count max", msg, patch(b, at.count, int32(math.MaxInt32)), ErrTruncated, "Partitions"},
			tc{"Partitions count 3", msg, patch(b, at.count, int32(3)), ErrTruncated, "Partitions"},
			tc{"Partitions count 1", msg, patch(b, at.count, int32(1)), ErrTrailingBytes, ""},
			tc{"Topic length -1", msg, patch(b, second, int16(-1)), ErrNegativeLength, "Partitions[1].Topic"},
			tc{"Topic length 0", msg, patch(b, second, int16(0)), ErrInvalidTopic, "Partitions[1].Topic"},
			tc{"Topic length 250", msg, patch(b, second, int16(250)), ErrInvalidTopic, "Partitions[1].Topic"},
			tc{"Topic length max", msg, patch(b, second, int16(math.MaxInt16)), ErrInvalidTopic, "Partitions[1].Topic"},
			tc{"Topic NUL", msg, patchByte(b, second+2, 0), ErrInvalidTopic, "Partitions[1].Topic"},
			tc{"Topic slash", msg, patchByte(b, second+2, '/'), ErrInvalidTopic, "Partitions[1].Topic"},
			tc{"Topic dot", msg, patchByte(b, second+2, '.'), ErrInvalidTopic, "Partitions[1].Topic"},
			tc{"Partition -1", msg, patch(b, second+3, int32(-1)), ErrInvalidPartition, "Partitions[1].Partition"},
		)
	}
	fr, fp, pr := valid["FetchRequest"], valid["FetchResponse"], valid["ProduceRequest"]
	cases = append(cases,
		tc{"ReplicaEpoch min", "FetchRequest", patch(fr, 12, int64(math.MinInt64)), ErrInvalidValue, "ReplicaEpoch"},
		tc{"LogStartOffset -2", "FetchRequest", patch(fr, 36+35+23, int64(-2)), ErrNegativeOffset, "Partitions[1].LogStartOffset"},
		tc{"DivergingEpoch (-2, -1)", "FetchResponse", patch(fp, 14+25, int32(-2)), ErrInvalidEpoch, "Partitions[0].DivergingEpoch.Epoch"},
		tc{"DivergingEpoch (-1, -2)", "FetchResponse", patch(fp, 14+29, int64(-2)), ErrInvalidEpoch, "Partitions[0].DivergingEpoch.Epoch"},
		tc{"CurrentLeader (-1, -2)", "FetchResponse", patch(fp, 14+41, int32(-2)), ErrInvalidValue, "Partitions[0].CurrentLeader.LeaderID"},
		tc{"CurrentLeader (-2, -1)", "FetchResponse", patch(fp, 14+37, int32(-2)), ErrInvalidValue, "Partitions[0].CurrentLeader.LeaderID"},
		tc{"negative Records length", "FetchResponse", patch(fp, 14+45, int32(-1)), ErrNegativeLength, "Partitions[0].Records"},
		tc{"Records length max", "FetchResponse", patch(fp, 14+45, int32(math.MaxInt32)), ErrTruncated, "Partitions[0].Records"},
		tc{"Records longer than payload", "FetchResponse", patch(fp, 14+52+45, int32(4)), ErrTruncated, "Partitions[1].Records"},
		tc{"Records shorter than payload", "FetchResponse", patch(fp, 14+52+45, int32(2)), ErrTrailingBytes, ""},
		tc{"negative Records length", "ProduceRequest", patch(pr, 18+7, int32(-7)), ErrNegativeLength, "Partitions[0].Records"},
		tc{"Records longer than payload", "ProduceRequest", patch(pr, 18+7, int32(100)), ErrTruncated, "Partitions[0].Records"},
	)

	for _, c := range cases {
		t.Run(c.msg+"/"+c.name, func(t *testing.T) {
			err := decoderFor(c.msg)(c.payload)
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
	for name, b := range twoPartitions(t) {
		decode := decoderFor(name)
		for n := range len(b) {
			if err := decode(b[:n]); !errors.Is(err, ErrTruncated) {
				t.Errorf("%s cut to %d of %d bytes: err = %v, want ErrTruncated", name, n, len(b), err)
			}
		}
	}
	r := newRand(t)
	for _, dm := range dataMessages() {
		for range 20 {
			b := mustEncode(t, dm.gen(r))
			for n := range len(b) {
				if _, err := dm.decode(b[:n]); !errors.Is(err, ErrTruncated) {
					t.Fatalf("%s cut to %d of %d bytes: err = %v, want ErrTruncated", dm.name, n, len(b), err)
				}
			}
		}
	}
}

func TestDecodeErrorLeavesZeroValue(t *testing.T) {
	valid := twoPartitions(t)
	bad := patch(valid["FetchResponse"], 14+52+45, int32(4))
	m, err := DecodeFetchResponse(bad)
	if err == nil {
		t.Fatal("want an error")
	}
	if m.CorrelationID != 0 || m.Partitions != nil {
		t.Fatalf("half-decoded message escaped: %+v", m)
	}

	// Into: the destination is emptied, keeps its array, and holds no
	// records of the bad payload.
	var into FetchResponse
	if err := DecodeFetchResponseInto(valid["FetchResponse"], &into); err != nil {
		t.Fatal(err)
	}
	array := &into.Partitions[:1][0]
	if err := DecodeFetchResponseInto(bad, &into); err == nil {
		t.Fatal("want an error")
	}
	if into.CorrelationID != 0 || len(into.Partitions) != 0 || cap(into.Partitions) < 2 || &into.Partitions[:1][0] != array {
		t.Fatalf("after an error: %+v (cap %d), want empty, same array", into, cap(into.Partitions))
	}
	for _, p := range into.Partitions[:cap(into.Partitions)] {
		if p.Records != nil {
			t.Fatalf("array keeps records %q after an error", p.Records)
		}
	}
	var pq ProduceRequest
	if err := DecodeProduceRequestInto(patch(valid["ProduceRequest"], 18+14+7, int32(100)), &pq); err == nil || len(pq.Partitions) != 0 {
		t.Fatalf("ProduceRequest after an error: %+v, %v", pq, err)
	}
	for _, p := range pq.Partitions[:cap(pq.Partitions)] {
		if p.Records != nil {
			t.Fatalf("array keeps records %q after an error", p.Records)
		}
	}
}

// TestHugeCountsDoNotAllocate: a count that claims more partitions than
// the payload could hold is refused before anything is allocated for
// them; only the error's text is.
func TestHugeCountsDoNotAllocate(t *testing.T) {
	for name, b := range twoPartitions(t) {
		b = patch(b, partitionsAt[name].count, int32(math.MaxInt32))
		decode := decoderFor(name)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 10 {
			if err := decode(b); !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s: err = %v, want ErrTruncated", name, err)
			}
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 10*1024 {
			t.Errorf("%s: refusing a huge count 10 times allocated %d bytes", name, n)
		}
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
		{"list offsets", mustEncode(t, ListOffsetsRequest{CorrelationID: 5}), APIListOffsets, 5, nil},
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
		APIProduce: "Produce", APIFetch: "Fetch", APIListOffsets: "ListOffsets", APIOffsetsForLeaderEpoch: "OffsetsForLeaderEpoch", 99: "APIKey(99)",
	} {
		if got := k.String(); got != want {
			t.Errorf("APIKey(%d).String() = %q, want %q", int16(k), got, want)
		}
	}
	// Kafka's numbers, from clients/src/main/resources/common/message/*.json.
	for k, want := range map[APIKey]int16{APIProduce: 0, APIFetch: 1, APIListOffsets: 2, APIOffsetsForLeaderEpoch: 23} {
		if int16(k) != want {
			t.Errorf("%s = %d, want Kafka's %d", k, int16(k), want)
		}
	}
}
