package log

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The directory lock: one Log per partition directory, in this process or
// any other; the refusal names the holder.

func TestSecondOpenIsRefused(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{})
	_, err := Open(dir, Options{})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second Open = %v, want ErrLocked naming process %d", err, os.Getpid())
	}
	stClose(t, l)
	l2, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("Open after Close = %v", err)
	}
	stClose(t, l2)
	// The lock file is not a segment, a checkpoint or a leftover.
	if _, err := os.Stat(filepath.Join(dir, lockFileName)); err != nil {
		t.Errorf("lock file: %v", err)
	}
}

const lockChildEnv = "KAENLOG_LOCK_CHILD_DIR"

// TestLockHeldByAnotherProcess runs a child that opens the log and holds
// it: Open here is refused with the child's pid; once the child is gone
// (killed: the kernel releases its flock), Open succeeds.
func TestLockHeldByAnotherProcess(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("the lock is flock(2)")
	}
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockChild$")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	if line, err := bufio.NewReader(r).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	_, err = Open(dir, Options{})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "process "+strconv.Itoa(cmd.Process.Pid)) {
		t.Fatalf("Open while another process holds the log = %v, want ErrLocked naming process %d", err, cmd.Process.Pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("Open after the holder died = %v", err)
	}
	stClose(t, l)
}

// TestLockChild is TestLockHeldByAnotherProcess's child: it opens the log,
// says so, and waits to be killed.
func TestLockChild(t *testing.T) {
	dir := os.Getenv(lockChildEnv)
	if dir == "" {
		t.Skip("the child half of TestLockHeldByAnotherProcess")
	}
	if _, err := Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	out := os.NewFile(3, "out")
	out.WriteString("locked\n")
	// Block until killed: the parent closes its end of nothing we read, so
	// wait on a pipe that never delivers.
	block, _, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	block.Read(make([]byte, 1))
}
