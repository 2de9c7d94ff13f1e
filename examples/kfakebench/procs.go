package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// startLimit bounds the wait for a child to print its ready line.
const startLimit = 60 * time.Second

// proc is a child process of the harness.
type proc struct {
	name    string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string   // its stdout, line by line
	exited  chan struct{} // closed once it has exited
	logPath string        // its stderr (and stdout), for a failure's report
}

// procs are every child started, so that exit paths can kill them all.
var procs struct {
	mu   sync.Mutex
	list []*proc
}

// startChild starts the harness's own binary as a child in role with
// args, and env added to the harness's environment. Its stdout is read line by line (and copied, with its stderr, to
// logPath); the kernel SIGKILLs it if the harness dies (Linux's
// parent-death signal), so no broker outlives a crashed or killed run.
func startChild(self, role, name, logPath string, env []string, args ...string) (*proc, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(append(os.Environ(), env...), roleEnv+"="+role)
	cmd.Stderr = logf
	dieWithParent(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return nil, err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		logf.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, stdin: in, lines: make(chan string, 256), exited: make(chan struct{}), logPath: logPath}
	procs.mu.Lock()
	procs.list = append(procs.list, p)
	procs.mu.Unlock()
	var logMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			logMu.Lock()
			fmt.Fprintln(logf, line)
			logMu.Unlock()
			select {
			case p.lines <- line:
			default: // nobody waits for lines now; the log has it
			}
		}
		cmd.Wait()
		logf.Close()
		close(p.exited)
	}()
	return p, nil
}

// await waits for a line of p's output beginning with prefix and returns
// it.
func (p *proc) await(prefix string, limit time.Duration) (string, error) {
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		select {
		case line := <-p.lines:
			if strings.HasPrefix(line, prefix) {
				return line, nil
			}
		case <-p.exited:
			return "", fmt.Errorf("%s exited (%v); the end of its log:\n%s", p.name, p.cmd.ProcessState, tail(p.logPath, 3000))
		case <-t.C:
			return "", fmt.Errorf("%s: no %q line within %v; the end of its log:\n%s", p.name, prefix, limit, tail(p.logPath, 3000))
		}
	}
}

// drain forgets the lines p printed so far.
func (p *proc) drain() {
	for {
		select {
		case <-p.lines:
		default:
			return
		}
	}
}

// command sends one steering command to p (see steer).
func (p *proc) command(format string, args ...any) error {
	_, err := fmt.Fprintf(p.stdin, format+"\n", args...)
	return err
}

// procStats is what a node child reports of itself.
type procStats struct {
	mallocs uint64
	cpuNs   int64
	sysNs   int64 // of cpuNs, in the kernel
}

// stats asks p for its allocation count and CPU time.
func (p *proc) stats() (procStats, error) {
	p.drain()
	if err := p.command("stats"); err != nil {
		return procStats{}, err
	}
	line, err := p.await(lineStats, 10*time.Second)
	if err != nil {
		return procStats{}, err
	}
	var s procStats
	for _, f := range strings.Fields(strings.TrimPrefix(line, lineStats)) {
		k, v, _ := strings.Cut(f, "=")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "mallocs":
			s.mallocs = uint64(n)
		case "cpu-ns":
			s.cpuNs = n
		case "sys-ns":
			s.sysNs = n
		}
	}
	return s, nil
}

// kill SIGKILLs p and waits until it is gone.
func (p *proc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// killAll SIGKILLs every child still running.
func killAll() {
	procs.mu.Lock()
	list := procs.list
	procs.list = nil
	procs.mu.Unlock()
	for _, p := range list {
		p.kill()
	}
}

// tail returns the last max bytes of the file at path.
func tail(path string, max int) string {
	b, _ := os.ReadFile(path)
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}

// logPathIn is where a child's output goes in dir.
func logPathIn(dir, name string) string {
	return filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".log")
}

// procTicks is the CPU time, user and system, that process pid has used,
// in clock ticks (USER_HZ, 100 a second on Linux), from /proc/PID/stat;
// 0 without /proc.
func procTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's name (which ends with the last ')'):
	// state is the 3rd field of the line, utime the 14th, stime the 15th.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return utime + stime
}
