package main

import (
	"io"
	"testing"
)

// TestInvalidFlagsExit2: an invalid flag or value is refused with exit
// status 2 before anything starts, as the repository's commands do.
func TestInvalidFlagsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"-rows", "throughput"},
		{"-rows", ","},
		{"-records", "0"},
		{"-count", "0"},
		{"-kaenlog-many", "-1"},
		{"-record-bytes", "-1"},
		{"-duration", "0s"},
		{"-node-gomaxprocs", "-1"},
		{"-kgo-compression", "snappy"},
		{"-kgo-compression", ""},
		{"-kgo=maybe"},
		{"-kgo-values", "zeros"},
		{"-no-such-flag"},
		{"extra"},
	} {
		if c, status := parseFlags(args, io.Discard); c != nil || status != 2 {
			t.Errorf("parseFlags(%q) = %v, %d; want nil, 2", args, c, status)
		}
	}
}

// TestConsumeNeedsProduce: the consume row reads back what the produce
// row wrote, so asking for it runs both.
func TestConsumeNeedsProduce(t *testing.T) {
	c, status := parseFlags([]string{"-rows", "consume"}, io.Discard)
	if c == nil {
		t.Fatalf("parseFlags: status %d", status)
	}
	if !c.rows["produce"] || !c.rows["consume"] || c.rows["latency"] || c.rows["allocs"] {
		t.Errorf("rows = %v, want produce and consume", c.rows)
	}
}

// TestAllocBenchRecordsPerOp: the allocation row divides each broker
// benchmark's allocs/op by the records its operation carries.
func TestAllocBenchRecordsPerOp(t *testing.T) {
	out := `goos: linux
BenchmarkProduce/records=1-2         	   20000	     60000 ns/op	   1.4 MB/s	  25.0 cpu-µs/op	    2000 B/op	      20 allocs/op
BenchmarkProduce/records=1000-2      	    2000	    600000 ns/op	 180 MB/s	  250 cpu-µs/op	    2000 B/op	      20 allocs/op
BenchmarkFetch/maxBytes=1/fastpath=true-2 	 10000	 100000 ns/op	 1000 MB/s	 50 cpu-µs/op	 3000 B/op	 20 allocs/op
BenchmarkAcksAllPipelined-2          	    1000	   1000000 ns/op	 100 MB/s	 500 cpu-µs/op	   9000 B/op	      69 allocs/op
PASS
`
	lines, err := parseAllocBench(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{ // allocs/op, records/op
		"BenchmarkProduce/records=1":              {20, 1},
		"BenchmarkProduce/records=1000":           {20, 1000},
		"BenchmarkFetch/maxBytes=1/fastpath=true": {20, 1000},
		"BenchmarkAcksAllPipelined":               {69, 1000},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(lines), len(want), lines)
	}
	for _, l := range lines {
		if w, ok := want[l.name]; !ok || l.allocsOp != w[0] || l.recordsOp != w[1] {
			t.Errorf("%s: %v allocs/op, %v records/op; want %v", l.name, l.allocsOp, l.recordsOp, w)
		}
	}
	b := &bench{allocs: lines}
	if m, ok := b.marginal("BenchmarkProduce/records=1", "BenchmarkProduce/records=1000"); !ok || m != 0 {
		t.Errorf("marginal = %v, %v; want 0, true", m, ok)
	}
}

// TestLocalBatchFills: the local log's batches are as full as the
// producer's: the most records that fit in the batch size, and one at
// least.
func TestLocalBatchFills(t *testing.T) {
	value := make([]byte, 100)
	for _, size := range []int{16384, bigBatchBytes, 50} {
		b, n, err := localBatch(value, size)
		if err != nil {
			t.Fatal(err)
		}
		if n < 1 || (len(b) > size && n != 1) {
			t.Errorf("batch size %d: %d records in %d bytes", size, n, len(b))
		}
		// Room for one more record (about 110 bytes) takes one more.
		if _, more, err := localBatch(value, len(b)+120); err != nil || more != n+1 {
			t.Errorf("batch size %d: %d records in %d bytes, but %d in %d bytes (%v)", size, n, len(b), more, len(b)+120, err)
		}
	}
}

// TestKgoModeFlags: -kgo selects the kgo comparison, with kgo's default
// compression unless -kgo-compression none turns it off.
func TestKgoModeFlags(t *testing.T) {
	c, status := parseFlags([]string{"-kgo"}, io.Discard)
	if c == nil {
		t.Fatalf("parseFlags(-kgo): status %d", status)
	}
	if c.kgoValues != "random" {
		t.Errorf("-kgo: values %q, want random", c.kgoValues)
	}
	if !c.kgo || c.kgoCompression != "default" || len(c.kgoOpts()) != 0 {
		t.Errorf("-kgo: kgo %v, compression %q, %d extra kgo options; want true, default, 0", c.kgo, c.kgoCompression, len(c.kgoOpts()))
	}
	c, status = parseFlags([]string{"-kgo", "-kgo-compression", "none"}, io.Discard)
	if c == nil {
		t.Fatalf("parseFlags(-kgo -kgo-compression none): status %d", status)
	}
	if c.kgoCompression != "none" || len(c.kgoOpts()) != 1 {
		t.Errorf("-kgo-compression none: compression %q, %d extra kgo options; want none, 1", c.kgoCompression, len(c.kgoOpts()))
	}
	if c, _ := parseFlags([]string{"-kgo", "-kgo-values", "repeated"}, io.Discard); c == nil || c.kgoValues != "repeated" {
		t.Errorf("-kgo-values repeated: not taken")
	}
	if c, _ := parseFlags(nil, io.Discard); c == nil || c.kgo {
		t.Errorf("no flags: kgo mode on, want the rows")
	}
}
