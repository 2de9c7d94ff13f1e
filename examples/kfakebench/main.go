package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kaenlog/kaenlog/replica/client"
)

// config is the harness's flags.
type config struct {
	records        int
	recordBytes    int
	duration       time.Duration
	latencyRecords int
	rttRecords     int
	count          int
	rows           map[string]bool
	timeout        time.Duration
	profileDir     string
	keep           bool
	repo           string
	peers          []string // where kfake runs: "harness", "process"
	batchBytes     int      // both producers' batch size; 0: each one's default
	many           int      // records per ProduceManyAsync call in kaenlog's produce rows; 0: ProduceAsync
	nodeProcs      int      // GOMAXPROCS of kaenlog's node processes; 0: Go's default
	nodeGodebug    string   // GODEBUG of kaenlog's node processes; "": the harness's
	kgo            bool     // the -kgo mode (kgo.go)
	kgoCompression string   // "default" (kgo's, snappy) or "none"
	kgoValues      string   // "random" or "repeated"

	groups groupsConfig // the -groups mode (groups.go)
}

// The topics, one partition each; kaenlog's have three replicas and min
// ISR 2.
const (
	topicProduce = "tput"
	topicLatency = "lat"
)

var allRows = []string{"produce", "produce-big", "latency", "consume", "allocs"}

// bigBatchBytes is both producers' batch size in the produce-big row:
// kgo's default (Kafka's max.message.bytes), the most kaenlog's broker
// accepts in a batch too.
const bigBatchBytes = 1000012

