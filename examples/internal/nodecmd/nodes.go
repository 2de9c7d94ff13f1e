package nodecmd

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Nodes are the node processes of a command that runs a cluster
// (examples/cluster, examples/kafkacluster): started one by one, each
// waited for by the lines it prints, stopped in order with SIGTERM.
type Nodes struct {
	// Stop delivers the signals that stop the cluster.
	Stop <-chan os.Signal
	// Say reports what happens to the nodes, a line at a time.
	Say func(format string, args ...any)
	// StrictExits makes Shutdown's status 1 also for a node that had
	// exited with an error before it (examples/cluster); unset, such a
	// node was reported when it exited, and the status tells of the stop
	// alone (examples/kafkacluster, whose nodes one kills to see the
	// cluster survive).
	StrictExits bool
	// Restart starts again a node that exits on its own (a crash, a
	// kill -9) while the cluster runs, if it was started with
	// StartRestartable: after restartBackoffMin, doubling to
	// restartBackoffMax while it keeps exiting within restartStableAfter
	// of its start.
	Restart bool
	list    []*Node
}

// The restart backoff (Nodes.Restart).
const (
	restartBackoffMin  = time.Second
	restartBackoffMax  = 30 * time.Second
	restartStableAfter = time.Minute
)

// Node is one node process.
type Node struct {
	Name    string
	cmd     *exec.Cmd
	lines   chan string   // its stdout, line by line, while someone reads
	exited  chan struct{} // closed when it has exited
	waitErr error         // its exit, once exited is closed
	stopped bool          // its exit is accounted for

	// For a restart (StartRestartable): how to make its command again,
	// where its lines go, when it started and the next backoff.
	newCmd      func() *exec.Cmd
	out, errOut func(string)
	started     time.Time
	backoff     time.Duration
}

// Pid is the node's process id.
func (n *Node) Pid() int { return n.cmd.Process.Pid }

// Start starts cmd as node name, in its own process group and, on Linux,
// with SIGTERM as its parent-death signal (setChildAttrs). Each line of
// its stdout goes to out and each of its stderr to errOut, then to
// AwaitLine.
func (ns *Nodes) Start(name string, cmd *exec.Cmd, out, errOut func(line string)) (*Node, error) {
	n, err := startNode(name, cmd, out, errOut)
	if err == nil {
		ns.list = append(ns.list, n)
	}
	return n, err
}

// StartRestartable is Start with the command made by newCmd, which makes
// it again when Restart is set and the node exits on its own.
func (ns *Nodes) StartRestartable(name string, newCmd func() *exec.Cmd, out, errOut func(line string)) (*Node, error) {
	n, err := ns.Start(name, newCmd(), out, errOut)
	if err == nil {
		n.newCmd, n.backoff = newCmd, restartBackoffMin
	}
	return n, err
}

// startNode starts cmd as node name (see Start).
func startNode(name string, cmd *exec.Cmd, out, errOut func(line string)) (*Node, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	setChildAttrs(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	n := &Node{Name: name, cmd: cmd, lines: make(chan string, 64), exited: make(chan struct{}),
		out: out, errOut: errOut, started: time.Now()}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		eachLine(stderr, errOut)
	}()
	go func() {
		eachLine(stdout, func(line string) {
			out(line)
			select {
			case n.lines <- line:
			default: // nobody is waiting for its lines any more
			}
		})
		<-stderrDone
		n.waitErr = cmd.Wait()
		close(n.exited)
	}()
	return n, nil
}

func eachLine(r io.Reader, f func(string)) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f(sc.Text())
	}
}

// AwaitLine waits, at most startLimit, for a line of n's stdout starting
// with prefix.
func (ns *Nodes) AwaitLine(n *Node, prefix string) (string, error) {
	limit := time.NewTimer(startLimit)
	defer limit.Stop()
	for {
		select {
		case line := <-n.lines:
			if strings.HasPrefix(line, prefix) {
				return line, nil
			}
		case <-n.exited:
			return "", fmt.Errorf("%s exited while starting: %v", n.Name, n.waitErr)
		case s := <-ns.Stop:
			return "", fmt.Errorf("%v while starting", s)
		case <-limit.C:
			return "", fmt.Errorf("%s did not start within %v", n.Name, startLimit)
		}
	}
}

