package faulttest

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel SIGKILL a node when the test process dies,
// so that a test that panics or times out leaves no broker running.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
