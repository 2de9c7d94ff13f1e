package nodecmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/server"
)

// controllerFlags are the controller's flags, after parsing.
type controllerFlags struct {
	Listen           string
	Dir              string
	SessionTimeoutMs int64
	DefaultMinISR    int
}

// controllerFlagSet declares the controller's flags into f.
func controllerFlagSet(f *controllerFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	fs.StringVar(&f.Listen, "listen", "127.0.0.1:9093", "host:port to listen on (port 0: any free port)")
	fs.StringVar(&f.Dir, "dir", "", "the directory of the metadata log (required)")
	fs.Int64Var(&f.SessionTimeoutMs, "session-timeout-ms", controller.DefaultSessionTimeoutMs, "broker.session.timeout.ms: a broker silent this long is fenced and loses its leaderships, 500 to 600000")
	fs.IntVar(&f.DefaultMinISR, "default-min-isr", 1, "min.insync.replicas of a topic created without one, 1 to 7")
	return fs
}

func (f *controllerFlags) validate() error {
	for _, err := range []error{
		checkHostPort("listen", f.Listen, true),
		checkDir("dir", f.Dir),
		checkRange("session-timeout-ms", f.SessionTimeoutMs, 500, 600_000),
		checkRange("default-min-isr", f.DefaultMinISR, 1, 7),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// RunController runs the controller command: it opens (or creates) the
// metadata log, replays it, listens and serves brokers and clients until
// a signal on stop; then it stops serving, closes the log and returns 0.
// Its log is fsynced at every append: it answers only what is durable.
func RunController(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	var f controllerFlags
	fs := controllerFlagSet(&f)
	if status, ok := parse(fs, args, stderr); !ok {
		return status
	}
	if err := f.validate(); err != nil {
		return refuse(fs, stderr, err)
	}
	ln, err := net.Listen("tcp", f.Listen)
	if err != nil {
		fmt.Fprintf(stderr, "controller: %v\n", err)
		return 1
	}
	clk := wallclock.New()
	store, err := controller.OpenLogStore(f.Dir, log.Options{Sync: log.SyncEveryAppend})
	if err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "controller: %v\n", err)
		return 1
	}
	ctl, err := controller.Open(store, controller.Config{SessionTimeoutMs: f.SessionTimeoutMs, DefaultMinISR: int32(f.DefaultMinISR)}, clk.NowMs())
	if err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "controller: %v\n", errors.Join(err, store.Close()))
		return 1
	}
	h, err := server.Serve(ln, replica.NewControllerNode(ctl), server.Config{Clock: clk, Logf: logTo(stderr, "controller")})
	if err != nil {
		fmt.Fprintf(stderr, "controller: %v\n", errors.Join(err, store.Close()))
		return 1
	}
	fmt.Fprintf(stdout, "controller listening on %s, metadata log in %s\n", ln.Addr(), f.Dir)
	health := time.NewTicker(time.Second)
	defer health.Stop()
	for {
		select {
		case <-health.C:
			var failed error
			h.Do(func(int64) { failed = ctl.Failed() })
			if failed != nil {
				// Its store failed: it answers nothing more, as a
				// controller whose log is offline.
				fmt.Fprintf(stderr, "controller: %v\n", failed)
				h.Kill()
				store.Close()
				return 1
			}
		case s := <-stop:
			fmt.Fprintf(stdout, "controller: %v: shutting down (a second signal stops at once)\n", s)
			return stopHost(h, stop, stdout, stderr, "controller", store.Close)
		}
	}
}
