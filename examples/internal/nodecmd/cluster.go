package nodecmd

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kaenlog/kaenlog/wire"
)

// ChildEnv is the environment variable with which examples/cluster starts
// itself as one of its nodes: "controller" or "broker" makes the process
// run RunController or RunBroker with its arguments.
const ChildEnv = "KAENLOG_CLUSTER_NODE"

// clusterBrokers is how many brokers the cluster command starts.
const clusterBrokers = 3

// startLimit bounds the wait for each node to start.
const startLimit = 60 * time.Second

// clusterFlags are the cluster command's flags, after parsing.
type clusterFlags struct {
	Dir             string
	Topic           string
	Partitions      int
	RF              int
	MinISR          int
	SyncEveryAppend bool
}

func clusterFlagSet(f *clusterFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	fs.StringVar(&f.Dir, "dir", "", "where the nodes keep their data: DIR/controller, DIR/broker-1 ... (default: a new temporary directory, printed and kept)")
	fs.StringVar(&f.Topic, "topic", "", "create this topic once the brokers are up (default: none)")
	fs.IntVar(&f.Partitions, "partitions", 1, "the topic's partitions, 1 to 10000")
	fs.IntVar(&f.RF, "rf", clusterBrokers, "the topic's replication factor, 1 to 3")
	fs.IntVar(&f.MinISR, "min-isr", 2, "the topic's min.insync.replicas, 1 to -rf")
	fs.BoolVar(&f.SyncEveryAppend, "sync-every-append", false, "brokers fsync every append before acknowledging it")
	return fs
}

func (f *clusterFlags) validate(set map[string]bool) error {
	for _, err := range []error{
		checkRange("partitions", f.Partitions, 1, 10_000),
		checkRange("rf", f.RF, 1, clusterBrokers),
		checkRange("min-isr", f.MinISR, 1, f.RF),
	} {
		if err != nil {
			return err
		}
	}
	if f.Topic == "" {
		for _, name := range []string{"partitions", "rf", "min-isr"} {
			if set[name] {
				return usageError("-%s needs -topic", name)
			}
		}
		return nil
	}
	if err := wire.ValidateTopic(f.Topic); err != nil {
		return usageError("-topic %q: %v", f.Topic, err)
	}
	return nil
}

