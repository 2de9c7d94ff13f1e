package kafka_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestApiVersionsV3AndV4AnswerEveryAPIBehindAV0HeaderAndCheckTheSoftwareName:
// ApiVersions v3 and v4 (flexible bodies) are answered with every API's
// range behind a response header v0 (KIP-511: no tagged fields, so any
// client can read it), and a ClientSoftwareName or ClientSoftwareVersion
// outside Kafka's pattern gets INVALID_REQUEST and no keys, as Kafka
// answers it.
func TestApiVersionsV3AndV4AnswerEveryAPIBehindAV0HeaderAndCheckTheSoftwareName(t *testing.T) {
	c := startCluster(t, 1)
	rc := dialRaw(t, c.seeds()[0])
	want := map[int16][2]int16{0: {0, 12}, 1: {4, 12}, 2: {1, 10}, 3: {0, 11}, 18: {0, 4}, 22: {0, 5}}
	for _, v := range []int16{3, 4} {
		req := kmsg.NewPtrApiVersionsRequest()
		req.ClientSoftwareName, req.ClientSoftwareVersion = "kaenlog-test", "1.0.2-rc.1"
		resp := roundTrip(t, rc, req, v).(*kmsg.ApiVersionsResponse)
		got := map[int16][2]int16{}
		for _, k := range resp.ApiKeys {
			got[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
		}
		for key, r := range want {
			if got[key] != r {
				t.Errorf("ApiVersions v%d: key %d advertised %v, want %v", v, key, got[key], r)
			}
		}
		if resp.ErrorCode != 0 || len(resp.SupportedFeatures) != 0 || resp.FinalizedFeaturesEpoch != -1 {
			t.Errorf("ApiVersions v%d: error %d, features %v, finalized epoch %d", v, resp.ErrorCode, resp.SupportedFeatures, resp.FinalizedFeaturesEpoch)
		}
	}
	for _, sw := range [][2]string{{"", "1.0"}, {"kgo", ""}, {"-kgo", "1.0"}, {"kgo", "1.0-"}, {"kgo!", "1.0"}, {"kgo", "v1 2"}} {
		req := kmsg.NewPtrApiVersionsRequest()
		req.ClientSoftwareName, req.ClientSoftwareVersion = sw[0], sw[1]
		resp := roundTrip(t, rc, req, 3).(*kmsg.ApiVersionsResponse)
		if resp.ErrorCode != 42 || len(resp.ApiKeys) != 0 {
			t.Errorf("ApiVersions v3 from %q %q: error %d, %d keys; want INVALID_REQUEST (42) and none", sw[0], sw[1], resp.ErrorCode, len(resp.ApiKeys))
		}
	}
	// v0-v2 carry no software name and are answered in full.
	if resp := roundTrip(t, rc, kmsg.NewPtrApiVersionsRequest(), 2).(*kmsg.ApiVersionsResponse); resp.ErrorCode != 0 || len(resp.ApiKeys) < len(want) {
		t.Errorf("ApiVersions v2: error %d, %d keys", resp.ErrorCode, len(resp.ApiKeys))
	}
}