func main() {
	if role := os.Getenv(roleEnv); role != "" {
		os.Exit(runChild(role, os.Args[1:]))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func parseFlags(args []string, stderr io.Writer) (*config, int) {
	c := &config{rows: map[string]bool{}}
	fs := flag.NewFlagSet("kfakebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.records, "records", 2_000_000, "records per throughput run (produce row; the consume row reads them back)")
	fs.IntVar(&c.recordBytes, "record-bytes", 100, "each record's value size")
	fs.DurationVar(&c.duration, "duration", 15*time.Second, "at most this long handing over records in one produce or latency run, whichever of it and the record count ends first")
	fs.IntVar(&c.latencyRecords, "latency-records", 10_000, "single-record produces per latency run")
	fs.IntVar(&c.rttRecords, "rtt-records", 20_000, "raw TCP round trips measured")
	fs.IntVar(&c.count, "count", 3, "runs of each row on each side, interleaved; the table shows medians")
	rows := fs.String("rows", strings.Join(allRows, ","), "rows to run, comma-separated: "+strings.Join(allRows, ", "))
	fs.DurationVar(&c.timeout, "timeout", 20*time.Minute, "kill everything and fail after this long")
	fs.StringVar(&c.profileDir, "profile", "", "write CPU profiles of the broker processes and the harness during an extra run of kaenlog's produce and latency rows (not counted) into this directory, and print the leader's top functions")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory (data, children's logs)")
	fs.StringVar(&c.repo, "repo", "", "the kaenlog module's directory, where the allocs row runs go test (default: found with go list from the current directory)")
	fs.IntVar(&c.batchBytes, "batch-bytes", 0, "both producers' largest batch (kaenlog's BatchBytes, kgo's ProducerBatchMaxBytes); 0 leaves each its default (16384 and 1000012), at most 1000012")
	fs.IntVar(&c.many, "kaenlog-many", 1000, "records per Producer.ProduceManyAsync call in kaenlog's produce rows; 0 hands them over one at a time with ProduceAsync")
	fs.IntVar(&c.nodeProcs, "node-gomaxprocs", 0, "GOMAXPROCS of kaenlog's controller and broker processes (0: Go's default, the CPU count); the client in the harness keeps its own")
	fs.StringVar(&c.nodeGodebug, "node-godebug", "", "GODEBUG of kaenlog's controller and broker processes (e.g. schedtrace=2147483647, which keeps the runtime's sysmon thread from sleeping deeply and then polling every 20 µs after each wake-up; see BENCHMARKS.md); empty: inherited from the harness")
	fs.BoolVar(&c.kgo, "kgo", false, "instead of the rows above, run kgo with its defaults against kaenlog's Kafka listener (3 broker processes, RF 3, min ISR 2, data on disk) and against kfake in its own process, interleaved with the floors; of -rows, produce, consume and latency apply (kgo.go)")
	fs.StringVar(&c.kgoCompression, "kgo-compression", "default", "with -kgo, the producers' compression: default (kgo's, snappy) or none")
	fs.StringVar(&c.kgoValues, "kgo-values", "random", "with -kgo, the records' values: random (4096 different random values in turn, which no codec shrinks, so the bytes reach the disk) or repeated (the rows' one value of the alphabet, which snappy shrinks about 14-fold)")
	checkGroups := c.groups.register(fs)
	peers := fs.String("peer", "both", "where kfake's brokers run: harness (in the harness's process, with kgo), process (a child process of their own; kgo stays in the harness), or both, each measured")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil, 0
		}
		return nil, 2
	}
	bad := func(format string, a ...any) (*config, int) {
		fmt.Fprintf(stderr, "kfakebench: "+format+"\n", a...)
		fs.Usage()
		return nil, 2
	}
	if fs.NArg() > 0 {
		return bad("unexpected arguments %q", fs.Args())
	}
	for _, r := range strings.Split(*rows, ",") {
		if r = strings.TrimSpace(r); r == "" {
			continue
		}
		if !slices.Contains(allRows, r) {
			return bad("-rows: unknown row %q", r)
		}
		c.rows[r] = true
	}
	switch {
	case len(c.rows) == 0:
		return bad("-rows: no row")
	case c.records < 1 || c.latencyRecords < 1 || c.rttRecords < 1 || c.count < 1:
		return bad("-records, -latency-records, -rtt-records and -count must be at least 1")
	case c.recordBytes < 0 || c.recordBytes > 900_000:
		return bad("-record-bytes %d is not in [0, 900000]", c.recordBytes)
	case c.batchBytes < 0 || c.batchBytes > 1000012 || (c.batchBytes > 0 && c.batchBytes < 1024):
		return bad("-batch-bytes %d: give 0 or a size in [1024, 1000012]", c.batchBytes)
	case c.many < 0:
		return bad("-kaenlog-many %d is negative", c.many)
	case c.nodeProcs < 0:
		return bad("-node-gomaxprocs %d: give 0 or a positive count", c.nodeProcs)
	case c.duration <= 0 || c.timeout <= 0:
		return bad("-duration and -timeout must be positive")
	}
	if msg := checkGroups(); msg != "" {
		return bad("%s", msg)
	}
	if c.kgoCompression != "default" && c.kgoCompression != "none" {
		return bad("-kgo-compression %q: give default or none", c.kgoCompression)
	}
	if c.kgoValues != "random" && c.kgoValues != "repeated" {
		return bad("-kgo-values %q: give random or repeated", c.kgoValues)
	}
	switch *peers {
	case "harness", "process":
		c.peers = []string{*peers}
	case "both":
		c.peers = []string{"harness", "process"}
	default:
		return bad("-peer %q: give harness, process or both", *peers)
	}
	if c.rows["consume"] {
		c.rows["produce"] = true // it reads what the produce row wrote
	}
	return c, -1
}

// nodeEnv is what kaenlog's node processes get added to the harness's
// environment.
func (c *config) nodeEnv() []string {
	var env []string
	if c.nodeProcs > 0 {
		env = append(env, fmt.Sprintf("GOMAXPROCS=%d", c.nodeProcs))
	}
	if c.nodeGodebug != "" {
		env = append(env, "GODEBUG="+c.nodeGodebug)
	}
	return env
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, status := parseFlags(args, stderr)
	if cfg == nil {
		return status
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "kfakebench: %v\n", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "kfakebench-")
	if err != nil {
		fmt.Fprintf(stderr, "kfakebench: %v\n", err)
		return 1
	}
	cleanup := func() {
		killAll()
		if cfg.keep {
			fmt.Fprintf(stderr, "kfakebench: kept %s\n", dir)
		} else {
			os.RemoveAll(dir)
		}
	}
	// A signal or the timeout kills the children and removes the data
	// before exiting; the parent-death signal covers a harness killed
	// outright.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "kfakebench: %v: stopping\n", s)
		case <-time.After(cfg.timeout):
			fmt.Fprintf(stderr, "kfakebench: not done within -timeout %v: stopping\n", cfg.timeout)
		}
		cleanup()
		os.Exit(1)
	}()
	b := &bench{cfg: cfg, args: args, self: self, dir: dir, out: stdout, errOut: stderr}
	err = b.run()
	cleanup()
	if err != nil {
		fmt.Fprintf(stderr, "kfakebench: %v\n", err)
		return 1
	}
	return 0
}

