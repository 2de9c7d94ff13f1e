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
		{"fetch_request", FetchRequest{CorrelationID: 7, ReplicaID: 2, ReplicaEpoch: 12, MaxWaitMs: 500, MinBytes: 1, MaxBytes: 1 << 20,
			Partitions: []FetchPartition{
				{Topic: "orders", Partition: 0, CurrentLeaderEpoch: 3, FetchOffset: 1, LastFetchedEpoch: 3, HasLogStartOffset: true, LogStartOffset: 0, MaxBytes: 1 << 20},
				{Topic: "orders", Partition: 1, CurrentLeaderEpoch: 2, FetchOffset: 5, LastFetchedEpoch: 2, HasLogStartOffset: true, LogStartOffset: 2, MaxBytes: 1 << 20},
			}}},
		{"fetch_request_consumer", FetchRequest{CorrelationID: 8, ReplicaID: ConsumerReplicaID, ReplicaEpoch: NoBrokerEpoch, MaxBytes: 4096,
			Partitions: []FetchPartition{{Topic: "orders", CurrentLeaderEpoch: NoEpoch, LastFetchedEpoch: NoEpoch, MaxBytes: 4096}}}},
		{"fetch_response", FetchResponse{CorrelationID: 7, Partitions: []FetchPartitionResponse{
			{Topic: "orders", Partition: 0, HighWatermark: 1, Records: []byte("batch")},
			{Topic: "orders", Partition: 1, ErrorCode: CodeNotLeaderOrFollower, HasCurrentLeader: true, CurrentLeader: LeaderAndEpoch{LeaderID: 3, LeaderEpoch: 4}},
		}}},
		{"fetch_response_diverging", FetchResponse{CorrelationID: 9, Partitions: []FetchPartitionResponse{
			{Topic: "orders", HighWatermark: 5, HasDivergingEpoch: true, DivergingEpoch: EpochEndOffset{Epoch: 1, EndOffset: 6}},
		}}},
		{"fetch_response_request_error", FetchResponse{CorrelationID: 10, ErrorCode: CodeInvalidRequest}},
		{"list_offsets_request", ListOffsetsRequest{CorrelationID: 5, ReplicaID: ConsumerReplicaID, Partitions: []ListOffsetsPartition{
			{Topic: "orders", Partition: 0, CurrentLeaderEpoch: 3, Timestamp: LatestTimestamp},
			{Topic: "orders", Partition: 1, CurrentLeaderEpoch: NoEpoch, Timestamp: EarliestTimestamp},
			{Topic: "orders", Partition: 2, CurrentLeaderEpoch: NoEpoch, Timestamp: MaxTimestamp},
			{Topic: "orders", Partition: 3, CurrentLeaderEpoch: NoEpoch, Timestamp: 1_700_000_000_000},
		}}},
		{"list_offsets_response", ListOffsetsResponse{CorrelationID: 5, Partitions: []ListOffsetsPartitionResponse{
			{Topic: "orders", Partition: 0, Offset: 42, Timestamp: -1, Found: true, LeaderEpoch: 3},
			{Topic: "orders", Partition: 1, ErrorCode: CodeNotLeaderOrFollower, Timestamp: -1, LeaderEpoch: NoEpoch},
			{Topic: "orders", Partition: 2, Offset: 40, Timestamp: 1_700_000_000_123, Found: true, LeaderEpoch: 3},
			{Topic: "orders", Partition: 3, Timestamp: -1, LeaderEpoch: 3},
		}}},
		{"offsets_for_leader_epoch_request", OffsetsForLeaderEpochRequest{CorrelationID: 3, ReplicaID: 2, Partitions: []OffsetsForLeaderEpochPartition{
			{Topic: "orders", Partition: 0, CurrentLeaderEpoch: 1, LeaderEpoch: 0},
		}}},
		{"offsets_for_leader_epoch_response", OffsetsForLeaderEpochResponse{CorrelationID: 3, Partitions: []OffsetsForLeaderEpochPartitionResponse{
			{Topic: "orders", Partition: 0, Found: true, EpochEndOffset: EpochEndOffset{Epoch: 0, EndOffset: 2}},
		}}},
		{"offsets_for_leader_epoch_response_not_found", OffsetsForLeaderEpochResponse{CorrelationID: 4, Partitions: []OffsetsForLeaderEpochPartitionResponse{
			{Topic: "orders", Partition: 0},
		}}},
		{"produce_request", ProduceRequest{CorrelationID: 1, Acks: AcksAll, TimeoutMs: 30000, Partitions: []ProducePartition{
			{Topic: "orders", Partition: 0, Records: []byte("batch")},
		}}},
		{"produce_response", ProduceResponse{CorrelationID: 1, Partitions: []ProducePartitionResponse{
			{Topic: "orders", Partition: 0, HasBaseOffset: true, BaseOffset: 4, LogStartOffset: 0},
		}}},
		{"produce_response_refused", ProduceResponse{CorrelationID: 2, Partitions: []ProducePartitionResponse{
			{Topic: "orders", Partition: 0, ErrorCode: CodeNotEnoughReplicas, LogStartOffset: 0},
		}}},
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
