package log

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzDecodeBatch feeds arbitrary bytes to every decoder. None may panic;
// every failure must be a *CorruptError (or ErrUnsupportedCompression) with a position
// inside the input; and whatever DecodeBatch accepts must survive
// AppendBatch -> DecodeBatch unchanged, with the re-encoding a fixed point.
// Seeds live in testdata/fuzz/FuzzDecodeBatch.
func FuzzDecodeBatch(f *testing.F) {
	hand := codecHex(f, handBatchHex)
	f.Add(hand)
	f.Add(append(append([]byte(nil), hand...), hand...))
	f.Add(hand[:40])
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecoders(t, data)
		// Random mutations almost always break the CRC, which would keep
		// the fuzzer out of the record decoder; so also try the input with
		// every framed batch's CRC repaired.
		if fixed, ok := repairCRCs(data); ok {
			checkDecoders(t, fixed)
		}
	})
}

// repairCRCs returns a copy of data with the CRC of each batch that
// ReadBatchHeader accepts recomputed, and whether it changed anything.
func repairCRCs(data []byte) ([]byte, bool) {
	fixed := append([]byte(nil), data...)
	for pos := 0; pos < len(fixed); {
		h, err := ReadBatchHeader(fixed[pos:])
		if err != nil {
			break
		}
		refreshCRC(fixed[pos : pos+h.Size()])
		pos += h.Size()
	}
	return fixed, !bytes.Equal(fixed, data)
}

// checkDecoders runs every decoder on data and checks they agree.
func checkDecoders(t *testing.T, data []byte) {
	t.Helper()
	checkFuzzErr := func(what string, err error) {
		t.Helper()
		if errors.Is(err, ErrUnsupportedCompression) && !errors.Is(err, ErrCorrupt) {
			return
		}
		var ce *CorruptError
		if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: error %v is not a *CorruptError", what, err)
		}
		if ce.Pos < 0 || ce.Pos > len(data) {
			t.Fatalf("%s: Pos %d outside input of %d bytes", what, ce.Pos, len(data))
		}
	}

	b, n, err := DecodeBatch(data)
	// Decoding into a Batch that already holds records (and headers) must
	// agree with DecodeBatch exactly: same size, same error, same batch.
	reused := Batch{Records: []Record{{Key: []byte("stale"), Headers: []Header{{Key: "stale"}}}}}
	rn, rerr := reused.Decode(data)
	if (err == nil) != (rerr == nil) || rn != n || (err != nil && err.Error() != rerr.Error()) {
		t.Fatalf("Batch.Decode = %d, %v; DecodeBatch = %d, %v", rn, rerr, n, err)
	}
	if err == nil && !cmp.Equal(b, reused, cmpopts.EquateEmpty()) {
		t.Fatalf("Batch.Decode differs from DecodeBatch:\n%s", cmp.Diff(b, reused, cmpopts.EquateEmpty()))
	}
	if err != nil {
		checkFuzzErr("DecodeBatch", err)
	} else {
		if n < BatchHeaderSize || n > len(data) {
			t.Fatalf("DecodeBatch size %d for %d bytes", n, len(data))
		}
		if _, err := VerifyBatch(data); err != nil {
			t.Fatalf("DecodeBatch accepted what VerifyBatch rejects: %v", err)
		}
		if len(b.Records) > 0 { // AppendBatch refuses empty batches by design
			enc, err := AppendBatch(nil, &b)
			if err != nil {
				t.Fatalf("AppendBatch(decoded batch): %v", err)
			}
			b2, n2, err := DecodeBatch(enc)
			if err != nil || n2 != len(enc) {
				t.Fatalf("DecodeBatch(re-encoded) = size %d, %v", n2, err)
			}
			if !reflect.DeepEqual(b, b2) {
				t.Fatalf("re-encoded batch differs (-first +second):\n%s", cmp.Diff(b, b2))
			}
			enc2, err := AppendBatch(nil, &b2)
			if err != nil || !bytes.Equal(enc, enc2) {
				t.Fatalf("encoding is not a fixed point: %v", err)
			}
		}
	}

	batches, err := DecodeBatches(data)
	if err != nil {
		checkFuzzErr("DecodeBatches", err)
	}
	count, cerr := CountRecords(data)
	if cerr != nil {
		checkFuzzErr("CountRecords", cerr)
	}
	var s BatchScanner
	s.Reset(data)
	scanned, end := 0, 0
	for s.Next() {
		if s.Pos() != end || len(s.Bytes()) != s.Header().Size() {
			t.Fatalf("scanner batch at %d (want %d), %d bytes (header says %d)", s.Pos(), end, len(s.Bytes()), s.Header().Size())
		}
		end += len(s.Bytes())
		scanned += int(s.Header().RecordCount)
	}
	if s.Pos() != end {
		t.Fatalf("scanner stopped at %d after batches ending at %d", s.Pos(), end)
	}
	if (s.Err() == nil) != (cerr == nil) {
		t.Fatalf("scanner Err %v disagrees with CountRecords %v", s.Err(), cerr)
	}
	if s.Err() == nil {
		if end != len(data) || count != scanned {
			t.Fatalf("clean scan ended at %d of %d with %d records; CountRecords %d", end, len(data), scanned, count)
		}
	} else {
		checkFuzzErr("BatchScanner", s.Err())
	}
	if err == nil {
		// Every batch decoded, so every batch verified.
		if cerr != nil {
			t.Fatalf("DecodeBatches succeeded but CountRecords failed: %v", cerr)
		}
		total := 0
		for _, b := range batches {
			total += len(b.Records)
		}
		if total != count {
			t.Fatalf("DecodeBatches found %d records, CountRecords %d", total, count)
		}
	}
}
