package log

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	stdcrc32 "hash/crc32"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// codecHex decodes a hex literal written for a test, ignoring spaces.
func codecHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex literal: %v", err)
	}
	return b
}

// handBatchHex is a RecordBatch v2 written down field by field from Kafka's
// documented layout (DefaultRecordBatch / DefaultRecord), not produced by
// this package. Its CRC was computed with a bit-at-a-time CRC-32C over the
// bytes from attributes to the end.
const handBatchHex = "" +
	"0000000000000064" + // baseOffset 100
	"0000004a" + // batchLength 74 = 49 header bytes after this field + 25 record bytes
	"00000007" + // partitionLeaderEpoch 7
	"02" + // magic 2
	"79aa5e10" + // crc
	"0000" + // attributes: uncompressed, CreateTime, not transactional, not control
	"00000001" + // lastOffsetDelta 1
	"0000018bcfe56800" + // baseTimestamp 1700000000000
	"0000018bcfe568fa" + // maxTimestamp 1700000000250
	"0000000000001092" + // producerId 4242
	"0003" + // producerEpoch 3
	"0000000a" + // baseSequence 10
	"00000002" + // recordCount 2
	// record 0 (18 bytes)
	"22" + // length 17 (zigzag 34)
	"00" + // attributes
	"f403" + // timestampDelta 250 (zigzag 500 = 0x1f4: 0xf4, 0x03)
	"00" + // offsetDelta 0
	"04" + "6b31" + // keyLength 2, "k1"
	"0a" + "68656c6c6f" + // valueLength 5, "hello"
	"02" + // headerCount 1
	"02" + "68" + // header keyLength 1, "h"
	"01" + // header valueLength -1: null
	// record 1 (7 bytes)
	"0c" + // length 6
	"00" + // attributes
	"05" + // timestampDelta -3
	"02" + // offsetDelta 1
	"01" + // keyLength -1: null key
	"00" + // valueLength 0: empty (not null) value
	"00" // headerCount 0

// handBatch is the Batch that handBatchHex encodes.
func handBatch() Batch {
	return Batch{
		BaseOffset:           100,
		PartitionLeaderEpoch: 7,
		BaseTimestamp:        1700000000000,
		MaxTimestamp:         1700000000250,
		ProducerID:           4242,
		ProducerEpoch:        3,
		BaseSequence:         10,
		Records: []Record{
			{TimestampDelta: 250, OffsetDelta: 0, Key: []byte("k1"), Value: []byte("hello"), Headers: []Header{{Key: "h"}}},
			{TimestampDelta: -3, OffsetDelta: 1, Value: []byte{}},
		},
	}
}

func TestHandWrittenBatchHeader(t *testing.T) {
	buf := codecHex(t, handBatchHex)
	h, err := VerifyBatch(buf)
	if err != nil {
		t.Fatalf("VerifyBatch: %v", err)
	}
	want := BatchHeader{
		BaseOffset:           100,
		BatchLength:          74,
		PartitionLeaderEpoch: 7,
		Magic:                2,
		CRC:                  0x79aa5e10,
		Attributes:           0,
		LastOffsetDelta:      1,
		BaseTimestamp:        1700000000000,
		MaxTimestamp:         1700000000250,
		ProducerID:           4242,
		ProducerEpoch:        3,
		BaseSequence:         10,
		RecordCount:          2,
	}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Fatalf("header mismatch (-want +got):\n%s", diff)
	}
	if h.Size() != len(buf) || h.Size() != 86 {
		t.Errorf("Size() = %d, want %d", h.Size(), len(buf))
	}
	if h.LastOffset() != 101 || h.NextOffset() != 102 {
		t.Errorf("LastOffset, NextOffset = %d, %d; want 101, 102", h.LastOffset(), h.NextOffset())
	}
}

