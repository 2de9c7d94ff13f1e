package log

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Tests of validateLeaderBatch, the leader's check of a producer's batch
// (issue 7, point 6). Helpers start with "vd" so that they cannot collide
// with the other tests of the package.

// vdHex decodes a hex literal written for a test, ignoring spaces.
func vdHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex literal %q: %v", s, err)
	}
	return b
}

// vdRecrc recomputes a batch's CRC after a test changed bytes it covers (if
// a test broke batchLength, over the bytes there are).
func vdRecrc(b []byte) []byte {
	size := BatchLogOverhead + int(binary.BigEndian.Uint32(b[posBatchLength:]))
	if size < posAttributes || size > len(b) {
		size = len(b)
	}
	binary.BigEndian.PutUint32(b[posCRC:], ChecksumCRC32C(b[posAttributes:size]))
	return b
}

// vdEncode encodes b, failing the test on error.
func vdEncode(t testing.TB, b *Batch) []byte {
	t.Helper()
	out, err := AppendBatch(nil, b)
	if err != nil {
		t.Fatalf("AppendBatch: %v", err)
	}
	return out
}

// vdMaxTimestamp is the MaxTimestamp validateLeaderBatch computes for b.
func vdMaxTimestamp(b *Batch) int64 {
	m := int64(math.MinInt64)
	for _, r := range b.Records {
		m = max(m, r.TimestampDelta)
	}
	return b.BaseTimestamp + m
}

// vdProducerBatch is a valid idempotent producer batch of three records with
// a key, a null key, a null value, headers (one with a null value) and a
// negative timestamp delta, its MaxTimestamp set right.
func vdProducerBatch() *Batch {
	b := &Batch{
		BaseTimestamp: 1_700_000_000_000,
		ProducerID:    4242,
		ProducerEpoch: 3,
		BaseSequence:  10,
		Records: []Record{
			{TimestampDelta: 250, Key: []byte("k1"), Value: []byte("hello"), Headers: []Header{{Key: "h"}, {Key: "trace", Value: []byte("abc")}}},
			{TimestampDelta: -3, Value: []byte("world")},
			{TimestampDelta: 7, Key: []byte("k3")},
		},
	}
	b.SetSequentialOffsetDeltas()
	b.MaxTimestamp = vdMaxTimestamp(b)
	return b
}

// vdRaw wraps hand-written record bytes in a valid producer batch header
// (base offset 0, no producer id, lastOffsetDelta count-1, correct
// batchLength and CRC), so that record-level rules can be tested. Records
// start at byte 61.
func vdRaw(t testing.TB, records string, count int32) []byte {
	t.Helper()
	rec := vdHex(t, records)
	b := make([]byte, BatchHeaderSize, BatchHeaderSize+len(rec))
	binary.BigEndian.PutUint32(b[posBatchLength:], uint32(minBatchLength+len(rec)))
	b[posMagic] = Magic
	binary.BigEndian.PutUint32(b[posLastOffsetDelta:], uint32(max(count-1, 0)))
	binary.BigEndian.PutUint64(b[posBaseTimestamp:], 1000)
	binary.BigEndian.PutUint64(b[posMaxTimestamp:], 1000)
	binary.BigEndian.PutUint64(b[posProducerID:], math.MaxUint64) // -1
	binary.BigEndian.PutUint16(b[posProducerEpoch:], math.MaxUint16)
	binary.BigEndian.PutUint32(b[posBaseSequence:], math.MaxUint32)
	binary.BigEndian.PutUint32(b[posRecordCount:], uint32(count))
	return vdRecrc(append(b, rec...))
}

// vdPadRecord is a valid 23-byte record with offsetDelta i (i < 64) and a
// 16-byte value, put after a record under test so that the test also runs
// the fast path (which leaves the last 16 bytes of a batch to checkRecord).
func vdPadRecord(i int) string {
	return fmt.Sprintf("2c 00 00 %02x 01 20 %s 00", 2*i, strings.Repeat("61", 16))
}

// vdCorruptIs reports whether err is a *CorruptError for want at pos.
func vdCorruptIs(err, want error, pos int) bool {
	var ce *CorruptError
	return errors.As(err, &ce) && ce.Err == want && ce.Pos == pos && errors.Is(err, ErrCorrupt)
}

// vdSameError reports whether two errors are the same decoding failure:
// equal *CorruptErrors, or both nil.
func vdSameError(a, b error) bool {
	var ca, cb *CorruptError
	if errors.As(a, &ca) && errors.As(b, &cb) {
		return *ca == *cb
	}
	return a == nil && b == nil
}

// vdCheck runs validateLeaderBatch on batch and checks the outcome: for a
// CorruptError sentinel, exactly that error at pos, and DecodeBatch failing
// the same way; for the other sentinels, errors.Is and not ErrCorrupt. In
// every case the input must be left as it was.
func vdCheck(t *testing.T, batch []byte, maxBytes int, want error, pos int) {
	t.Helper()
	before := bytes.Clone(batch)
	_, err := validateLeaderBatch(batch, maxBytes)
	if !bytes.Equal(batch, before) {
		t.Fatalf("validateLeaderBatch changed its input")
	}
	switch want {
	case ErrTruncated, ErrBadMagic, ErrBadCRC, ErrBadLength, ErrVarintOverflow, ErrNegativeCount, ErrBadOffset,
		ErrBadCompressedData, ErrInflationLimit:
		if !vdCorruptIs(err, want, pos) {
			t.Fatalf("err = %v, want *CorruptError %v at byte %d", err, want, pos)
		}
		if _, _, derr := DecodeBatch(batch); !vdSameError(err, derr) {
			t.Fatalf("err = %v, but DecodeBatch says %v", err, derr)
		}
	default:
		if !errors.Is(err, want) || errors.Is(err, ErrCorrupt) {
			t.Fatalf("err = %v, want %v (and not ErrCorrupt)", err, want)
		}
	}
}

