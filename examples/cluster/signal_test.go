package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
)

// TestSIGTERMStopsEveryNodeCleanly: the cluster starts a controller and
// three brokers, creates the topic it was asked for, and on SIGTERM stops
// them all cleanly: exit status 0, and every broker's clean-shutdown
// marker written. Started again on the same directory, it finds its topic
// there, every partition led again.
func TestSIGTERMStopsEveryNodeCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts four processes, twice")
	}
	bin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/cluster")
	dir := t.TempDir()
	runCluster(t, bin, dir, "topic orders: 3 partitions")
	runCluster(t, bin, dir, "topic orders: already there")
}

// runCluster runs the cluster on dir until it is ready, checks what it
// says of its topic, and stops it with SIGTERM.
func runCluster(t *testing.T, bin, dir, topicLine string) {
	p := cmdtest.Start(t, bin, nil, "-dir", dir, "-topic", "orders", "-partitions", "3", "-rf", "3", "-min-isr", "2")
	p.Await(topicLine)
	for i := range 3 {
		line := p.Await("  orders-")
		if !strings.Contains(line, "ISR [") || strings.Contains(line, "leader -1") {
			t.Fatalf("partition %d: %q", i, line)
		}
	}
	p.Await("Ctrl-C")
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.Await("cluster: every node stopped cleanly")
	if status := p.Wait(); status != 0 {
		t.Fatalf("exit %d; stderr:\n%s", status, p.Stderr())
	}
	for id := 1; id <= 3; id++ {
		if _, err := os.Stat(filepath.Join(dir, "broker-"+string(rune('0'+id)), "broker-clean-shutdown")); err != nil {
			t.Errorf("broker %d: %v", id, err)
		}
	}
}