func TestHandWrittenBatchDecodesFieldByField(t *testing.T) {
	buf := codecHex(t, handBatchHex)
	got, n, err := DecodeBatch(buf)
	if err != nil {
		t.Fatalf("DecodeBatch: %v", err)
	}
	if n != len(buf) {
		t.Errorf("size = %d, want %d", n, len(buf))
	}
	if diff := cmp.Diff(handBatch(), got); diff != "" {
		t.Fatalf("decoded batch mismatch (-want +got):\n%s", diff)
	}
	// Null and empty stay distinct.
	if got.Records[1].Key != nil || got.Records[1].Value == nil {
		t.Errorf("record 1: key %v (want nil), value %v (want empty non-nil)", got.Records[1].Key, got.Records[1].Value)
	}
	// Keys and values alias the input but cannot be appended over it.
	if k := got.Records[0].Key; cap(k) != len(k) {
		t.Errorf("key capacity %d, want %d (clipped)", cap(k), len(k))
	}
}

func TestHandWrittenBatchEncodesByteForByte(t *testing.T) {
	want := codecHex(t, handBatchHex)
	b := handBatch()
	got, err := AppendBatch(nil, &b)
	if err != nil {
		t.Fatalf("AppendBatch: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendBatch =\n%x\nwant\n%x", got, want)
	}
}

// TestSaramaVector cross-checks byte compatibility with an encoding published
// by another Kafka client (IBM/sarama's record batch test, "uncompressed
// record"), whose CRC was not computed by this package.
func TestSaramaVector(t *testing.T) {
	want := codecHex(t, ""+
		"0000000000000000"+ // baseOffset 0
		"00000046"+ // batchLength 70
		"00000000"+ // partitionLeaderEpoch 0
		"02"+ // magic
		"547961fd"+ // crc
		"0000"+ // attributes
		"00000000"+ // lastOffsetDelta 0
		"000001588dcd5938"+ // baseTimestamp 1479847795000
		"0000000000000000"+ // maxTimestamp 0
		"0000000000000000"+ // producerId 0
		"0000"+ // producerEpoch 0
		"00000000"+ // baseSequence 0
		"00000001"+ // recordCount 1
		"28"+ // length 20
		"00"+ // attributes
		"0a"+ // timestampDelta 5
		"00"+ // offsetDelta 0
		"08"+"01020304"+ // key
		"06"+"050607"+ // value
		"02"+ // headerCount 1
		"06"+"08090a"+ // header key
		"04"+"0b0c") // header value
	b := Batch{
		BaseTimestamp: 1479847795000,
		Records: []Record{{
			TimestampDelta: 5,
			Key:            []byte{1, 2, 3, 4},
			Value:          []byte{5, 6, 7},
			Headers:        []Header{{Key: "\x08\x09\x0a", Value: []byte{11, 12}}},
		}},
	}
	got, err := AppendBatch(nil, &b)
	if err != nil {
		t.Fatalf("AppendBatch: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendBatch =\n%x\nwant\n%x", got, want)
	}
	dec, _, err := DecodeBatch(want)
	if err != nil {
		t.Fatalf("DecodeBatch: %v", err)
	}
	if diff := cmp.Diff(b, dec); diff != "" {
		t.Fatalf("decoded mismatch (-want +got):\n%s", diff)
	}
	// Sarama's empty batch: a header with no records is a valid batch
	// (Kafka keeps such batches after compaction).
	empty := codecHex(t, "0000000000000000 00000031 00000000 02 595fb7dd 0000 00000000"+
		strings.Repeat("00", 8+8+8+2+4+4))
	h, err := VerifyBatch(empty)
	if err != nil || h.RecordCount != 0 || h.Size() != BatchHeaderSize {
		t.Fatalf("VerifyBatch(empty batch) = %+v, %v", h, err)
	}
	if dec, _, err := DecodeBatch(empty); err != nil || len(dec.Records) != 0 {
		t.Fatalf("DecodeBatch(empty batch) = %+v, %v", dec, err)
	}
}

var stdCastagnoli = stdcrc32.MakeTable(stdcrc32.Castagnoli)

