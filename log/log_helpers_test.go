package log

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// Helpers shared by the storage tests. Names start with "st" so they cannot
// collide with the codec tests in the same package.

// stRecords returns n records whose values are vsize bytes; key(i) gives the
// key of record i (nil key when key is nil).
func stRecords(n, vsize int, key func(i int) []byte) []Record {
	recs := make([]Record, n)
	for i := range recs {
		v := make([]byte, vsize)
		for j := range v {
			v[j] = byte('a' + (i+j)%26)
		}
		recs[i] = Record{TimestampDelta: int64(i), OffsetDelta: int32(i), Value: v}
		if key != nil {
			recs[i].Key = key(i)
		}
	}
	return recs
}

// stBatch encodes one producer-style batch of n records at base offset base
// with timestamps ts, ts+1, ...
func stBatch(t testing.TB, base uint64, n, vsize int, ts int64) []byte {
	t.Helper()
	return stBatchOf(t, base, ts, stRecords(n, vsize, nil))
}

// stBatchOf encodes recs (offset deltas as given) as one batch.
func stBatchOf(t testing.TB, base uint64, ts int64, recs []Record) []byte {
	t.Helper()
	maxTs := ts
	for _, r := range recs {
		maxTs = max(maxTs, ts+r.TimestampDelta)
	}
	b := Batch{
		BaseOffset:    base,
		BaseTimestamp: ts,
		MaxTimestamp:  maxTs,
		ProducerID:    -1,
		ProducerEpoch: -1,
		BaseSequence:  -1,
		Records:       recs,
	}
	out, err := AppendBatch(nil, &b)
	if err != nil {
		t.Fatalf("AppendBatch: %v", err)
	}
	return out
}

// stOpen opens a log and closes it when the test ends (a test may close it
// itself first).
func stOpen(t testing.TB, dir string, opts Options) *Log {
	t.Helper()
	l, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("Close: %v", err)
		}
	})
	return l
}

// stClose closes l, failing the test on error.
func stClose(t testing.TB, l *Log) {
	t.Helper()
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// stAppendLeader appends n batches of records per batch, failing on error,
// and returns the bytes as stored.
func stAppendLeader(t testing.TB, l *Log, batches, records, vsize int, ts int64) []byte {
	t.Helper()
	var all []byte
	for range batches {
		b := stBatch(t, 0, records, vsize, ts)
		if _, err := l.AppendAsLeader(b, 7); err != nil {
			t.Fatalf("AppendAsLeader: %v", err)
		}
		all = append(all, b...)
	}
	return all
}

// stReadAll reads everything from StartOffset up to the isolation bound.
func stReadAll(t testing.TB, l *Log, iso Isolation) []byte {
	t.Helper()
	out, err := l.Read(nil, l.StartOffset(), 1<<30, iso)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return out
}

// stHeaders verifies every batch in buf and returns their headers.
func stHeaders(t testing.TB, buf []byte) []BatchHeader {
	t.Helper()
	var hs []BatchHeader
	for pos := 0; pos < len(buf); {
		h, err := VerifyBatch(buf[pos:])
		if err != nil {
			t.Fatalf("batch at byte %d: %v", pos, err)
		}
		hs = append(hs, h)
		pos += h.Size()
	}
	return hs
}

// stSegmentFiles lists the segment log files in dir.
func stSegmentFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"+segmentSuffix))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

// stWriteFile writes a file, failing the test on error.
func stWriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// stReadFile reads a file, failing the test on error.
func stReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stSeg returns the path of a segment file in dir.
func stSeg(dir string, base uint64, suffix string) string {
	return filepath.Join(dir, segmentName(base, suffix))
}

// stOffsets summarizes batches as "base-last" ranges, for readable diffs.
func stOffsets(hs []BatchHeader) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = fmt.Sprintf("%d-%d", h.BaseOffset, h.LastOffset())
	}
	return out
}

// readCheckpoint reads the HW checkpoint in dir on the real file system.
func readCheckpoint(dir string) (uint64, bool, error) {
	return readOffsetCheckpoint(vfs.OS(), dir, checkpointFileName)
}

// second returns the second of two values: the error of a call that also
// returns an AppendInfo.
func second[T any](_ T, err error) error { return err }

// stUnflush makes dir look as a process that appended without ever
// flushing leaves it: no clean-shutdown marker and no recovery point, so
// Open verifies every segment and every cut is a torn write. Tests that
// build a log, close it, and then damage its files the way a crash would
// use it: a crash cannot tear what was flushed.
func stUnflush(t testing.TB, dir string) {
	t.Helper()
	for _, name := range []string{cleanShutdownFileName, recoveryPointFileName} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}
