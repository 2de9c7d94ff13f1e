package main

import (
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
)

// TestInvalidFlagsExit2: every invalid flag or value exits with status 2,
// a usage line on stderr and nothing on stdout, before anything is opened.
func TestInvalidFlagsExit2(t *testing.T) {
	bin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/broker")
	dir := t.TempDir()
	ok := []string{"-id", "1", "-listen", "127.0.0.1:0", "-controller", "127.0.0.1:9093", "-dir", dir}
	with := func(extra ...string) []string { return append(append([]string(nil), ok...), extra...) }
	for _, args := range [][]string{
		{"-listen", "127.0.0.1:0", "-controller", "127.0.0.1:9093", "-dir", dir}, // no -id
		with("-id", "-1"),
		with("-id", "x"),
		with("-id", "2147483648"),
		{"-id", "1", "-listen", "127.0.0.1:0", "-dir", dir},                  // no -controller
		{"-id", "1", "-listen", "127.0.0.1:0", "-controller", "127.0.0.1:1"}, // no -dir
		with("-controller", "localhost"),
		with("-controller", "127.0.0.1:0"),
		with("-listen", "nowhere"),
		with("-listen", "127.0.0.1:70000"),
		with("-advertise", ":9092"),
		with("-segment-bytes", "100"),
		with("-replica-lag-ms", "0"),
		with("-max-batch-bytes", "10"),
		with("-max-batch-bytes", "60000000"),
		with("-heartbeat-ms", "0"),
		with("-replica-fetch-wait-ms", "-1"),
		with("-shutdown-timeout-ms", "-5"),
		with("-connections-max-idle-ms", "0"),
		with("-connections-max-idle-ms", "-2"),
		with("-connections-max-idle-ms", "99"),
		with("-connections-max-idle-ms", "604800001"),
		with("-connections-max-idle-ms", "x"),
		with("-sync-every-append=maybe"),
		with("-simulate-power-loss=maybe"),
		with("-no-such-flag"),
		with("extra"),
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