// TestValidateLeaderBatchRules checks every rule, each case one change to a
// valid batch.
func TestValidateLeaderBatchRules(t *testing.T) {
	valid := vdEncode(t, vdProducerBatch())
	if _, err := validateLeaderBatch(valid, len(valid)); err != nil {
		t.Fatalf("the valid batch is refused: %v", err)
	}
	mutate := func(f func(b []byte)) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			b := bytes.Clone(valid)
			f(b)
			return b
		}
	}
	recrc := func(f func(b []byte)) func(t *testing.T) []byte {
		return mutate(func(b []byte) { f(b); vdRecrc(b) })
	}
	put16 := func(pos int, v int16) func(b []byte) {
		return func(b []byte) { binary.BigEndian.PutUint16(b[pos:], uint16(v)) }
	}
	put32 := func(pos int, v int32) func(b []byte) {
		return func(b []byte) { binary.BigEndian.PutUint32(b[pos:], uint32(v)) }
	}
	put64 := func(pos int, v int64) func(b []byte) {
		return func(b []byte) { binary.BigEndian.PutUint64(b[pos:], uint64(v)) }
	}
	attrs := func(a int16) func(b []byte) { return put16(posAttributes, a) }
	raw := func(records string, count int32) func(t *testing.T) []byte {
		return func(t *testing.T) []byte { return vdRaw(t, records, count) }
	}
	// tsBatch puts the record with timestamp delta first, where the fast
	// path meets it, or last, where checkRecord does.
	tsBatch := func(base, delta int64, last bool) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			b := &Batch{BaseTimestamp: base, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
				Records: []Record{{TimestampDelta: delta}, {Value: make([]byte, 20)}, {Value: make([]byte, 20)}}}
			if last {
				b.Records[0].TimestampDelta = 0
				b.Records = append(b.Records, Record{TimestampDelta: delta})
			}
			b.SetSequentialOffsetDeltas()
			return vdEncode(t, b)
		}
	}

	tests := []struct {
		name  string
		input func(t *testing.T) []byte
		max   int // maximum batch size; 0 means len(input)
		want  error
		pos   int // for *CorruptError sentinels
		// fast: also check the record under test followed by a valid
		// record, so that the fast path meets it first.
		fast bool
	}{
		// Size, checked after the framing and before the CRC.
		{name: "one byte over the maximum", input: mutate(func([]byte) {}), max: len(valid) - 1, want: ErrBatchTooLarge},
		{name: "over the maximum with a bad CRC", input: mutate(func(b []byte) { b[posCRC] ^= 1 }), max: len(valid) - 1, want: ErrBatchTooLarge},
		{name: "maximum below the header size", input: mutate(func([]byte) {}), max: -1, want: ErrBatchTooLarge},

		// Framing and CRC: VerifyBatch's errors.
		{name: "shorter than a header", input: func(*testing.T) []byte { return bytes.Clone(valid[:BatchHeaderSize-1]) }, want: ErrTruncated, pos: 0},
		{name: "magic 1", input: mutate(func(b []byte) { b[posMagic] = 1 }), want: ErrBadMagic, pos: posMagic},
		{name: "batchLength one past the end", input: mutate(put32(posBatchLength, int32(len(valid)-BatchLogOverhead+1))), want: ErrTruncated, pos: 0},
		{name: "batchLength below the header", input: mutate(put32(posBatchLength, minBatchLength-1)), want: ErrBadLength, pos: posBatchLength},
		{name: "crc changed", input: mutate(func(b []byte) { b[posCRC+3] ^= 1 }), want: ErrBadCRC, pos: posCRC},
		{name: "value byte changed", input: mutate(func(b []byte) { b[len(b)-10] ^= 0x40 }), want: ErrBadCRC, pos: posCRC},
		{name: "producer id changed without a new crc", input: mutate(put64(posProducerID, 1)), want: ErrBadCRC, pos: posCRC},
		{name: "negative record count", input: recrc(put32(posRecordCount, -1)), want: ErrNegativeCount, pos: posRecordCount},

		// Compression: a codec needs a registered decompressor (only gzip
		// is, in this package's tests), and its records must decompress.
		{name: "gzip over records that are not gzip", input: recrc(attrs(1)), want: ErrBadCompressedData, pos: BatchHeaderSize},
		{name: "snappy", input: recrc(attrs(2)), want: ErrUnsupportedCompression},
		{name: "lz4", input: recrc(attrs(3)), want: ErrUnsupportedCompression},
		{name: "zstd", input: recrc(attrs(4)), want: ErrUnsupportedCompression},
		{name: "unknown codec 7", input: recrc(attrs(7)), want: ErrUnsupportedCompression},
		{name: "gzip in a transactional batch, not gzip", input: recrc(attrs(AttrTransactional | 1)), want: ErrBadCompressedData, pos: BatchHeaderSize},

		// Batch-level producer rules.
		{name: "control batch", input: recrc(attrs(AttrControl)), want: ErrInvalidRecord},
		{name: "transactional control batch", input: recrc(attrs(AttrControl | AttrTransactional)), want: ErrInvalidRecord},
		{name: "LogAppendTime from a producer", input: recrc(attrs(AttrLogAppendTime)), want: ErrInvalidRecord},
		{name: "base offset 1", input: mutate(put64(posBaseOffset, 1)), want: ErrInvalidRecord},
		{name: "base offset stamped by a previous append", input: mutate(put64(posBaseOffset, 4127)), want: ErrInvalidRecord},
		{name: "no records", input: raw("", 0), want: ErrInvalidRecord},
		{name: "recordCount below lastOffsetDelta+1", input: recrc(put32(posRecordCount, 2)), want: ErrInvalidRecord},
		{name: "recordCount above lastOffsetDelta+1", input: recrc(put32(posLastOffsetDelta, 1)), want: ErrInvalidRecord},
		{name: "lastOffsetDelta MaxInt32", input: recrc(put32(posLastOffsetDelta, math.MaxInt32)), want: ErrInvalidRecord},
		{name: "producer epoch -1 with a producer id", input: recrc(put16(posProducerEpoch, -1)), want: ErrInvalidRecord},
		{name: "base sequence -1 with a producer id", input: recrc(put32(posBaseSequence, -1)), want: ErrInvalidRecord},
		{name: "negative base sequence with a producer id", input: recrc(put32(posBaseSequence, math.MinInt32)), want: ErrInvalidRecord},
		{name: "base sequence without a producer id", input: recrc(func(b []byte) { put64(posProducerID, -1)(b); put16(posProducerEpoch, -1)(b) }), want: ErrInvalidRecord},
		{name: "producer id -2", input: recrc(put64(posProducerID, -2)), want: ErrInvalidRecord},
		{name: "producer id MinInt64", input: recrc(put64(posProducerID, math.MinInt64)), want: ErrInvalidRecord},

		// A count the bytes cannot hold, checked before any record.
		{name: "recordCount beyond what fits", input: recrc(func(b []byte) { put32(posRecordCount, 1000)(b); put32(posLastOffsetDelta, 999)(b) }), want: ErrBadLength, pos: posRecordCount},

		// Records: DecodeBatch's errors at DecodeBatch's positions. A
		// record starts at 61: length@61, attributes@62, timestampDelta@63.
		{name: "record length six-byte varint", input: raw("ffffffffff01 00", 1), want: ErrVarintOverflow, pos: 61, fast: true},
		{name: "record length above 32 bits", input: raw("8080808010 0000", 1), want: ErrVarintOverflow, pos: 61, fast: true},
		{name: "second record length cut by the batch", input: raw("1a 00 00 00 01 0e 41424344454647 00  8080", 2), want: ErrBadLength, pos: 75},
		{name: "timestampDelta eleven-byte varlong", input: raw("1c 00 8080808080808080808000 00 01 01 00", 1), want: ErrVarintOverflow, pos: 63, fast: true},
		{name: "timestampDelta ten-byte varlong above 64 bits", input: raw("1e 00 80808080808080808002 00 01 01 00", 1), want: ErrVarintOverflow, pos: 63, fast: true},
		{name: "offsetDelta six-byte varint", input: raw("12 00 00 808080808001 01 01 00", 1), want: ErrVarintOverflow, pos: 64, fast: true},
		{name: "key length -2", input: raw("0c 00 00 00 03 00 00", 1), want: ErrNegativeCount, pos: 65, fast: true},
		{name: "key length MinInt32", input: raw("14 00 00 00 ffffffff0f 00 00", 1), want: ErrNegativeCount, pos: 65, fast: true},
		{name: "value length -2", input: raw("0c 00 00 00 01 03 00", 1), want: ErrNegativeCount, pos: 66, fast: true},
		{name: "value length -65 (two bytes)", input: raw("0e 00 00 00 01 8101 00", 1), want: ErrNegativeCount, pos: 66, fast: true},
		{name: "header count -1", input: raw("0c 00 00 00 01 01 01", 1), want: ErrNegativeCount, pos: 67, fast: true},
		{name: "header key null", input: raw("10 00 00 00 01 01 02 01 01", 1), want: ErrNegativeCount, pos: 68, fast: true},
		{name: "header key length -3", input: raw("10 00 00 00 01 01 02 05 01", 1), want: ErrNegativeCount, pos: 68, fast: true},
		{name: "header value length -2", input: raw("10 00 00 00 01 01 02 00 03", 1), want: ErrNegativeCount, pos: 69, fast: true},
		{name: "second header key null", input: raw("14 00 00 00 01 01 04 00 01 01 01", 1), want: ErrNegativeCount, pos: 70, fast: true},
		{name: "record length negative", input: raw("01 000000010100", 1), want: ErrBadLength, pos: 61},
		{name: "record length -1 before a valid record", input: raw("01 000000010100", 1), want: ErrBadLength, pos: 61, fast: true},
		{name: "record length past the batch", input: raw("7e 000000010100", 1), want: ErrBadLength, pos: 61},
		{name: "record length zero", input: raw("00 000000010100", 1), want: ErrBadLength, pos: 62},
		{name: "record length zero before a valid record", input: raw("00 000000010100", 1), want: ErrBadLength, pos: 62, fast: true},
		{name: "record length zero before bytes like a long varlong", input: raw("00 00 80808080 00 00", 1), want: ErrBadLength, pos: 62, fast: true},
		{name: "record length below its fields", input: raw("0a 00 00 00 01 01 00 00", 1), want: ErrBadLength, pos: 67, fast: true},
		{name: "record longer than its fields", input: raw("0e 00 00 00 01 01 00 00", 1), want: ErrBadLength, pos: 68, fast: true},
		{name: "record length cuts a field", input: raw("08 00 00 00 01  01 00", 1), want: ErrBadLength, pos: 66},
		{name: "key runs past the record", input: raw("0e 00 00 00 0a 414243", 1), want: ErrBadLength, pos: 65, fast: true},
		{name: "value runs past the record", input: raw("0e 00 00 00 01 0a 4142", 1), want: ErrBadLength, pos: 66, fast: true},
		{name: "value length cut by the record", input: raw("0a 00 00 00 01 80 00", 1), want: ErrBadLength, pos: 66, fast: true},
		{name: "header count beyond the record", input: raw("0e 00 00 00 01 01 c801", 1), want: ErrBadLength, pos: 67, fast: true},
		{name: "header value runs past the record", input: raw("12 00 00 00 01 01 02 00 06 41", 1), want: ErrBadLength, pos: 69, fast: true},
		// Lengths that would fit if a negative one were taken for its
		// magnitude, and fields that end exactly at the end of the batch
		// (the fast path must not read past it).
		{name: "key length -2 before one byte", input: raw("0e 00 00 00 03 41 01 00", 1), want: ErrNegativeCount, pos: 65, fast: true},
		{name: "value length -2 before one byte", input: raw("0e 00 00 00 01 03 41 00", 1), want: ErrNegativeCount, pos: 66, fast: true},
		{name: "header key length -2 before one byte", input: raw("12 00 00 00 01 01 02 03 41 01", 1), want: ErrNegativeCount, pos: 68, fast: true},
		{name: "header value length -2 before one byte", input: raw("12 00 00 00 01 01 02 00 03 41", 1), want: ErrNegativeCount, pos: 69, fast: true},
		{name: "key fills the last record", input: raw("2a 00 00 00 22"+strings.Repeat("6b", 17), 1), want: ErrBadLength, pos: 83},
		{name: "value fills the last record", input: raw("2a 00 00 00 01 20"+strings.Repeat("76", 16), 1), want: ErrBadLength, pos: 83},
		{name: "value one short of the last record's end", input: raw("2a 00 00 00 01 1e"+strings.Repeat("76", 15)+"02", 1), want: ErrBadLength, pos: 82},
		{name: "header value length cut by the end of the batch", input: raw("1e 00 00 00 01 0e 61626364656667 02 00 80", 1), want: ErrBadLength, pos: 76},
		{name: "header key cut by the end of the batch", input: raw("1e 00 00 00 01 0e 61626364656667 02 06 78", 1), want: ErrBadLength, pos: 75},
		{name: "trailing byte after the last record", input: raw("0c 00 00 00 01 01 00 00", 1), want: ErrBadLength, pos: 68},
		{name: "one record fewer than counted", input: raw("1a 00 00 00 01 0e 41424344454647 00", 2), want: ErrBadLength, pos: 75},

		// Record offsets: a producer's batch is dense.
		{name: "negative offsetDelta", input: raw("0c 00 00 01 01 01 00", 1), want: ErrBadOffset, pos: 64, fast: true},
		{name: "offsetDelta beyond lastOffsetDelta", input: raw("0c 00 00 02 01 01 00", 1), want: ErrBadOffset, pos: 64},
		{name: "repeated offsetDelta", input: raw("0c 00 00 00 01 01 00  0c 00 00 00 01 01 00", 2), want: ErrBadOffset, pos: 71},
		{name: "first offsetDelta 1 (a gap)", input: raw("0c 00 00 02 01 01 00  0c 00 00 04 01 01 00  0c 00 00 04 01 01 00", 3), want: ErrInvalidRecord, fast: true},
		{name: "gap after a record", input: raw("0c 00 00 00 01 01 00  0c 00 00 04 01 01 00  0c 00 00 06 01 01 00", 3), want: ErrInvalidRecord},

		// Record timestamps must fit int64.
		{name: "first timestamp above MaxInt64", input: tsBatch(math.MaxInt64-5, 10, false), want: ErrInvalidRecord},
		{name: "first timestamp below MinInt64", input: tsBatch(math.MinInt64+5, -10, false), want: ErrInvalidRecord},
		{name: "last timestamp above MaxInt64", input: tsBatch(math.MaxInt64-5, 10, true), want: ErrInvalidRecord},
		{name: "last timestamp below MinInt64", input: tsBatch(math.MinInt64+5, -10, true), want: ErrInvalidRecord},
		{name: "first long timestamp above MaxInt64", input: tsBatch(math.MaxInt64-1<<39, 1<<40, false), want: ErrInvalidRecord},
		{name: "first long timestamp below MinInt64", input: tsBatch(math.MinInt64+1<<39, -1<<40, false), want: ErrInvalidRecord},
		{name: "timestampDelta varlong cut by its record", input: raw("0c 00 8080808080 00", 1), want: ErrBadLength, pos: 63, fast: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			batch := tt.input(t)
			maxBytes := tt.max
			if maxBytes == 0 {
				maxBytes = len(batch)
			}
			vdCheck(t, batch, maxBytes, tt.want, tt.pos)
			if tt.fast {
				// The same record, then a valid one: same error, now met
				// by the fast path.
				h, err := ReadBatchHeader(batch)
				if err != nil {
					t.Fatal(err)
				}
				records := hex.EncodeToString(batch[BatchHeaderSize:])
				fast := vdRaw(t, records+vdPadRecord(int(h.RecordCount)), h.RecordCount+1)
				vdCheck(t, fast, len(fast), tt.want, tt.pos)
			}
		})
	}
}

