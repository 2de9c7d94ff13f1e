package log

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestBatchScannerWalksBatches(t *testing.T) {
	const seed = 5
	rng := rand.New(rand.NewPCG(seed, 3))
	var buf []byte
	var starts []int
	for range 6 {
		starts = append(starts, len(buf))
		var err error
		if buf, err = AppendBatch(buf, randomBatch(rng)); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	var s BatchScanner
	for round := range 2 { // the second round checks that Reset forgets the end state
		s.Reset(buf)
		i := 0
		for s.Next() {
			if i >= len(starts) || s.Pos() != starts[i] {
				t.Fatalf("seed %d round %d: batch %d at %d, want %v", seed, round, i, s.Pos(), starts)
			}
			end := len(buf)
			if i+1 < len(starts) {
				end = starts[i+1]
			}
			if !bytes.Equal(s.Bytes(), buf[starts[i]:end]) || cap(s.Bytes()) != len(s.Bytes()) {
				t.Fatalf("seed %d round %d: Bytes() of batch %d wrong or not clipped", seed, round, i)
			}
			want, err := VerifyBatch(buf[starts[i]:])
			if err != nil || s.Header() != want {
				t.Fatalf("seed %d round %d: Header() = %+v, VerifyBatch = %+v, %v", seed, round, s.Header(), want, err)
			}
			i++
		}
		if i != len(starts) || s.Err() != nil || s.Pos() != len(buf) {
			t.Fatalf("seed %d round %d: saw %d batches, Err %v, Pos %d; want %d, nil, %d", seed, round, i, s.Err(), s.Pos(), len(starts), len(buf))
		}
		if s.Bytes() != nil || s.Header() != (BatchHeader{}) || s.Next() {
			t.Fatalf("seed %d round %d: scanner not empty after the end", seed, round)
		}
	}
}

func TestBatchScannerStopsAtCorruptBatch(t *testing.T) {
	one := codecHex(t, handBatchHex)
	buf := bytes.Repeat(one, 3)
	buf[2*len(one)-5] ^= 0xff // inside the second batch
	var s BatchScanner
	s.Reset(buf)
	n := 0
	for s.Next() {
		n++
	}
	checkCorrupt(t, "Err", s.Err(), ErrBadCRC, len(one)+posCRC)
	if n != 1 || s.Pos() != len(one) {
		t.Fatalf("saw %d batches, stopped at %d; want 1, %d", n, s.Pos(), len(one))
	}
	if s.Next() || s.Pos() != len(one) {
		t.Fatalf("Next after an error moved the scanner")
	}
}

func TestBatchScannerZeroValue(t *testing.T) {
	var s BatchScanner
	if s.Next() || s.Err() != nil || s.Pos() != 0 || s.Bytes() != nil {
		t.Fatalf("zero BatchScanner is not an empty scan")
	}
}
