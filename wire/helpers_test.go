package wire

import (
	"flag"
	"math"
	"math/rand/v2"
	"strings"
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

// topicAlphabet is every byte a topic name may hold.
const topicAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

// genTopic returns a valid topic name, favouring a few short ones (so
// partitions share topics, as in life) and the length limit.
func genTopic(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0, 1, 2:
		return [...]string{"orders", "payments", "__consumer_offsets", "a", "x.y-z_1"}[r.IntN(5)]
	case 3:
		return strings.Repeat("t", MaxTopicLength)
	}
	b := make([]byte, 1+r.IntN(40))
	for i := range b {
		b[i] = topicAlphabet[r.IntN(len(topicAlphabet))]
	}
	if s := string(b); s == "." || s == ".." {
		return "dots"
	}
	return string(b)
}

func genPartition(r *rand.Rand) int32 {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return math.MaxInt32
	}
	return r.Int32N(64)
}

// genCount returns an array length, 0 included (generated as nil, the
// one in-memory form a decoder gives an empty array).
func genCount(r *rand.Rand) int { return r.IntN(5) }

func genFetchRequest(r *rand.Rand) FetchRequest {
	m := FetchRequest{
		CorrelationID: int32(r.Uint32()),
		ReplicaID:     int32(r.IntN(5)) - 1,
		ReplicaEpoch:  genBrokerEpoch(r),
		MaxWaitMs:     r.Int32N(math.MaxInt32),
		MinBytes:      r.Int32N(math.MaxInt32),
		MaxBytes:      r.Int32N(math.MaxInt32),
	}
	for range genCount(r) {
		p := FetchPartition{
			Topic:              genTopic(r),
			Partition:          genPartition(r),
			CurrentLeaderEpoch: genEpoch(r),
			FetchOffset:        genOffset(r),
			LastFetchedEpoch:   genEpoch(r),
			MaxBytes:           r.Int32N(math.MaxInt32),
		}
		if r.IntN(2) == 0 {
			p.HasLogStartOffset, p.LogStartOffset = true, genOffset(r)
		}
		m.Partitions = append(m.Partitions, p)
	}
	return m
}

func genFetchResponse(r *rand.Rand) FetchResponse {
	m := FetchResponse{CorrelationID: int32(r.Uint32()), ErrorCode: genCode(r)}
	for range genCount(r) {
		p := FetchPartitionResponse{
			Topic:          genTopic(r),
			Partition:      genPartition(r),
			ErrorCode:      genCode(r),
			HighWatermark:  genOffset(r),
			LogStartOffset: genOffset(r),
			Records:        genRecords(r),
		}
		if r.IntN(2) == 0 {
			p.HasDivergingEpoch = true
			p.DivergingEpoch = EpochEndOffset{Epoch: genFoundEpoch(r), EndOffset: genOffset(r)}
		}
		if r.IntN(2) == 0 {
			p.HasCurrentLeader = true
			p.CurrentLeader = LeaderAndEpoch{LeaderID: genPartition(r), LeaderEpoch: genFoundEpoch(r)}
		}
		m.Partitions = append(m.Partitions, p)
	}
	return m
}

func genProduceRequest(r *rand.Rand) ProduceRequest {
	m := ProduceRequest{
		CorrelationID: int32(r.Uint32()),
		Acks:          int16(r.IntN(5)) - 2, // includes invalid acks: the wire carries them
		TimeoutMs:     r.Int32N(math.MaxInt32),
	}
	for range genCount(r) {
		m.Partitions = append(m.Partitions, ProducePartition{Topic: genTopic(r), Partition: genPartition(r), Records: genRecords(r)})
	}
	return m
}

func genProduceResponse(r *rand.Rand) ProduceResponse {
	m := ProduceResponse{CorrelationID: int32(r.Uint32())}
	for range genCount(r) {
		p := ProducePartitionResponse{Topic: genTopic(r), Partition: genPartition(r), ErrorCode: genCode(r), LogStartOffset: genOffset(r)}
		if r.IntN(2) == 0 {
			p.HasBaseOffset, p.BaseOffset = true, genOffset(r)
		}
		m.Partitions = append(m.Partitions, p)
	}
	return m
}

