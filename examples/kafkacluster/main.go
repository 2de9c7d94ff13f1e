package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/kaenlog/kaenlog/examples/internal/nodecmd"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/kaenlog/kaenlog/replica/server"
)

// nodeFlag, as the first argument, makes the process one of the
// cluster's nodes (see runNode); it is not in the usage.
const nodeFlag = "-node"

func main() {
	if len(os.Args) > 1 && os.Args[1] == nodeFlag {
		os.Exit(runNode(os.Args[2:]))
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kafkacluster: %v\n", err)
		os.Exit(1)
	}
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	os.Exit(run(os.Args[1:], self, os.Stdout, os.Stderr, stop))
}

// runNode runs a node: "controller ARGS" is examples/controller's code,
// "broker RF KAFKA ARGS" examples/broker's with a Kafka listener on
// host:port KAFKA (port 0: a free one) whose auto-created topics get
// replication factor RF.
func runNode(args []string) int {
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	switch {
	case len(args) >= 1 && args[0] == "controller":
		return nodecmd.RunController(args[1:], os.Stdout, os.Stderr, stop)
	case len(args) >= 3 && args[0] == "broker":
		rf, err := strconv.ParseInt(args[1], 10, 16)
		if err != nil {
			fmt.Fprintf(os.Stderr, "kafkacluster node: replication factor %q: %v\n", args[1], err)
			return 2
		}
		kl := nodecmd.KafkaListener{Listen: args[2], Codec: func(b *replica.Broker) server.Codec {
			return kafka.NewCodec(b, kafkaConfig(int16(rf)))
		}}
		return nodecmd.RunBrokerWithKafka(args[3:], os.Stdout, os.Stderr, stop, kl)
	}
	fmt.Fprintf(os.Stderr, "kafkacluster: %s %q: not a node\n", nodeFlag, args)
	return 2
}

// run is the command: it returns the exit status.
func run(args []string, self string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	fs := flag.NewFlagSet("kafkacluster", flag.ContinueOnError)
	fs.SetOutput(stderr)
	brokers := fs.Int("brokers", 3, "how many brokers, 1 to 7 (topics get replication factor min(3, brokers))")
	dir := fs.String("dir", "", "where the nodes keep their data: DIR/controller, DIR/broker-1, ... (default: a new temporary directory, removed on exit)")
	withMetrics := fs.Bool("metrics", false, "each node serves its metrics in Prometheus' text format on a free loopback port, logged as \"... metrics on http://...\"")
	restart := fs.Bool("restart", false, "start again a node that exits on its own (a crash, a kill -9), on its ports and data directory, after 1 s, doubling to 30 s while it keeps exiting within a minute")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || *brokers < 1 || *brokers > 7 {
		fmt.Fprintf(stderr, "kafkacluster: give -brokers 1 to 7 and no arguments\n")
		fs.Usage()
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if *dir == "" {
		d, err := os.MkdirTemp("", "kafkacluster-")
		if err != nil {
			log.Error("temporary directory", "err", err)
			return 1
		}
		defer func() {
			if err := os.RemoveAll(d); err != nil {
				log.Error("removing the temporary directory", "dir", d, "err", err)
			}
		}()
		*dir = d
	}
	rf := min(3, *brokers)
	c := &cluster{self: self, log: log, metrics: *withMetrics}
	c.nodes = nodecmd.Nodes{Stop: stop, Restart: *restart, Say: func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }}
	seeds, err := c.start(*dir, *brokers, rf)
	if err != nil {
		log.Error("starting", "err", err)
		c.nodes.Kill()
		return 1
	}
	log.Info("cluster ready", "dir", *dir, "brokers", *brokers, "replication_factor", rf, "min_isr", min(2, rf), "auto_create_topics", autoCreate)
	fmt.Fprintf(stdout, "bootstrap: %s\n", strings.Join(seeds, ","))
	return c.nodes.Wait()
}

// cluster is the running nodes.
type cluster struct {
	self    string
	log     *slog.Logger
	nodes   nodecmd.Nodes
	metrics bool // -metrics
}

