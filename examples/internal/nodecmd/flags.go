package nodecmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
)

// errUsage marks an invalid flag or value: exit status 2.
var errUsage = errors.New("invalid usage")

// usageError is an invalid flag value, printed before the usage.
func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// parse parses args with fs and reports a failure as its exit status: 0
// for -h (the usage was printed), 2 otherwise. ok is true to go on.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) (status int, ok bool) {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %q\n", fs.Name(), fs.Args())
		fs.Usage()
		return 2, false
	}
	return 0, true
}

// refuse prints err and the usage, and returns 2.
func refuse(fs *flag.FlagSet, stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
	fs.Usage()
	return 2
}

// checkRange refuses v outside [lo, hi].
func checkRange[T int | int32 | int64](name string, v, lo, hi T) error {
	if v < lo || v > hi {
		return usageError("-%s %d is not in [%d, %d]", name, v, lo, hi)
	}
	return nil
}

// checkHostPort refuses an address that is not host:port with a port
// number (0 for any free port when listening).
func checkHostPort(name, addr string, listening bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageError("-%s %q: %v", name, addr, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 || (p == 0 && !listening) {
		return usageError("-%s %q: bad port %q", name, addr, port)
	}
	if host == "" && !listening {
		return usageError("-%s %q: no host", name, addr)
	}
	return nil
}

// checkOptionalHostPort is checkHostPort for a listening flag that may be
// left empty.
func checkOptionalHostPort(name, addr string) error {
	if addr == "" {
		return nil
	}
	return checkHostPort(name, addr, true)
}

// checkDir refuses an empty directory flag.
func checkDir(name, dir string) error {
	if dir == "" {
		return usageError("-%s is required", name)
	}
	return nil
}

// checkIdle refuses an idle bound that is neither -1 (never) nor in
// [100, 604800000] (a week).
func checkIdle(name string, ms int64) error {
	if ms == -1 {
		return nil
	}
	return checkRange(name, ms, 100, 604_800_000)
}
