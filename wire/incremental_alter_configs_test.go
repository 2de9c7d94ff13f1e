package wire

import (
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func genIncrementalAlterConfigsRequest(r *rand.Rand) IncrementalAlterConfigsRequest {
	m := IncrementalAlterConfigsRequest{CorrelationID: int32(r.Uint32()), ValidateOnly: r.IntN(2) == 0}
	for range r.IntN(3) {
		res := AlterConfigsResource{ResourceType: int8(r.Uint32()), ResourceName: genString(r)}
		for range r.IntN(3) {
			res.Configs = append(res.Configs, AlterableConfig{Name: genString(r), Op: int8(r.Uint32()), Value: genString(r)})
		}
		m.Resources = append(m.Resources, res)
	}
	return m
}

func genIncrementalAlterConfigsResponse(r *rand.Rand) IncrementalAlterConfigsResponse {
	m := IncrementalAlterConfigsResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r), ErrorMessage: genString(r)}
	for range r.IntN(3) {
		m.Resources = append(m.Resources, AlterConfigsResourceResponse{ErrorCode: genCode(r), ErrorMessage: genString(r), ResourceType: int8(r.Uint32()), ResourceName: genString(r)})
	}
	return m
}

func TestIncrementalAlterConfigsMessagesRoundTrip(t *testing.T) {
	checkRoundTrip(t, IncrementalAlterConfigsRequest{}, DecodeIncrementalAlterConfigsRequest)
	checkRoundTrip(t, IncrementalAlterConfigsResponse{}, DecodeIncrementalAlterConfigsResponse)
	r := newRand(t)
	for range 300 {
		checkRoundTrip(t, genIncrementalAlterConfigsRequest(r), DecodeIncrementalAlterConfigsRequest)
		checkRoundTrip(t, genIncrementalAlterConfigsResponse(r), DecodeIncrementalAlterConfigsResponse)
	}
}

func TestIncrementalAlterConfigsEncodersRefuseStringsTooLong(t *testing.T) {
	long := strings.Repeat("x", maxStringLength+1)
	for _, m := range []encodable{
		IncrementalAlterConfigsRequest{Resources: []AlterConfigsResource{{ResourceName: long}}},
		IncrementalAlterConfigsRequest{Resources: []AlterConfigsResource{{Configs: []AlterableConfig{{Value: long}}}}},
		IncrementalAlterConfigsResponse{Resources: []AlterConfigsResourceResponse{{ErrorMessage: long}}},
	} {
		got, err := m.AppendTo([]byte("keep"))
		if !errors.Is(err, ErrFrameTooLarge) || string(got) != "keep" {
			t.Errorf("%+v: AppendTo = %q, %v; want dst unchanged and ErrFrameTooLarge", m, got, err)
		}
	}
}

func TestIncrementalAlterConfigsDecodersRefuseCountsTheBytesCannotHold(t *testing.T) {
	one := mustEncode(t, IncrementalAlterConfigsRequest{Resources: []AlterConfigsResource{{ResourceType: ResourceTopic}}})
	for name, tc := range map[string]struct {
		b     []byte
		field string
		fn    func([]byte) error
	}{
		"Resources": {patch(mustEncode(t, IncrementalAlterConfigsRequest{}), 8, int32(math.MaxInt32)), "Resources", decodeErr(DecodeIncrementalAlterConfigsRequest)},
		"Configs":   {patch(one, 15, int32(math.MaxInt32)), "Configs", decodeErr(DecodeIncrementalAlterConfigsRequest)},
		"response":  {patch(mustEncode(t, IncrementalAlterConfigsResponse{}), 12, int32(math.MaxInt32)), "Resources", decodeErr(DecodeIncrementalAlterConfigsResponse)},
	} {
		if err := tc.fn(tc.b); !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: err = %v, want ErrTruncated naming %s", name, err, tc.field)
		}
	}
}

// TestIncrementalAlterConfigsGoldenEncodings pins the exact bytes. After
// an intended layout change: go test ./wire -run IncrementalAlterConfigsGolden -update
func TestIncrementalAlterConfigsGoldenEncodings(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    encodable
	}{
		{"incremental_alter_configs_request", IncrementalAlterConfigsRequest{CorrelationID: 3, Resources: []AlterConfigsResource{{ResourceType: ResourceTopic, ResourceName: "orders",
			Configs: []AlterableConfig{{Name: "retention.ms", Op: ConfigSet, Value: "60000"}, {Name: "cleanup.policy", Op: ConfigAppend, Value: "compact"}, {Name: "segment.bytes", Op: ConfigDelete}}}}}},
		{"incremental_alter_configs_response", IncrementalAlterConfigsResponse{CorrelationID: 3, Resources: []AlterConfigsResourceResponse{
			{ResourceType: ResourceTopic, ResourceName: "orders"}, {ErrorCode: CodeInvalidConfig, ErrorMessage: "no", ResourceType: ResourceTopic, ResourceName: "x"}}}},
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

func FuzzDecodeIncrementalAlterConfigsRequest(f *testing.F) {
	addSeeds(f, IncrementalAlterConfigsRequest{}, IncrementalAlterConfigsRequest{Resources: []AlterConfigsResource{{ResourceType: ResourceTopic, ResourceName: "t",
		Configs: []AlterableConfig{{Name: "retention.ms", Value: "1"}, {Name: "x", Op: ConfigDelete}}}}, ValidateOnly: true})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeIncrementalAlterConfigsRequest) })
}

func FuzzDecodeIncrementalAlterConfigsResponse(f *testing.F) {
	addSeeds(f, IncrementalAlterConfigsResponse{}, IncrementalAlterConfigsResponse{Resources: []AlterConfigsResourceResponse{{ErrorCode: CodeInvalidConfig, ErrorMessage: "no", ResourceType: ResourceTopic, ResourceName: "t"}}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeIncrementalAlterConfigsResponse) })
}
