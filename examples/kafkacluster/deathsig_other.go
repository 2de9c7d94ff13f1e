//go:build !linux

package main

import "os/exec"

// setNodeAttrs does nothing where the kernel has no parent-death signal:
// the cluster's own exit paths stop its nodes.
func setNodeAttrs(cmd *exec.Cmd) {}