// start starts the controller, then the brokers, waits until every
// broker is registered and unfenced, and returns their Kafka listeners.
// Each node starts on free loopback ports; a restart (-restart) reuses
// the ports it got, so that the brokers still find the controller and
// the clients the bootstrap line's brokers.
func (c *cluster) start(dir string, brokers, rf int) ([]string, error) {
	ctlListen := "127.0.0.1:0"
	ctl, err := c.spawn("controller", func() []string {
		return []string{"controller", "-listen", ctlListen, "-dir", filepath.Join(dir, "controller"),
			"-default-min-isr", strconv.Itoa(min(2, rf))}
	})
	if err != nil {
		return nil, err
	}
	line, err := c.nodes.AwaitLine(ctl, "controller listening on ")
	if err != nil {
		return nil, err
	}
	ctlAddr := strings.TrimSuffix(strings.Fields(line)[3], ",")
	ctlListen = ctlAddr
	var bs []*nodecmd.Node
	var seeds []string
	for id := 1; id <= brokers; id++ {
		listen, kafkaListen := "127.0.0.1:0", "127.0.0.1:0"
		b, err := c.spawn(fmt.Sprintf("broker %d", id), func() []string {
			return []string{"broker", strconv.Itoa(rf), kafkaListen, "-id", strconv.Itoa(id),
				"-listen", listen, "-controller", ctlAddr, "-dir", filepath.Join(dir, fmt.Sprintf("broker-%d", id))}
		})
		if err != nil {
			return nil, err
		}
		line, err := c.nodes.AwaitLine(b, b.Name+" Kafka listener on ")
		if err != nil {
			return nil, err
		}
		kafkaListen = strings.Fields(line)[5]
		line, err = c.nodes.AwaitLine(b, b.Name+" listening on ")
		if err != nil {
			return nil, err
		}
		listen = strings.Fields(line)[4]
		bs = append(bs, b)
		seeds = append(seeds, kafkaListen)
	}
	for _, b := range bs {
		if _, err := c.nodes.AwaitLine(b, b.Name+" ready"); err != nil {
			return nil, err
		}
	}
	return seeds, nil
}

// spawn starts self as a node with the arguments args returns (asked
// again at each restart; with -metrics-listen added for -metrics); its
// output goes to the log, a record per line naming the node (stderr's as
// warnings).
func (c *cluster) spawn(name string, args func() []string) (*nodecmd.Node, error) {
	cmd := func() *exec.Cmd {
		a := append([]string{nodeFlag}, args()...)
		a = append(a, "-log-format", "json") // relogged as records of ours (relog)
		if c.metrics {
			a = append(a, "-metrics-listen", "127.0.0.1:0")
		}
		return exec.Command(c.self, a...)
	}
	n, err := c.nodes.StartRestartable(name, cmd,
		func(line string) { c.log.Info(line, "node", name) },
		func(line string) { c.relog(name, line) })
	if err == nil {
		c.log.Info("node started", "node", name, "pid", n.Pid())
	}
	return n, err
}

// relog writes a line of a node's stderr to the cluster's log: a JSON log
// record (the nodes log with -log-format json) as the record it is, at
// its level and with its attributes; anything else (a panic's trace) as
// a warning holding the line.
func (c *cluster) relog(node, line string) {
	var rec map[string]any
	if json.Unmarshal([]byte(line), &rec) != nil {
		c.log.Warn(line, "node", node)
		return
	}
	var level slog.Level
	if s, ok := rec["level"].(string); !ok || level.UnmarshalText([]byte(s)) != nil {
		level = slog.LevelWarn
	}
	msg, _ := rec["msg"].(string)
	attrs := []any{"node", node}
	for _, k := range slices.Sorted(maps.Keys(rec)) {
		if k != "time" && k != "level" && k != "msg" && k != "node" {
			attrs = append(attrs, k, rec[k])
		}
	}
	c.log.Log(context.Background(), level, msg, attrs...)
}
