package main

import (
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// profile is a CPU profile written during a row.
type profile struct {
	row, who, path string
}

// percentiles returns the p50 and p99 of lat.
func percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*99/100]
}

// median returns the median of xs (the lower middle for an even count).
func median[T float64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1e3) }

func rate(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2f M/s", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.0f k/s", r/1e3)
	}
	return fmt.Sprintf("%.0f /s", r)
}

func rates(rs []float64) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, rate(r))
	}
	return strings.Join(parts, ", ")
}

func durs(ds []time.Duration) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, us(d))
	}
	return strings.Join(parts, ", ")
}

func floats(xs []float64, format string) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf(format, x))
	}
	return strings.Join(parts, ", ")
}

// report prints the table.
func (b *bench) report() {
	cfg := b.cfg
	w := b.out
	pr := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	pr("")
	pr("kfakebench: kaenlog (controller + %d broker processes, RF 3, min ISR 2, client in the harness)", brokers)
	pr("vs the peer, franz-go's kfake (%d brokers, replicates nothing) driven by kgo in the harness;", brokers)
	pr("kfake's brokers run in the harness's process, in a child process of their own, or both, each measured (-peer).")
	pr("Everything over loopback TCP; defaults on both clients (acks=all, idempotent).")
	if cfg.many > 0 {
		pr("Produce rows: kaenlog's Producer.ProduceManyAsync, %d records a call (-kaenlog-many); kgo's Produce, one record a call.", cfg.many)
	} else {
		pr("Produce rows: kaenlog's Producer.ProduceAsync and kgo's Produce, one record a call.")
	}
	pr("%s %s/%s, %d CPUs; -records %d -record-bytes %d -duration %v -latency-records %d -count %d; medians of %d runs, interleaved",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cfg.records, cfg.recordBytes, cfg.duration, cfg.latencyRecords, cfg.count, cfg.count)
	pr("flags: %q", b.args)
	pr("uptime before: %s", b.loadBefore)
	pr("uptime after:  %s", b.loadAfter)
	pr("")
	var rtt time.Duration
	if len(b.rtt) > 0 {
		var p99 time.Duration
		rtt, p99 = percentiles(b.rtt)
		pr("raw TCP round trip (RTT), harness to another process over loopback, %d B ping-pong x %d: p50 %s, p99 %s", pingBytes, len(b.rtt), us(rtt), us(p99))
		pr("")
	}
	rt := func(d time.Duration) string {
		if rtt == 0 {
			return ""
		}
		return fmt.Sprintf(" (%.1f RTT)", float64(d)/float64(rtt))
	}
	if len(b.floorP50) > 0 {
		p50 := median(b.floorP50)
		pr("message floor, a commit's messages between 4 processes and nothing else (harness -> leader -> 2 followers -> leader -> harness; %d, %d, %d, %d B): p50 %s%s, p99 %s; each run p50 %s", floorProduceBytes, floorAnswerBytes, floorFetchBytes, floorResponseBytes, us(p50), rt(p50), us(median(b.floorP99)), durs(b.floorP50))
		if len(b.k.p50) > 0 {
			pr("kaenlog's p50 / the floor's: %.2fx", float64(median(b.k.p50))/float64(p50))
		}
		pr("")
	}
	head, line := "| measure | kaenlog |", "|---|---|"
	for _, ps := range b.peers {
		head += fmt.Sprintf(" %s | kaenlog / it |", ps.title())
		line += "---|---|"
	}
	pr("%s target |", head)
	pr("%s---|", line)
	row := func(measure, k string, peer func(ps *peerSide) (string, string), target string) {
		out := fmt.Sprintf("| %s | %s |", measure, k)
		for _, ps := range b.peers {
			v, r := peer(ps)
			out += fmt.Sprintf(" %s | %s |", v, r)
		}
		pr("%s %s |", out, target)
	}
	if len(b.k.produce) > 0 {
		k := median(b.k.produce)
		row(fmt.Sprintf("acks=all produce, %d-byte records, records/s", cfg.recordBytes), rate(k), func(ps *peerSide) (string, string) {
			p := median(ps.res.produce)
			return rate(p), fmt.Sprintf("%.2fx", k/p)
		}, ">= 5 M/s and >= 3x the peer")
	}
	if len(b.k.big) > 0 {
		k := median(b.k.big)
		row(fmt.Sprintf("the same, both producers with %d-byte batches", bigBatchBytes), rate(k), func(ps *peerSide) (string, string) {
			p := median(ps.res.big)
			return rate(p), fmt.Sprintf("%.2fx", k/p)
		}, "-")
	}
	if len(b.k.p50) > 0 {
		k, k99 := median(b.k.p50), median(b.k.p99)
		row("single-record acks=all commit, p50", us(k)+rt(k), func(ps *peerSide) (string, string) {
			p := median(ps.res.p50)
			return us(p) + rt(p), fmt.Sprintf("%.2fx", float64(k)/float64(p))
		}, "<= 3 RTT (~60 µs), at or below the peer")
		row("single-record acks=all commit, p99", us(k99)+rt(k99), func(ps *peerSide) (string, string) {
			p := median(ps.res.p99)
			return us(p) + rt(p), fmt.Sprintf("%.2fx", float64(k99)/float64(p))
		}, "-")
	}
	if len(b.k.consume) > 0 && len(b.local) > 0 {
		k, l := median(b.k.consume), median(b.local)
		row("consume, records/s", rate(k), func(ps *peerSide) (string, string) {
			p := median(ps.res.consume)
			return rate(p), fmt.Sprintf("%.2fx", k/p)
		}, "-")
		row("consume / one local log's read rate", fmt.Sprintf("%.2fx (local log %s)", k/l, rate(l)), func(ps *peerSide) (string, string) {
			return "-", "-"
		}, ">= 0.8x")
	}
	if len(b.allocs) > 0 {
		var cells []string
		if m, ok := b.marginal("BenchmarkProduce/records=1", "BenchmarkProduce/records=1000"); ok {
			cells = append(cells, fmt.Sprintf("produce %+.4f per extra record", m))
		}
		if m, ok := b.marginal("BenchmarkFetch/maxBytes=1/fastpath=true", "BenchmarkFetch/maxBytes=1048576/fastpath=true"); ok {
			cells = append(cells, fmt.Sprintf("fetch %+.4f", m))
		}
		for _, a := range b.allocs {
			if a.name == "BenchmarkAcksAllPipelined" {
				cells = append(cells, fmt.Sprintf("acks=all pipelined %.3f per record (%.0f per 1000-record request, whole process)", a.allocsOp/a.recordsOp, a.allocsOp))
			}
		}
		row("allocations per record, broker's produce and fetch paths", strings.Join(cells, "; "), func(*peerSide) (string, string) { return "-", "-" }, "0")
	}
	if len(b.tfloor) > 0 {
		f := median(b.tfloor)
		pr("")
		pr("throughput floor, the produce-big row's bytes (%d-byte frames, %d unanswered, %d B a record) through a leader and two fetching followers, pwrite and sendfile, nothing else, over raw TCP between 4 processes: %s", bigBatchBytes, streamInFlight, floorRecordSize(cfg.recordBytes), rate(f))
		if len(b.k.big) > 0 {
			pr("  kaenlog's produce-big row at %.2fx of it", median(b.k.big)/f)
		}
	}
	pr("")
	pr("each run, in order:")
	if len(b.k.produce) > 0 {
		pr("  kaenlog produce: %s", rates(b.k.produce))
		for _, ps := range b.peers {
			pr("  %s produce: %s", ps.title(), rates(ps.res.produce))
		}
	}
	if len(b.k.big) > 0 {
		pr("  kaenlog produce, %d-byte batches: %s", bigBatchBytes, rates(b.k.big))
		for _, ps := range b.peers {
			pr("  %s produce, %d-byte batches: %s", ps.title(), bigBatchBytes, rates(ps.res.big))
		}
	}
	if len(b.tfloor) > 0 {
		pr("  throughput floor: %s", rates(b.tfloor))
	}
	if len(b.k.p50) > 0 {
		pr("  kaenlog p50: %s; p99: %s", durs(b.k.p50), durs(b.k.p99))
		for _, ps := range b.peers {
			pr("  %s p50: %s; p99: %s", ps.title(), durs(ps.res.p50), durs(ps.res.p99))
		}
	}
	if len(b.k.consume) > 0 {
		pr("  kaenlog consume: %s", rates(b.k.consume))
		pr("  local log read:  %s (log.Open alone: %s)", rates(b.local), durs(b.localOpen))
		for _, ps := range b.peers {
			pr("  %s, kgo consume: %s", ps.title(), rates(ps.res.consume))
		}
	}
	if len(b.leaderCPU) > 0 {
		pr("")
		pr("cost per record in the produce row (CPU time by getrusage; mallocs by runtime.MemStats, whole process):")
		pr("  kaenlog leader broker:    %s CPU µs/record; %s mallocs/record", floats(b.leaderCPU, "%.2f"), floats(b.leaderAllocs, "%.3f"))
		pr("  kaenlog follower brokers: %s CPU µs/record; %s mallocs/record", floats(b.followerCPU, "%.2f"), floats(b.followerAllocs, "%.3f"))
		pr("  kaenlog client (harness): %s CPU µs/record", floats(b.clientCPU, "%.2f"))
		var total []float64
		for i := range b.leaderCPU {
			t := b.leaderCPU[i] + b.clientCPU[i]
			for _, f := range b.followerCPU[i*(brokers-1) : (i+1)*(brokers-1)] {
				t += f
			}
			total = append(total, t)
		}
		pr("  kaenlog, brokers and client together: %s CPU µs/record", floats(total, "%.2f"))
		for _, ps := range b.peers {
			pr("  %s, kfake + kgo: %s CPU µs/record", ps.title(), floats(ps.cpu, "%.2f"))
		}
	}
	if len(b.leaderSyscalls) > 0 {
		var l, f []string
		for _, x := range b.leaderSyscalls {
			l = append(l, fmt.Sprintf("%.1f+%.1f", x[0], x[1]))
		}
		for _, x := range b.followerSyscalls {
			f = append(f, fmt.Sprintf("%.1f+%.1f", x[0], x[1]))
		}
		pr("")
		pr("system calls per single-record commit in the latency row, reads+writes (/proc/PID/io syscr, syscw; writes include the log's pwrite):")
		pr("  kaenlog leader broker:    %s", strings.Join(l, ", "))
		pr("  kaenlog follower brokers: %s", strings.Join(f, ", "))
	}
	if len(b.latLeaderCPU) > 0 {
		var total []float64
		for i := range b.latLeaderCPU {
			t := b.latLeaderCPU[i] + b.latClientCPU[i]
			for _, f := range b.latFollowerCPU[i*(brokers-1) : (i+1)*(brokers-1)] {
				t += f
			}
			total = append(total, t)
		}
		pr("")
		pr("CPU time per single-record commit in the latency row (getrusage in each process; the client is the harness's whole process):")
		pr("  kaenlog leader broker:    %s µs", floats(b.latLeaderCPU, "%.1f"))
		pr("  kaenlog follower brokers: %s µs", floats(b.latFollowerCPU, "%.1f"))
		pr("  kaenlog client (harness): %s µs", floats(b.latClientCPU, "%.1f"))
		pr("  together: %s µs, on %d CPUs at least %s µs of wall time a commit if they never waited for each other", floats(total, "%.1f"), runtime.NumCPU(), floats(divide(total, float64(runtime.NumCPU())), "%.1f"))
	}
	if len(b.allocs) > 0 || b.allocsErr != nil {
		pr("")
		pr("allocations on the broker's paths: cd %s && %s", b.repo, strings.Join(allocBench, " "))
		pr("(allocs/op is the whole test process's per request: raw client, host, brokers, controller)")
		pr("| benchmark | allocs/op | records/op | allocs/record |")
		pr("|---|---|---|---|")
		for _, a := range b.allocs {
			pr("| %s | %.0f | %.0f (%s) | %.4f |", a.name, a.allocsOp, a.recordsOp, a.derivation, a.allocsOp/a.recordsOp)
		}
		if b.allocsErr != nil {
			pr("allocs row failed: %v", b.allocsErr)
		}
	}
	if len(b.profiles) > 0 {
		pr("")
		pr("CPU profiles (an extra kaenlog run before the counted ones, its figures not counted):")
		for _, p := range b.profiles {
			pr("  %s, %s: %s", p.row, p.who, p.path)
		}
		for _, p := range b.profiles {
			if !strings.Contains(p.who, "leader") && !(p.row == "produce" && strings.Contains(p.who, "harness")) {
				continue
			}
			out, err := exec.Command("go", "tool", "pprof", "-top", "-cum", "-nodecount=30", p.path).CombinedOutput()
			pr("")
			pr("--- go tool pprof -top -cum -nodecount=30 %s  (%s, %s)", p.path, p.row, p.who)
			if err != nil {
				pr("pprof: %v", err)
			}
			pr("%s", strings.TrimSpace(string(out)))
		}
	}
}

// marginal is what one more record in a request costs in allocations,
// between the benchmarks named few and many: the difference of their
// allocs/op over the difference of their records/op.
func (b *bench) marginal(few, many string) (float64, bool) {
	var f, m *allocLine
	for i := range b.allocs {
		switch b.allocs[i].name {
		case few:
			f = &b.allocs[i]
		case many:
			m = &b.allocs[i]
		}
	}
	if f == nil || m == nil || m.recordsOp == f.recordsOp {
		return 0, false
	}
	return (m.allocsOp - f.allocsOp) / (m.recordsOp - f.recordsOp), true
}

// divide returns each of xs divided by d.
func divide(xs []float64, d float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x / d
	}
	return out
}