// oracleEncode is a deliberately naive RecordBatch v2 encoder built only on
// encoding/binary (whose signed varint is Kafka's zigzag varint) and
// hash/crc32, for checking AppendBatch byte for byte.
func oracleEncode(b *Batch) []byte {
	var recs bytes.Buffer
	for _, r := range b.Records {
		var body []byte
		body = append(body, byte(r.Attributes))
		body = binary.AppendVarint(body, r.TimestampDelta)
		body = binary.AppendVarint(body, int64(r.OffsetDelta))
		for _, f := range [][]byte{r.Key, r.Value} {
			if f == nil {
				body = binary.AppendVarint(body, -1)
			} else {
				body = binary.AppendVarint(body, int64(len(f)))
				body = append(body, f...)
			}
		}
		body = binary.AppendVarint(body, int64(len(r.Headers)))
		for _, h := range r.Headers {
			body = binary.AppendVarint(body, int64(len(h.Key)))
			body = append(body, h.Key...)
			if h.Value == nil {
				body = binary.AppendVarint(body, -1)
			} else {
				body = binary.AppendVarint(body, int64(len(h.Value)))
				body = append(body, h.Value...)
			}
		}
		recs.Write(binary.AppendVarint(nil, int64(len(body))))
		recs.Write(body)
	}
	var tail bytes.Buffer // attributes to the end: the CRC'd part
	w := func(v any) { _ = binary.Write(&tail, binary.BigEndian, v) }
	w(b.Attributes)
	w(b.Records[len(b.Records)-1].OffsetDelta)
	w(b.BaseTimestamp)
	w(b.MaxTimestamp)
	w(b.ProducerID)
	w(b.ProducerEpoch)
	w(b.BaseSequence)
	w(int32(len(b.Records)))
	tail.Write(recs.Bytes())

	var out bytes.Buffer
	_ = binary.Write(&out, binary.BigEndian, int64(b.BaseOffset))
	_ = binary.Write(&out, binary.BigEndian, int32(4+1+4+tail.Len()))
	_ = binary.Write(&out, binary.BigEndian, b.PartitionLeaderEpoch)
	out.WriteByte(2)
	_ = binary.Write(&out, binary.BigEndian, stdcrc32.Checksum(tail.Bytes(), stdCastagnoli))
	out.Write(tail.Bytes())
	return out.Bytes()
}

// randomBytes returns nil (null), empty, or random bytes.
func randomBytes(rng *rand.Rand, maxLen int) []byte {
	switch rng.IntN(5) {
	case 0:
		return nil
	case 1:
		return []byte{}
	}
	p := make([]byte, rng.IntN(maxLen+1))
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
	return p
}

// randomInt64 favours small magnitudes of both signs but reaches the extremes.
func randomInt64(rng *rand.Rand) int64 {
	switch rng.IntN(8) {
	case 0:
		return math.MinInt64
	case 1:
		return math.MaxInt64
	}
	return int64(rng.Uint64()) >> rng.UintN(64)
}

// randomBatch builds a valid Batch with null and empty keys/values, headers
// with null values, negative timestamp deltas and gapped offset deltas.
func randomBatch(rng *rand.Rand) *Batch {
	n := 1 + rng.IntN(20)
	b := &Batch{
		PartitionLeaderEpoch: int32(rng.Uint32()),
		Attributes:           int16(rng.Uint32()) &^ AttrCompressionMask,
		BaseTimestamp:        randomInt64(rng),
		MaxTimestamp:         randomInt64(rng),
		ProducerID:           randomInt64(rng),
		ProducerEpoch:        int16(rng.Uint32()),
		BaseSequence:         int32(rng.Uint32()),
		Records:              make([]Record, n),
	}
	delta := int32(rng.IntN(3))
	for i := range b.Records {
		r := &b.Records[i]
		r.Attributes = int8(rng.Uint32())
		r.TimestampDelta = randomInt64(rng)
		r.OffsetDelta = delta
		delta += 1 + int32(rng.IntN(3)) // gaps, as after compaction
		r.Key = randomBytes(rng, 16)
		r.Value = randomBytes(rng, 64)
		for range rng.IntN(4) {
			r.Headers = append(r.Headers, Header{Key: string(randomBytes(rng, 8)), Value: randomBytes(rng, 8)})
		}
	}
	last := uint64(b.Records[n-1].OffsetDelta)
	switch rng.IntN(4) {
	case 0:
		b.BaseOffset = 0
	case 1:
		b.BaseOffset = math.MaxInt64 - last // the largest base that still fits
	default:
		b.BaseOffset = rng.Uint64N(math.MaxInt64 - last)
	}
	return b
}