// bench is one invocation's state and results.
type bench struct {
	cfg         *config
	args        []string
	self, dir   string
	out, errOut io.Writer
	value       []byte

	loadBefore, loadAfter             string
	rtt                               []time.Duration
	tfloor                            []float64 // the throughput floor, records/s (throughput_floor.go)
	k                                 sideResults
	peers                             []*peerSide
	local                             []float64 // local log read, records/s
	localOpen                         []time.Duration
	leaderCPU, followerCPU, clientCPU []float64 // CPU µs per record in the produce row
	leaderAllocs, followerAllocs      []float64 // mallocs per record in the produce row
	allocs                            []allocLine
	allocsErr                         error
	profiles                          []profile
	repo                              string       // where the allocs row ran
	tputLeader, latLeader             int32        // kaenlog's leaders of the two topics
	kEnd                              uint64       // kaenlog's produce topic's end before this run
	leaderSyscalls, followerSyscalls  [][2]float64 // read and write syscalls per commit in the latency row
	// CPU µs per commit in the latency row: the leader, each follower,
	// the client (the harness's process, kaenlog's client alone then).
	latLeaderCPU, latFollowerCPU, latClientCPU []float64
	relay                                      *relay          // the message floor's processes
	floorP50, floorP99                         []time.Duration // the message floor, each run
	// The -kgo mode's (kgo.go).
	kgoSides              []*kgoSide
	kgoValues             [][]byte // with -kgo-values random
	diskBefore, diskAfter float64  // the disk's write rate, bytes/s
	dirty                 dirtyLimits

	groups *groupsRun // the -groups mode's (groups.go)
}

// peerSide is one placement of the peer and its figures.
type peerSide struct {
	name string // "harness" or "process"
	p    *peer
	res  sideResults
	cpu  []float64 // CPU µs per record in the produce row: kgo and kfake
	end  uint64    // the produce topic's end before this run
}

// title names the placement in the table.
func (ps *peerSide) title() string {
	if ps.name == "process" {
		return "kfake in its own process"
	}
	return "kfake in the harness"
}

// sideResults are one side's figures, one per run.
type sideResults struct {
	produce []float64 // records/s
	big     []float64 // records/s with bigBatchBytes batches
	p50     []time.Duration
	p99     []time.Duration
	consume []float64 // records/s
}

func (b *bench) logf(format string, a ...any) {
	fmt.Fprintf(b.errOut, "kfakebench: "+format+"\n", a...)
}

