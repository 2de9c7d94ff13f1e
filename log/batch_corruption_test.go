package log

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// refreshCRC recomputes a batch's CRC after a test has changed bytes it
// covers, so that the decoder reaches the field under test.
func refreshCRC(b []byte) []byte {
	binary.BigEndian.PutUint32(b[posCRC:], ChecksumCRC32C(b[posAttributes:]))
	return b
}

// rawBatch wraps hand-written record bytes in a valid header (correct
// batchLength and CRC) so that record-level corruption can be tested.
func rawBatch(t *testing.T, records string, count, lastOffsetDelta int32) []byte {
	t.Helper()
	rec := codecHex(t, records)
	b := make([]byte, BatchHeaderSize, BatchHeaderSize+len(rec))
	binary.BigEndian.PutUint32(b[posBatchLength:], uint32(minBatchLength+len(rec)))
	b[posMagic] = Magic
	binary.BigEndian.PutUint32(b[posLastOffsetDelta:], uint32(lastOffsetDelta))
	binary.BigEndian.PutUint32(b[posRecordCount:], uint32(count))
	return refreshCRC(append(b, rec...))
}

// checkCorrupt asserts err is a *CorruptError for want at pos, matching both
// the specific sentinel and ErrCorrupt.
func checkCorrupt(t *testing.T, what string, err, want error, pos int) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: err = %v, want %v", what, err, want)
		return
	}
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("%s: err %v does not match ErrCorrupt", what, err)
	}
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Errorf("%s: err %v is not a *CorruptError", what, err)
		return
	}
	if ce.Pos != pos {
		t.Errorf("%s: Pos = %d, want %d (err %v)", what, ce.Pos, pos, err)
	}
}

