package client

import (
	"bytes"
	"math"
	"testing"

	"github.com/kaenlog/kaenlog/log"
)

// The producer encodes records straight into the batch it sends; the
// bytes are exactly what log.AppendBatch makes of the same records, header
// and CRC included, before and after a renumbering.
func TestBatchEncodingIsLogsRecordBatch(t *testing.T) {
	recs := []struct {
		rec Record
		ts  int64
	}{
		{Record{Key: []byte("k1"), Value: []byte("v1")}, 1_700_000_000_000},
		{Record{Value: []byte("no key")}, 1_700_000_000_005},
		{Record{Key: []byte{}, Value: nil}, 1_699_999_999_000}, // earlier: a negative delta
		{Record{Key: []byte("h"), Value: bytes.Repeat([]byte{7}, 300), Headers: []Header{{Key: "a", Value: []byte("1")}, {Key: "", Value: nil}}}, 1_700_000_000_005},
	}
	b := newBatch(nil, 0, 64)
	var want log.Batch
	for i, r := range recs {
		size, ok := b.size(&r.rec, r.ts)
		if !ok {
			t.Fatal("record does not encode")
		}
		before := len(b.buf)
		b.add(&r.rec, r.ts)
		if got := len(b.buf) - before; got != size {
			t.Fatalf("record %d took %d bytes, its size said %d", i, got, size)
		}
		want.Records = append(want.Records, log.Record{
			OffsetDelta: int32(i), TimestampDelta: r.ts - recs[0].ts,
			Key: r.rec.Key, Value: r.rec.Value, Headers: r.rec.Headers,
		})
	}
	want.PartitionLeaderEpoch = -1
	want.BaseTimestamp, want.MaxTimestamp = recs[0].ts, 1_700_000_000_005
	want.ProducerID, want.ProducerEpoch, want.BaseSequence = 1234, 3, math.MaxInt32-1
	b.writeHeader(1234, 3, math.MaxInt32-1)
	wantBytes, err := log.AppendBatch(nil, &want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.buf, wantBytes) {
		t.Fatalf("encoding differs from log.AppendBatch:\n got %x\nwant %x", b.buf, wantBytes)
	}
	decoded, _, err := log.DecodeBatch(b.buf)
	if err != nil || len(decoded.Records) != len(recs) {
		t.Fatalf("decode: %v", err)
	}
	old := b.buf
	b.resequence(1234, 4, 0)
	want.ProducerEpoch, want.BaseSequence = 4, 0
	wantBytes, _ = log.AppendBatch(nil, &want)
	if !bytes.Equal(b.buf, wantBytes) {
		t.Fatal("renumbered batch differs from log.AppendBatch")
	}
	if &old[0] == &b.buf[0] {
		t.Fatal("renumbering wrote over the bytes of the earlier attempt")
	}
}
