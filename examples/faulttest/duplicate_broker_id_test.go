package faulttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/wire"
)

// One broker id, one broker, with real processes. A second broker process
// started with -id 3 (its own directory) while broker 3 runs is refused by
// the controller (DUPLICATE_BROKER_REGISTRATION), says so on stderr and
// asks again with a backoff, while broker 3 stays registered, unfenced and
// in every ISR, and min ISR holds. Then -id 9 on broker 3's directory, and
// a controller on it, refuse to start, naming both identities.
func TestADuplicateBrokerIDIsRefusedAndADataDirectoryKnowsWhoseItIs(t *testing.T) {
	c := startCluster(t)
	const dupTopic = "dup"
	resp, err := call(c.ctl.addr, &wire.CreateTopicsRequest{CorrelationID: 1, Topics: []wire.CreatableTopic{{Name: dupTopic, Partitions: 3, ReplicationFactor: 3, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "2"}}}}})
	if err != nil || resp.(*wire.CreateTopicsResponse).Err() != nil {
		t.Fatalf("CreateTopics: %+v, %v", resp, err)
	}
	// healthy: every partition led, its ISR all three brokers (so at least
	// min ISR 2), and every broker registered and unfenced.
	healthy := func() (bool, string) {
		md, err := c.metadata(dupTopic)
		if err != nil || len(md.Topics) != 1 {
			return false, fmt.Sprintf("metadata: %v", err)
		}
		registered := map[int32]bool{}
		for _, b := range md.Brokers {
			registered[b.ID] = !b.Fenced
		}
		for id := int32(1); id <= 3; id++ {
			if !registered[id] {
				return false, fmt.Sprintf("broker %d not registered and unfenced: %+v", id, md.Brokers)
			}
		}
		for _, p := range md.Topics[0].Partitions {
			if p.Leader < 1 || len(p.ISR) != 3 {
				return false, fmt.Sprintf("partition %d: leader %d, ISR %v", p.Partition, p.Leader, p.ISR)
			}
		}
		return true, ""
	}
	eventually(t, startLimit, "every ISR full", func() bool { ok, _ := healthy(); return ok })

	b3 := c.broker(3)
	dup := &node{name: "duplicate broker 3", id: 3, bin: b3.bin, addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		dir: filepath.Join(t.TempDir(), "broker-3-again"), logPath: filepath.Join(t.TempDir(), "duplicate.log"), ready: "broker 3 ready"}
	dup.args = []string{"-id", "3", "-listen", dup.addr, "-controller", c.ctl.addr, "-dir", dup.dir,
		"-heartbeat-ms", fmt.Sprint(heartbeatMs), "-replica-lag-ms", fmt.Sprint(replicaLagMs)}
	t.Cleanup(func() {
		if dup.up {
			dup.kill(t)
		}
		if t.Failed() {
			t.Logf("--- the duplicate's log:\n%s", dup.tail(3000))
		}
	})
	const refusal = "another incarnation of broker 3 has a live session"
	if dup.startWait(t, 0) {
		t.Fatal("the duplicate got ready at once")
	}
	// Five refusals in a row take longer than a session timeout (100 ms,
	// doubling, at most half the timeout): long enough for a duplicate
	// that had taken broker 3's id to have cost it its session.
	refusals := func() int {
		b, _ := os.ReadFile(dup.logPath)
		return strings.Count(string(b), refusal)
	}
	var broken string
	eventually(t, startLimit, "five refusals of the duplicate, the cluster healthy throughout", func() bool {
		if ok, why := healthy(); !ok && broken == "" {
			broken = why
		}
		return refusals() >= 5
	})
	if broken != "" {
		t.Fatalf("while the duplicate was refused: %s", broken)
	}
	if dup.logHas(0, dup.ready) {
		t.Fatalf("the duplicate said it was ready; its log:\n%s", dup.tail(3000))
	}
	dup.kill(t)
	if ok, why := healthy(); !ok {
		t.Fatalf("after the duplicate: %s", why)
	}

	// Another id on broker 3's directory refuses to start, naming both.
	out, err := exec.Command(b3.bin, "-id", "9", "-listen", "127.0.0.1:0", "-controller", c.ctl.addr, "-dir", b3.dir).CombinedOutput()
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), "broker 3") || !strings.Contains(string(out), "broker 9") {
		t.Fatalf("-id 9 on broker 3's directory: exit %d (%v), output:\n%s\nwant exit 1 naming broker 3 and broker 9", code, err, out)
	}
	// So does a controller pointed at it.
	out, err = exec.Command(c.ctl.bin, "-listen", "127.0.0.1:0", "-dir", b3.dir).CombinedOutput()
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), "broker 3") || !strings.Contains(string(out), "controller 0") {
		t.Fatalf("a controller on broker 3's directory: exit %d (%v), output:\n%s\nwant exit 1 naming broker 3 and controller 0", code, err, out)
	}
	if ok, why := healthy(); !ok {
		t.Fatalf("at the end: %s", why)
	}
}

// exitCode is the exit status of a finished command's error (0 for nil).
func exitCode(err error) int {
	if e, ok := err.(*exec.ExitError); ok {
		return e.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