func TestCorruptBatches(t *testing.T) {
	hand := func(mutate func(b []byte)) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			b := codecHex(t, handBatchHex)
			mutate(b)
			return b
		}
	}
	raw := func(records string, count, lastOffsetDelta int32) func(t *testing.T) []byte {
		return func(t *testing.T) []byte { return rawBatch(t, records, count, lastOffsetDelta) }
	}
	putU32 := func(pos int, v uint32) func(b []byte) {
		return func(b []byte) { binary.BigEndian.PutUint32(b[pos:], v) }
	}
	putU32CRC := func(pos int, v uint32) func(b []byte) {
		return func(b []byte) { binary.BigEndian.PutUint32(b[pos:], v); refreshCRC(b) }
	}
	tests := []struct {
		name  string
		input func(t *testing.T) []byte
		want  error
		pos   int
		// headerLevel: VerifyBatch (and so the scanner and CountRecords)
		// must reject it too; otherwise only record decoding does.
		headerLevel bool
	}{
		// Framing and checksum.
		{"value byte flipped", hand(func(b []byte) { b[72] ^= 0x20 }), ErrBadCRC, posCRC, true},
		{"crc field changed", hand(func(b []byte) { b[posCRC+3] ^= 1 }), ErrBadCRC, posCRC, true},
		{"attributes changed without new crc", hand(func(b []byte) { b[posAttributes+1] = 0x10 }), ErrBadCRC, posCRC, true},
		{"magic 1", hand(func(b []byte) { b[posMagic] = 1 }), ErrBadMagic, posMagic, true},
		{"magic 3", hand(func(b []byte) { b[posMagic] = 3 }), ErrBadMagic, posMagic, true},
		{"batchLength below the header", hand(putU32(posBatchLength, minBatchLength-1)), ErrBadLength, posBatchLength, true},
		{"batchLength negative", hand(putU32(posBatchLength, math.MaxUint32)), ErrBadLength, posBatchLength, true},
		{"batchLength one past the end", hand(putU32(posBatchLength, 75)), ErrTruncated, 0, true},
		{"batchLength MaxInt32", hand(putU32(posBatchLength, math.MaxInt32)), ErrTruncated, 0, true},
		{"negative baseOffset", hand(func(b []byte) { b[0] = 0x80 }), ErrBadOffset, posBaseOffset, true},
		{"negative lastOffsetDelta", hand(putU32CRC(posLastOffsetDelta, math.MaxUint32)), ErrBadOffset, posLastOffsetDelta, true},
		{"last offset beyond int64", hand(func(b []byte) { binary.BigEndian.PutUint64(b, math.MaxInt64) }), ErrBadOffset, posLastOffsetDelta, true},
		{"negative recordCount", hand(putU32CRC(posRecordCount, math.MaxUint32)), ErrNegativeCount, posRecordCount, true},

		// Record count against the records present.
		{"recordCount beyond what fits", hand(putU32CRC(posRecordCount, 1000)), ErrBadLength, posRecordCount, false},
		{"recordCount one too many", hand(putU32CRC(posRecordCount, 3)), ErrBadLength, 86, false},
		{"recordCount one too few", hand(putU32CRC(posRecordCount, 1)), ErrBadLength, 79, false},
		{"trailing byte after the last record", raw("0c 00 00 00 01 01 00  00", 1, 0), ErrBadLength, 68, false},

		// Varints. Records start at 61: length@61, attributes@62, timestampDelta@63, ...
		{"record length six-byte varint", raw("ffffffffff01 00", 1, 0), ErrVarintOverflow, 61, false},
		{"record length above 32 bits", raw("8080808010 0000", 1, 0), ErrVarintOverflow, 61, false},
		{"timestampDelta eleven-byte varlong", raw("1c 00 8080808080808080808000 00 01 01 00", 1, 0), ErrVarintOverflow, 63, false},
		{"offsetDelta six-byte varint", raw("12 00 00 808080808001 01 01 00", 1, 0), ErrVarintOverflow, 64, false},

		// Negative counts and lengths.
		{"key length -2", raw("0c 00 00 00 03 00 00", 1, 0), ErrNegativeCount, 65, false},
		{"key length MinInt32", raw("14 00 00 00 ffffffff0f 00 00", 1, 0), ErrNegativeCount, 65, false},
		{"value length -2", raw("0c 00 00 00 01 03 00", 1, 0), ErrNegativeCount, 66, false},
		{"header count -1", raw("0c 00 00 00 01 01 01", 1, 0), ErrNegativeCount, 67, false},
		{"header key null", raw("10 00 00 00 01 01 02 01 01", 1, 0), ErrNegativeCount, 68, false},
		{"header key length -3", raw("10 00 00 00 01 01 02 05 01", 1, 0), ErrNegativeCount, 68, false},
		{"header value length -2", raw("10 00 00 00 01 01 02 00 03", 1, 0), ErrNegativeCount, 69, false},

		// Lengths that disagree with the bytes.
		{"record length negative", raw("01 000000010100", 1, 0), ErrBadLength, 61, false},
		{"record length past the batch", raw("7e 000000010100", 1, 0), ErrBadLength, 61, false},
		{"record length zero", raw("00 000000010100", 1, 0), ErrBadLength, 62, false},
		{"record longer than its fields", raw("0e 00 00 00 01 01 00 00", 1, 0), ErrBadLength, 68, false},
		{"record length cuts a field", raw("08 00 00 00 01  01 00", 1, 0), ErrBadLength, 66, false},
		{"key runs past the record", raw("0e 00 00 00 0a 414243", 1, 0), ErrBadLength, 65, false},
		{"value runs past the record", raw("0e 00 00 00 01 0a 4142", 1, 0), ErrBadLength, 66, false},
		{"header count beyond the record", raw("0e 00 00 00 01 01 c801", 1, 0), ErrBadLength, 67, false},
		{"header value runs past the record", raw("12 00 00 00 01 01 02 00 06 41", 1, 0), ErrBadLength, 69, false},

		// Record offsets.
		{"negative offsetDelta", raw("0c 00 00 01 01 01 00", 1, 0), ErrBadOffset, 64, false},
		{"offsetDelta beyond lastOffsetDelta", hand(putU32CRC(posLastOffsetDelta, 0)), ErrBadOffset, 82, false},
		{"repeated offsetDelta", raw("0c 00 00 00 01 01 00  0c 00 00 00 01 01 00", 2, 1), ErrBadOffset, 71, false},
	}
	valid := codecHex(t, handBatchHex)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := tt.input(t)
			_, _, err := DecodeBatch(bad)
			checkCorrupt(t, "DecodeBatch", err, tt.want, tt.pos)

			// Behind a valid batch, positions are relative to the whole input.
			both := append(append([]byte(nil), valid...), bad...)
			batches, err := DecodeBatches(both)
			checkCorrupt(t, "DecodeBatches", err, tt.want, len(valid)+tt.pos)
			if batches != nil {
				t.Errorf("DecodeBatches returned %d batches with an error", len(batches))
			}

			_, verr := VerifyBatch(bad)
			n, cerr := CountRecords(both)
			var s BatchScanner
			s.Reset(both)
			batchesSeen := 0
			for s.Next() {
				batchesSeen++
			}
			if tt.headerLevel {
				checkCorrupt(t, "VerifyBatch", verr, tt.want, tt.pos)
				checkCorrupt(t, "CountRecords", cerr, tt.want, len(valid)+tt.pos)
				if n != 0 {
					t.Errorf("CountRecords = %d with an error, want 0", n)
				}
				checkCorrupt(t, "BatchScanner.Err", s.Err(), tt.want, len(valid)+tt.pos)
				if batchesSeen != 1 || s.Pos() != len(valid) {
					t.Errorf("scanner saw %d batches and stopped at %d; want 1 and %d", batchesSeen, s.Pos(), len(valid))
				}
			} else {
				if verr != nil || cerr != nil || s.Err() != nil {
					t.Errorf("CRC-level checks rejected a record-level corruption: VerifyBatch %v, CountRecords %v, scanner %v", verr, cerr, s.Err())
				}
			}
		})
	}
}