func TestAppendDecodeRoundTrip(t *testing.T) {
	const seed = 42
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range 2000 {
		b := randomBatch(rng)
		prefix := []byte("prefix")
		enc, err := AppendBatch(prefix, b)
		if err != nil {
			t.Fatalf("seed %d case %d: AppendBatch: %v", seed, i, err)
		}
		if string(enc[:len(prefix)]) != "prefix" {
			t.Fatalf("seed %d case %d: AppendBatch clobbered dst", seed, i)
		}
		enc = enc[len(prefix):]
		if want := oracleEncode(b); !bytes.Equal(enc, want) {
			t.Fatalf("seed %d case %d: AppendBatch differs from the naive encoder:\n got %x\nwant %x", seed, i, enc, want)
		}
		got, n, err := DecodeBatch(enc)
		if err != nil {
			t.Fatalf("seed %d case %d: DecodeBatch: %v", seed, i, err)
		}
		if n != len(enc) {
			t.Fatalf("seed %d case %d: size %d, want %d", seed, i, n, len(enc))
		}
		// reflect.DeepEqual tells nil from empty slices, as cmp does; cmp
		// only renders the diff, because it is slow under -race.
		if !reflect.DeepEqual(*b, got) {
			t.Fatalf("seed %d case %d: round trip mismatch (-want +got):\n%s", seed, i, cmp.Diff(*b, got))
		}
		h, err := VerifyBatch(enc)
		if err != nil {
			t.Fatalf("seed %d case %d: VerifyBatch: %v", seed, i, err)
		}
		if int(h.RecordCount) != len(b.Records) || h.LastOffsetDelta != b.Records[len(b.Records)-1].OffsetDelta || h.Size() != len(enc) {
			t.Fatalf("seed %d case %d: header %+v inconsistent with batch", seed, i, h)
		}
	}
}

func TestDecodeBatchesAndCountRecords(t *testing.T) {
	const seed = 99
	rng := rand.New(rand.NewPCG(seed, 2))
	var buf []byte
	var want []Batch
	total := 0
	for range 10 {
		b := randomBatch(rng)
		var err error
		if buf, err = AppendBatch(buf, b); err != nil {
			t.Fatalf("seed %d: AppendBatch: %v", seed, err)
		}
		want = append(want, *b)
		total += len(b.Records)
	}
	got, err := DecodeBatches(buf)
	if err != nil {
		t.Fatalf("seed %d: DecodeBatches: %v", seed, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("seed %d: DecodeBatches mismatch (-want +got):\n%s", seed, diff)
	}
	n, err := CountRecords(buf)
	if err != nil || n != total {
		t.Fatalf("seed %d: CountRecords = %d, %v; want %d, nil", seed, n, err, total)
	}
	if got, err := DecodeBatches(nil); err != nil || len(got) != 0 {
		t.Fatalf("DecodeBatches(nil) = %v, %v; want none, nil", got, err)
	}
	if n, err := CountRecords(nil); err != nil || n != 0 {
		t.Fatalf("CountRecords(nil) = %d, %v; want 0, nil", n, err)
	}
}

func TestSequentialOffsetDeltas(t *testing.T) {
	b := Batch{Records: make([]Record, 4)}
	for i := range b.Records {
		b.Records[i].OffsetDelta = 99
	}
	b.SetSequentialOffsetDeltas()
	for i, r := range b.Records {
		if r.OffsetDelta != int32(i) {
			t.Fatalf("record %d: OffsetDelta = %d", i, r.OffsetDelta)
		}
	}
}

func TestAppendBatchRejects(t *testing.T) {
	one := []Record{{Value: []byte("v")}}
	huge := make([]byte, 1<<20)
	tooLong := make([]Record, 2100) // 2100 MiB of values: more than an int32 batchLength
	for i := range tooLong {
		tooLong[i] = Record{OffsetDelta: int32(i), Value: huge}
	}
	tests := []struct {
		name string
		b    Batch
		want error
	}{
		{"no records", Batch{}, ErrEmptyBatch},
		{"compressed attributes", Batch{Attributes: 1, Records: one}, ErrCompressed},
		{"negative offset delta", Batch{Records: []Record{{OffsetDelta: -1}}}, ErrBadOffset},
		{"repeated offset delta", Batch{Records: []Record{{OffsetDelta: 3}, {OffsetDelta: 3}}}, ErrBadOffset},
		{"decreasing offset delta", Batch{Records: []Record{{OffsetDelta: 3}, {OffsetDelta: 2}}}, ErrBadOffset},
		{"base offset beyond int64", Batch{BaseOffset: math.MaxInt64 + 1, Records: one}, ErrBadOffset},
		{"last offset beyond int64", Batch{BaseOffset: math.MaxInt64, Records: []Record{{}, {OffsetDelta: 1}}}, ErrBadOffset},
		{"batch longer than int32", Batch{Records: tooLong}, ErrBadLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte("keep")
			got, err := AppendBatch(dst, &tt.b)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if errors.Is(err, ErrCorrupt) {
				t.Errorf("encode error %v matches ErrCorrupt; it should not", err)
			}
			if string(got) != "keep" || len(got) != len(dst) {
				t.Errorf("dst changed to %q", got)
			}
		})
	}
}

