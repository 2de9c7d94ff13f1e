package client

import (
	"bytes"
	"encoding/binary"
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
		body, ok := b.body(&r.rec, r.ts)
		if !ok {
			t.Fatal("record does not encode")
		}
		before := len(b.buf)
		b.add(&r.rec, r.ts, body)
		if got := len(b.buf) - before; got != encodedSize(body) {
			t.Fatalf("record %d took %d bytes, its size said %d", i, got, encodedSize(body))
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

// varintSize is the length binary.AppendVarint (Kafka's zig-zag varint)
// writes, and putVarint writes its bytes.
func TestVarintSizeMatchesTheEncoding(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, -8193, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64} {
		want := binary.AppendVarint(nil, v)
		if got := varintSize(v); got != len(want) {
			t.Errorf("varintSize(%d) = %d, want %d", v, got, len(want))
		}
		buf := make([]byte, binary.MaxVarintLen64)
		if n := putVarint(buf, v); !bytes.Equal(buf[:n], want) {
			t.Errorf("putVarint(%d) wrote %x, want %x", v, buf[:n], want)
		}
	}
}
