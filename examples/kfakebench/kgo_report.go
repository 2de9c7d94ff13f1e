package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// spread is "median (min-max)" of xs in format f.
func spread[T float64 | time.Duration](xs []T, f func(T) string) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (%s to %s)", f(median(xs)), f(slices.Min(xs)), f(slices.Max(xs)))
}

// ratioOf is the ratio of the medians of a and b.
func ratioOf[T float64 | time.Duration](a, b []T) string {
	if len(a) == 0 || len(b) == 0 || median(b) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", float64(median(a))/float64(median(b)))
}

// reportKgo prints the -kgo mode's table.
func (b *bench) reportKgo() {
	cfg := b.cfg
	w := b.out
	k, f := b.kgoSides[0], b.kgoSides[1]
	comp := "kgo's default compression (snappy)"
	if cfg.kgoCompression == "none" {
		comp = "compression off (-kgo-compression none)"
	}
	vals := "4096 different random values in turn (-kgo-values random: no codec shrinks them)"
	if cfg.kgoValues == "repeated" {
		vals = "one repeated alphabet value (-kgo-values repeated)"
	}
	fmt.Fprintf(w, "kgo with its defaults (acks=all, idempotent, linger 10 ms, batches up to 1000012 bytes), %s, %s, %d records of %d bytes a produce run, %d single-record produces a latency run, %d runs a side, interleaved\n", comp, vals, cfg.records, cfg.recordBytes, cfg.latencyRecords, cfg.count)
	fmt.Fprintf(w, "kaenlog: a controller and %d broker processes with Kafka listeners, RF 3, min ISR 2, data on disk; kfake: %d brokers in one child process, replicating nothing\n", brokers, brokers)
	fmt.Fprintf(w, "uptime before: %s\nuptime after:  %s\n", b.loadBefore, b.loadAfter)
	fmt.Fprintf(w, "disk write rate (dd bs=1M count=512 conv=fdatasync): %.0f MB/s before the runs, %.0f MB/s after\n", b.diskBefore/1e6, b.diskAfter/1e6)
	disk := min(b.diskBefore, b.diskAfter)
	fmt.Fprintf(w, "page cache dirty thresholds (estimated from MemAvailable): background %d MB, throttling from %d MB, limit %d MB\n\n", b.dirty.background>>20, b.dirty.freerun>>20, b.dirty.limit>>20)

	mr := func(x float64) string { return rate(x) }
	mu := func(d time.Duration) string { return us(d) }
	mc := func(x float64) string { return fmt.Sprintf("%.3f µs", x) }
	fmt.Fprintln(w, "| measure | kaenlog, median (min to max) | kfake in its own process | kaenlog / kfake (medians) | target | floor |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	if cfg.rows["produce"] {
		floor := "-"
		var parts []string
		if len(b.tfloor) > 0 {
			parts = append(parts, fmt.Sprintf("throughput floor %s (uncompressed bytes; kaenlog / it %s)", spread(b.tfloor, mr), ratioOf(k.produce, b.tfloor)))
		}
		if len(k.diskBytes) > 0 && median(k.diskBytes) > 0 {
			bound := disk / median(k.diskBytes)
			parts = append(parts, fmt.Sprintf("disk rate / the 3 replicas' %.1f bytes a record on disk: %s (kaenlog / it %.2fx)", median(k.diskBytes), rate(bound), median(k.produce)/bound))
		}
		if len(parts) > 0 {
			floor = strings.Join(parts, "; ")
		}
		fmt.Fprintf(w, "| produce, %d-byte records, records/s | %s | %s | %s | >= 1.0x | %s |\n", cfg.recordBytes, spread(k.produce, mr), spread(f.produce, mr), ratioOf(k.produce, f.produce), floor)
	}
	if cfg.rows["consume"] {
		fmt.Fprintf(w, "| consume, records/s | %s | %s | %s | >= 1.0x | - |\n", spread(k.consume, mr), spread(f.consume, mr), ratioOf(k.consume, f.consume))
	}
	if cfg.rows["latency"] {
		floor := "-"
		if len(b.floorP50) > 0 {
			floor = fmt.Sprintf("message floor %s (kaenlog / it %s)", spread(b.floorP50, mu), ratioOf(k.p50, b.floorP50))
		}
		fmt.Fprintf(w, "| single-record acks=all, p50 | %s | %s | %s | <= 1.3x | %s |\n", spread(k.p50, mu), spread(f.p50, mu), ratioOf(k.p50, f.p50), floor)
		fmt.Fprintf(w, "| single-record acks=all, p99 | %s | %s | %s | - | - |\n", spread(k.p99, mu), spread(f.p99, mu), ratioOf(k.p99, f.p99))
		fmt.Fprintf(w, "| CPU per single-record commit, the brokers together | %s | %s | %s | - | - |\n", spread(k.commitCPU, mc), spread(f.commitCPU, mc), ratioOf(k.commitCPU, f.commitCPU))
	}
	if cfg.rows["produce"] {
		fmt.Fprintf(w, "| CPU per record in the produce, the brokers together | %s | %s | %s (round by round: %s) | <= 1.5x | - |\n", spread(k.cpuPerRecord, mc), spread(f.cpuPerRecord, mc), ratioOf(k.cpuPerRecord, f.cpuPerRecord), pairedRatio(k.cpuPerRecord, f.cpuPerRecord))
		fmt.Fprintf(w, "| CPU per record in the produce, the client (kgo, the harness) | %s | %s | %s | - | - |\n", spread(k.clientCPU, mc), spread(f.clientCPU, mc), ratioOf(k.clientCPU, f.clientCPU))
	}
	fmt.Fprintln(w, "\nEvery run, in order:")
	for _, s := range b.kgoSides {
		if cfg.rows["produce"] {
			var runs []string
			for i, r := range s.produce {
				past := "below"
				if s.peakDirty[i] >= b.dirty.freerun {
					past = "PAST"
				}
				runs = append(runs, fmt.Sprintf("%s (peak dirty %d MB, %s the throttling threshold; %.2fx the disk bound: its rate ÷ the 3 replicas' bytes)", rate(r), s.peakDirty[i]>>20, past, r*recordDiskBytes(k)/disk))
			}
			fmt.Fprintf(w, "    %s produce: %s\n", s.name, strings.Join(runs, ", "))
			fmt.Fprintf(w, "    %s brokers' CPU µs/record: %s (in the kernel: %s); client's: %s\n", s.name, floats(s.cpuPerRecord, "%.3f"), percents(s.sysShare), floats(s.clientCPU, "%.3f"))
		}
		if cfg.rows["consume"] {
			fmt.Fprintf(w, "    %s consume: %s\n", s.name, rates(s.consume))
		}
		if cfg.rows["latency"] {
			fmt.Fprintf(w, "    %s p50: %s; p99: %s; brokers' CPU µs a commit: %s\n", s.name, durs(s.p50), durs(s.p99), floats(s.commitCPU, "%.1f"))
		}
	}
	if len(k.diskBytes) > 0 {
		fmt.Fprintf(w, "    kaenlog's data directories grew by %s bytes a record (3 replicas together)\n", floats(k.diskBytes, "%.1f"))
	}
	if len(b.tfloor) > 0 {
		fmt.Fprintf(w, "    throughput floor: %s\n", rates(b.tfloor))
	}
	if len(b.floorP50) > 0 {
		fmt.Fprintf(w, "    message floor p50: %s; p99: %s\n", durs(b.floorP50), durs(b.floorP99))
	}
	if len(b.profiles) > 0 {
		fmt.Fprintln(w, "\nCPU profiles (a round of kaenlog's side before the counted ones, not counted):")
		for _, p := range b.profiles {
			fmt.Fprintf(w, "    %s: %s\n", p.who, p.path)
		}
	}
}

// percents are xs (fractions) as percentages.
func percents(xs []float64) string {
	var ps []float64
	for _, x := range xs {
		ps = append(ps, 100*x)
	}
	return floats(ps, "%.0f%%")
}

// pairedRatio is the median of a[i]/b[i], each round's two sides side by
// side (the rounds are interleaved, so a load that changes between
// rounds weighs on both of a pair), with the rounds' ratios.
func pairedRatio(a, b []float64) string {
	var rs []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			rs = append(rs, a[i]/b[i])
		}
	}
	if len(rs) == 0 {
		return "-"
	}
	return fmt.Sprintf("median %.2fx of %s", median(rs), floats(rs, "%.2fx"))
}

// recordDiskBytes is the bytes a record takes on kaenlog's disks, its 3
// replicas together (the median of the runs), or 0 if unmeasured.
func recordDiskBytes(k *kgoSide) float64 {
	if len(k.diskBytes) == 0 {
		return 0
	}
	return median(k.diskBytes)
}