func TestTruncatedAtEveryByte(t *testing.T) {
	full := codecHex(t, handBatchHex)
	for n := 0; n < len(full); n++ {
		cut := full[:n]
		_, err := VerifyBatch(cut)
		checkCorrupt(t, "VerifyBatch", err, ErrTruncated, 0)
		_, err = ReadBatchHeader(cut)
		checkCorrupt(t, "ReadBatchHeader", err, ErrTruncated, 0)
		_, _, err = DecodeBatch(cut)
		checkCorrupt(t, "DecodeBatch", err, ErrTruncated, 0)
		if n == 0 {
			continue
		}
		// A whole batch followed by a torn one: the torn tail is reported
		// at its start, and everything before it is intact.
		torn := append(append([]byte(nil), full...), cut...)
		_, err = DecodeBatches(torn)
		checkCorrupt(t, "DecodeBatches", err, ErrTruncated, len(full))
		_, err = CountRecords(torn)
		checkCorrupt(t, "CountRecords", err, ErrTruncated, len(full))
		var s BatchScanner
		s.Reset(torn)
		if !s.Next() || s.Pos() != 0 {
			t.Fatalf("cut %d: scanner missed the whole first batch", n)
		}
		if s.Next() {
			t.Fatalf("cut %d: scanner accepted a torn batch", n)
		}
		checkCorrupt(t, "BatchScanner.Err", s.Err(), ErrTruncated, len(full))
		if s.Pos() != len(full) {
			t.Fatalf("cut %d: scanner stopped at %d, want %d", n, s.Pos(), len(full))
		}
	}
}

func TestDecodeBatchIgnoresFollowingBytes(t *testing.T) {
	buf := append(codecHex(t, handBatchHex), 0xde, 0xad)
	_, n, err := DecodeBatch(buf)
	if err != nil || n != len(buf)-2 {
		t.Fatalf("DecodeBatch = size %d, %v; want %d, nil", n, err, len(buf)-2)
	}
}

func TestCompressedBatchIsNotCorrupt(t *testing.T) {
	b := codecHex(t, handBatchHex)
	binary.BigEndian.PutUint16(b[posAttributes:], 2) // snappy
	refreshCRC(b)
	if _, err := VerifyBatch(b); err != nil {
		t.Fatalf("VerifyBatch(compressed) = %v, want nil: the CRC and framing are fine", err)
	}
	if n, err := CountRecords(b); err != nil || n != 2 {
		t.Fatalf("CountRecords(compressed) = %d, %v; want 2, nil", n, err)
	}
	_, _, err := DecodeBatch(b) // no snappy decompressor in this package
	if !errors.Is(err, ErrUnsupportedCompression) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("DecodeBatch(compressed) = %v, want ErrUnsupportedCompression and not ErrCorrupt", err)
	}
	var ce *CorruptError
	if errors.As(err, &ce) {
		t.Fatalf("DecodeBatch(compressed) returned a *CorruptError")
	}
}

func TestCorruptErrorMessage(t *testing.T) {
	err := error(&CorruptError{Pos: 17, Err: ErrBadCRC})
	if got, want := err.Error(), "log: record batch CRC mismatch at byte 17"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if errors.Is(err, ErrBadMagic) {
		t.Fatalf("CorruptError matched a sentinel it does not wrap")
	}
}
