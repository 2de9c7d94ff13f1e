package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestAKilledNodeRestartsOnItsPortsWithRestart runs the command with
// -restart: the partition's leader and then the controller are killed
// with SIGKILL; each is started again on its ports and data directory
// (the log says so, and the broker is ready again), the restarted broker
// answers a client that knows only its bootstrap address, and every
// acknowledged record is read back.
func TestAKilledNodeRestartsOnItsPortsWithRestart(t *testing.T) {
	bin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/kafkacluster")
	tmp := t.TempDir()
	p := cmdtest.Start(t, bin, []string{"TMPDIR=" + tmp}, "-restart")
	line := p.Await("bootstrap: ")
	seeds := strings.Split(strings.TrimPrefix(line, "bootstrap: "), ",")
	pids := map[string]int{}
	for _, m := range p.AwaitStderr(regexp.MustCompile(`msg="node started" node="?(controller|broker \d+)"? pid=(\d+)`), 4) {
		pids[m[1]], _ = strconv.Atoi(m[2])
	}
	const topic = "orders"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prod, produce := newProducer(ctx, t, p, seeds, topic)
	produce(0, 20)

	// kill waits for node's restart and its next ready line: the n-th.
	kill := func(node string, ready string, n int) {
		t.Helper()
		if err := syscall.Kill(pids[node], syscall.SIGKILL); err != nil {
			t.Fatalf("kill -9 %s (pid %d): %v", node, pids[node], err)
		}
		m := p.AwaitStderr(regexp.MustCompile(`msg="cluster: `+node+` restarted, pid (\d+)"`), 1)
		pids[node], _ = strconv.Atoi(m[0][1])
		p.AwaitStderr(regexp.MustCompile(regexp.QuoteMeta(ready)), n)
	}
	leader := fmt.Sprintf("broker %d", leaderOf(ctx, t, prod, topic))
	kill(leader, `msg="`+leader+` ready: `, 2)
	produce(20, 40)

	// The restarted broker listens where the bootstrap line said.
	id, _ := strconv.Atoi(strings.TrimPrefix(leader, "broker "))
	only, err := kgo.NewClient(kgo.SeedBrokers(seeds[id-1]))
	if err != nil {
		t.Fatal(err)
	}
	defer only.Close()
	if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, only); err != nil {
		t.Fatalf("metadata from the restarted %s at %s: %v", leader, seeds[id-1], err)
	}

	// The controller comes back on its port: the brokers find it again,
	// and a new topic can be created.
	kill("controller", `msg="controller listening on `, 2)
	r := &kgo.Record{Topic: "after-controller", Value: []byte("x")}
	if err := prod.ProduceSync(ctx, r).FirstErr(); err != nil {
		t.Fatalf("a new topic after the controller's restart: %v\nstderr:\n%s", err, p.Stderr())
	}
	consume(ctx, t, seeds, topic, 40)

	if err := p.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if status := p.Wait(); status != 0 {
		t.Fatalf("exit status %d after SIGINT; stderr:\n%s", status, p.Stderr())
	}
}
