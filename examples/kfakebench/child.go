package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"

	"github.com/kaenlog/kaenlog/examples/internal/nodecmd"
)

// roleEnv names the role a child process of the harness plays: the harness
// runs its own binary again with it set, as examples/cluster does.
const roleEnv = "KFAKEBENCH_ROLE"

// Roles a child can play.
const (
	roleController = "controller" // nodecmd.RunController: the examples/controller command
	roleBroker     = "broker"     // nodecmd.RunBroker: the examples/broker command
	roleEcho       = "echo"       // the far end of the raw TCP round trip
	roleKfake      = "kfake"      // the peer's cluster, with -peer-process
	// The message floor's processes (floor.go).
	roleRelayLeader   = "relay-leader"
	roleRelayFollower = "relay-follower"
)

// Lines a child prints on stdout, besides the node's own.
const (
	lineStats    = "kfakebench-child stats "    // mallocs and CPU time so far
	lineProfiled = "kfakebench-child profiled " // a CPU profile is written
	lineEcho     = "kfakebench-child echo listening on "
	lineKfake    = "kfakebench-child kfake listening on " // then its brokers' addresses
)

// runChild runs the role of a child process and returns its exit status.
// A node (controller or broker) runs exactly the code of its command; the
// harness steers it through stdin, one command a line, never through the
// node's flags:
//
//	stats            print "kfakebench-child stats mallocs=N cpu-ns=N sys-ns=N"
//	                 (CPU time, user and system, and the system part)
//	profile PATH     start a CPU profile into PATH
//	unprofile        stop it and print "kfakebench-child profiled PATH"
//
// stdin ending (the harness died or closed it) ends nothing: the kernel's
// parent-death signal does that (see startChild).
func runChild(role string, args []string) int {
	switch role {
	case roleEcho:
		return runEcho()
	case roleKfake:
		return runKfake(args)
	case roleKafkaBroker:
		return runKafkaBroker(args)
	case roleRelayLeader:
		return runRelayLeader(args)
	case roleRelayFollower:
		return runRelayFollower()
	case roleStreamLeader:
		return runStreamLeader()
	case roleStreamFollower:
		if len(args) != 1 {
			fmt.Fprintf(os.Stderr, "kfakebench: %s needs the leader's address\n", role)
			return 2
		}
		return runStreamFollower(args[0])
	}
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	go steer(os.Stdin, os.Stdout)
	switch role {
	case roleController:
		return nodecmd.RunController(args, os.Stdout, os.Stderr, stop)
	case roleBroker:
		return nodecmd.RunBroker(args, os.Stdout, os.Stderr, stop)
	}
	fmt.Fprintf(os.Stderr, "kfakebench: unknown child role %q\n", role)
	return 2
}

// steer serves the harness's commands read from in.
func steer(in io.Reader, out io.Writer) {
	sc := bufio.NewScanner(in)
	var prof *os.File
	for sc.Scan() {
		var cmd, arg string
		fmt.Sscan(sc.Text(), &cmd, &arg)
		switch cmd {
		case "stats":
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Fprintf(out, "%smallocs=%d cpu-ns=%d sys-ns=%d\n", lineStats, ms.Mallocs, cpuNanos(), sysNanos())
		case "profile":
			f, err := os.Create(arg)
			if err == nil {
				err = pprof.StartCPUProfile(f)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "kfakebench child: profile: %v\n", err)
				continue
			}
			prof = f
		case "unprofile":
			if prof != nil {
				pprof.StopCPUProfile()
				prof.Close()
				fmt.Fprintf(out, "%s%s\n", lineProfiled, prof.Name())
				prof = nil
			}
		}
	}
}

// cpuNanos is the CPU time (user and system) the process has used.
func cpuNanos() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// sysNanos is the system part of cpuNanos: the kernel's work for the
// process (system calls, page faults).
func sysNanos() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Stime.Nano()
}

// runEcho listens on a free loopback port and sends every byte it
// receives straight back, on each connection.
func runEcho() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfakebench echo: %v\n", err)
		return 1
	}
	fmt.Printf("%s%s\n", lineEcho, ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		go func() {
			defer c.Close()
			buf := make([]byte, 64<<10)
			for {
				n, err := c.Read(buf)
				if err != nil {
					return
				}
				if _, err := c.Write(buf[:n]); err != nil {
					return
				}
			}
		}()
	}
}
