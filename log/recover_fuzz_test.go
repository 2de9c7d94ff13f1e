package log

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// stFuzzPrefix returns n valid batches: batch i holds 2 records with 16-byte
// values at offsets 2i and 2i+1. The seed corpus in
// testdata/fuzz/FuzzRecover was written against exactly this layout.
func stFuzzPrefix(t testing.TB, n int) []byte {
	var out []byte
	for i := range n {
		out = append(out, stBatch(t, uint64(2*i), 2, 16, int64(1000+i))...)
	}
	return out
}

// stValidPrefix is the recovery rule written plainly for a segment based at
// 0 with no leader-epoch checkpoint: the longest run of batches from the
// start that verify, each starting exactly where the previous one ended,
// with base offsets that fit the index's 32-bit relative offsets, a last
// offset below MaxInt64, and epochs >= 0 that never decrease.
func stValidPrefix(data []byte) (n int, leo uint64) {
	prevEpoch := int32(0)
	for pos := 0; pos < len(data); {
		h, err := VerifyBatch(data[pos:])
		if err != nil || h.BaseOffset != leo || h.BaseOffset > math.MaxUint32 || h.LastOffset() == math.MaxInt64 ||
			h.PartitionLeaderEpoch < prevEpoch || pos+h.Size() > math.MaxUint32 {
			break
		}
		pos += h.Size()
		n, leo, prevEpoch = pos, h.NextOffset(), h.PartitionLeaderEpoch
	}
	return n, leo
}

// stOpenForFuzz opens dir, fails on error, and closes the files without the
// checkpoint's fsyncs when the test ends, to keep fuzzing fast.
func stOpenForFuzz(t *testing.T, dir string, opts Options) *Log {
	l, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { l.closeFiles() })
	return l
}

// FuzzRecover writes validBatches%5 valid batches followed by arbitrary
// bytes as the only segment, opens the log, and checks that it does not
// panic and that exactly the valid prefix survives, in memory and on disk.
func FuzzRecover(f *testing.F) {
	f.Add([]byte{}, uint8(3))
	f.Add([]byte("torn"), uint8(1))
	f.Add(stFuzzPrefix(f, 2), uint8(0))
	f.Fuzz(func(t *testing.T, tail []byte, validBatches uint8) {
		data := append(stFuzzPrefix(t, int(validBatches%5)), tail...)
		dir := t.TempDir()
		stWriteFile(t, stSeg(dir, 0, segmentSuffix), data)
		wantLen, wantLEO := stValidPrefix(data)

		l := stOpenForFuzz(t, dir, Options{IndexIntervalBytes: 100})
		if l.EndOffset() != wantLEO || l.HighWatermark() != 0 || l.StartOffset() != 0 {
			t.Fatalf("LEO, HW, start = %d, %d, %d; want %d, 0, 0", l.EndOffset(), l.HighWatermark(), l.StartOffset(), wantLEO)
		}
		got, err := l.Read(nil, 0, len(data)+1, IsolationLogEnd)
		if err != nil || !bytes.Equal(got, data[:wantLen]) {
			t.Fatalf("read back %d bytes (%v), want the %d-byte valid prefix", len(got), err, wantLen)
		}
		if onDisk := stReadFile(t, stSeg(dir, 0, segmentSuffix)); !bytes.Equal(onDisk, data[:wantLen]) {
			t.Fatalf("segment file is %d bytes, want the %d-byte valid prefix", len(onDisk), wantLen)
		}
		if idx := stReadFile(t, stSeg(dir, 0, indexSuffix)); !bytes.Equal(idx, stIndexFor(0, stSplit(t, data[:wantLen]), 100)) {
			t.Fatalf("index %x does not match the valid prefix", idx)
		}
		// The recovered log takes appends at its end.
		if base, err := l.AppendAsLeader(stBatch(t, 0, 1, 1, 1), 0); err != nil || base.FirstOffset != wantLEO {
			t.Fatalf("append after recovery = %d, %v; want %d", base.FirstOffset, err, wantLEO)
		}
	})
}

// FuzzRecoverIndex stores arbitrary bytes as the index of a valid segment:
// Open must rebuild it, lose nothing, and serve every offset.
func FuzzRecoverIndex(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 2, 0, 0, 0, 89})
	f.Add(bytes.Repeat([]byte{0xff}, 24))
	f.Fuzz(func(t *testing.T, index []byte) {
		data := stFuzzPrefix(t, 8)
		dir := t.TempDir()
		stWriteFile(t, stSeg(dir, 0, segmentSuffix), data)
		stWriteFile(t, stSeg(dir, 0, indexSuffix), index)
		l := stOpenForFuzz(t, dir, Options{IndexIntervalBytes: 150})
		if want := stIndexFor(0, stSplit(t, data), 150); !bytes.Equal(stReadFile(t, stSeg(dir, 0, indexSuffix)), want) {
			t.Fatal("index not rebuilt")
		}
		for off := uint64(0); off < 16; off++ {
			got, err := l.Read(nil, off, 1, IsolationLogEnd)
			if err != nil || len(got) == 0 {
				t.Fatalf("Read(%d) = %d bytes, %v", off, len(got), err)
			}
			if h, _ := VerifyBatch(got); h.BaseOffset != off&^1 {
				t.Fatalf("Read(%d) returned the batch at %d", off, h.BaseOffset)
			}
		}
	})
}

// stCheckpointGrammar is the checkpoint format as a regular expression.
var stCheckpointGrammar = regexp.MustCompile(`\A0\n([0-9]+)\n?\z`)

// FuzzRecoverCheckpoint stores arbitrary bytes as the HW checkpoint of a log
// with LEO 6: Open must either fail with ErrBadCheckpoint or load a value
// that the format allows, clamped to the LEO. Never a panic.
func FuzzRecoverCheckpoint(f *testing.F) {
	for _, s := range []string{"0\n4\n", "0\n100\n", "", "0\n", "1\n2\n", "0\n-1\n", "0\n99999999999999999999\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, checkpoint []byte) {
		dir := t.TempDir()
		stWriteFile(t, stSeg(dir, 0, segmentSuffix), stFuzzPrefix(t, 3))
		stWriteFile(t, filepath.Join(dir, checkpointFileName), checkpoint)
		valid, want := false, uint64(0)
		if m := stCheckpointGrammar.FindSubmatch(checkpoint); m != nil {
			if v, err := strconv.ParseInt(string(m[1]), 10, 64); err == nil {
				valid, want = true, min(uint64(v), 6)
			}
		}
		l, err := Open(dir, Options{})
		if !valid {
			if !errors.Is(err, ErrBadCheckpoint) || l != nil {
				t.Fatalf("Open(%q) = %v, want ErrBadCheckpoint", checkpoint, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Open(%q) = %v", checkpoint, err)
		}
		defer l.closeFiles()
		if l.HighWatermark() != want {
			t.Fatalf("HW = %d, want %d", l.HighWatermark(), want)
		}
	})
}
