package wire

import (
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.hex from the current encoders")

// TestGoldenEncodings pins the exact bytes of one message of each kind, so
// a layout change cannot slip through as a matched encoder/decoder pair.
// After an intended change, run: go test ./wire -run Golden -update
func TestGoldenEncodings(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    encodable
	}{
		{"fetch_request", FetchRequest{CorrelationID: 7, ReplicaID: 2, FetchOffset: 1, CurrentLeaderEpoch: 0, LastFetchedEpoch: 0, MaxBytes: 1 << 20}},
		{"fetch_request_consumer", FetchRequest{CorrelationID: 8, ReplicaID: ConsumerReplicaID, FetchOffset: 0, CurrentLeaderEpoch: NoEpoch, LastFetchedEpoch: NoEpoch, MaxBytes: 4096}},
		{"fetch_response", FetchResponse{CorrelationID: 7, HighWatermark: 1, LogStartOffset: 0, Records: []byte("batch")}},
		{"fetch_response_diverging", FetchResponse{CorrelationID: 9, HighWatermark: 5, HasDivergingEpoch: true, DivergingEpoch: EpochEndOffset{Epoch: 1, EndOffset: 6}}},
		{"offsets_for_leader_epoch_request", OffsetsForLeaderEpochRequest{CorrelationID: 3, ReplicaID: 2, CurrentLeaderEpoch: 1, LeaderEpoch: 0}},
		{"offsets_for_leader_epoch_response", OffsetsForLeaderEpochResponse{CorrelationID: 3, Found: true, Epoch: 0, EndOffset: 2}},
		{"offsets_for_leader_epoch_response_not_found", OffsetsForLeaderEpochResponse{CorrelationID: 4}},
		{"produce_request", ProduceRequest{CorrelationID: 1, Acks: AcksAll, TimeoutMs: 30000, Records: []byte("batch")}},
		{"produce_response", ProduceResponse{CorrelationID: 1, HasBaseOffset: true, BaseOffset: 4}},
		{"produce_response_refused", ProduceResponse{CorrelationID: 2, ErrorCode: CodeNotEnoughReplicas}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hex.Dump(mustEncode(t, tc.m))
			path := filepath.Join("testdata", "golden", tc.name+".hex")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
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
