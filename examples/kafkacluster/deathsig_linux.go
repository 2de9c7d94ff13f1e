package main

import (
	"os/exec"
	"syscall"
)

// setNodeAttrs puts a node in its own process group, so that a Ctrl-C at
// the terminal reaches the cluster alone (which stops the nodes in
// order), and has the kernel send it SIGTERM — a clean stop — if the
// cluster dies without stopping it (Linux's parent-death signal).
func setNodeAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
