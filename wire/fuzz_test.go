package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fuzzDecoder is the property every decoder fuzz target checks: no panic;
// a refusal matches ErrMalformed; an acceptance re-encodes to exactly the
// input (the encoding is canonical) and decodes again to the same message.
func fuzzDecoder[M encodable](t *testing.T, data []byte, decode func([]byte) (M, error)) {
	m, err := decode(data)
	if err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("decode error %v does not match ErrMalformed", err)
		}
		return
	}
	enc, err := m.AppendTo(nil)
	if err != nil {
		t.Fatalf("decoded %+v but cannot encode it: %v", m, err)
	}
	if !bytes.Equal(enc, data) {
		t.Fatalf("decode→encode changed the bytes:\nin  % x\nout % x", data, enc)
	}
	again, err := decode(enc)
	if err != nil {
		t.Fatalf("re-decode: %v", err)
	}
	if diff := cmp.Diff(m, again); diff != "" {
		t.Fatalf("decode→encode→decode mismatch (-first +second):\n%s", diff)
	}
}

// addSeeds adds valid encodings of the given messages to the fuzz corpus, in
// addition to the committed files in testdata/fuzz/<FuzzName>/.
func addSeeds(f *testing.F, ms ...encodable) {
	for _, m := range ms {
		b, err := m.AppendTo(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzDecodeFetchRequest(f *testing.F) {
	addSeeds(f, FetchRequest{},
		FetchRequest{CorrelationID: 7, ReplicaID: 2, ReplicaEpoch: 3, MaxWaitMs: 500, MaxBytes: 1 << 20, Partitions: []FetchPartition{
			{Topic: "orders", FetchOffset: 1, HasLogStartOffset: true, MaxBytes: 1 << 20}, {Topic: "orders", Partition: 1, LastFetchedEpoch: 2}}},
		FetchRequest{ReplicaID: ConsumerReplicaID, ReplicaEpoch: NoBrokerEpoch, Partitions: []FetchPartition{{Topic: "a", CurrentLeaderEpoch: NoEpoch, LastFetchedEpoch: NoEpoch}}})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzDecoder(t, data, DecodeFetchRequest)
		fuzzInto(t, data, DecodeFetchRequest, DecodeFetchRequestInto)
	})
}

func FuzzDecodeFetchResponse(f *testing.F) {
	addSeeds(f, FetchResponse{}, FetchResponse{ErrorCode: CodeInvalidRequest},
		FetchResponse{CorrelationID: 1, Partitions: []FetchPartitionResponse{{Topic: "t", HighWatermark: 3, Records: []byte("records")}}},
		FetchResponse{Partitions: []FetchPartitionResponse{{Topic: "t", HasDivergingEpoch: true, DivergingEpoch: EpochEndOffset{Epoch: 1, EndOffset: 6}},
			{Topic: "u", ErrorCode: CodeNotLeaderOrFollower, HasCurrentLeader: true, CurrentLeader: LeaderAndEpoch{LeaderID: 2, LeaderEpoch: 5}}}})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzDecoder(t, data, DecodeFetchResponse)
		fuzzInto(t, data, DecodeFetchResponse, DecodeFetchResponseInto)
	})
}

func FuzzDecodeProduceRequest(f *testing.F) {
	addSeeds(f, ProduceRequest{}, ProduceRequest{Acks: AcksAll, TimeoutMs: 1000, Partitions: []ProducePartition{
		{Topic: "t", Records: []byte("records")}, {Topic: "t", Partition: 1}}})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzDecoder(t, data, DecodeProduceRequest)
		fuzzInto(t, data, DecodeProduceRequest, DecodeProduceRequestInto)
		fuzzPeekAcks(t, data)
	})
}