func (b *bench) run() error {
	cfg := b.cfg
	b.value = make([]byte, cfg.recordBytes)
	for i := range b.value {
		b.value[i] = byte('a' + i%26)
	}
	b.loadBefore = loadavg()
	ctx := context.Background()
	if cfg.groups.on {
		if err := b.runGroups(ctx); err != nil {
			return err
		}
		b.loadAfter = loadavg()
		b.reportGroups()
		return nil
	}
	if cfg.kgo {
		if err := b.runKgo(ctx); err != nil {
			return err
		}
		b.loadAfter = loadavg()
		b.reportKgo()
		return nil
	}

	if cfg.rows["latency"] {
		b.logf("raw TCP round trips to another process")
		echo, err := startChild(b.self, roleEcho, "echo", logPathIn(b.dir, "echo"), nil)
		if err != nil {
			return err
		}
		line, err := echo.await(lineEcho, startLimit)
		if err != nil {
			return err
		}
		b.rtt, err = roundTrips(strings.TrimPrefix(line, lineEcho), cfg.rttRecords)
		echo.kill()
		if err != nil {
			return err
		}
	}

	if cfg.rows["latency"] {
		b.logf("the message floor: a commit's messages between 4 processes, nothing else")
		var err error
		if b.relay, err = startRelay(b.self, b.dir); err != nil {
			return fmt.Errorf("message floor: %w", err)
		}
		defer b.relay.close()
	}

	if cfg.rows["produce"] || cfg.rows["produce-big"] || cfg.rows["latency"] {
		b.logf("starting kaenlog: a controller and %d brokers, each a process", brokers)
		k, err := b.startKaenlogTopics(ctx, false)
		if err != nil {
			return err
		}
		defer k.close()
		for _, where := range cfg.peers {
			self := ""
			if where == "process" {
				self = b.self
			}
			p, err := startPeer(self, b.dir, topicProduce, topicLatency)
			if err != nil {
				return fmt.Errorf("kfake: %w", err)
			}
			defer p.close()
			b.peers = append(b.peers, &peerSide{name: where, p: p})
		}
		if cfg.profileDir != "" {
			// A profiled run of kaenlog's rows first, its figures thrown
			// away: profiling four processes slows them.
			pb := *b
			pb.k = sideResults{}
			pb.local, pb.localOpen, pb.leaderCPU, pb.followerCPU, pb.clientCPU = nil, nil, nil, nil, nil
			pb.leaderAllocs, pb.followerAllocs, pb.leaderSyscalls, pb.followerSyscalls = nil, nil, nil, nil
			pb.latLeaderCPU, pb.latFollowerCPU, pb.latClientCPU = nil, nil, nil
			b.logf("a profiled run of kaenlog's rows, not counted")
			if err := pb.kaenlogRound(ctx, k, topicProduce, topicLatency, true); err != nil {
				return err
			}
			b.profiles, b.kEnd = pb.profiles, pb.kEnd
		}
		for i := range cfg.count {
			if err := b.round(ctx, k, i); err != nil {
				return err
			}
		}
		k.close()
		for _, ps := range b.peers {
			ps.p.close()
		}
	}

	if cfg.rows["allocs"] {
		repo := cfg.repo
		if repo == "" {
			out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/kaenlog/kaenlog").Output()
			if err != nil {
				b.allocsErr = fmt.Errorf("finding the kaenlog module (give -repo): %v", err)
			}
			repo = strings.TrimSpace(string(out))
		}
		if repo != "" {
			b.repo = repo
			b.logf("allocations: %s (in %s)", strings.Join(allocBench, " "), repo)
			var out string
			b.allocs, out, b.allocsErr = runAllocBench(repo, 10*time.Minute)
			if b.allocsErr != nil {
				b.logf("go test output:\n%s", out)
			}
		}
	}
	b.loadAfter = loadavg()
	b.report()
	return nil
}

// startKaenlogTopics starts kaenlog's cluster (startKaenlog) and creates
// the two topics. One topic per row for every run, so that each run meets
// the same cluster: kaenlog's followers fetch every partition they
// follow, and a partition more per run would make later runs slower.
func (b *bench) startKaenlogTopics(ctx context.Context, kafka bool) (*kcluster, error) {
	k, err := startKaenlog(b.self, b.dir, b.cfg.nodeEnv(), kafka)
	if err == nil {
		b.tputLeader, err = k.createTopic(ctx, topicProduce)
	}
	if err == nil {
		b.latLeader, err = k.createTopic(ctx, topicLatency)
	}
	if err != nil {
		if k != nil {
			k.close()
		}
		return nil, fmt.Errorf("kaenlog cluster: %w", err)
	}
	return k, nil
}

