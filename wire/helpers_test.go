package wire

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"
)

// seedFlag lets a failing random test be replayed: go test -run X -seed N.
var seedFlag = flag.Uint64("seed", 20260903, "seed for the math/rand/v2 generators in property tests")

// newRand returns a seeded generator and logs the seed if the test fails.
func newRand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := *seedFlag
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("random seed: %d (replay with -seed %d)", seed, seed)
		}
	})
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// genOffset favours the edges, where conversions break.
func genOffset(r *rand.Rand) uint64 {
	switch r.IntN(6) {
	case 0:
		return 0
	case 1:
		return math.MaxInt64
	case 2:
		return uint64(r.IntN(1000))
	}
	return r.Uint64N(math.MaxInt64 + 1)
}

// genEpoch returns an epoch valid in a request: NoEpoch or >= 0.
func genEpoch(r *rand.Rand) int32 {
	switch r.IntN(5) {
	case 0:
		return NoEpoch
	case 1:
		return math.MaxInt32
	}
	return r.Int32N(1000)
}

func genFoundEpoch(r *rand.Rand) int32 {
	if r.IntN(4) == 0 {
		return math.MaxInt32
	}
	return r.Int32N(1000)
}

func genRecords(r *rand.Rand) []byte {
	if r.IntN(4) == 0 {
		return nil // empty decodes as nil: keep the generated form canonical
	}
	b := make([]byte, 1+r.IntN(300))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func genCode(r *rand.Rand) ErrorCode {
	if r.IntN(5) == 0 {
		return ErrorCode(int16(r.Uint32())) // unknown codes must survive too
	}
	return ErrorCode(r.IntN(len(errorTable)) - 1)
}

func genFetchRequest(r *rand.Rand) FetchRequest {
	return FetchRequest{
		CorrelationID:      int32(r.Uint32()),
		ReplicaID:          int32(r.IntN(5)) - 1,
		FetchOffset:        genOffset(r),
		CurrentLeaderEpoch: genEpoch(r),
		LastFetchedEpoch:   genEpoch(r),
		MaxBytes:           r.Int32N(math.MaxInt32),
	}
}

func genFetchResponse(r *rand.Rand) FetchResponse {
	m := FetchResponse{
		CorrelationID:  int32(r.Uint32()),
		ErrorCode:      genCode(r),
		HighWatermark:  genOffset(r),
		LogStartOffset: genOffset(r),
		Records:        genRecords(r),
	}
	if r.IntN(2) == 0 {
		m.HasDivergingEpoch = true
		m.DivergingEpoch = EpochEndOffset{Epoch: genFoundEpoch(r), EndOffset: genOffset(r)}
	}
	return m
}

func genOffsetsForLeaderEpochRequest(r *rand.Rand) OffsetsForLeaderEpochRequest {
	return OffsetsForLeaderEpochRequest{
		CorrelationID:      int32(r.Uint32()),
		ReplicaID:          int32(r.IntN(5)) - 1,
		CurrentLeaderEpoch: genEpoch(r),
		LeaderEpoch:        genEpoch(r),
	}
}

func genOffsetsForLeaderEpochResponse(r *rand.Rand) OffsetsForLeaderEpochResponse {
	m := OffsetsForLeaderEpochResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r)}
	if r.IntN(2) == 0 {
		m.Found, m.Epoch, m.EndOffset = true, genFoundEpoch(r), genOffset(r)
	}
	return m
}

func genProduceRequest(r *rand.Rand) ProduceRequest {
	return ProduceRequest{
		CorrelationID: int32(r.Uint32()),
		Acks:          int16(r.IntN(5)) - 2, // includes invalid acks: the wire carries them
		TimeoutMs:     r.Int32N(math.MaxInt32),
		Records:       genRecords(r),
	}
}

func genProduceResponse(r *rand.Rand) ProduceResponse {
	m := ProduceResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r)}
	if r.IntN(2) == 0 {
		m.HasBaseOffset, m.BaseOffset = true, genOffset(r)
	}
	return m
}

// mustEncode encodes m or fails the test.
func mustEncode(t testing.TB, m interface{ AppendTo([]byte) ([]byte, error) }) []byte {
	t.Helper()
	b, err := m.AppendTo(nil)
	if err != nil {
		t.Fatalf("AppendTo(%+v): %v", m, err)
	}
	return b
}
