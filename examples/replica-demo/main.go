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
	fs := flag.NewFlagSet("replica-demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := examples.ChapterConfig("")
	fs.IntVar(&cfg.Rounds, "rounds", cfg.Rounds, fmt.Sprintf("produce-then-FetchOnce rounds to drive (1 to %d)", examples.MaxRounds))
	fs.IntVar(&cfg.MinISR, "min-isr", cfg.MinISR, fmt.Sprintf("min.insync.replicas (1 to %d)", examples.Replicas))
	fs.Int64Var(&cfg.NowMs, "now-ms", cfg.NowMs, "the clock handed to every step, in milliseconds")
	data := fs.String("data", "", "keep the brokers' directories under this directory (default: a temporary directory, removed at exit)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "replica-demo: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return 2
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "replica-demo: %v\n", err)
		fs.Usage()
		return 2
	}
	out := bufio.NewWriter(stdout)
	var err error
	if *data == "" {
		err = examples.RunInTempDir(out, cfg)
	} else if err = os.MkdirAll(*data, 0o755); err == nil {
		cfg.Dir = *data
		err = examples.Run(out, cfg)
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "replica-demo: %v\n", err)
		return 1
	}
	return 0
}