func TestSetBaseOffsetAndEpochKeepCRC(t *testing.T) {
	buf := codecHex(t, handBatchHex)
	crcBefore := string(buf[posCRC : posCRC+4])
	tailBefore := string(buf[posAttributes:])
	if err := SetBaseOffset(buf, 1<<40); err != nil {
		t.Fatalf("SetBaseOffset: %v", err)
	}
	if err := SetPartitionLeaderEpoch(buf, -5); err != nil {
		t.Fatalf("SetPartitionLeaderEpoch: %v", err)
	}
	if string(buf[posCRC:posCRC+4]) != crcBefore {
		t.Fatalf("CRC bytes changed: % x -> % x", crcBefore, buf[posCRC:posCRC+4])
	}
	if string(buf[posAttributes:]) != tailBefore {
		t.Fatalf("bytes covered by the CRC changed")
	}
	h, err := VerifyBatch(buf)
	if err != nil {
		t.Fatalf("VerifyBatch after stamping: %v", err)
	}
	if h.BaseOffset != 1<<40 || h.PartitionLeaderEpoch != -5 {
		t.Fatalf("stamped header = base %d epoch %d", h.BaseOffset, h.PartitionLeaderEpoch)
	}
	b, _, err := DecodeBatch(buf)
	if err != nil || b.BaseOffset != 1<<40 || b.PartitionLeaderEpoch != -5 {
		t.Fatalf("DecodeBatch after stamping = base %d epoch %d, %v", b.BaseOffset, b.PartitionLeaderEpoch, err)
	}
}

func TestSetBaseOffsetRejects(t *testing.T) {
	buf := codecHex(t, handBatchHex) // lastOffsetDelta 1
	orig := string(buf)
	for _, base := range []uint64{math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64} {
		err := SetBaseOffset(buf, base)
		if !errors.Is(err, ErrBadOffset) || errors.Is(err, ErrCorrupt) {
			t.Errorf("SetBaseOffset(%d) = %v, want ErrBadOffset (not corrupt)", base, err)
		}
	}
	if err := SetBaseOffset(buf, math.MaxInt64-1); err != nil {
		t.Errorf("SetBaseOffset(MaxInt64-1) with lastOffsetDelta 1 = %v, want nil", err)
	}
	buf = []byte(orig)
	short := buf[:BatchHeaderSize-1]
	if err := SetBaseOffset(short, 1); !errors.Is(err, ErrTruncated) || !errors.Is(err, ErrCorrupt) {
		t.Errorf("SetBaseOffset(short) = %v, want ErrTruncated", err)
	}
	if err := SetPartitionLeaderEpoch(short, 1); !errors.Is(err, ErrTruncated) || !errors.Is(err, ErrCorrupt) {
		t.Errorf("SetPartitionLeaderEpoch(short) = %v, want ErrTruncated", err)
	}
	if string(buf) != orig {
		t.Errorf("failed calls changed the batch")
	}
	binary.BigEndian.PutUint32(buf[posLastOffsetDelta:], math.MaxUint32) // -1
	if err := SetBaseOffset(buf, 1); !errors.Is(err, ErrBadOffset) || !errors.Is(err, ErrCorrupt) {
		t.Errorf("SetBaseOffset(negative lastOffsetDelta) = %v, want corrupt ErrBadOffset", err)
	}
}

