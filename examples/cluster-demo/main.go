package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kaenlog/kaenlog/examples"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cluster-demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := examples.DefaultClusterDemoConfig()
	fs.Int64Var(&cfg.NowMs, "now-ms", cfg.NowMs, "the clock when the cluster starts, in milliseconds")
	fs.IntVar(&cfg.MinISR, "min-isr", cfg.MinISR, "min.insync.replicas of the topic (1 to 3)")
	fs.Int64Var(&cfg.LagMaxMs, "lag-ms", cfg.LagMaxMs, "replica.lag.time.max.ms (1000 to 600000)")
	fs.Int64Var(&cfg.SessionTimeoutMs, "session-ms", cfg.SessionTimeoutMs, "the controller's broker session timeout (2001 to 600000)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "cluster-demo: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return 2
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "cluster-demo: %v\n", err)
		fs.Usage()
		return 2
	}
	out := bufio.NewWriter(stdout)
	err := examples.RunClusterDemo(out, cfg)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "cluster-demo: %v\n", err)
		return 1
	}
	return 0
}
