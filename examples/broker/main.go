package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/kaenlog/kaenlog/examples/internal/nodecmd"
)

func main() {
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	os.Exit(nodecmd.RunBroker(os.Args[1:], os.Stdout, os.Stderr, stop))
}
