package log_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kaenlog/kaenlog/log"
)

// Decoding into a recycled Batch gives exactly what DecodeBatch gives, batch
// after batch of different shapes, and a steady stream allocates nothing.
func TestBatchDecodeReuse(t *testing.T) {
	const seed = 20261129
	rng := rand.New(rand.NewPCG(seed, seed))
	var reused log.Batch
	for i := range 300 {
		in := &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, BaseOffset: uint64(rng.IntN(1 << 20))}
		for range 1 + rng.IntN(20) {
			r := log.Record{Value: make([]byte, rng.IntN(40))}
			if rng.IntN(3) == 0 {
				r.Key = []byte("k")
			}
			for range rng.IntN(3) {
				r.Headers = append(r.Headers, log.Header{Key: "h", Value: []byte{byte(i)}})
			}
			in.Records = append(in.Records, r)
		}
		in.SetSequentialOffsetDeltas()
		buf, err := log.AppendBatch(nil, in)
		if err != nil {
			t.Fatalf("seed %d, batch %d: %v", seed, i, err)
		}
		want, wantN, err := log.DecodeBatch(buf)
		if err != nil {
			t.Fatalf("seed %d, batch %d: %v", seed, i, err)
		}
		n, err := reused.Decode(buf)
		if err != nil || n != wantN {
			t.Fatalf("seed %d, batch %d: Decode = %d, %v; want %d", seed, i, n, err, wantN)
		}
		if diff := cmp.Diff(want, reused, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("seed %d, batch %d: reused decode differs (-DecodeBatch +Decode):\n%s", seed, i, diff)
		}
	}

	plain := &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: make([]log.Record, 100)}
	for i := range plain.Records {
		plain.Records[i].Value = make([]byte, 100)
	}
	plain.SetSequentialOffsetDeltas()
	buf, err := log.AppendBatch(nil, plain)
	if err != nil {
		t.Fatal(err)
	}
	var b log.Batch
	if allocs := testing.AllocsPerRun(50, func() {
		if _, err := b.Decode(buf); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Fatalf("Decode into a grown Batch allocated %v times per batch", allocs)
	}
}

// A corrupt batch is refused by Decode with the same errors as DecodeBatch.
func TestBatchDecodeRejectsCorruption(t *testing.T) {
	buf, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: []log.Record{{Value: []byte("x")}}})
	if err != nil {
		t.Fatal(err)
	}
	buf[len(buf)-1] ^= 0xff
	var b log.Batch
	if _, err := b.Decode(buf); !errors.Is(err, log.ErrBadCRC) {
		t.Fatalf("Decode of a flipped byte: %v, want ErrBadCRC", err)
	}
	if _, err := b.Decode(buf[:10]); !errors.Is(err, log.ErrTruncated) {
		t.Fatalf("Decode of 10 bytes: %v, want ErrTruncated", err)
	}
}
