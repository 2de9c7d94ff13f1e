//go:build !linux

package nodecmd

import "os/exec"

// setChildAttrs leaves a node's process attributes alone: only Linux
// needs (and has) the group and parent-death settings of child_linux.go.
func setChildAttrs(cmd *exec.Cmd) {}
