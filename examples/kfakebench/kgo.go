package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The -kgo mode (issue 17 §6): one kgo client, with its defaults (acks=all,
// idempotent, snappy, linger 10 ms, batches up to 1,000,012 bytes), against
// kaenlog's Kafka listener (a controller and three kafka-broker processes,
// each topic with 3 replicas and min ISR 2, data on disk in the temporary
// directory) and against kfake in a child process of its own (three
// brokers, replicating nothing), the two interleaved with the throughput
// floor and the message floor. The disk's write rate is measured with dd
// (conv=fdatasync) before and after the rounds, and every produce run
// samples the page cache's dirty bytes, to say which runs were past the
// point where the kernel throttles writers.

// kgoSide is one cluster's figures in the -kgo mode, one per run.
type kgoSide struct {
	name         string
	addrs        []string
	produce      []float64 // records/s
	cpuPerRecord []float64 // CPU µs per record, the broker processes together
	sysShare     []float64 // the part of it in the kernel
	clientCPU    []float64 // CPU µs per record, the harness (kgo)
	diskBytes    []float64 // bytes the brokers' data directories grew per record (kaenlog)
	peakDirty    []int64   // peak Dirty+Writeback during the produce, bytes
	consume      []float64
	p50, p99     []time.Duration
	commitCPU    []float64 // CPU µs per single-record commit, the broker processes together
	end          uint64    // the produce topic's end before this run
	dataDirs     []string  // the brokers' data directories (kaenlog)
	// procs are the side's broker processes, exactly: kaenlog's three
	// kafka-broker children (not the controller), kfake's one child.
	// Their CPU is measured the same way on both sides (brokerCPU).
	procs []*proc
}

// brokerCPU is the CPU time, user and system, that s's broker processes
// have used, and its system part, each process reporting its own
// getrusage (microsecond resolution, every thread, exited ones too)
// through the stats command: the same measure on both sides, the client
// (the harness) excluded from both.
func (s *kgoSide) brokerCPU() (cpu, sys int64, err error) {
	for _, p := range s.procs {
		st, err := p.stats()
		if err != nil {
			return 0, 0, err
		}
		cpu, sys = cpu+st.cpuNs, sys+st.sysNs
	}
	return cpu, sys, nil
}

// settle waits until s's broker processes are idle (not a clock tick of
// CPU, 10 ms, over 100 ms, from /proc), at most settleLimit, so
// that a CPU window holds the produce's work, what it leaves for after
// its last acknowledgement (a follower's last fetch, a GC of its garbage)
// included, and none of the work before it.
func (s *kgoSide) settle() {
	ticks := func() int64 {
		var n int64
		for _, p := range s.procs {
			n += procTicks(p.cmd.Process.Pid)
		}
		return n
	}
	deadline := time.Now().Add(settleLimit)
	for prev := ticks(); time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		now := ticks()
		if now-prev <= 0 {
			return
		}
		prev = now
	}
}

// settleLimit bounds settle's wait.
const settleLimit = 3 * time.Second

// kgoOpts are the options both sides' clients get besides the seeds.
func (c *config) kgoOpts() []kgo.Opt {
	if c.kgoCompression == "none" {
		return []kgo.Opt{kgo.ProducerBatchCompression(kgo.NoCompression())}
	}
	return nil // kgo's default: snappy
}

