package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kaenlog/kaenlog/log"
)

// allocBench is the command the allocation row runs, in the kaenlog
// module's directory: the broker benchmarks of replica/server, which
// report allocs/op for the whole process (client, host, brokers).
var allocBench = []string{"go", "test", "-run", "^$",
	"-bench", "^Benchmark(Produce|Fetch|AcksAllPipelined)$", "-benchtime", "1s", "./replica/server"}

// allocLine is one benchmark's result.
type allocLine struct {
	name       string
	allocsOp   float64
	recordsOp  float64
	nsOp       float64
	derivation string // how recordsOp was found
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// runAllocBench runs allocBench in repo and returns its lines, with the
// records each operation carries.
func runAllocBench(repo string, timeout time.Duration) ([]allocLine, string, error) {
	cmd := exec.Command(allocBench[0], allocBench[1:]...)
	cmd.Dir = repo
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return nil, out.String(), fmt.Errorf("%s: %w", strings.Join(allocBench, " "), err)
		}
	case <-time.After(timeout):
		cmd.Process.Kill()
		<-done
		return nil, out.String(), fmt.Errorf("%s: not done within %v", strings.Join(allocBench, " "), timeout)
	}
	lines, err := parseAllocBench(out.String())
	return lines, out.String(), err
}

// parseAllocBench picks the broker benchmarks' lines out of go test's
// output, with the records each operation carries.
func parseAllocBench(out string) ([]allocLine, error) {
	fetchRecords, err := fetchRecordsPerMiB()
	if err != nil {
		return nil, err
	}
	var lines []allocLine
	for _, l := range strings.Split(out, "\n") {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		a := allocLine{name: m[1]}
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			v, _ := strconv.ParseFloat(f[i], 64)
			switch f[i+1] {
			case "allocs/op":
				a.allocsOp = v
			case "ns/op":
				a.nsOp = v
			}
		}
		switch {
		case strings.HasPrefix(a.name, "BenchmarkProduce/records="):
			n, _ := strconv.Atoi(strings.TrimPrefix(a.name, "BenchmarkProduce/records="))
			a.recordsOp, a.derivation = float64(n), "one batch of n records a request"
		case strings.HasPrefix(a.name, "BenchmarkFetch/maxBytes=1/"):
			a.recordsOp, a.derivation = 1000, "the first batch, 1000 records (minOneMessage)"
		case strings.HasPrefix(a.name, "BenchmarkFetch/maxBytes=1048576/"):
			a.recordsOp, a.derivation = float64(fetchRecords), fmt.Sprintf("%d whole 1000-record batches in 1 MiB", fetchRecords/1000)
		case a.name == "BenchmarkAcksAllPipelined":
			a.recordsOp, a.derivation = 1000, "one 1000-record batch a request"
		default:
			continue
		}
		lines = append(lines, a)
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no benchmark lines", strings.Join(allocBench, " "))
	}
	return lines, nil
}

// fetchRecordsPerMiB is how many records BenchmarkFetch's 1 MiB fetch
// carries: the whole batches of 1000 100-byte records (its recordsOf)
// that fit in 1 MiB.
func fetchRecordsPerMiB() (int, error) {
	recs := make([]log.Record, 1000)
	v := []byte(strings.Repeat("x", 100))
	for i := range recs {
		recs[i] = log.Record{OffsetDelta: int32(i), Value: v}
	}
	b, err := log.AppendBatch(nil, &log.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs})
	if err != nil {
		return 0, err
	}
	return (1 << 20) / len(b) * 1000, nil
}