// RunCluster runs the cluster command: a controller and three brokers as
// child processes of self (the cluster binary, run again with ChildEnv
// set), on free loopback ports, with their data under -dir. It creates
// -topic if given, prints where everything is, and waits for a signal on
// stop: then it stops the brokers one by one with SIGTERM (each a clean,
// controlled shutdown) and the controller last, and returns 0 if all of
// them stopped cleanly. A second signal kills every node still running
// (SIGKILL) and returns 1.
func RunCluster(args []string, self string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	var f clusterFlags
	fs := clusterFlagSet(&f)
	if status, ok := parse(fs, args, stderr); !ok {
		return status
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if err := f.validate(set); err != nil {
		return refuse(fs, stderr, err)
	}
	var mu sync.Mutex
	out, errOut := &lineWriter{w: stdout, mu: &mu}, &lineWriter{w: stderr, mu: &mu}
	if f.Dir == "" {
		dir, err := os.MkdirTemp("", "kaenlog-cluster-")
		if err != nil {
			fmt.Fprintf(stderr, "cluster: %v\n", err)
			return 1
		}
		f.Dir = dir
	}
	out.printf("cluster: data in %s\n", f.Dir)
	c := &cluster{self: self, out: out, errOut: errOut}
	c.nodes = Nodes{Stop: stop, StrictExits: true, Say: func(format string, args ...any) { out.printf(format+"\n", args...) }}
	if err := c.start(&f); err != nil {
		out.printf("cluster: %v\n", err)
		c.nodes.Kill()
		return 1
	}
	out.printf("cluster ready: controller %s; brokers %s; data in %s\n", c.ctl.addr, c.brokerList(), f.Dir)
	if f.Topic != "" {
		if err := c.createTopic(&f); err != nil {
			out.printf("cluster: %v\n", err)
			return c.nodes.Shutdown()
		}
	}
	out.printf("Ctrl-C (SIGINT) or SIGTERM stops every node cleanly; a second one kills them\n")
	return c.nodes.Wait()
}

// cluster is the running nodes of the cluster command.
type cluster struct {
	self        string
	out, errOut *lineWriter
	nodes       Nodes
	ctl         *child
	brokers     []*child
}

// child is one node process and its address.
type child struct {
	*Node
	addr string
}

// start starts the controller, then the brokers, and waits until every
// broker is registered and unfenced.
func (c *cluster) start(f *clusterFlags) error {
	var err error
	c.ctl, err = c.spawn("controller", "controller", "-listen", "127.0.0.1:0", "-dir", filepath.Join(f.Dir, "controller"))
	if err != nil {
		return err
	}
	line, err := c.awaitLine(c.ctl, "controller listening on ")
	if err != nil {
		return err
	}
	c.ctl.addr = strings.TrimSuffix(strings.Fields(line)[3], ",")
	for id := 1; id <= clusterBrokers; id++ {
		args := []string{"-id", fmt.Sprint(id), "-listen", "127.0.0.1:0", "-controller", c.ctl.addr,
			"-dir", filepath.Join(f.Dir, fmt.Sprintf("broker-%d", id))}
		if f.SyncEveryAppend {
			args = append(args, "-sync-every-append")
		}
		b, err := c.spawn("broker", fmt.Sprintf("broker %d", id), args...)
		if err != nil {
			return err
		}
		c.brokers = append(c.brokers, b)
		line, err := c.awaitLine(b, b.Name+" listening on ")
		if err != nil {
			return err
		}
		b.addr = strings.Fields(line)[4]
	}
	for _, b := range c.brokers {
		if _, err := c.awaitLine(b, b.Name+" ready"); err != nil {
			return err
		}
	}
	return nil
}

// spawn starts self as a node with args; its output is copied to the
// cluster's, each line prefixed with its name.
func (c *cluster) spawn(role, name string, args ...string) (*child, error) {
	cmd := exec.Command(c.self, args...)
	cmd.Env = append(os.Environ(), ChildEnv+"="+role)
	n, err := c.nodes.Start(name, cmd,
		func(line string) { c.out.printf("[%s] %s\n", name, line) },
		func(line string) { c.errOut.printf("[%s] %s\n", name, line) })
	if err != nil {
		return nil, err
	}
	return &child{Node: n}, nil
}

// awaitLine waits for a line of ch's output starting with prefix.
func (c *cluster) awaitLine(ch *child, prefix string) (string, error) {
	return c.nodes.AwaitLine(ch.Node, prefix)
}

func (c *cluster) brokerList() string {
	var parts []string
	for _, b := range c.brokers {
		parts = append(parts, strings.TrimPrefix(b.Name, "broker ")+"="+b.addr)
	}
	return strings.Join(parts, " ")
}

// createTopic creates the topic through the controller and prints each
// partition's leader and ISR.
func (c *cluster) createTopic(f *clusterFlags) error {
	resp, err := Call(c.ctl.addr, &wire.CreateTopicsRequest{CorrelationID: 1, Topics: []wire.CreatableTopic{{Name: f.Topic, Partitions: int32(f.Partitions), ReplicationFactor: int16(f.RF), Configs: wire.MinInsyncReplicas(int32(f.MinISR))}}}, CallTimeout)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", f.Topic, err)
	}
	ct := resp.(*wire.CreateTopicsResponse)
	switch wire.CodeOf(ct.Err()) {
	case wire.CodeNone:
		c.out.printf("topic %s: %d partitions, replication factor %d, min ISR %d\n", f.Topic, f.Partitions, f.RF, f.MinISR)
	case wire.CodeTopicAlreadyExists:
		// A cluster started again on its old -dir: the topic is there.
		c.out.printf("topic %s: already there\n", f.Topic)
	default:
		return ct.Err()
	}
	resp, err = Call(c.ctl.addr, &wire.MetadataRequest{CorrelationID: 2, Topics: []string{f.Topic}}, CallTimeout)
	if err != nil {
		return fmt.Errorf("metadata of %s: %w", f.Topic, err)
	}
	for _, t := range resp.(*wire.MetadataResponse).Topics {
		for _, p := range t.Partitions {
			c.out.printf("  %s-%d: leader %d, replicas %v, ISR %v\n", t.Name, p.Partition, p.Leader, p.Replicas, p.ISR)
		}
	}
	return nil
}

// lineWriter writes whole lines to w; writers sharing mu never interleave
// within a line.
type lineWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lineWriter) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format, args...)
}