// round runs every row once on each side; each round starts with the next
// side, so that no side always runs on a machine another just warmed.
func (b *bench) round(ctx context.Context, k *kcluster, i int) error {
	tput, lat := topicProduce, topicLatency
	sides := []func() error{
		func() error { return b.kaenlogRound(ctx, k, tput, lat, false) },
	}
	for _, ps := range b.peers {
		sides = append(sides, func() error { return b.peerRound(ctx, ps, tput, lat) })
	}
	if b.cfg.rows["produce-big"] {
		sides = append(sides, func() error {
			b.logf("the throughput floor: the produce-big row's bytes over raw TCP between four processes")
			rate, err := b.throughputFloor(b.cfg.records, b.cfg.recordBytes)
			if err != nil {
				return err
			}
			b.tfloor = append(b.tfloor, rate)
			return nil
		})
	}
	if b.relay != nil {
		sides = append(sides, b.floorRound)
	}
	r := i % len(sides)
	sides = append(sides[r:], sides[:r]...)
	for _, side := range sides {
		if err := side(); err != nil {
			return err
		}
	}
	return nil
}

// floorRound runs the message floor once, as many commits as the latency
// row.
func (b *bench) floorRound() error {
	l, err := b.relay.commits(b.cfg.latencyRecords)
	if err != nil {
		return err
	}
	p50, p99 := percentiles(l)
	b.floorP50, b.floorP99 = append(b.floorP50, p50), append(b.floorP99, p99)
	b.logf("message floor: %d commits, p50 %v, p99 %v", len(l), p50, p99)
	return nil
}

