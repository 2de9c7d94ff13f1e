package faulttest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/internal/nodecmd"
	"github.com/kaenlog/kaenlog/wire"
)

// Timing of the cluster under test: short enough that 50 faults fit in a
// couple of minutes, long enough for a loaded 2-core machine.
const (
	sessionTimeoutMs = 1500 // the controller fences a broker silent this long
	heartbeatMs      = 150
	replicaLagMs     = 1000 // a follower not caught up this long leaves the ISR
	startLimit       = 60 * time.Second
)

// eventually polls cond until it holds or limit passes; then it fails the
// test with what. It is the only way the test waits for a condition.
func eventually(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	if !poll(limit, cond) {
		t.Fatalf("%s: not within %v", what, limit)
	}
}

// poll polls cond every 20 ms until it holds (true) or limit passes (false).
func poll(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not a wait for the condition
	}
}

// freePort returns a loopback port that was free a moment ago, below the
// kernel's range of ephemeral ports: a node restarts on its port, and a
// port from that range may meanwhile become the local port of an outgoing
// connection, which fails the restart with "bind: address already in use".
// The search starts at an offset given by the process id, so that test
// processes running side by side start apart, and goes down from there,
// past every port it handed out before (a node not yet started leaves its
// port free).
func freePort(t testing.TB) int {
	t.Helper()
	low := ephemeralLow()
	span := min(10000, low-1024)
	start := os.Getpid() % span
	handedOut.Lock()
	defer handedOut.Unlock()
	for i := range span {
		port := low - 1 - (start+i)%span
		if handedOut.ports[port] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			ln.Close()
			handedOut.ports[port] = true
			return port
		}
	}
	t.Fatalf("no free loopback port in [%d, %d)", low-span, low)
	return 0
}

// handedOut holds the ports freePort gave, never given twice.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// ephemeralLow is the lowest ephemeral port (Linux's
// ip_local_port_range), or Linux's default 32768 where it cannot be read.
func ephemeralLow() int {
	const fallback = 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return fallback
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return fallback
	}
	low, err := strconv.Atoi(f[0])
	if err != nil || low <= 2048 || low > 65535 {
		return fallback
	}
	return low
}

// node is one process of the cluster: the controller or a broker. It is
// always restarted with the same arguments: the same port, the same data
// directory.
type node struct {
	name    string
	id      int // broker id; 0 for the controller
	bin     string
	args    []string
	addr    string
	dir     string
	logPath string // stdout and stderr of every incarnation, appended
	ready   string // the line that says an incarnation is serving

	cmd    *exec.Cmd
	exited chan struct{}
	up     bool // started and not known to be killed
	paused bool
}

// start starts an incarnation and waits for its ready line.
func (n *node) start(t testing.TB) {
	t.Helper()
	if !n.startWait(t, startLimit) {
		t.Fatalf("%s did not get ready within %v; its log:\n%s", n.name, startLimit, n.tail(4000))
	}
}

// startWait starts an incarnation and waits up to limit for its ready
// line; false if it did not come (the process is left running).
func (n *node) startWait(t testing.TB, limit time.Duration) bool {
	t.Helper()
	f, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	from := st.Size()
	fmt.Fprintf(f, "=== %s: start\n", time.Now().Format("15:04:05.000"))
	cmd := exec.Command(n.bin, n.args...)
	cmd.Stdout, cmd.Stderr = f, f
	dieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("start %s: %v", n.name, err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		f.Close()
		close(exited)
	}()
	n.cmd, n.exited, n.up, n.paused = cmd, exited, true, false
	return poll(limit, func() bool { return n.logHas(from, n.ready) })
}

// logHas reports whether the node's log past byte from has a line
// starting with prefix.
func (n *node) logHas(from int64, prefix string) bool {
	f, err := os.Open(n.logPath)
	if err != nil {
		return false
	}
	defer f.Close()
	if _, err := f.Seek(from, 0); err != nil {
		return false
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			return true
		}
	}
	return false
}

// tail returns the last n bytes of the node's log.
func (n *node) tail(max int) string {
	b, _ := os.ReadFile(n.logPath)
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}

func (n *node) signal(s syscall.Signal) {
	if n.cmd != nil && n.cmd.Process != nil {
		n.cmd.Process.Signal(s)
	}
}

// kill SIGKILLs the node and waits for it to be gone.
func (n *node) kill(t testing.TB) {
	t.Helper()
	n.signal(syscall.SIGKILL)
	select {
	case <-n.exited:
	case <-time.After(startLimit):
		t.Fatalf("%s did not die of SIGKILL", n.name)
	}
	n.up, n.paused = false, false
}

func (n *node) pause()  { n.signal(syscall.SIGSTOP); n.paused = true }
func (n *node) resume() { n.signal(syscall.SIGCONT); n.paused = false }