// fuzzPeekAcks checks PeekProduceAcks against the full decoder: it never
// panics, refuses only with ErrMalformed, and reads the Acks the decoder
// reads whenever the decoder accepts.
func fuzzPeekAcks(t *testing.T, data []byte) {
	acks, err := PeekProduceAcks(data)
	if err != nil && !errors.Is(err, ErrMalformed) {
		t.Fatalf("PeekProduceAcks error %v does not match ErrMalformed", err)
	}
	m, derr := DecodeProduceRequest(data)
	if derr != nil {
		return
	}
	if err != nil || acks != m.Acks {
		t.Fatalf("PeekProduceAcks = %d, %v; the decoder read Acks %d", acks, err, m.Acks)
	}
}

func FuzzDecodeProduceResponse(f *testing.F) {
	addSeeds(f, ProduceResponse{}, ProduceResponse{Partitions: []ProducePartitionResponse{
		{Topic: "t", ErrorCode: CodeNotEnoughReplicas}, {Topic: "t", Partition: 1, HasBaseOffset: true, BaseOffset: 4, LogStartOffset: 2}}})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzDecoder(t, data, DecodeProduceResponse)
		fuzzInto(t, data, DecodeProduceResponse, DecodeProduceResponseInto)
	})
}

func FuzzDecodeOffsetsForLeaderEpochRequest(f *testing.F) {
	addSeeds(f, OffsetsForLeaderEpochRequest{}, OffsetsForLeaderEpochRequest{CorrelationID: 3, ReplicaID: 2, Partitions: []OffsetsForLeaderEpochPartition{
		{Topic: "t", CurrentLeaderEpoch: 1, LeaderEpoch: NoEpoch}}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeOffsetsForLeaderEpochRequest) })
}

func FuzzDecodeOffsetsForLeaderEpochResponse(f *testing.F) {
	addSeeds(f, OffsetsForLeaderEpochResponse{}, OffsetsForLeaderEpochResponse{Partitions: []OffsetsForLeaderEpochPartitionResponse{
		{Topic: "t", Found: true, EpochEndOffset: EpochEndOffset{Epoch: 0, EndOffset: 2}}, {Topic: "t", Partition: 1}}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeOffsetsForLeaderEpochResponse) })
}

func FuzzDecodeListOffsetsRequest(f *testing.F) {
	addSeeds(f, ListOffsetsRequest{}, ListOffsetsRequest{ReplicaID: ConsumerReplicaID, Partitions: []ListOffsetsPartition{
		{Topic: "t", CurrentLeaderEpoch: NoEpoch, Timestamp: LatestTimestamp}, {Topic: "t", Partition: 1, Timestamp: EarliestTimestamp},
		{Topic: "t", Partition: 2, Timestamp: MaxTimestamp}, {Topic: "t", Partition: 3, Timestamp: 1_700_000_000_000}}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeListOffsetsRequest) })
}

func FuzzDecodeListOffsetsResponse(f *testing.F) {
	addSeeds(f, ListOffsetsResponse{}, ListOffsetsResponse{Partitions: []ListOffsetsPartitionResponse{
		{Topic: "t", Offset: 5, Timestamp: 7, Found: true, LeaderEpoch: 2}, {Topic: "t", Partition: 1, ErrorCode: CodeNotLeaderOrFollower, Timestamp: -1, LeaderEpoch: NoEpoch}}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeListOffsetsResponse) })
}

// FuzzDecodeRequest and FuzzDecodeResponse fuzz the dispatch: whatever the
// key, a refusal is malformed and an acceptance re-encodes to the input.
func FuzzDecodeRequest(f *testing.F) {
	r := newRand(f)
	for _, m := range allMessages() {
		if strings.HasSuffix(m.name, "Request") {
			addSeeds(f, m.gen(r))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeRequest) })
}

func FuzzDecodeResponse(f *testing.F) {
	r := newRand(f)
	for _, m := range allMessages() {
		if strings.HasSuffix(m.name, "Response") {
			addSeeds(f, m.gen(r))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeResponse) })
}

