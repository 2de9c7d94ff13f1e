package nodecmd

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
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
	c := &cluster{self: self, out: out, errOut: errOut, stop: stop}
	if err := c.start(&f); err != nil {
		out.printf("cluster: %v\n", err)
		c.kill()
		return 1
	}
	out.printf("cluster ready: controller %s; brokers %s; data in %s\n", c.ctl.addr, c.brokerList(), f.Dir)
	if f.Topic != "" {
		if err := c.createTopic(&f); err != nil {
			out.printf("cluster: %v\n", err)
			return c.shutdown()
		}
	}
	out.printf("Ctrl-C (SIGINT) or SIGTERM stops every node cleanly; a second one kills them\n")
	return c.wait()
}

// cluster is the running nodes of the cluster command.
type cluster struct {
	self        string
	out, errOut *lineWriter
	stop        <-chan os.Signal
	ctl         *child
	brokers     []*child
}

// child is one node process.
type child struct {
	name    string
	cmd     *exec.Cmd
	addr    string
	lines   chan string   // its stdout, line by line, while someone reads
	exited  chan struct{} // closed when it has exited
	waitErr error         // its exit, once exited is closed
	stopped bool          // we asked it to stop
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
		line, err := c.awaitLine(b, b.name+" listening on ")
		if err != nil {
			return err
		}
		b.addr = strings.Fields(line)[4]
	}
	for _, b := range c.brokers {
		if _, err := c.awaitLine(b, b.name+" ready"); err != nil {
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
	cmd.Stderr = &prefixWriter{w: c.errOut, prefix: "[" + name + "] "}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	setChildAttrs(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	ch := &child{name: name, cmd: cmd, lines: make(chan string, 64), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			c.out.printf("[%s] %s\n", name, sc.Text())
			select {
			case ch.lines <- sc.Text():
			default: // nobody is waiting for its lines any more
			}
		}
		ch.waitErr = cmd.Wait()
		close(ch.exited)
	}()
	return ch, nil
}

// awaitLine waits for a line of ch's output starting with prefix.
func (c *cluster) awaitLine(ch *child, prefix string) (string, error) {
	limit := time.NewTimer(startLimit)
	defer limit.Stop()
	for {
		select {
		case line := <-ch.lines:
			if strings.HasPrefix(line, prefix) {
				return line, nil
			}
		case <-ch.exited:
			return "", fmt.Errorf("%s exited while starting: %v", ch.name, ch.waitErr)
		case s := <-c.stop:
			return "", fmt.Errorf("%v while starting", s)
		case <-limit.C:
			return "", fmt.Errorf("%s did not start within %v", ch.name, startLimit)
		}
	}
}

func (c *cluster) brokerList() string {
	var parts []string
	for _, b := range c.brokers {
		parts = append(parts, strings.TrimPrefix(b.name, "broker ")+"="+b.addr)
	}
	return strings.Join(parts, " ")
}

// createTopic creates the topic through the controller and prints each
// partition's leader and ISR.
func (c *cluster) createTopic(f *clusterFlags) error {
	resp, err := Call(c.ctl.addr, &wire.CreateTopicsRequest{
		CorrelationID: 1, Name: f.Topic, Partitions: int32(f.Partitions),
		ReplicationFactor: int16(f.RF), MinISR: int32(f.MinISR),
	}, CallTimeout)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", f.Topic, err)
	}
	switch ct := resp.(*wire.CreateTopicsResponse); ct.ErrorCode {
	case wire.CodeNone:
		c.out.printf("topic %s: %d partitions, replication factor %d, min ISR %d\n", f.Topic, f.Partitions, f.RF, f.MinISR)
	case wire.CodeTopicAlreadyExists:
		// A cluster started again on its old -dir: the topic is there.
		c.out.printf("topic %s: already there\n", f.Topic)
	default:
		return fmt.Errorf("create topic %s: %w: %s", f.Topic, ct.ErrorCode.Err(), ct.ErrorMessage)
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

// wait runs until a signal, then shuts the cluster down. A node that exits
// on its own is reported; the others keep running.
func (c *cluster) wait() int {
	for {
		cases := c.running()
		if len(cases) == 0 {
			c.out.printf("cluster: every node has exited\n")
			return 1
		}
		select {
		case s := <-c.stop:
			c.out.printf("cluster: %v: stopping the brokers one by one, then the controller\n", s)
			return c.shutdown()
		case ch := <-anyExited(cases):
			ch.stopped = true // reported once
			c.out.printf("cluster: %s exited: %v\n", ch.name, ch.waitErr)
		}
	}
}

// running returns the nodes not known to have exited.
func (c *cluster) running() []*child {
	var out []*child
	for _, ch := range append(append([]*child(nil), c.brokers...), c.ctl) {
		if ch != nil && !ch.stopped {
			out = append(out, ch)
		}
	}
	return out
}

// anyExited returns a channel that yields the first of chs to exit.
func anyExited(chs []*child) <-chan *child {
	first := make(chan *child, len(chs))
	for _, ch := range chs {
		go func() {
			<-ch.exited
			first <- ch
		}()
	}
	return first
}

// shutdown stops every broker, one at a time, then the controller, each
// with SIGTERM; a second signal kills everything left.
func (c *cluster) shutdown() int {
	status := 0
	for _, ch := range append(append([]*child(nil), c.brokers...), c.ctl) {
		if ch == nil {
			continue
		}
		select {
		case <-ch.exited:
			if ch.waitErr != nil {
				status = 1
			}
			continue
		default:
		}
		ch.stopped = true
		ch.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-ch.exited:
			if ch.waitErr != nil {
				c.out.printf("cluster: %s: %v\n", ch.name, ch.waitErr)
				status = 1
			}
		case s := <-c.stop:
			c.out.printf("cluster: %v again: killing every node\n", s)
			c.kill()
			return 1
		}
	}
	if status == 0 {
		c.out.printf("cluster: every node stopped cleanly\n")
	}
	return status
}

// kill sends SIGKILL to every node still running and waits for them.
func (c *cluster) kill() {
	for _, ch := range append(append([]*child(nil), c.brokers...), c.ctl) {
		if ch == nil {
			continue
		}
		ch.cmd.Process.Kill()
		<-ch.exited
	}
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

func (l *lineWriter) write(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(p)
}

// prefixWriter writes whole lines, each prefixed, to a lineWriter.
type prefixWriter struct {
	w      *lineWriter
	prefix string
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		p.w.write(append([]byte(p.prefix), p.buf[:i+1]...))
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}