func (b *bench) runKgo(ctx context.Context) error {
	cfg := b.cfg
	if cfg.kgoValues == "random" {
		// Values no codec shrinks: 4096 different random ones (400 KiB
		// at 100 bytes, past snappy's 64 KiB window), the seed printed.
		seed := time.Now().UnixNano()
		b.logf("-kgo-values random: seed %d", seed)
		r := rand.New(rand.NewPCG(uint64(seed), 0))
		for range 4096 {
			v := make([]byte, cfg.recordBytes)
			for i := range v {
				v[i] = byte(r.Uint32())
			}
			b.kgoValues = append(b.kgoValues, v)
		}
	}
	var err error
	if b.dirty, err = readDirtyLimits(); err != nil {
		b.logf("dirty limits: %v", err)
	}
	if b.diskBefore, err = diskRate(b.dir); err != nil {
		return fmt.Errorf("disk rate: %w", err)
	}
	b.logf("disk write rate (dd conv=fdatasync): %.0f MB/s", b.diskBefore/1e6)
	if cfg.rows["latency"] {
		if b.relay, err = startRelay(b.self, b.dir); err != nil {
			return fmt.Errorf("message floor: %w", err)
		}
		defer b.relay.close()
	}
	b.logf("starting kaenlog: a controller and %d brokers with Kafka listeners, each a process", brokers)
	k, err := b.startKaenlogTopics(ctx, true)
	if err != nil {
		return err
	}
	defer k.close()
	p, err := startPeer(b.self, b.dir, topicProduce, topicLatency)
	if err != nil {
		return fmt.Errorf("kfake: %w", err)
	}
	defer p.close()
	ks := &kgoSide{name: "kaenlog", addrs: k.kafka}
	for id := int32(1); id <= brokers; id++ {
		ks.dataDirs = append(ks.dataDirs, filepath.Join(b.dir, fmt.Sprintf("broker-%d", id)))
		ks.procs = append(ks.procs, k.broker(id))
	}
	fs := &kgoSide{name: "kfake", addrs: p.addrs, procs: []*proc{p.child}}
	b.kgoSides = []*kgoSide{ks, fs}
	// A round of each side first, not counted (with -profile, kaenlog's
	// is profiled): each process's first round grows its heap, and on a
	// virtual machine the first write of guest memory costs the host's
	// work too, charged to whichever process touches it (BENCHMARKS.md).
	warm := func(s *kgoSide, stop func() error) error {
		w := *s
		w.produce, w.consume, w.p50, w.p99, w.commitCPU = nil, nil, nil, nil, nil
		w.cpuPerRecord, w.sysShare, w.clientCPU, w.diskBytes, w.peakDirty = nil, nil, nil, nil, nil
		err := errors.Join(b.kgoRound(ctx, &w), stop())
		s.end = w.end
		return err
	}
	b.logf("a round of kgo against each side first, not counted")
	stop, err := b.startProfiles(k, cfg.profileDir != "", "kgo", b.tputLeader)
	if err != nil {
		return err
	}
	if err := warm(ks, stop); err != nil {
		return err
	}
	if err := warm(fs, func() error { return nil }); err != nil {
		return err
	}
	for i := range cfg.count {
		sides := []func() error{
			func() error { return b.kgoRound(ctx, ks) },
			func() error { return b.kgoRound(ctx, fs) },
		}
		if cfg.rows["produce"] {
			sides = append(sides, func() error {
				b.logf("the throughput floor: the produce's bytes over raw TCP between four processes")
				r, err := b.throughputFloor(cfg.records, cfg.recordBytes)
				if err != nil {
					return err
				}
				b.tfloor = append(b.tfloor, r)
				return nil
			})
		}
		if b.relay != nil {
			sides = append(sides, b.floorRound)
		}
		r := i % len(sides)
		for _, side := range append(sides[r:], sides[:r]...) {
			if err := side(); err != nil {
				return err
			}
		}
	}
	k.close()
	p.close()
	if b.diskAfter, err = diskRate(b.dir); err != nil {
		return fmt.Errorf("disk rate: %w", err)
	}
	b.logf("disk write rate (dd conv=fdatasync): %.0f MB/s", b.diskAfter/1e6)
	return nil
}

// kgoRound runs the rows once against one side.
func (b *bench) kgoRound(ctx context.Context, s *kgoSide) error {
	cfg := b.cfg
	pc := &peer{addrs: s.addrs, opts: cfg.kgoOpts(), values: b.kgoValues}
	if cfg.rows["produce"] {
		s.settle()
		cpu0, sys0, err := s.brokerCPU()
		if err != nil {
			return err
		}
		disk0 := dirBytes(s.dataDirs)
		own0 := cpuNanos()
		stopDirty := sampleDirty()
		n, elapsed, err := pc.produceAsync(ctx, topicProduce, b.value, cfg.records, 0, time.Now().Add(cfg.duration))
		peak := stopDirty()
		if err != nil {
			return fmt.Errorf("kgo to %s: produce: %w", s.name, err)
		}
		own1 := cpuNanos()
		s.settle()
		cpu1, sys1, err := s.brokerCPU()
		if err != nil {
			return err
		}
		rate := float64(n) / elapsed.Seconds()
		s.produce = append(s.produce, rate)
		s.cpuPerRecord = append(s.cpuPerRecord, float64(cpu1-cpu0)/1e3/float64(n))
		s.sysShare = append(s.sysShare, float64(sys1-sys0)/float64(max(cpu1-cpu0, 1)))
		s.clientCPU = append(s.clientCPU, float64(own1-own0)/1e3/float64(n))
		s.peakDirty = append(s.peakDirty, peak)
		if s.dataDirs != nil {
			s.diskBytes = append(s.diskBytes, float64(dirBytes(s.dataDirs)-disk0)/float64(n))
		}
		b.logf("kgo to %s: produce: %d records in %v: %.0f records/s, brokers %.2f CPU µs/record, peak dirty %d MB", s.name, n, elapsed.Round(time.Millisecond), rate, s.cpuPerRecord[len(s.cpuPerRecord)-1], peak>>20)
		defer func() { s.end += uint64(n) }()
		if cfg.rows["consume"] {
			elapsed, _, err := pc.consume(ctx, topicProduce, s.end, n)
			if err != nil {
				return fmt.Errorf("kgo from %s: consume: %w", s.name, err)
			}
			rate := float64(n) / elapsed.Seconds()
			s.consume = append(s.consume, rate)
			b.logf("kgo from %s: consume: %d records in %v: %.0f records/s", s.name, n, elapsed.Round(time.Millisecond), rate)
		}
	}
	if cfg.rows["latency"] {
		s.settle()
		cpu0, _, err := s.brokerCPU()
		if err != nil {
			return err
		}
		l, err := pc.produceSync(ctx, topicLatency, b.value, cfg.latencyRecords, time.Now().Add(cfg.duration))
		if err != nil {
			return fmt.Errorf("kgo to %s: latency: %w", s.name, err)
		}
		s.settle()
		cpu1, _, err := s.brokerCPU()
		if err != nil {
			return err
		}
		s.commitCPU = append(s.commitCPU, float64(cpu1-cpu0)/1e3/float64(len(l)))
		p50, p99 := percentiles(l)
		s.p50, s.p99 = append(s.p50, p50), append(s.p99, p99)
		b.logf("kgo to %s: single-record acks=all: %d produces, p50 %v, p99 %v", s.name, len(l), p50, p99)
	}
	return nil
}

