package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/log"
)

var update = flag.Bool("update", false, "rewrite testdata/dump.golden from the command's output")

// buildLog writes a deterministic, cleanly closed log: plain batches, a
// keyed batch with headers, an idempotent producer's batches, two leader
// epochs, over three segments.
func buildLog(t *testing.T, dir string) {
	t.Helper()
	l, err := log.Open(dir, log.Options{SegmentBytes: 250, IndexIntervalBytes: 128})
	if err != nil {
		t.Fatal(err)
	}
	ts := int64(1_700_000_000_000)
	appendBatch := func(epoch int32, b log.Batch) {
		t.Helper()
		b.BaseTimestamp = ts
		b.MaxTimestamp = ts + int64(len(b.Records)-1)
		b.SetSequentialOffsetDeltas()
		for i := range b.Records {
			b.Records[i].TimestampDelta = int64(i)
		}
		enc, err := log.AppendBatch(nil, &b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.AppendAsLeader(enc, epoch); err != nil {
			t.Fatal(err)
		}
		ts += 10
	}
	plain := func(n int) log.Batch {
		b := log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}
		for i := range n {
			b.Records = append(b.Records, log.Record{Value: fmt.Appendf(nil, "value-%d", i)})
		}
		return b
	}
	for range 3 {
		appendBatch(7, plain(3))
	}
	keyed := plain(2)
	for i := range keyed.Records {
		keyed.Records[i].Key = fmt.Appendf(nil, "k-%d", i)
		keyed.Records[i].Headers = []log.Header{{Key: "trace", Value: fmt.Appendf(nil, "t%d", i)}, {Key: "null"}}
	}
	appendBatch(7, keyed)
	for seq := int32(0); seq < 4; seq += 2 {
		b := plain(2)
		b.ProducerID, b.ProducerEpoch, b.BaseSequence = 1000, 0, seq
		appendBatch(8, b)
	}
	appendBatch(8, plain(1))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// dirHash hashes every name, size, mtime and byte in dir.
func dirHash(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d %s %x\n", e.Name(), info.Size(), info.ModTime(), sha256.Sum256(data))
	}
	return fmt.Sprintf("%d files %x", len(entries), h.Sum(nil))
}

// runDump runs the command on args, checks that dir is byte-identical
// afterwards, and returns what it printed, dir replaced by "DIR".
func runDump(t *testing.T, dir string, args ...string) string {
	t.Helper()
	before := dirHash(t, dir)
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	if after := dirHash(t, dir); after != before {
		t.Errorf("dumplog %q changed the directory: %s -> %s", args, before, after)
	}
	if stderr.Len() > 0 {
		t.Errorf("dumplog %q: stderr %q", args, stderr.String())
	}
	out := strings.ReplaceAll(stdout.String(), dir, "DIR")
	return fmt.Sprintf("$ dumplog %s\n%sexit %d\n\n", strings.ReplaceAll(strings.Join(args, " "), dir, "DIR"), out, code)
}

func TestDumpPrintsBatchesRecordsAndDamageAndLeavesTheDirectoryByteIdentical(t *testing.T) {
	dir := t.TempDir()
	buildLog(t, dir)
	segs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(segs) < 3 {
		t.Fatalf("want 3 segments or more, got %q", segs)
	}
	var got strings.Builder
	got.WriteString(runDump(t, dir, dir))
	got.WriteString(runDump(t, dir, "-print-values", segs[1]))
	got.WriteString(runDump(t, dir, "-records", "-from", "10", "-max", "2", dir))

	// A torn tail, a missing index and a leftover: reported, nothing cut,
	// rebuilt or deleted.
	if err := os.WriteFile(filepath.Join(dir, "recovery-point-offset-checkpoint.tmp"), []byte("0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(segs[len(segs)-1], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("torn write")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Remove(strings.TrimSuffix(segs[0], ".log") + ".index"); err != nil {
		t.Fatal(err)
	}
	got.WriteString(runDump(t, dir, dir))

	// A flipped bit in a flushed batch: damage below the recovery point.
	data, err := os.ReadFile(segs[1])
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-2] ^= 1
	if err := os.WriteFile(segs[1], data, 0o644); err != nil {
		t.Fatal(err)
	}
	got.WriteString(runDump(t, dir, "-records", dir))

	golden := filepath.Join("testdata", "dump.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (regenerate with -update)", err)
	}
	if got.String() != string(want) {
		t.Errorf("output differs from %s (regenerate with -update):\n%s", golden, got.String())
	}
}

func TestDumpRefusesAFileThatIsNotASegment(t *testing.T) {
	dir := t.TempDir()
	buildLog(t, dir)
	var stdout, stderr bytes.Buffer
	if code := run([]string{filepath.Join(dir, "high-watermark-checkpoint")}, &stdout, &stderr); code != exitError {
		t.Errorf("exit %d, want %d; stderr %q", code, exitError, stderr.String())
	}
	if code := run(nil, &stdout, &stderr); code != exitError {
		t.Errorf("no arguments: exit %d, want %d", code, exitError)
	}
}
