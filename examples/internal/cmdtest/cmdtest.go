// Package cmdtest builds the example commands and runs them as processes,
// for their tests: exit statuses, what they print, how they stop on a
// signal. Waits end on what a process prints or on its exit, never on a
// pause; a bound (Limit) fails the test instead of hanging it.
package cmdtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Limit bounds every wait of a test on a process.
const Limit = 60 * time.Second

var (
	buildMu sync.Mutex
	built   = map[string]string{}
	binDir  string
	inMain  bool // Main is running the tests: it removes binDir at the end
)

// Main runs the package's tests, removes the executables Build made, and
// exits with the tests' status. A package whose tests call Build runs
// its tests through it:
//
//	func TestMain(m *testing.M) { cmdtest.Main(m) }
//
// The executables are built once per test binary, for all its tests, so
// no single test's cleanup can remove them; Main does, after the last.
func Main(m *testing.M) {
	buildMu.Lock()
	inMain = true
	buildMu.Unlock()
	code := m.Run()
	buildMu.Lock()
	defer buildMu.Unlock()
	if binDir != "" {
		if err := os.RemoveAll(binDir); err != nil {
			fmt.Fprintf(os.Stderr, "cmdtest: removing the built commands: %v\n", err)
			code = 1
		}
		binDir = ""
		clear(built)
	}
	os.Exit(code)
}

// Build builds the command in package pkg (an import path) once per test
// binary and returns the path of the executable. The package's TestMain
// must be Main's, which removes the executable after the tests; Build
// refuses to build otherwise.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if !inMain {
		t.Fatalf("cmdtest.Build %s: the package's TestMain does not call cmdtest.Main, so nothing would remove the executable", pkg)
	}
	if bin, ok := built[pkg]; ok {
		return bin
	}
	if binDir == "" {
		dir, err := os.MkdirTemp("", "kaenlog-cmdtest-")
		if err != nil {
			t.Fatal(err)
		}
		binDir = dir
	}
	bin := filepath.Join(binDir, filepath.Base(pkg))
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	built[pkg] = bin
	return bin
}

// Run runs bin with args to its end and returns its exit status and
// output.
func Run(t testing.TB, bin string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		status = exit.ExitCode()
	default:
		t.Fatalf("%s: %v", bin, err)
	}
	return status, out.String(), errOut.String()
}

// Proc is a running command whose stdout is read line by line.
type Proc struct {
	t      testing.TB
	Cmd    *exec.Cmd // the process
	lines  chan string
	exited chan struct{}
	err    error
	mu     sync.Mutex
	stderr bytes.Buffer
	wrote  chan struct{} // signalled after each write to stderr
}

// Start starts bin with args and extra environment variables.
func Start(t testing.TB, bin string, env []string, args ...string) *Proc {
	t.Helper()
	p := &Proc{t: t, Cmd: exec.Command(bin, args...), lines: make(chan string, 1024), exited: make(chan struct{}), wrote: make(chan struct{}, 1)}
	p.Cmd.Env = append(os.Environ(), env...)
	p.Cmd.Stderr = &lockedWriter{p: p}
	pipe, err := p.Cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		p.err = p.Cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.Cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

type lockedWriter struct{ p *Proc }

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	n, err := w.p.stderr.Write(b)
	select {
	case w.p.wrote <- struct{}{}:
	default:
	}
	return n, err
}

// Stderr returns what the process wrote on stderr so far.
func (p *Proc) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// Await waits for a line of stdout that starts with prefix and returns it.
func (p *Proc) Await(prefix string) string {
	p.t.Helper()
	limit := time.NewTimer(Limit)
	defer limit.Stop()
	for {
		select {
		case line := <-p.lines:
			if strings.HasPrefix(line, prefix) {
				return line
			}
		case <-p.exited:
			// Lines read before the exit may still be queued.
			for {
				select {
				case line := <-p.lines:
					if strings.HasPrefix(line, prefix) {
						return line
					}
				default:
					p.t.Fatalf("%s exited (%v) before printing %q; stderr:\n%s", p.Cmd.Path, p.err, prefix, p.Stderr())
				}
			}
		case <-limit.C:
			p.t.Fatalf("%s printed no %q within %v; stderr:\n%s", p.Cmd.Path, prefix, Limit, p.Stderr())
		}
	}
}

// AwaitStderr waits until what the process wrote on stderr has at least
// n matches of re, and returns the submatches of each.
func (p *Proc) AwaitStderr(re *regexp.Regexp, n int) [][]string {
	p.t.Helper()
	limit := time.NewTimer(Limit)
	defer limit.Stop()
	for {
		if m := re.FindAllStringSubmatch(p.Stderr(), -1); len(m) >= n {
			return m
		}
		select {
		case <-p.wrote:
		case <-p.exited:
			if m := re.FindAllStringSubmatch(p.Stderr(), -1); len(m) >= n {
				return m
			}
			p.t.Fatalf("%s exited (%v) before writing %d of %q on stderr; stderr:\n%s", p.Cmd.Path, p.err, n, re, p.Stderr())
		case <-limit.C:
			p.t.Fatalf("%s wrote no %d of %q on stderr within %v; stderr:\n%s", p.Cmd.Path, n, re, Limit, p.Stderr())
		}
	}
}

// Wait waits for the process to exit and returns its exit status (-1 if a
// signal killed it).
func (p *Proc) Wait() int {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(Limit):
		p.t.Fatalf("%s did not exit within %v; stderr:\n%s", p.Cmd.Path, Limit, p.Stderr())
	}
	return p.Cmd.ProcessState.ExitCode()
}