// A producer that builds a batch in place — room for the header, the
// records, then PutBatchHeader — writes the bytes AppendBatch writes; and
// SetProducer renumbers it with a CRC that still verifies.
func TestPutBatchHeaderAndSetProducer(t *testing.T) {
	want := codecHex(t, handBatchHex)
	h, err := VerifyBatch(want)
	if err != nil {
		t.Fatal(err)
	}
	got := bytes.Clone(want)
	clear(got[:BatchHeaderSize])
	in := h
	in.Magic, in.BatchLength, in.CRC = 0, 0, 0 // PutBatchHeader sets them
	if err := PutBatchHeader(got, in); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("PutBatchHeader:\n got % x\nwant % x", got[:BatchHeaderSize], want[:BatchHeaderSize])
	}
	if err := SetProducer(got, 7, 3, 100); err != nil {
		t.Fatal(err)
	}
	h2, err := VerifyBatch(got)
	if err != nil {
		t.Fatalf("VerifyBatch after SetProducer: %v", err)
	}
	if h2.ProducerID != 7 || h2.ProducerEpoch != 3 || h2.BaseSequence != 100 || h2.RecordCount != h.RecordCount {
		t.Fatalf("after SetProducer: %+v", h2)
	}
	for _, c := range []struct {
		name  string
		buf   []byte
		h     BatchHeader
		wantE error
	}{
		{"short", make([]byte, BatchHeaderSize-1), BatchHeader{}, ErrBadLength},
		{"negative delta", make([]byte, BatchHeaderSize), BatchHeader{LastOffsetDelta: -1}, ErrBadOffset},
		{"offset past int64", make([]byte, BatchHeaderSize), BatchHeader{BaseOffset: math.MaxInt64, LastOffsetDelta: 1}, ErrBadOffset},
		{"negative count", make([]byte, BatchHeaderSize), BatchHeader{RecordCount: -1}, ErrNegativeCount},
	} {
		before := bytes.Clone(c.buf)
		if err := PutBatchHeader(c.buf, c.h); !errors.Is(err, c.wantE) {
			t.Errorf("%s: %v, want %v", c.name, err, c.wantE)
		}
		if !bytes.Equal(c.buf, before) {
			t.Errorf("%s: a refused PutBatchHeader wrote", c.name)
		}
	}
	if err := SetProducer(want[:len(want)-1], 1, 1, 1); !errors.Is(err, ErrTruncated) {
		t.Errorf("SetProducer on a cut batch: %v, want ErrTruncated", err)
	}
}

func TestCodecAllocations(t *testing.T) {
	b := handBatch()
	buf, err := AppendBatch(nil, &b)
	if err != nil {
		t.Fatal(err)
	}
	multi := append(append(append([]byte(nil), buf...), buf...), buf...)
	dst := make([]byte, 0, 2*len(buf))
	var s BatchScanner
	checks := []struct {
		name string
		f    func()
	}{
		{"ReadBatchHeader", func() { _, _ = ReadBatchHeader(buf) }},
		{"VerifyBatch", func() { _, _ = VerifyBatch(buf) }},
		{"SetBaseOffset", func() { _ = SetBaseOffset(buf, 100) }},
		{"SetPartitionLeaderEpoch", func() { _ = SetPartitionLeaderEpoch(buf, 7) }},
		{"CountRecords", func() { _, _ = CountRecords(multi) }},
		{"BatchScanner", func() {
			s.Reset(multi)
			for s.Next() {
				_ = s.Bytes()
			}
		}},
		{"AppendBatch into capacity", func() { _, _ = AppendBatch(dst[:0], &b) }},
	}
	for _, c := range checks {
		if n := testing.AllocsPerRun(100, c.f); n != 0 {
			t.Errorf("%s allocates %.1f times per call, want 0", c.name, n)
		}
	}
}
