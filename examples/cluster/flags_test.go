package main

import (
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
)

// TestInvalidFlagsExit2: every invalid flag or value exits with status 2,
// a usage line on stderr and nothing on stdout, before any node starts.
func TestInvalidFlagsExit2(t *testing.T) {
	bin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/cluster")
	for _, args := range [][]string{
		{"-topic", "bad topic"},
		{"-topic", ".."},
		{"-topic", "t", "-partitions", "0"},
		{"-topic", "t", "-rf", "4"},
		{"-topic", "t", "-rf", "2", "-min-isr", "3"},
		{"-topic", "t", "-min-isr", "0"},
		{"-partitions", "3"}, // without -topic
		{"-rf", "x"},
		{"-no-such-flag"},
		{"extra"},
	} {
		status, stdout, stderr := cmdtest.Run(t, bin, args...)
		if status != 2 {
			t.Errorf("%q: exit %d, want 2; stderr %s", args, status, stderr)
		}
		if stdout != "" || !strings.Contains(stderr, "Usage") {
			t.Errorf("%q: want a usage on stderr and nothing on stdout; stdout %q stderr %q", args, stdout, stderr)
		}
	}
}
