package main

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel SIGKILL a child when the harness dies, so
// a harness that panics, times out or is killed leaves no broker running
// (examples/faulttest does the same).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
