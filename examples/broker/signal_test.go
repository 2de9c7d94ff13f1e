package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
)

// markerFile is the broker's clean-shutdown marker in its data directory
// (replica's cleanShutdownFile).
const markerFile = "broker-clean-shutdown"

// TestSIGTERMLeavesTheMarkerSIGKILLDoesNot: a broker process stopped with
// SIGTERM shuts down cleanly — exit status 0, its clean-shutdown marker
// written — and one killed with SIGKILL leaves none (its start took the
// previous one away), so its next start registers as unclean. The
// controller stops cleanly on SIGTERM too.
func TestSIGTERMLeavesTheMarkerSIGKILLDoesNot(t *testing.T) {
	ctlBin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/controller")
	bin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/broker")
	dir := t.TempDir()
	ctl := cmdtest.Start(t, ctlBin, nil, "-listen", "127.0.0.1:0", "-dir", filepath.Join(dir, "controller"))
	addr := strings.TrimSuffix(strings.Fields(ctl.Await("controller listening on "))[3], ",")
	bdir := filepath.Join(dir, "broker-1")
	marker := filepath.Join(bdir, markerFile)
	start := func() *cmdtest.Proc {
		b := cmdtest.Start(t, bin, nil, "-id", "1", "-listen", "127.0.0.1:0", "-controller", addr, "-dir", bdir, "-heartbeat-ms", "200")
		b.Await("broker 1 ready")
		return b
	}

	b := start()
	if err := b.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	b.Await("broker 1 stopped cleanly")
	if status := b.Wait(); status != 0 {
		t.Fatalf("SIGTERM: exit %d; stderr:\n%s", status, b.Stderr())
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("after SIGTERM: %v", err)
	}

	b = start()
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("a running broker still has its marker: %v", err)
	}
	if err := b.Cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	b.Wait()
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("after SIGKILL the marker is there: %v", err)
	}

	if err := ctl.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	ctl.Await("controller stopped cleanly")
	if status := ctl.Wait(); status != 0 {
		t.Fatalf("controller SIGTERM: exit %d; stderr:\n%s", status, ctl.Stderr())
	}
}
