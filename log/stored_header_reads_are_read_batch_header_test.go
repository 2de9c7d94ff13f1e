package log

import (
	"math/rand/v2"
	"testing"
)

// The reads of a stored header that skip the CRC (peekBatch, the read
// path's bound check, recovery's size, compaction's attributes) take each
// field from the same position ReadBatchHeader does.
func TestStoredHeaderReadsAreReadBatchHeaders(t *testing.T) {
	seed := uint64(rand.Int64())
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := range 200 {
		recs := make([]Record, 1+rng.IntN(4))
		delta := int32(0)
		for j := range recs {
			delta += int32(rng.IntN(3))
			recs[j] = Record{OffsetDelta: delta, Value: make([]byte, rng.IntN(40))}
			delta++
		}
		b := Batch{
			BaseOffset: rng.Uint64N(1 << 40), PartitionLeaderEpoch: rng.Int32(),
			Attributes: int16(rng.IntN(2)) * AttrControl, BaseTimestamp: rng.Int64(), MaxTimestamp: rng.Int64(),
			ProducerID: rng.Int64(), ProducerEpoch: int16(rng.IntN(1 << 15)), BaseSequence: rng.Int32(), Records: recs,
		}
		raw, err := AppendBatch(nil, &b)
		if err != nil {
			t.Fatalf("seed %d batch %d: %v", seed, i, err)
		}
		h, err := VerifyBatch(raw)
		if err != nil {
			t.Fatalf("seed %d batch %d: %v", seed, i, err)
		}
		p, err := peekBatch(raw[:BatchHeaderSize])
		if err != nil {
			t.Fatalf("seed %d batch %d: peekBatch: %v", seed, i, err)
		}
		want := storedBatch{base: h.BaseOffset, next: h.NextOffset(), size: h.Size(), maxTimestamp: h.MaxTimestamp, records: h.RecordCount}
		if p != want {
			t.Fatalf("seed %d batch %d: peekBatch %+v, ReadBatchHeader %+v", seed, i, p, want)
		}
		if storedSize(raw) != int64(h.Size()) || storedBaseOffset(raw) != h.BaseOffset ||
			int32(storedLastOffsetDelta(raw)) != h.LastOffsetDelta || storedAttributes(raw) != h.Attributes {
			t.Fatalf("seed %d batch %d: stored reads (%d, %d, %d, %d), header %+v", seed, i,
				storedSize(raw), storedBaseOffset(raw), storedLastOffsetDelta(raw), storedAttributes(raw), h)
		}
	}
}
