package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kaenlog/kaenlog/examples/internal/nodecmd"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/kaenlog/kaenlog/replica/server"
)

// nodeFlag, as the first argument, makes the process one of the
// cluster's nodes (see runNode); it is not in the usage.
const nodeFlag = "-node"

// startLimit bounds the wait for each node to start.
const startLimit = 60 * time.Second

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
// "broker RF ARGS" examples/broker's with a Kafka listener on a free
// loopback port whose auto-created topics get replication factor RF.
func runNode(args []string) int {
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	switch {
	case len(args) >= 1 && args[0] == "controller":
		return nodecmd.RunController(args[1:], os.Stdout, os.Stderr, stop)
	case len(args) >= 2 && args[0] == "broker":
		rf, err := strconv.ParseInt(args[1], 10, 16)
		if err != nil {
			fmt.Fprintf(os.Stderr, "kafkacluster node: replication factor %q: %v\n", args[1], err)
			return 2
		}
		kl := nodecmd.KafkaListener{Listen: "127.0.0.1:0", Codec: func(b *replica.Broker) server.Codec {
			return kafka.NewCodec(b, kafkaConfig(int16(rf)))
		}}
		return nodecmd.RunBrokerWithKafka(args[2:], os.Stdout, os.Stderr, stop, kl)
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
	c := &cluster{self: self, log: log, stop: stop}
	seeds, err := c.start(*dir, *brokers, rf)
	if err != nil {
		log.Error("starting", "err", err)
		c.kill()
		return 1
	}
	log.Info("cluster ready", "dir", *dir, "brokers", *brokers, "replication_factor", rf, "min_isr", min(2, rf), "auto_create_topics", autoCreate)
	fmt.Fprintf(stdout, "bootstrap: %s\n", strings.Join(seeds, ","))
	return c.wait()
}

// cluster is the running nodes.
type cluster struct {
	self  string
	log   *slog.Logger
	stop  <-chan os.Signal
	nodes []*node // the brokers, then the controller
}

// node is one node process.
type node struct {
	name    string
	cmd     *exec.Cmd
	lines   chan string   // its stdout, line by line, while someone reads
	exited  chan struct{} // closed when it has exited
	waitErr error         // its exit, once exited is closed
	done    bool          // its exit is accounted for
}

// start starts the controller, then the brokers, waits until every
// broker is registered and unfenced, and returns their Kafka listeners.
func (c *cluster) start(dir string, brokers, rf int) ([]string, error) {
	ctl, err := c.spawn("controller", "controller", "-listen", "127.0.0.1:0", "-dir", filepath.Join(dir, "controller"),
		"-default-min-isr", strconv.Itoa(min(2, rf)))
	if err != nil {
		return nil, err
	}
	line, err := c.awaitLine(ctl, "controller listening on ")
	if err != nil {
		return nil, err
	}
	ctlAddr := strings.TrimSuffix(strings.Fields(line)[3], ",")
	var bs []*node
	var seeds []string
	for id := 1; id <= brokers; id++ {
		b, err := c.spawn(fmt.Sprintf("broker %d", id), "broker", strconv.Itoa(rf), "-id", strconv.Itoa(id),
			"-listen", "127.0.0.1:0", "-controller", ctlAddr, "-dir", filepath.Join(dir, fmt.Sprintf("broker-%d", id)))
		if err != nil {
			return nil, err
		}
		line, err := c.awaitLine(b, b.name+" Kafka listener on ")
		if err != nil {
			return nil, err
		}
		bs = append(bs, b)
		seeds = append(seeds, strings.Fields(line)[5])
	}
	for _, b := range bs {
		if _, err := c.awaitLine(b, b.name+" ready"); err != nil {
			return nil, err
		}
	}
	return seeds, nil
}

// spawn starts self as a node; its output goes to the log, a record per
// line naming the node.
func (c *cluster) spawn(name string, args ...string) (*node, error) {
	cmd := exec.Command(c.self, append([]string{nodeFlag}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	setNodeAttrs(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c.log.Info("node started", "node", name, "pid", cmd.Process.Pid)
	n := &node{name: name, cmd: cmd, lines: make(chan string, 64), exited: make(chan struct{})}
	// The brokers stop first, so a broker is put before the controller.
	if name == "controller" {
		c.nodes = append(c.nodes, n)
	} else {
		c.nodes = append(c.nodes[:len(c.nodes)-1], n, c.nodes[len(c.nodes)-1])
	}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		sc := bufio.NewScanner(errOut)
		for sc.Scan() {
			c.log.Warn(sc.Text(), "node", name)
		}
	}()
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.log.Info(sc.Text(), "node", name)
			select {
			case n.lines <- sc.Text():
			default: // nobody is waiting for its lines any more
			}
		}
		<-stderrDone
		n.waitErr = cmd.Wait()
		close(n.exited)
	}()
	return n, nil
}

// awaitLine waits for a line of n's output starting with prefix.
func (c *cluster) awaitLine(n *node, prefix string) (string, error) {
	limit := time.NewTimer(startLimit)
	defer limit.Stop()
	for {
		select {
		case line := <-n.lines:
			if strings.HasPrefix(line, prefix) {
				return line, nil
			}
		case <-n.exited:
			return "", fmt.Errorf("%s exited while starting: %v", n.name, n.waitErr)
		case s := <-c.stop:
			return "", fmt.Errorf("%v while starting", s)
		case <-limit.C:
			return "", fmt.Errorf("%s did not start within %v", n.name, startLimit)
		}
	}
}

// wait runs until a signal, then stops the nodes. A node that exits on
// its own is logged; the others keep serving.
func (c *cluster) wait() int {
	exited := make(chan *node, len(c.nodes))
	for _, n := range c.nodes {
		go func() {
			<-n.exited
			exited <- n
		}()
	}
	for {
		select {
		case s := <-c.stop:
			c.log.Info("stopping the brokers one by one (controlled shutdown), then the controller", "signal", s.String())
			return c.shutdown()
		case n := <-exited:
			if !n.done {
				n.done = true
				c.log.Error("node exited", "node", n.name, "err", fmt.Sprint(n.waitErr))
			}
		}
	}
}

// shutdown stops every running node with SIGTERM, one at a time, the
// brokers first; it returns 0 if each stopped cleanly. A second signal
// kills what is left.
func (c *cluster) shutdown() int {
	status := 0
	for _, n := range c.nodes {
		select {
		case <-n.exited:
			continue // exited before: logged then
		default:
		}
		n.done = true
		n.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-n.exited:
			if n.waitErr != nil {
				c.log.Error("node did not stop cleanly", "node", n.name, "err", n.waitErr.Error())
				status = 1
			}
		case s := <-c.stop:
			c.log.Error("killing every node", "signal", s.String())
			c.kill()
			return 1
		}
	}
	if status == 0 {
		c.log.Info("every node stopped cleanly")
	}
	return status
}

// kill sends SIGKILL to every node and waits for them.
func (c *cluster) kill() {
	for _, n := range c.nodes {
		n.cmd.Process.Kill()
		<-n.exited
	}
}
