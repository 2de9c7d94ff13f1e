//go:build !linux

package main

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal:
// the harness's own exit paths kill its children.
func dieWithParent(cmd *exec.Cmd) {}