// stopOrder is the nodes in the order they stop: all but the first in
// the order they started (the brokers), then the first (the controller).
func (ns *Nodes) stopOrder() []*Node {
	if len(ns.list) == 0 {
		return nil
	}
	return append(append([]*Node(nil), ns.list[1:]...), ns.list[0])
}

// Wait runs until a signal on Stop, then stops the nodes (Shutdown) and
// returns its status. A node that exits on its own is reported and, with
// Restart, started again (see Nodes.Restart); the others keep running.
// With every node gone for good it returns 1.
func (ns *Nodes) Wait() int {
	exited := make(chan *Node, len(ns.list))
	watch := func(n *Node) {
		go func() {
			<-n.exited
			exited <- n
		}()
	}
	for _, n := range ns.list {
		watch(n)
	}
	// At most one restart per node is pending, so a send never blocks,
	// even after Wait has returned.
	restart := make(chan *Node, len(ns.list))
	for left := len(ns.list); ; {
		select {
		case s := <-ns.Stop:
			ns.Say("cluster: %v: stopping the brokers one by one, then the controller", s)
			return ns.Shutdown()
		case n := <-exited:
			if !n.stopped {
				n.stopped = true // reported once
				ns.Say("cluster: %s exited: %v", n.Name, n.waitErr)
			}
			if ns.Restart && n.newCmd != nil {
				delay := n.nextBackoff()
				ns.Say("cluster: restarting %s in %v", n.Name, delay)
				time.AfterFunc(delay, func() { restart <- n })
				continue
			}
			if left--; left == 0 {
				ns.Say("cluster: every node has exited")
				return 1
			}
		case old := <-restart:
			n, err := startNode(old.Name, old.newCmd(), old.out, old.errOut)
			if err != nil {
				ns.Say("cluster: restarting %s: %v", old.Name, err)
				old.started = time.Now() // it failed at once: back off further
				delay := old.nextBackoff()
				ns.Say("cluster: restarting %s in %v", old.Name, delay)
				time.AfterFunc(delay, func() { restart <- old })
				continue
			}
			n.newCmd, n.backoff = old.newCmd, old.backoff
			ns.list[slices.Index(ns.list, old)] = n
			ns.Say("cluster: %s restarted, pid %d", n.Name, n.Pid())
			watch(n)
		}
	}
}

// nextBackoff is how long to wait before restarting n, which just
// exited: restartBackoffMin again if it had run restartStableAfter,
// else the last wait doubled, at most restartBackoffMax.
func (n *Node) nextBackoff() time.Duration {
	if time.Since(n.started) >= restartStableAfter {
		n.backoff = restartBackoffMin
	}
	d := n.backoff
	n.backoff = min(2*n.backoff, restartBackoffMax)
	return d
}

// Shutdown stops every node still running with SIGTERM, one at a time
// (stopOrder), and returns 0 if each of them stopped cleanly (see
// StrictExits for a node that exited before). A second signal kills every node left
// and returns 1.
func (ns *Nodes) Shutdown() int {
	status := 0
	for _, n := range ns.stopOrder() {
		select {
		case <-n.exited:
			if ns.StrictExits && n.waitErr != nil {
				status = 1
			}
			continue
		default:
		}
		n.stopped = true
		n.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-n.exited:
			if n.waitErr != nil {
				ns.Say("cluster: %s: %v", n.Name, n.waitErr)
				status = 1
			}
		case s := <-ns.Stop:
			ns.Say("cluster: %v again: killing every node", s)
			ns.Kill()
			return 1
		}
	}
	if status == 0 {
		ns.Say("cluster: every node stopped cleanly")
	}
	return status
}

// Kill sends SIGKILL to every node and waits for them.
func (ns *Nodes) Kill() {
	for _, n := range ns.list {
		n.cmd.Process.Kill()
		<-n.exited
	}
}
