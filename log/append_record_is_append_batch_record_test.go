package log

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// A batch built in place — room for the header, AppendRecord for each
// record, PutBatchHeader — is byte for byte the batch AppendBatch encodes,
// and each record takes the RecordSize it was measured at: the producer
// in replica/client builds its batches so.
func TestAppendRecordBuildsTheBatchAppendBatchEncodes(t *testing.T) {
	seed := uint64(rand.Int64())
	rng := rand.New(rand.NewPCG(seed, 11))
	field := func() []byte {
		if rng.IntN(4) == 0 {
			return nil
		}
		return bytes.Repeat([]byte{byte(rng.IntN(256))}, rng.IntN(300))
	}
	for i := range 300 {
		b := Batch{BaseOffset: rng.Uint64N(1 << 40), PartitionLeaderEpoch: -1, BaseTimestamp: rng.Int64N(1 << 41),
			ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}
		b.MaxTimestamp = b.BaseTimestamp
		delta := int32(0)
		for range 1 + rng.IntN(6) {
			r := Record{OffsetDelta: delta, TimestampDelta: rng.Int64N(1<<40) - 1<<39, Key: field(), Value: field()}
			for range rng.IntN(3) {
				r.Headers = append(r.Headers, Header{Key: string(field()), Value: field()})
			}
			b.Records = append(b.Records, r)
			delta += 1 + int32(rng.IntN(200))
		}
		want, err := AppendBatch(nil, &b)
		if err != nil {
			t.Fatalf("seed %d batch %d: %v", seed, i, err)
		}
		got := make([]byte, BatchHeaderSize)
		for j := range b.Records {
			size, ok := RecordSize(&b.Records[j])
			before := len(got)
			if got, err = AppendRecord(got, &b.Records[j]); err != nil || !ok || len(got)-before != size {
				t.Fatalf("seed %d batch %d record %d: AppendRecord wrote %d bytes (%v), RecordSize %d (%v)", seed, i, j, len(got)-before, err, size, ok)
			}
		}
		if err := PutBatchHeader(got, BatchHeader{BaseOffset: b.BaseOffset, PartitionLeaderEpoch: b.PartitionLeaderEpoch,
			LastOffsetDelta: b.Records[len(b.Records)-1].OffsetDelta, BaseTimestamp: b.BaseTimestamp, MaxTimestamp: b.MaxTimestamp,
			ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, RecordCount: int32(len(b.Records))}); err != nil {
			t.Fatalf("seed %d batch %d: %v", seed, i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d batch %d: built in place\n %x\nAppendBatch\n %x", seed, i, got, want)
		}
	}
}

// AppendRecord grows its buffer at most once, and not at all when it has
// room.
func TestAppendRecordDoesNotAllocateWithRoom(t *testing.T) {
	r := Record{OffsetDelta: 3, Key: []byte("k"), Value: make([]byte, 100), Headers: []Header{{Key: "h", Value: []byte("v")}}}
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { buf, _ = AppendRecord(buf[:0], &r) }); n != 0 {
		t.Fatalf("AppendRecord allocated %v times with room", n)
	}
}
