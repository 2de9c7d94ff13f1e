package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	addSeeds(f, FetchRequest{}, FetchRequest{CorrelationID: 7, ReplicaID: 2, FetchOffset: 1, MaxBytes: 1 << 20},
		FetchRequest{ReplicaID: ConsumerReplicaID, CurrentLeaderEpoch: NoEpoch, LastFetchedEpoch: NoEpoch})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeFetchRequest) })
}

func FuzzDecodeFetchResponse(f *testing.F) {
	addSeeds(f, FetchResponse{}, FetchResponse{CorrelationID: 1, HighWatermark: 3, Records: []byte("records")},
		FetchResponse{HasDivergingEpoch: true, DivergingEpoch: EpochEndOffset{Epoch: 1, EndOffset: 6}})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeFetchResponse) })
}

func FuzzDecodeOffsetsForLeaderEpochRequest(f *testing.F) {
	addSeeds(f, OffsetsForLeaderEpochRequest{}, OffsetsForLeaderEpochRequest{CorrelationID: 3, ReplicaID: 2, CurrentLeaderEpoch: 1, LeaderEpoch: NoEpoch})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeOffsetsForLeaderEpochRequest) })
}

func FuzzDecodeOffsetsForLeaderEpochResponse(f *testing.F) {
	addSeeds(f, OffsetsForLeaderEpochResponse{}, OffsetsForLeaderEpochResponse{Found: true, Epoch: 0, EndOffset: 2})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeOffsetsForLeaderEpochResponse) })
}

func FuzzDecodeProduceRequest(f *testing.F) {
	addSeeds(f, ProduceRequest{}, ProduceRequest{Acks: AcksAll, TimeoutMs: 1000, Records: []byte("records")})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeProduceRequest) })
}

func FuzzDecodeProduceResponse(f *testing.F) {
	addSeeds(f, ProduceResponse{}, ProduceResponse{ErrorCode: CodeNotEnoughReplicas}, ProduceResponse{HasBaseOffset: true, BaseOffset: 4})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecoder(t, data, DecodeProduceResponse) })
}

func FuzzPeekHeader(f *testing.F) {
	addSeeds(f, FetchRequest{CorrelationID: 5}, ProduceResponse{})
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
