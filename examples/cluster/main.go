package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/kaenlog/kaenlog/examples/internal/nodecmd"
)

func main() {
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	switch os.Getenv(nodecmd.ChildEnv) {
	case "controller":
		os.Exit(nodecmd.RunController(os.Args[1:], os.Stdout, os.Stderr, stop))
	case "broker":
		os.Exit(nodecmd.RunBroker(os.Args[1:], os.Stdout, os.Stderr, stop))
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cluster: %v\n", err)
		os.Exit(1)
	}
	os.Exit(nodecmd.RunCluster(os.Args[1:], self, os.Stdout, os.Stderr, stop))
}
