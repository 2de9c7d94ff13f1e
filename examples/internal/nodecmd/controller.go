package nodecmd

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/metaprops"
	"github.com/kaenlog/kaenlog/replica/server"
)

// controllerFlags are the controller's flags, after parsing.
type controllerFlags struct {
	ID               int
	ClusterID        string
	Listen           string
	Dir              string
	SessionTimeoutMs int64
	DefaultMinISR    int
	MetricsListen    string
	Log              logFlags
}

// controllerFlagSet declares the controller's flags into f.
func controllerFlagSet(f *controllerFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	fs.IntVar(&f.ID, "id", 0, "the controller's node id (node.id), stamped in its directory, 0 to 2147483647")
	fs.StringVar(&f.ClusterID, "cluster-id", "", "the cluster id, 1 to 64 characters of [A-Za-z0-9_-] (default: the one stamped in -dir, or a new random one at the first start)")
	fs.StringVar(&f.Listen, "listen", "127.0.0.1:9093", "host:port to listen on (port 0: any free port)")
	fs.StringVar(&f.MetricsListen, "metrics-listen", "", metricsFlagUsage)
	f.Log.declare(fs)
	fs.StringVar(&f.Dir, "dir", "", "the directory of the metadata log (required)")
	fs.Int64Var(&f.SessionTimeoutMs, "session-timeout-ms", controller.DefaultSessionTimeoutMs, "broker.session.timeout.ms: a broker silent this long is fenced and loses its leaderships, 500 to 600000")
	fs.IntVar(&f.DefaultMinISR, "default-min-isr", 1, "min.insync.replicas of a topic created without one, 1 to 7")
	return fs
}

func (f *controllerFlags) validate() error {
	if f.ClusterID != "" && !metaprops.ValidClusterID(f.ClusterID) {
		return usageError("-cluster-id %q: give 1 to 64 characters of [A-Za-z0-9_-]", f.ClusterID)
	}
	for _, err := range []error{
		checkRange("id", f.ID, 0, 1<<31-1),
		checkHostPort("listen", f.Listen, true),
		checkOptionalHostPort("metrics-listen", f.MetricsListen),
		f.Log.validate(),
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

// RunController runs the controller command: it checks (or, at the first
// start, writes) the stamp of its directory, opens (or creates) the
// metadata log, replays it, listens and serves brokers and clients until
// a signal on stop; then it stops serving, closes the log and returns 0.
// Its log is fsynced at every append: it answers only what is durable. A
// directory stamped for a broker, another node id or another cluster id
// than the flags' is refused with status 1, the error naming both.
func RunController(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	var f controllerFlags
	fs := controllerFlagSet(&f)
	if status, ok := parse(fs, args, stderr); !ok {
		return status
	}
	if err := f.validate(); err != nil {
		return refuse(fs, stderr, err)
	}
	lg := f.Log.logger(stderr, "controller")
	ctl, err := server.StartController(server.ControllerSpec{
		Dir: f.Dir, Clock: wallclock.New(), Listen: f.Listen, NodeID: int32(f.ID), ClusterID: f.ClusterID,
		Controller: controller.Config{SessionTimeoutMs: f.SessionTimeoutMs, DefaultMinISR: int32(f.DefaultMinISR)},
		Host:       server.Config{Logf: hostLogf(lg)},
	})
	if err != nil {
		lg.Error("cannot start", "err", err)
		return 1
	}
	if f.MetricsListen != "" {
		if err := serveMetrics(f.MetricsListen, "controller", stdout, ctl.Metrics); err != nil {
			lg.Error("cannot serve metrics", "err", err)
			ctl.Kill()
			return 1
		}
	}
	fmt.Fprintf(stdout, "controller listening on %s, metadata log in %s, cluster %s\n", ctl.Addr(), f.Dir, ctl.ClusterID())
	health := time.NewTicker(time.Second)
	defer health.Stop()
	for {
		select {
		case <-health.C:
			if failed := ctl.Failed(); failed != nil {
				// Its store failed: it answers nothing more, as a
				// controller whose log is offline.
				lg.Error("failed", "err", failed)
				ctl.Kill()
				return 1
			}
		case s := <-stop:
			fmt.Fprintf(stdout, "controller: %v: shutting down (a second signal stops at once)\n", s)
			return stopHost(ctl.Close, stop, stdout, lg, "controller")
		}
	}
}