// dirBytes is the size of the regular files under dirs.
func dirBytes(dirs []string) int64 {
	var n int64
	for _, d := range dirs {
		filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				if fi, err := e.Info(); err == nil {
					n += fi.Size()
				}
			}
			return nil
		})
	}
	return n
}

var ddRate = regexp.MustCompile(`^(\d+) bytes .* copied, ([0-9.]+) s`)

// diskRate writes 512 MiB into dir with dd, conv=fdatasync (the data is
// on the disk when dd's clock stops), removes the file and returns the
// rate in bytes/s.
func diskRate(dir string) (float64, error) {
	path := filepath.Join(dir, "dd-rate")
	defer os.Remove(path)
	out, err := exec.Command("dd", "if=/dev/zero", "of="+path, "bs=1M", "count=512", "conv=fdatasync").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("dd: %v: %s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if m := ddRate.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			n, _ := strconv.ParseFloat(m[1], 64)
			s, _ := strconv.ParseFloat(m[2], 64)
			if s > 0 {
				return n / s, nil
			}
		}
	}
	return 0, fmt.Errorf("dd: no rate in %q", out)
}

// dirtyLimits are the kernel's dirty page cache thresholds, bytes: past
// freerun (halfway between the background and the hard limit) the kernel
// throttles every writer to the disk's pace (balance_dirty_pages).
type dirtyLimits struct{ background, limit, freerun int64 }

// readDirtyLimits computes the thresholds from /proc/sys/vm (dirty_bytes
// or dirty_ratio of the available memory, which stands in for the
// kernel's dirtyable memory).
func readDirtyLimits() (dirtyLimits, error) {
	num := func(name string) int64 {
		b, _ := os.ReadFile("/proc/sys/vm/" + name)
		n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return n
	}
	avail := meminfo()["MemAvailable"]
	if avail == 0 {
		return dirtyLimits{}, fmt.Errorf("no MemAvailable in /proc/meminfo")
	}
	of := func(bytes, ratio int64) int64 {
		if bytes > 0 {
			return bytes
		}
		return avail * ratio / 100
	}
	d := dirtyLimits{background: of(num("dirty_background_bytes"), num("dirty_background_ratio")), limit: of(num("dirty_bytes"), num("dirty_ratio"))}
	d.freerun = (d.background + d.limit) / 2
	return d, nil
}

// meminfo returns /proc/meminfo's fields in bytes.
func meminfo() map[string]int64 {
	m := map[string]int64{}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		if len(fields) > 1 && fields[1] == "kB" {
			n <<= 10
		}
		m[k] = n
	}
	return m
}

// sampleDirty samples Dirty+Writeback every 50 ms until the returned
// function is called, which returns the peak.
func sampleDirty() func() int64 {
	stop, peak := make(chan struct{}), make(chan int64)
	go func() {
		var p int64
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			m := meminfo()
			p = max(p, m["Dirty"]+m["Writeback"])
			select {
			case <-stop:
				peak <- p
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 { close(stop); return <-peak }
}