// The four batches issue 7 reports were accepted with NONE and served, and
// the zero-record batch that must get INVALID_RECORD or CORRUPT_MESSAGE,
// never UNKNOWN_SERVER_ERROR.
func TestValidateLeaderBatchIssueAttacks(t *testing.T) {
	t.Run("correct-CRC batch holding garbage records", func(t *testing.T) {
		garbage := strings.Repeat("ff", 40)
		vdCheck(t, vdRaw(t, garbage, 1), 1<<20, ErrVarintOverflow, BatchHeaderSize)
		// Garbage that looks like varints: still refused, as corruption.
		b := vdRaw(t, strings.Repeat("0e 7f 3c 11 ", 10), 1)
		if _, err := validateLeaderBatch(b, 1<<20); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("err = %v, want a *CorruptError", err)
		}
	})
	t.Run(`"1 record" with no record bytes`, func(t *testing.T) {
		vdCheck(t, vdRaw(t, "", 1), 1<<20, ErrBadLength, posRecordCount)
	})
	t.Run("gzip-flagged batch that is not gzip", func(t *testing.T) {
		b := vdEncode(t, &Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: []Record{{Value: []byte("not gzip")}}})
		binary.BigEndian.PutUint16(b[posAttributes:], 1)
		vdCheck(t, vdRecrc(b), 1<<20, ErrBadCompressedData, BatchHeaderSize)
	})
	t.Run("62-byte batch claiming 2^31-1 records", func(t *testing.T) {
		b := vdRaw(t, "00", math.MaxInt32)
		if len(b) != 62 {
			t.Fatalf("batch is %d bytes", len(b))
		}
		vdCheck(t, b, 1<<20, ErrBadLength, posRecordCount)
	})
	t.Run("zero records", func(t *testing.T) {
		b := vdRaw(t, "", 0)
		vdCheck(t, b, 1<<20, ErrInvalidRecord, 0)
		if _, err := validateLeaderBatch(b, 1<<20); !strings.Contains(err.Error(), "no records") {
			t.Errorf("error %q does not say the batch has no records", err)
		}
	})
}

