package main

import (
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
)

// TestInvalidFlagsExit2BeforeAnyNodeStarts: -brokers outside 1 to 7, an
// unknown flag or an argument exit with status 2, a usage on stderr and
// nothing on stdout.
func TestInvalidFlagsExit2BeforeAnyNodeStarts(t *testing.T) {
	bin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/kafkacluster")
	for _, args := range [][]string{{"-brokers", "0"}, {"-brokers", "8"}, {"-brokers", "x"}, {"-no-such-flag"}, {"extra"}} {
		status, stdout, stderr := cmdtest.Run(t, bin, args...)
		if status != 2 || stdout != "" || !strings.Contains(stderr, "Usage") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing, a usage", args, status, stdout, stderr)
		}
	}
}
