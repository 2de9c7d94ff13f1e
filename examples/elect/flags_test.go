package main

import (
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
)

// TestInvalidFlagsExit2: every invalid flag or value exits with status 2,
// a usage line on stderr and nothing on stdout, before anything is sent.
func TestInvalidFlagsExit2(t *testing.T) {
	bin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/elect")
	for _, args := range [][]string{
		{"-topic", "t"},                               // no -controller
		{"-controller", "127.0.0.1:9093"},             // no -topic
		{"-controller", "127.0.0.1:0", "-topic", "t"}, // port 0
		{"-controller", "127.0.0.1:9093", "-topic", "t", "-partition", "-1"},
		{"-controller", "127.0.0.1:9093", "-topic", "t", "-partition", "2147483648"},
		{"-controller", "127.0.0.1:9093", "-topic", "t", "-no-such-flag"},
		{"-controller", "127.0.0.1:9093", "-topic", "t", "extra"},
		{"-controller", "127.0.0.1:9093", "-topic", "t", "-unclean", "-preferred"},
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
