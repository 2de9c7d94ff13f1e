package nodecmd

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
)

// logFlags are a node's -log-level and -log-format: what goes to stderr,
// through log/slog, and how.
type logFlags struct {
	Level  string
	Format string
}

// declare adds the log flags to fs.
func (f *logFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.Level, "log-level", "info", "the least severe log records written to stderr: debug, info, warn or error")
	fs.StringVar(&f.Format, "log-format", "text", "the log records' format on stderr: text (key=value) or json, one record per line")
}

// validate refuses a level or format the flags do not know.
func (f *logFlags) validate() error {
	var l slog.Level
	if err := l.UnmarshalText([]byte(f.Level)); err != nil {
		return usageError("-log-level %q: give debug, info, warn or error", f.Level)
	}
	if f.Format != "text" && f.Format != "json" {
		return usageError("-log-format %q: give text or json", f.Format)
	}
	return nil
}

// logger returns the node's logger on w, each record naming the node:
//
//	time=2026-12-02T06:30:00.000Z level=WARN msg="registration refused" node="broker 3" err="..."
//
// A node logs what it fails at as ERROR (it then exits with status 1),
// what the controller refuses it and what a stop could not finish as
// WARN, and its connections' events (a refused frame, a lost connection,
// a failed dial: the host's Config.Logf) as INFO.
func (f *logFlags) logger(w io.Writer, node string) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(f.Level)) // validated
	opts := &slog.HandlerOptions{Level: l}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if f.Format == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(h).With("node", node)
}

// hostLogf is a host's Config.Logf writing to lg at INFO.
func hostLogf(lg *slog.Logger) func(string, ...any) {
	return func(format string, args ...any) { lg.Info(fmt.Sprintf(format, args...)) }
}