// stop stops the node cleanly with SIGTERM and returns whether it exited
// with status 0.
func (n *node) stop(t testing.TB) bool {
	t.Helper()
	if !n.up {
		return true
	}
	if n.paused {
		n.resume()
	}
	n.signal(syscall.SIGTERM)
	select {
	case <-n.exited:
	case <-time.After(startLimit):
		t.Errorf("%s did not stop within %v on SIGTERM", n.name, startLimit)
		n.kill(t)
		return false
	}
	n.up = false
	return n.cmd.ProcessState.ExitCode() == 0
}

// cluster is a controller and three brokers.
type cluster struct {
	ctl     *node
	brokers []*node // brokers[i] has id i+1
	elect   string  // the elect command's binary
}

func (c *cluster) nodes() []*node { return append([]*node{c.ctl}, c.brokers...) }

func (c *cluster) broker(id int32) *node {
	if id < 1 || int(id) > len(c.brokers) {
		return nil
	}
	return c.brokers[id-1]
}

// startCluster builds the commands and starts the nodes, each broker
// with brokerArgs added to its flags; t.Cleanup kills whatever is left.
func startCluster(t *testing.T, brokerArgs ...string) *cluster {
	bins := t.TempDir()
	for _, cmd := range []string{"controller", "broker", "elect"} {
		out, err := exec.Command("go", "build", "-o", filepath.Join(bins, cmd), "github.com/kaenlog/kaenlog/examples/"+cmd).CombinedOutput()
		if err != nil {
			t.Fatalf("go build %s: %v\n%s", cmd, err, out)
		}
	}
	data := t.TempDir()
	c := &cluster{elect: filepath.Join(bins, "elect")}
	ctlAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	c.ctl = &node{name: "controller", bin: filepath.Join(bins, "controller"), addr: ctlAddr,
		dir: filepath.Join(data, "controller"), logPath: filepath.Join(data, "controller.log"),
		ready: "controller listening on "}
	c.ctl.args = []string{"-listen", ctlAddr, "-dir", c.ctl.dir,
		"-session-timeout-ms", fmt.Sprint(sessionTimeoutMs), "-default-min-isr", "2"}
	for id := 1; id <= 3; id++ {
		addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		b := &node{name: fmt.Sprintf("broker %d", id), id: id, bin: filepath.Join(bins, "broker"), addr: addr,
			dir: filepath.Join(data, fmt.Sprintf("broker-%d", id)), logPath: filepath.Join(data, fmt.Sprintf("broker-%d.log", id)),
			ready: fmt.Sprintf("broker %d ready", id)}
		b.args = []string{"-id", fmt.Sprint(id), "-listen", addr, "-controller", ctlAddr, "-dir", b.dir,
			"-heartbeat-ms", fmt.Sprint(heartbeatMs), "-replica-lag-ms", fmt.Sprint(replicaLagMs)}
		b.args = append(b.args, brokerArgs...)
		c.brokers = append(c.brokers, b)
	}
	t.Cleanup(func() {
		for _, n := range c.nodes() {
			if n.up {
				n.signal(syscall.SIGKILL)
				<-n.exited
			}
		}
		if t.Failed() {
			for _, n := range c.nodes() {
				t.Logf("--- the end of %s's log:\n%s", n.name, n.tail(3000))
			}
		}
	})
	c.ctl.start(t)
	for _, b := range c.brokers {
		b.start(t)
	}
	return c
}

// call sends req to addr and returns the response, within a bound short
// enough for a test that pauses nodes.
func call(addr string, req wire.Message) (wire.Message, error) {
	return nodecmd.Call(addr, req, 3*time.Second)
}

// metadata asks the controller for the topic's partitions.
func (c *cluster) metadata(topic string) (*wire.MetadataResponse, error) {
	m, err := call(c.ctl.addr, &wire.MetadataRequest{CorrelationID: 1, Topics: []string{topic}})
	if err != nil {
		return nil, err
	}
	md := m.(*wire.MetadataResponse)
	if md.ErrorCode != wire.CodeNone {
		return nil, md.ErrorCode.Err()
	}
	return md, nil
}

// partitions returns the topic's partitions from the controller, or nil.
func (c *cluster) partitions(topic string) []wire.MetadataPartition {
	md, err := c.metadata(topic)
	if err != nil || len(md.Topics) != 1 {
		return nil
	}
	return md.Topics[0].Partitions
}

// highWatermark asks the broker at addr for the partition's high
// watermark (ListOffsets latest, as a consumer).
func highWatermark(addr, topic string, p int32) (uint64, error) {
	m, err := call(addr, &wire.ListOffsetsRequest{CorrelationID: 1, ReplicaID: -1, Partitions: []wire.ListOffsetsPartition{
		{Topic: topic, Partition: p, CurrentLeaderEpoch: wire.NoEpoch, Timestamp: wire.LatestTimestamp}}})
	if err != nil {
		return 0, err
	}
	r := m.(*wire.ListOffsetsResponse)
	if len(r.Partitions) != 1 {
		return 0, fmt.Errorf("ListOffsets: %d partitions answered", len(r.Partitions))
	}
	if r.Partitions[0].ErrorCode != wire.CodeNone {
		return 0, r.Partitions[0].ErrorCode.Err()
	}
	return r.Partitions[0].Offset, nil
}
