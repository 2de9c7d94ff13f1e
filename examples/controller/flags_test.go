package main

import (
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
)

// TestInvalidFlagsExit2: every invalid flag or value exits with status 2,
// a usage line on stderr and nothing on stdout, before anything is opened.
func TestInvalidFlagsExit2(t *testing.T) {
	bin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/controller")
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-listen", "127.0.0.1:0"}, // no -dir
		{"-dir", dir, "-listen", "no-port"},
		{"-dir", dir, "-session-timeout-ms", "10"},
		{"-dir", dir, "-session-timeout-ms", "x"},
		{"-dir", dir, "-default-min-isr", "0"},
		{"-dir", dir, "-default-min-isr", "8"},
		{"-dir", dir, "-no-such-flag"},
		{"-dir", dir, "extra"},
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