// fuzzInto checks an Into decoder against its plain twin on the same
// input, decoding into a destination already warm with another message:
// the same verdict, and on success the same message (an empty array may be
// the emptied slice rather than nil).
func fuzzInto[M any](t *testing.T, data []byte, decode func([]byte) (M, error), into func([]byte, *M) error) {
	want, werr := decode(data)
	var dst M
	warm := mustEncode(t, any(warmFor[M]()).(encodable))
	if err := into(warm, &dst); err != nil {
		t.Fatalf("warm-up decode: %v", err)
	}
	err := into(data, &dst)
	if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
		t.Fatalf("Into err = %v, plain err = %v", err, werr)
	}
	if err != nil {
		return
	}
	if diff := cmp.Diff(want, dst, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("Into differs from the plain decoder (-plain +into):\n%s", diff)
	}
}

// warmFor is a message of type M with partitions, topics and records, to
// warm an Into destination with.
func warmFor[M any]() any {
	var m M
	rec := []byte("warm records")
	switch any(m).(type) {
	case FetchRequest:
		return FetchRequest{Partitions: []FetchPartition{{Topic: "w"}, {Topic: "t"}, {Topic: "t", Partition: 1}, {Topic: "orders"}}}
	case FetchResponse:
		return FetchResponse{Partitions: []FetchPartitionResponse{{Topic: "w", Records: rec}, {Topic: "t", Records: rec}, {Topic: "t", Partition: 1, Records: rec}, {Topic: "orders", Records: rec}}}
	case ProduceRequest:
		return ProduceRequest{Partitions: []ProducePartition{{Topic: "w", Records: rec}, {Topic: "t", Records: rec}, {Topic: "t", Partition: 1, Records: rec}, {Topic: "orders", Records: rec}}}
	case ProduceResponse:
		return ProduceResponse{Partitions: []ProducePartitionResponse{{Topic: "w"}, {Topic: "t"}, {Topic: "t", Partition: 1}, {Topic: "orders"}}}
	}
	panic("no warm-up message")
}

func FuzzPeekHeader(f *testing.F) {
	addSeeds(f, FetchRequest{CorrelationID: 5}, ProduceResponse{}, ListOffsetsRequest{CorrelationID: 6})
	f.Fuzz(func(t *testing.T, data []byte) {
		key, corr, err := PeekHeader(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("PeekHeader error %v does not match ErrMalformed", err)
			}
			return
		}
		if !key.known() {
			t.Fatalf("PeekHeader accepted unknown key %d", key)
		}
		if got := appendHeader(nil, key, corr); !bytes.Equal(got, data[:headerSize]) {
			t.Fatalf("header % x re-encodes as % x", data[:headerSize], got)
		}
	})
}

// FuzzReadFrame treats the input as a byte stream: every frame read must
// re-frame to exactly the bytes consumed, and the stream must end with one
// of ReadFrame's documented errors.
func FuzzReadFrame(f *testing.F) {
	two, _ := AppendFrame(nil, []byte("first"))
	two, _ = AppendFrame(two, nil)
	f.Add(two)
	f.Add([]byte{0, 0, 0, 3, 'a'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 1, 0, 0})
	const maxSize = 1 << 16
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		var buf, reframed []byte
		for {
			payload, err := ReadFrame(r, buf, maxSize)
			if err != nil {
				switch {
				case err == io.EOF:
					if !bytes.Equal(reframed, data) {
						t.Fatalf("clean EOF but frames re-encode to % x, stream was % x", reframed, data)
					}
				case errors.Is(err, ErrShortFrame), errors.Is(err, ErrFrameTooLarge), errors.Is(err, ErrNegativeLength):
					if !bytes.HasPrefix(data, reframed) {
						t.Fatalf("frames re-encode to % x, not a prefix of % x", reframed, data)
					}
				default:
					t.Fatalf("undocumented error: %v", err)
				}
				return
			}
			if len(payload) > maxSize {
				t.Fatalf("payload of %d bytes over the %d limit", len(payload), maxSize)
			}
			var aerr error
			if reframed, aerr = AppendFrame(reframed, payload); aerr != nil {
				t.Fatal(aerr)
			}
			buf = payload
		}
	})
}
