package main

import (
	"os"

	"github.com/kaenlog/kaenlog/examples/internal/nodecmd"
)

func main() {
	os.Exit(nodecmd.RunElect(os.Args[1:], os.Stdout, os.Stderr))
}