// kaenlogRound runs kaenlog's rows once.
func (b *bench) kaenlogRound(ctx context.Context, k *kcluster, tput, lat string, profile bool) error {
	cfg := b.cfg
	if cfg.rows["produce"] {
		leader := b.tputLeader
		stop, err := b.startProfiles(k, profile, "produce", leader)
		if err != nil {
			return err
		}
		before, err := b.nodeStats(k)
		if err != nil {
			return err
		}
		n, elapsed, err := k.produceAsync(ctx, tput, b.value, cfg.records, cfg.batchBytes, cfg.many, time.Now().Add(cfg.duration))
		if err != nil {
			return fmt.Errorf("kaenlog produce: %w", err)
		}
		after, err := b.nodeStats(k)
		if err != nil {
			return err
		}
		if err := stop(); err != nil {
			return err
		}
		rate := float64(n) / elapsed.Seconds()
		b.k.produce = append(b.k.produce, rate)
		b.logf("kaenlog produce: %d records in %v: %.0f records/s (leader broker %d)", n, elapsed.Round(time.Millisecond), rate, leader)
		defer func() { b.kEnd += uint64(n) }()
		for id := int32(1); id <= brokers; id++ {
			cpu := float64(after[id].cpuNs-before[id].cpuNs) / 1e3 / float64(n)
			allocs := float64(after[id].mallocs-before[id].mallocs) / float64(n)
			if id == leader {
				b.leaderCPU, b.leaderAllocs = append(b.leaderCPU, cpu), append(b.leaderAllocs, allocs)
			} else {
				b.followerCPU, b.followerAllocs = append(b.followerCPU, cpu), append(b.followerAllocs, allocs)
			}
		}
		b.clientCPU = append(b.clientCPU, float64(after[0].cpuNs-before[0].cpuNs)/1e3/float64(n))

		if cfg.rows["consume"] {
			elapsed, _, err := k.consume(ctx, tput, b.kEnd, n)
			if err != nil {
				return fmt.Errorf("kaenlog consume: %w", err)
			}
			rate := float64(n) / elapsed.Seconds()
			b.k.consume = append(b.k.consume, rate)
			b.logf("kaenlog consume: %d records in %v: %.0f records/s", n, elapsed.Round(time.Millisecond), rate)
			ldir := filepath.Join(b.dir, fmt.Sprintf("local-%s", tput))
			total, open, err := localRead(ldir, b.value, n, cmp.Or(cfg.batchBytes, client.DefaultBatchBytes))
			os.RemoveAll(ldir)
			if err != nil {
				return fmt.Errorf("local log: %w", err)
			}
			b.local = append(b.local, float64(n)/total.Seconds())
			b.localOpen = append(b.localOpen, open)
			b.logf("local log: Open and read %d records in %v (Open %v): %.0f records/s", n, total.Round(time.Millisecond), open.Round(time.Microsecond), float64(n)/total.Seconds())
		}
	}
	if cfg.rows["produce-big"] {
		n, elapsed, err := k.produceAsync(ctx, tput, b.value, cfg.records, bigBatchBytes, cfg.many, time.Now().Add(cfg.duration))
		if err != nil {
			return fmt.Errorf("kaenlog produce, big batches: %w", err)
		}
		b.kEnd += uint64(n)
		rate := float64(n) / elapsed.Seconds()
		b.k.big = append(b.k.big, rate)
		b.logf("kaenlog produce, %d-byte batches: %d records in %v: %.0f records/s", bigBatchBytes, n, elapsed.Round(time.Millisecond), rate)
	}
	if cfg.rows["latency"] {
		leader := b.latLeader
		stop, err := b.startProfiles(k, profile, "latency", leader)
		if err != nil {
			return err
		}
		cpuBefore, err := b.nodeStats(k)
		if err != nil {
			return err
		}
		before, err := k.syscalls()
		if err != nil {
			return err
		}
		l, err := k.produceSync(ctx, lat, b.value, cfg.latencyRecords, time.Now().Add(cfg.duration))
		if err := errors.Join(err, stop()); err != nil {
			return fmt.Errorf("kaenlog latency: %w", err)
		}
		after, err := k.syscalls()
		if err != nil {
			return err
		}
		cpuAfter, err := b.nodeStats(k)
		if err != nil {
			return err
		}
		n := float64(len(l))
		for id := int32(1); id <= brokers; id++ {
			r := float64(after[id].reads-before[id].reads) / n
			w := float64(after[id].writes-before[id].writes) / n
			cpu := float64(cpuAfter[id].cpuNs-cpuBefore[id].cpuNs) / 1e3 / n
			if id == leader {
				b.leaderSyscalls = append(b.leaderSyscalls, [2]float64{r, w})
				b.latLeaderCPU = append(b.latLeaderCPU, cpu)
			} else {
				b.followerSyscalls = append(b.followerSyscalls, [2]float64{r, w})
				b.latFollowerCPU = append(b.latFollowerCPU, cpu)
			}
		}
		b.latClientCPU = append(b.latClientCPU, float64(cpuAfter[0].cpuNs-cpuBefore[0].cpuNs)/1e3/n)
		p50, p99 := percentiles(l)
		b.k.p50, b.k.p99 = append(b.k.p50, p50), append(b.k.p99, p99)
		b.logf("kaenlog single-record acks=all: %d produces, p50 %v, p99 %v", len(l), p50, p99)
	}
	return nil
}