func genOffsetsForLeaderEpochRequest(r *rand.Rand) OffsetsForLeaderEpochRequest {
	m := OffsetsForLeaderEpochRequest{CorrelationID: int32(r.Uint32()), ReplicaID: int32(r.IntN(5)) - 1}
	for range genCount(r) {
		m.Partitions = append(m.Partitions, OffsetsForLeaderEpochPartition{
			Topic: genTopic(r), Partition: genPartition(r), CurrentLeaderEpoch: genEpoch(r), LeaderEpoch: genEpoch(r),
		})
	}
	return m
}

func genOffsetsForLeaderEpochResponse(r *rand.Rand) OffsetsForLeaderEpochResponse {
	m := OffsetsForLeaderEpochResponse{CorrelationID: int32(r.Uint32())}
	for range genCount(r) {
		p := OffsetsForLeaderEpochPartitionResponse{Topic: genTopic(r), Partition: genPartition(r), ErrorCode: genCode(r)}
		if r.IntN(2) == 0 {
			p.Found, p.EpochEndOffset = true, EpochEndOffset{Epoch: genFoundEpoch(r), EndOffset: genOffset(r)}
		}
		m.Partitions = append(m.Partitions, p)
	}
	return m
}

func genListOffsetsRequest(r *rand.Rand) ListOffsetsRequest {
	m := ListOffsetsRequest{CorrelationID: int32(r.Uint32()), ReplicaID: int32(r.IntN(5)) - 1}
	for range genCount(r) {
		ts := []int64{LatestTimestamp, EarliestTimestamp, MaxTimestamp, 0, int64(r.Uint64() >> 1)}[r.IntN(5)]
		m.Partitions = append(m.Partitions, ListOffsetsPartition{
			Topic: genTopic(r), Partition: genPartition(r), CurrentLeaderEpoch: genEpoch(r), Timestamp: ts,
		})
	}
	return m
}

func genListOffsetsResponse(r *rand.Rand) ListOffsetsResponse {
	m := ListOffsetsResponse{CorrelationID: int32(r.Uint32())}
	for range genCount(r) {
		p := ListOffsetsPartitionResponse{Topic: genTopic(r), Partition: genPartition(r), ErrorCode: genCode(r), LeaderEpoch: genEpoch(r), Timestamp: -1}
		if r.IntN(4) != 0 {
			p.Found, p.Offset, p.Timestamp = true, genOffset(r), int64(r.Uint64())
		}
		m.Partitions = append(m.Partitions, p)
	}
	return m
}

// encodable is what the generic test helpers need of a message. Every
// message is a Message; the name stays for the helpers' sake.
type encodable = Message

// dataMessages pairs each data-plane message's generator with its decoder,
// type-erased, so one loop can drive every message; controllerMessages is
// the controller's twin.
func dataMessages() []controllerMessage {
	var out []controllerMessage
	add := func(name string, gen func(*rand.Rand) encodable, decode func([]byte) (encodable, error)) {
		out = append(out, controllerMessage{name, gen, decode})
	}
	g, d := erase(genFetchRequest, DecodeFetchRequest)
	add("FetchRequest", g, d)
	g, d = erase(genFetchResponse, DecodeFetchResponse)
	add("FetchResponse", g, d)
	g, d = erase(genProduceRequest, DecodeProduceRequest)
	add("ProduceRequest", g, d)
	g, d = erase(genProduceResponse, DecodeProduceResponse)
	add("ProduceResponse", g, d)
	g, d = erase(genOffsetsForLeaderEpochRequest, DecodeOffsetsForLeaderEpochRequest)
	add("OffsetsForLeaderEpochRequest", g, d)
	g, d = erase(genOffsetsForLeaderEpochResponse, DecodeOffsetsForLeaderEpochResponse)
	add("OffsetsForLeaderEpochResponse", g, d)
	g, d = erase(genListOffsetsRequest, DecodeListOffsetsRequest)
	add("ListOffsetsRequest", g, d)
	g, d = erase(genListOffsetsResponse, DecodeListOffsetsResponse)
	add("ListOffsetsResponse", g, d)
	return out
}

// allMessages is every message kind, data plane and controller.
func allMessages() []controllerMessage {
	return append(append(dataMessages(), controllerMessages()...), groupMessages()...)
}

// mustEncode encodes m or fails the test.
func mustEncode(t testing.TB, m encodable) []byte {
	t.Helper()
	b, err := m.AppendTo(nil)
	if err != nil {
		t.Fatalf("AppendTo(%+v): %v", m, err)
	}
	return b
}