// Valid producer batches of many shapes are accepted, with the computed
// MaxTimestamp and every other header field as stored.
func TestValidateLeaderBatchAcceptsValidBatches(t *testing.T) {
	value := func(n int) []byte { return bytes.Repeat([]byte{'v'}, n) }
	shape := func(n int, rec func(i int) Record) *Batch {
		b := &Batch{BaseTimestamp: 1_700_000_000_000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: make([]Record, n)}
		for i := range b.Records {
			b.Records[i] = rec(i)
		}
		b.SetSequentialOffsetDeltas()
		b.MaxTimestamp = vdMaxTimestamp(b)
		return b
	}
	manyHeaders := make([]Header, 70)
	for i := range manyHeaders {
		manyHeaders[i] = Header{Key: fmt.Sprint(i)}
	}
	tests := []struct {
		name  string
		batch *Batch
	}{
		{"hand-made idempotent batch", vdProducerBatch()},
		{"1 record", shape(1, func(int) Record { return Record{Value: value(100)} })},
		{"100 records of 100 bytes", shape(100, func(i int) Record { return Record{TimestampDelta: int64(i), Value: value(100)} })},
		{"1000 records of 100 bytes", shape(1000, func(i int) Record { return Record{TimestampDelta: int64(i), Value: value(100)} })},
		{"1000 tiny records", shape(1000, func(i int) Record { return Record{} })},
		{"null keys and null values", shape(50, func(i int) Record { return Record{} })},
		{"empty keys and values", shape(50, func(i int) Record { return Record{Key: []byte{}, Value: []byte{}} })},
		{"keys of 64 bytes and more (two-byte lengths)", shape(50, func(i int) Record { return Record{Key: value(64 + i), Value: value(10)} })},
		{"values of 8 KiB and more (three-byte lengths)", shape(5, func(i int) Record { return Record{Value: value(8192 + i)} })},
		{"negative timestamp deltas", shape(100, func(i int) Record { return Record{TimestampDelta: -int64(i), Value: value(20)} })},
		{"timestamp deltas of three and more bytes", shape(100, func(i int) Record { return Record{TimestampDelta: int64(i) << 20, Value: value(20)} })},
		{"timestamp deltas of three bytes", shape(100, func(i int) Record { return Record{TimestampDelta: 8192 + int64(i)*9000 - 500_000, Value: value(20)} })},
		{"only negative timestamp deltas", shape(3, func(i int) Record { return Record{TimestampDelta: -5 - int64(i)} })},
		{"headers", shape(100, func(i int) Record {
			return Record{Key: []byte("k"), Value: value(30), Headers: []Header{{Key: "trace", Value: []byte("x")}, {Key: "null"}, {Key: "", Value: []byte{}}}}
		})},
		{"64 and more headers (two-byte count)", shape(3, func(i int) Record { return Record{Value: value(5), Headers: manyHeaders} })},
		{"long header keys and values", shape(10, func(i int) Record {
			return Record{Headers: []Header{{Key: string(value(100)), Value: value(9000)}}}
		})},
		{"attributes byte set in records", shape(20, func(i int) Record { return Record{Attributes: -1, Value: value(10)} })},
		{"more than 8191 records (two-byte offset deltas end)", shape(9000, func(i int) Record { return Record{} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := vdEncode(t, tt.batch)
			want, err := VerifyBatch(buf)
			if err != nil {
				t.Fatal(err)
			}
			want.MaxTimestamp = vdMaxTimestamp(tt.batch)
			got, err := validateLeaderBatch(buf, len(buf))
			if err != nil {
				t.Fatalf("validateLeaderBatch: %v", err)
			}
			if got != want {
				t.Fatalf("header = %+v, want %+v", got, want)
			}
			// Bytes after the batch are ignored.
			if _, err := validateLeaderBatch(append(bytes.Clone(buf), 0xff, 0xff), len(buf)); err != nil {
				t.Fatalf("with trailing bytes: %v", err)
			}
		})
	}

	// Producer-field combinations a producer may send.
	for _, f := range []struct {
		name       string
		id         int64
		epoch      int16
		seq        int32
		attributes int16
	}{
		{"no producer", -1, -1, -1, 0},
		{"no producer, any epoch", -1, 5, -1, 0},
		{"idempotent producer 0", 0, 0, 0, 0},
		{"idempotent producer, sequence MaxInt32", math.MaxInt64, math.MaxInt16, math.MaxInt32, 0},
		{"transactional producer", 7, 1, 100, AttrTransactional},
		{"delete-horizon bit (not a producer's, but Kafka does not refuse it)", -1, -1, -1, AttrDeleteHorizon},
	} {
		t.Run(f.name, func(t *testing.T) {
			b := vdProducerBatch()
			b.ProducerID, b.ProducerEpoch, b.BaseSequence, b.Attributes = f.id, f.epoch, f.seq, f.attributes
			buf := vdEncode(t, b)
			if _, err := validateLeaderBatch(buf, len(buf)); err != nil {
				t.Fatalf("validateLeaderBatch: %v", err)
			}
		})
	}
}

// The size limit is inclusive, and the CRC is not computed for a batch
// over it.
func TestValidateLeaderBatchMaxSize(t *testing.T) {
	buf := vdEncode(t, vdProducerBatch())
	if _, err := validateLeaderBatch(buf, len(buf)); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := validateLeaderBatch(buf, len(buf)-1)
	if !errors.Is(err, ErrBatchTooLarge) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("over the limit: err = %v, want ErrBatchTooLarge", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprint(len(buf))) {
		t.Errorf("error %q does not give the batch size", err)
	}
}

// A wrong MaxTimestamp is not refused: the validator returns the right one
// and setLeaderMaxTimestamp rewrites the field and the CRC, only when they
// differ.
func TestSetLeaderMaxTimestamp(t *testing.T) {
	b := vdProducerBatch()
	right := b.MaxTimestamp
	for _, stored := range []int64{right, right - 1, right + 1000, -1, math.MinInt64, math.MaxInt64} {
		t.Run(fmt.Sprint(stored), func(t *testing.T) {
			b.MaxTimestamp = stored
			buf := vdEncode(t, b)
			h, err := validateLeaderBatch(buf, len(buf))
			if err != nil {
				t.Fatalf("validateLeaderBatch: %v", err)
			}
			if h.MaxTimestamp != right {
				t.Fatalf("MaxTimestamp = %d, want %d", h.MaxTimestamp, right)
			}
			before := bytes.Clone(buf)
			rewrote := setLeaderMaxTimestamp(buf, h.MaxTimestamp)
			if rewrote != (stored != right) {
				t.Fatalf("setLeaderMaxTimestamp = %v with stored %d, right %d", rewrote, stored, right)
			}
			if !rewrote && !bytes.Equal(buf, before) {
				t.Fatal("setLeaderMaxTimestamp wrote although the value was right")
			}
			after, err := validateLeaderBatch(buf, len(buf))
			if err != nil {
				t.Fatalf("after the rewrite: %v", err)
			}
			stamped, err := VerifyBatch(buf)
			if err != nil || stamped.MaxTimestamp != right {
				t.Fatalf("after the rewrite VerifyBatch = %+v, %v", stamped, err)
			}
			if after.MaxTimestamp != right || after.CRC != stamped.CRC {
				t.Fatalf("after the rewrite validateLeaderBatch = %+v", after)
			}
			// Only the MaxTimestamp and CRC fields changed.
			for i := range buf {
				inField := (i >= posMaxTimestamp && i < posMaxTimestamp+8) || (i >= posCRC && i < posCRC+4)
				if buf[i] != before[i] && !inField {
					t.Fatalf("byte %d changed", i)
				}
			}
		})
	}
}

// Validation allocates nothing, on the fast path and the slow one; neither
// does stamping a right MaxTimestamp.
func TestValidateLeaderBatchAllocatesNothing(t *testing.T) {
	for _, n := range []int{1, 100, 1000} {
		buf := vdEncode(t, benchBatch(n))
		if allocs := testing.AllocsPerRun(20, func() {
			h, err := validateLeaderBatch(buf, len(buf))
			if err != nil {
				t.Fatal(err)
			}
			setLeaderMaxTimestamp(buf, h.MaxTimestamp)
		}); allocs != 0 {
			t.Errorf("%d records: %v allocations", n, allocs)
		}
	}
	slow := vdEncode(t, &Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		Records: []Record{{TimestampDelta: 1 << 40, Value: make([]byte, 10000)}, {OffsetDelta: 1, Headers: make([]Header, 100)}}})
	if allocs := testing.AllocsPerRun(20, func() {
		if _, err := validateLeaderBatch(slow, len(slow)); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("slow path: %v allocations", allocs)
	}
}

// The fast path takes the records of usual producer batches (here the
// benchmarks' shapes and small records with headers), leaving only the last
// 16 bytes of the batch to checkRecord: otherwise validation would still be
// right, but slow.
func TestValidateFastPathCoversUsualShapes(t *testing.T) {
	headers := &Batch{ProducerID: 1, ProducerEpoch: 0, BaseSequence: 0, Records: make([]Record, 500)}
	for i := range headers.Records {
		headers.Records[i] = Record{TimestampDelta: int64(i % 9000), Key: []byte(fmt.Sprint("key-", i)), Value: make([]byte, i%300),
			Headers: []Header{{Key: "trace-id", Value: []byte("0af7651916cd43dd8448eb211c80319c")}}}
	}
	headers.SetSequentialOffsetDeltas()
	timestamps := func(delta func(i int) int64) *Batch {
		b := benchBatch(200)
		for i := range b.Records {
			b.Records[i].TimestampDelta = delta(i)
		}
		return b
	}
	for name, b := range map[string]*Batch{
		"benchmark 100":               benchBatch(100),
		"benchmark 1000":              benchBatch(1000),
		"benchmark 10000 (1 MB)":      benchBatch(10000),
		"keys and headers":            headers,
		"three-byte timestamp deltas": timestamps(func(i int) int64 { return 8192 + int64(i)*4000 }),
		"event-time timestamp deltas": timestamps(func(i int) int64 { return int64(i%7-3) << (20 + i%20) }),
		"negative timestamp deltas":   timestamps(func(i int) int64 { return -int64(i) * 77 }),
	} {
		buf := vdEncode(t, b)
		p, i, _, _ := fastRecords(buf, BatchHeaderSize, 0, int32(len(b.Records)), math.MaxInt64, math.MinInt64)
		if len(buf)-p > 16 && int(i) < len(b.Records) {
			t.Errorf("%s: the fast path stopped at record %d of %d, byte %d of %d", name, i, len(b.Records), p, len(buf))
		}
	}
}

// vdRandomBatch returns a random valid producer batch: mostly a few
// records, now and then hundreds or 9000; null, empty, short and long keys
// and values (lengths of one to three bytes), headers, negative and large
// timestamp deltas, and any valid producer fields. Its MaxTimestamp is right
// or, one time in four, wrong.
func vdRandomBatch(rng *rand.Rand) *Batch {
	n := 1 + rng.IntN(30)
	switch rng.IntN(100) {
	case 0:
		n = 9000
	case 1, 2, 3, 4, 5, 6, 7, 8, 9:
		n = 1 + rng.IntN(300)
	}
	b := &Batch{
		PartitionLeaderEpoch: int32(rng.Uint32()),
		BaseTimestamp:        rng.Int64N(1<<50) - 1<<40,
		ProducerID:           -1,
		ProducerEpoch:        -1,
		BaseSequence:         -1,
		Records:              make([]Record, n),
	}
	if rng.IntN(2) == 0 {
		b.ProducerID, b.ProducerEpoch, b.BaseSequence = rng.Int64N(math.MaxInt64), int16(rng.IntN(math.MaxInt16+1)), int32(rng.IntN(math.MaxInt32))
		if rng.IntN(3) == 0 {
			b.Attributes |= AttrTransactional
		}
	}
	var pool [1 << 14]byte
	for i := range pool {
		pool[i] = byte(rng.Uint32())
	}
	bytesOf := func(maxLen int) []byte {
		switch rng.IntN(6) {
		case 0:
			return nil
		case 1:
			return []byte{}
		}
		if n < 1000 && rng.IntN(40) == 0 {
			maxLen = len(pool) // a length of two or three bytes
		}
		at := rng.IntN(len(pool) + 1)
		return pool[at:min(at+rng.IntN(maxLen+1), len(pool))]
	}
	for i := range b.Records {
		r := &b.Records[i]
		r.Attributes = int8(rng.IntN(3) - 1)
		switch rng.IntN(5) { // or 0
		case 0:
			r.TimestampDelta = int64(i)
		case 1:
			r.TimestampDelta = rng.Int64N(200) - 100
		case 2:
			r.TimestampDelta = rng.Int64N(1<<40) - 1<<39
		case 3:
			r.TimestampDelta = rng.Int64N(1<<21) - 1<<20 // three bytes
		}
		r.Key = bytesOf(20)
		r.Value = bytesOf(150)
		for range rng.IntN(4) {
			r.Headers = append(r.Headers, Header{Key: string(bytesOf(10)), Value: bytesOf(10)})
		}
	}
	b.SetSequentialOffsetDeltas()
	b.MaxTimestamp = vdMaxTimestamp(b)
	if rng.IntN(4) == 0 {
		b.MaxTimestamp = rng.Int64()
	}
	return b
}

// Property: every random valid batch is accepted, with DecodeBatch's record
// count and the largest record timestamp.
func TestValidateLeaderBatchRandomValid(t *testing.T) {
	const seed = 20261201
	rng := rand.New(rand.NewPCG(seed, 7))
	for round := range 400 {
		b := vdRandomBatch(rng)
		buf := vdEncode(t, b)
		h, err := validateLeaderBatch(buf, len(buf))
		if err != nil {
			t.Fatalf("seed %d round %d: %d records refused: %v", seed, round, len(b.Records), err)
		}
		decoded, _, err := DecodeBatch(buf)
		if err != nil {
			t.Fatalf("seed %d round %d: DecodeBatch: %v", seed, round, err)
		}
		maxTs := int64(math.MinInt64)
		for _, r := range decoded.Records {
			maxTs = max(maxTs, decoded.BaseTimestamp+r.TimestampDelta)
		}
		if int(h.RecordCount) != len(decoded.Records) || h.MaxTimestamp != maxTs {
			t.Fatalf("seed %d round %d: count %d, max timestamp %d; DecodeBatch: %d, %d",
				seed, round, h.RecordCount, h.MaxTimestamp, len(decoded.Records), maxTs)
		}
	}
}

// vdOracle is what validateLeaderBatch must decide, computed the slow way
// from DecodeBatch: nil if the batch is a valid producer batch, otherwise
// the reason. decodeErr is DecodeBatch's error.
func vdOracle(buf []byte, maxBytes int) (reason string, decodeErr error) {
	if h, err := ReadBatchHeader(buf); err == nil && h.Size() > maxBytes {
		return "too large", nil
	}
	b, _, err := DecodeBatch(buf)
	if err != nil {
		return "decode", err
	}
	h, _ := VerifyBatch(buf)
	switch {
	case h.Attributes&(AttrControl|AttrLogAppendTime) != 0, h.BaseOffset != 0, len(b.Records) == 0,
		int(h.LastOffsetDelta)+1 != len(b.Records),
		h.ProducerID >= 0 && (h.ProducerEpoch < 0 || h.BaseSequence < 0),
		h.ProducerID == -1 && h.BaseSequence != -1, h.ProducerID < -1:
		return "header", nil
	}
	for i, r := range b.Records {
		if int(r.OffsetDelta) != i {
			return "offsets", nil
		}
		ts := b.BaseTimestamp + r.TimestampDelta
		if (r.TimestampDelta > 0 && ts < b.BaseTimestamp) || (r.TimestampDelta < 0 && ts > b.BaseTimestamp) {
			return "timestamp", nil
		}
	}
	return "", nil
}

// vdCheckAgainstOracle validates buf and compares the outcome with vdOracle
// and DecodeBatch. It returns a description of a disagreement, or "".
func vdCheckAgainstOracle(buf []byte, maxBytes int) string {
	before := bytes.Clone(buf)
	h, err := validateLeaderBatch(buf, maxBytes)
	if !bytes.Equal(buf, before) {
		return "validateLeaderBatch changed its input"
	}
	reason, decodeErr := vdOracle(buf, maxBytes)
	var ce *CorruptError
	switch {
	case err == nil && reason != "":
		return fmt.Sprintf("accepted; the oracle refuses it (%s, %v)", reason, decodeErr)
	case err == nil:
		b, _, _ := DecodeBatch(buf)
		if int(h.RecordCount) != len(b.Records) || h.MaxTimestamp != vdMaxTimestamp(&b) {
			return fmt.Sprintf("accepted with count %d, max timestamp %d; DecodeBatch: %d, %d",
				h.RecordCount, h.MaxTimestamp, len(b.Records), vdMaxTimestamp(&b))
		}
	case reason == "":
		return fmt.Sprintf("refused (%v); the oracle accepts it", err)
	case errors.As(err, &ce):
		// Corruption is exactly DecodeBatch's.
		if !vdSameError(err, decodeErr) {
			return fmt.Sprintf("refused with %v; DecodeBatch says %v", err, decodeErr)
		}
	case errors.Is(err, ErrBatchTooLarge):
		if reason != "too large" {
			return fmt.Sprintf("refused as too large; the oracle says %s", reason)
		}
	case errors.Is(err, ErrUnsupportedCompression):
		if !errors.Is(decodeErr, ErrUnsupportedCompression) {
			return fmt.Sprintf("refused as compressed with no decompressor; DecodeBatch says %v", decodeErr)
		}
	case errors.Is(err, ErrInvalidRecord):
		// A semantic refusal: the oracle refuses too, for a semantic reason
		// or because the batch does not decode (a gap in the offset deltas
		// is found before later bytes that do not decode).
	default:
		return fmt.Sprintf("unexpected error %v", err)
	}
	return ""
}

// Property: for random mutations of valid batches (bytes changed, the CRC
// recomputed or not, header fields rewritten, the batch cut or extended),
// the validator agrees with the oracle built on DecodeBatch: it never
// accepts what DecodeBatch refuses, its corruption errors are DecodeBatch's
// to the byte, and it never panics.
func TestValidateLeaderBatchRandomMutations(t *testing.T) {
	const seed = 7117
	rng := rand.New(rand.NewPCG(seed, 11))
	rounds := 4000
	if testing.Short() {
		rounds = 500
	}
	for round := range rounds {
		buf := vdEncode(t, vdRandomBatch(rng))
		mutateBatch(rng, &buf)
		maxBytes := len(buf) + 100
		if rng.IntN(20) == 0 {
			maxBytes = rng.IntN(len(buf) + 1)
		}
		if msg := vdCheckAgainstOracle(buf, maxBytes); msg != "" {
			t.Fatalf("seed %d round %d: %s\nbatch %x", seed, round, msg, buf)
		}
	}
}

// mutateBatch applies one to three random changes to the batch in *buf.
func mutateBatch(rng *rand.Rand, buf *[]byte) {
	b := *buf
	recrc := rng.IntN(4) != 0 // most changes keep the CRC right, to reach the records
	for range 1 + rng.IntN(3) {
		switch rng.IntN(7) {
		case 0, 1, 2: // change a record byte (records dominate a batch)
			if len(b) > BatchHeaderSize {
				i := BatchHeaderSize + rng.IntN(len(b)-BatchHeaderSize)
				b[i] = byte(rng.Uint32())
			}
		case 3: // change any byte
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		case 4: // a header field to an interesting value
			switch rng.IntN(6) {
			case 0:
				binary.BigEndian.PutUint32(b[posRecordCount:], uint32(rng.IntN(20)))
			case 1:
				binary.BigEndian.PutUint32(b[posLastOffsetDelta:], uint32(rng.IntN(20)))
			case 2:
				binary.BigEndian.PutUint16(b[posAttributes:], uint16(rng.IntN(0x80)))
			case 3:
				binary.BigEndian.PutUint64(b[posProducerID:], uint64(rng.Int64N(3)-2))
			case 4:
				binary.BigEndian.PutUint32(b[posBaseSequence:], uint32(rng.Int32N(3)-1))
			case 5:
				binary.BigEndian.PutUint64(b[posBaseTimestamp:], uint64(math.MaxInt64-rng.Int64N(1<<41)))
			}
		case 5: // cut or extend the records, fixing batchLength
			if rng.IntN(2) == 0 && len(b) > BatchHeaderSize {
				b = b[:BatchHeaderSize+rng.IntN(len(b)-BatchHeaderSize)]
			} else {
				for range 1 + rng.IntN(20) {
					b = append(b, byte(rng.Uint32()))
				}
			}
			binary.BigEndian.PutUint32(b[posBatchLength:], uint32(len(b)-BatchLogOverhead))
		case 6: // insert or delete one record byte, fixing batchLength
			if len(b) > BatchHeaderSize {
				i := BatchHeaderSize + rng.IntN(len(b)-BatchHeaderSize)
				if rng.IntN(2) == 0 {
					b = append(b[:i], b[i+1:]...)
				} else {
					b = append(b[:i], append([]byte{byte(rng.Uint32())}, b[i:]...)...)
				}
				binary.BigEndian.PutUint32(b[posBatchLength:], uint32(len(b)-BatchLogOverhead))
			}
		}
	}
	if recrc {
		vdRecrc(b)
	}
	*buf = b
}

// Records from 8192 on take three bytes of offsetDelta, which the fast path
// of the record walk decodes too; the fuzz target's inputs never hold that
// many records. Random damage to the records around 8192 (a byte, a bit, a
// continuation bit, a cut, the count) must be judged exactly as the decoder
// judges it.
func TestValidateAgreesPastRecord8192(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	const n = 8192 + 40
	b := &Batch{BaseTimestamp: 1700000000000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: make([]Record, n)}
	for i := range b.Records {
		r := Record{TimestampDelta: int64(i % 5)}
		switch i % 4 {
		case 0:
			r.Value = []byte("abcdefghij")
		case 1:
			r.Key = []byte("k")
			r.Value = []byte("v")
		case 2:
			r.Value = nil
		case 3:
			r.Value = []byte("x")
			r.Headers = []Header{{Key: "h", Value: []byte("1")}}
		}
		b.Records[i] = r
	}
	b.SetSequentialOffsetDeltas()
	enc, err := AppendBatch(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	if msg := vdCheckAgainstOracle(enc, len(enc)); msg != "" {
		t.Fatal(msg)
	}
	// Where each record starts.
	var starts []int
	for p := BatchHeaderSize; p < len(enc); {
		starts = append(starts, p)
		l, k := binary.Varint(enc[p:])
		p += k + int(l)
	}
	trials := 1000
	if testing.Short() {
		trials = 200
	}
	for trial := range trials {
		data := bytes.Clone(enc)
		i := 8180 + rng.IntN(n-8180)
		p := starts[i]
		for range 1 + rng.IntN(3) {
			switch rng.IntN(4) {
			case 0:
				if j := p + rng.IntN(12); j < len(data) {
					data[j] = byte(rng.IntN(256))
				}
			case 1:
				if j := p + rng.IntN(12); j < len(data) {
					data[j] ^= 1 << rng.IntN(8)
				}
			case 2:
				if j := p + rng.IntN(12); j < len(data) {
					data[j] |= 0x80
				}
			case 3:
				// cut the batch somewhere after p
				cut := p + rng.IntN(max(1, min(40, len(data)-p)))
				data = data[:cut]
				binary.BigEndian.PutUint32(data[posBatchLength:], uint32(len(data)-BatchLogOverhead))
			}
		}
		if rng.IntN(3) == 0 {
			// count and lastOffsetDelta say i+1 records
			binary.BigEndian.PutUint32(data[posRecordCount:], uint32(i+1))
			binary.BigEndian.PutUint32(data[posLastOffsetDelta:], uint32(i))
		}
		vdRecrc(data)
		if msg := vdCheckAgainstOracle(data, len(data)); msg != "" {
			t.Fatalf("seed %d trial %d record %d: %s", seed, trial, i, msg)
		}
	}
}