// peerRound runs kfake's rows once, on one placement.
func (b *bench) peerRound(ctx context.Context, ps *peerSide, tput, lat string) error {
	cfg := b.cfg
	p := ps.p
	if cfg.rows["produce"] {
		cpu := cpuNanos() + p.childCPUNanos()
		n, elapsed, err := p.produceAsync(ctx, tput, b.value, cfg.records, cfg.batchBytes, time.Now().Add(cfg.duration))
		if err != nil {
			return fmt.Errorf("%s: produce: %w", ps.title(), err)
		}
		ps.cpu = append(ps.cpu, float64(cpuNanos()+p.childCPUNanos()-cpu)/1e3/float64(n))
		rate := float64(n) / elapsed.Seconds()
		ps.res.produce = append(ps.res.produce, rate)
		b.logf("%s: produce: %d records in %v: %.0f records/s", ps.title(), n, elapsed.Round(time.Millisecond), rate)
		defer func() { ps.end += uint64(n) }()
		if cfg.rows["consume"] {
			elapsed, _, err := p.consume(ctx, tput, ps.end, n)
			if err != nil {
				return fmt.Errorf("%s: consume: %w", ps.title(), err)
			}
			rate := float64(n) / elapsed.Seconds()
			ps.res.consume = append(ps.res.consume, rate)
			b.logf("%s: consume: %d records in %v: %.0f records/s", ps.title(), n, elapsed.Round(time.Millisecond), rate)
		}
	}
	if cfg.rows["produce-big"] {
		n, elapsed, err := p.produceAsync(ctx, tput, b.value, cfg.records, bigBatchBytes, time.Now().Add(cfg.duration))
		if err != nil {
			return fmt.Errorf("%s: produce, big batches: %w", ps.title(), err)
		}
		ps.end += uint64(n)
		rate := float64(n) / elapsed.Seconds()
		ps.res.big = append(ps.res.big, rate)
		b.logf("%s: produce, %d-byte batches: %d records in %v: %.0f records/s", ps.title(), bigBatchBytes, n, elapsed.Round(time.Millisecond), rate)
	}
	if cfg.rows["latency"] {
		l, err := p.produceSync(ctx, lat, b.value, cfg.latencyRecords, time.Now().Add(cfg.duration))
		if err != nil {
			return fmt.Errorf("%s: latency: %w", ps.title(), err)
		}
		p50, p99 := percentiles(l)
		ps.res.p50, ps.res.p99 = append(ps.res.p50, p50), append(ps.res.p99, p99)
		b.logf("%s: single-record acks=all: %d produces, p50 %v, p99 %v", ps.title(), len(l), p50, p99)
	}
	return nil
}

// nodeStats returns every broker's stats by id, and the harness's at 0.
func (b *bench) nodeStats(k *kcluster) (map[int32]procStats, error) {
	m := map[int32]procStats{}
	for id := int32(1); id <= brokers; id++ {
		s, err := k.broker(id).stats()
		if err != nil {
			return nil, err
		}
		m[id] = s
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m[0] = procStats{mallocs: ms.Mallocs, cpuNs: cpuNanos()}
	return m, nil
}

// startProfiles starts CPU profiles of the brokers and the harness if on,
// and returns what stops them.
func (b *bench) startProfiles(k *kcluster, on bool, row string, leader int32) (func() error, error) {
	if !on {
		return func() error { return nil }, nil
	}
	if err := os.MkdirAll(b.cfg.profileDir, 0o755); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(b.cfg.profileDir)
	if err != nil {
		return nil, err
	}
	for id := int32(1); id <= brokers; id++ {
		if err := k.broker(id).command("profile %s", filepath.Join(dir, fmt.Sprintf("broker-%d-%s.pprof", id, row))); err != nil {
			return nil, err
		}
	}
	own := filepath.Join(dir, fmt.Sprintf("harness-%s.pprof", row))
	f, err := os.Create(own)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		f.Close()
		b.profiles = append(b.profiles, profile{row: row, who: "harness (client)", path: own})
		for id := int32(1); id <= brokers; id++ {
			pr := k.broker(id)
			pr.drain()
			if err := pr.command("unprofile"); err != nil {
				return err
			}
			line, err := pr.await(lineProfiled, 30*time.Second)
			if err != nil {
				return err
			}
			who := fmt.Sprintf("broker %d (follower)", id)
			if id == leader {
				who = fmt.Sprintf("broker %d (leader)", id)
			}
			b.profiles = append(b.profiles, profile{row: row, who: who, path: strings.TrimPrefix(line, lineProfiled)})
		}
		return nil
	}, nil
}

// loadavg is the machine's load as uptime prints it.
func loadavg() string {
	if out, err := exec.Command("uptime").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		return "load average " + strings.TrimSpace(string(b))
	}
	return "load unknown"
}
