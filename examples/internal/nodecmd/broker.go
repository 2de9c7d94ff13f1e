package nodecmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/metaprops"
	"github.com/kaenlog/kaenlog/replica/server"
)

// brokerFlags are the broker's flags, after parsing.
type brokerFlags struct {
	ID                int
	ClusterID         string
	Listen, Advertise string
	Controller        string
	Dir               string
	SegmentBytes      int64
	SyncEveryAppend   bool
	SimulatePowerLoss bool
	ReplicaLagMs      int64
	MaxBatchBytes     int
	HeartbeatMs       int64
	FetchWaitMs       int
	ShutdownTimeoutMs int64
	MaxIdleMs         int64
	MaxHeldBytes      int64
	MaxConnHeldBytes  int64
	MaxRequestWaitMs  int64
	WriteTimeoutMs    int64
	MetricsListen     string
	Log               logFlags
}

// brokerFlagSet declares the broker's flags into f.
func brokerFlagSet(f *brokerFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("broker", flag.ContinueOnError)
	fs.IntVar(&f.ID, "id", -1, "the broker id, 0 to 2147483647 (required)")
	fs.StringVar(&f.ClusterID, "cluster-id", "", "the cluster id the broker must belong to (default: the one stamped in -dir, or at the first start the controller's)")
	fs.StringVar(&f.Listen, "listen", "127.0.0.1:9092", "host:port to listen on (port 0: any free port)")
	fs.StringVar(&f.MetricsListen, "metrics-listen", "", metricsFlagUsage)
	f.Log.declare(fs)
	fs.StringVar(&f.Advertise, "advertise", "", "host:port other brokers and clients reach this one at (default: the listener's address; 127.0.0.1 for an unspecified host)")
	fs.StringVar(&f.Controller, "controller", "", "the controller's host:port (required)")
	fs.StringVar(&f.Dir, "dir", "", "the data directory, one subdirectory per partition (required)")
	fs.Int64Var(&f.SegmentBytes, "segment-bytes", log.DefaultSegmentBytes, "roll a partition's active segment at this size (log.segment.bytes), 4096 to 2147483647")
	fs.BoolVar(&f.SyncEveryAppend, "sync-every-append", false, "fsync every append before it is acknowledged (default: leave flushing to the OS, Kafka's default)")
	fs.BoolVar(&f.SimulatePowerLoss, "simulate-power-loss", false, "a testing aid: keep unsynced file data in this process's memory until fsync (vfs.VolatileCache), so a kill -9 of the broker loses what a power cut would")
	fs.Int64Var(&f.ReplicaLagMs, "replica-lag-ms", 30_000, "replica.lag.time.max.ms: a follower not caught up for this long leaves the ISR, 100 to 600000")
	fs.IntVar(&f.MaxBatchBytes, "max-batch-bytes", log.DefaultMaxBatchBytes, "the largest record batch a leader accepts (message.max.bytes), 61 to 52428800")
	fs.Int64Var(&f.HeartbeatMs, "heartbeat-ms", replica.DefaultHeartbeatIntervalMs, "broker.heartbeat.interval.ms, 10 to 60000")
	fs.IntVar(&f.FetchWaitMs, "replica-fetch-wait-ms", 500, "replica.fetch.wait.max.ms: how long a leader may hold a follower's fetch, 0 to 60000")
	fs.Int64Var(&f.ShutdownTimeoutMs, "shutdown-timeout-ms", server.DefaultShutdownTimeoutMs, "how long a clean stop waits for the controller to move this broker's leaderships, 0 to 600000")
	fs.Int64Var(&f.MaxHeldBytes, "max-held-bytes", server.DefaultMaxHeldBytes, "the request and response bytes all client connections may hold together (queued.max.request.bytes, but finite), 1048576 to 1099511627776")
	fs.Int64Var(&f.MaxConnHeldBytes, "max-connection-held-bytes", server.DefaultMaxConnectionHeldBytes, "the bytes one client connection may hold, 65536 to 1099511627776")
	fs.Int64Var(&f.MaxRequestWaitMs, "max-request-wait-ms", server.DefaultMaxRequestWaitMs, "the longest a fetch's MaxWaitMs or a produce's timeout may park it, 1 to 2147483647")
	fs.Int64Var(&f.WriteTimeoutMs, "write-timeout-ms", server.DefaultWriteTimeoutMs, "close a client's connection when one write of its responses takes this long, 100 to 3600000")
	fs.Int64Var(&f.MaxIdleMs, "connections-max-idle-ms", server.DefaultConnectionsMaxIdleMs, "connections.max.idle.ms: close a client's connection idle this long, 100 to 604800000, or -1 for never")
	return fs
}

// validate refuses what the broker cannot run with.
func (f *brokerFlags) validate() error {
	if f.ID < 0 || f.ID > 1<<31-1 {
		return usageError("-id %d: give a broker id, 0 to 2147483647", f.ID)
	}
	if f.ClusterID != "" && !metaprops.ValidClusterID(f.ClusterID) {
		return usageError("-cluster-id %q: give 1 to 64 characters of [A-Za-z0-9_-]", f.ClusterID)
	}
	for _, err := range []error{
		checkHostPort("listen", f.Listen, true),
		checkOptionalHostPort("metrics-listen", f.MetricsListen),
		f.Log.validate(),
		checkDir("dir", f.Dir),
		checkRange("segment-bytes", f.SegmentBytes, 4096, log.MaxSegmentBytes),
		checkRange("replica-lag-ms", f.ReplicaLagMs, 100, 600_000),
		checkRange("max-batch-bytes", f.MaxBatchBytes, log.BatchHeaderSize, replica.DefaultMaxFetchResponseBytes),
		checkRange("heartbeat-ms", f.HeartbeatMs, 10, 60_000),
		checkRange("replica-fetch-wait-ms", f.FetchWaitMs, 0, 60_000),
		checkRange("shutdown-timeout-ms", f.ShutdownTimeoutMs, 0, 600_000),
		checkIdle("connections-max-idle-ms", f.MaxIdleMs),
		checkRange("max-held-bytes", f.MaxHeldBytes, 1<<20, 1<<40),
		checkRange("max-connection-held-bytes", f.MaxConnHeldBytes, 64<<10, 1<<40),
		checkRange("max-request-wait-ms", f.MaxRequestWaitMs, 1, 1<<31-1),
		checkRange("write-timeout-ms", f.WriteTimeoutMs, 100, 3_600_000),
	} {
		if err != nil {
			return err
		}
	}
	if f.Controller == "" {
		return usageError("-controller is required")
	}
	if err := checkHostPort("controller", f.Controller, false); err != nil {
		return err
	}
	if f.Advertise != "" {
		return checkHostPort("advertise", f.Advertise, false)
	}
	return nil
}

// RunBroker runs the broker command: it opens the broker's data directory,
// listens, registers with the controller and serves until a signal on
// stop; then it shuts down cleanly (controlled shutdown, clean close, the
// clean-shutdown marker) and returns 0. A second signal during the
// shutdown returns 1 at once, leaving no marker. A broker whose log fails
// halts, and RunBroker returns 1.
//
// A data directory stamped for another broker id, a controller or another
// cluster than -cluster-id returns 1 at once, the error naming both. A
// registration refused because another incarnation of the id has a live
// session (a second process with the same -id, or this broker's previous
// process killed less than a session timeout ago) is logged on stderr at
// every refusal and asked again with a backoff: the broker waits, serving
// nothing, and never disturbs the live one; stop it with a signal. A
// controller of another cluster halts it (status 1).
func RunBroker(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	return RunBrokerWithKafka(args, stdout, stderr, stop, KafkaListener{})
}

// KafkaListener is a broker's Kafka listener, for a command whose module
// has one (examples/kafkacluster, with replica/kafka's codec): the main
// module cannot import kmsg, so the codec comes from the caller.
type KafkaListener struct {
	// Listen is the listener's host:port (port 0: any free port).
	Listen string
	// Codec returns the listener's codec for the opened broker; nil means
	// no Kafka listener.
	Codec func(b *replica.Broker) server.Codec
}

// RunBrokerWithKafka is RunBroker with a Kafka listener beside kaenlog's,
// advertised in the broker's registration (replica.BrokerConfig's
// KafkaEndpoint) and announced on stdout once it listens, before the
// listening line:
//
//	broker 1 Kafka listener on 127.0.0.1:40112
func RunBrokerWithKafka(args []string, stdout, stderr io.Writer, stop <-chan os.Signal, kl KafkaListener) int {
	var f brokerFlags
	fs := brokerFlagSet(&f)
	if status, ok := parse(fs, args, stderr); !ok {
		return status
	}
	if err := f.validate(); err != nil {
		return refuse(fs, stderr, err)
	}
	who := fmt.Sprintf("broker %d", f.ID)
	lg := f.Log.logger(stderr, who)
	sync := log.SyncNever
	if f.SyncEveryAppend {
		sync = log.SyncEveryAppend
	}
	var fsys vfs.FS // nil: the OS
	if f.SimulatePowerLoss {
		// Every file of the broker — partitions, checkpoints, the
		// clean-shutdown marker — goes through one cache, so a reopen
		// in this process sees what is not synced yet.
		fsys = vfs.NewVolatileCache(vfs.OS(), 0)
		fmt.Fprintf(stdout, "broker %d simulating power loss: unsynced data lives in this process until fsync; a kill -9 loses it\n", f.ID)
	}
	clk := wallclock.New()
	events := make(chan struct{}, 1)
	sb, err := server.StartBroker(server.BrokerSpec{
		Broker: replica.BrokerConfig{
			ID: int32(f.ID), Dir: f.Dir, Endpoint: f.Advertise, ClusterID: f.ClusterID,
			Replica: replica.Options{
				Log:      log.Options{SegmentBytes: f.SegmentBytes, Sync: sync, MaxBatchBytes: f.MaxBatchBytes, FS: fsys},
				LagMaxMs: f.ReplicaLagMs,
			},
			HeartbeatIntervalMs: f.HeartbeatMs,
			ReplicaFetchWaitMs:  int32(f.FetchWaitMs),
		},
		Controller:  f.Controller,
		Clock:       clk,
		Listen:      f.Listen,
		KafkaListen: kl.Listen,
		KafkaCodec:  kl.Codec,
		Host: server.Config{
			ShutdownTimeoutMs: max(f.ShutdownTimeoutMs, 1),
			OnEvent:           func() { notify(events) }, Logf: hostLogf(lg),
			ConnectionsMaxIdleMs:   f.MaxIdleMs,
			MaxHeldBytes:           f.MaxHeldBytes,
			MaxConnectionHeldBytes: f.MaxConnHeldBytes,
			MaxRequestWaitMs:       f.MaxRequestWaitMs,
			WriteTimeoutMs:         f.WriteTimeoutMs,
		},
	})
	if err != nil {
		if errors.Is(err, replica.ErrInvalidConfig) {
			return refuse(fs, stderr, err)
		}
		lg.Error("cannot start", "err", err)
		return 1
	}
	h, b := sb.Host, sb.Node()
	if f.MetricsListen != "" {
		if err := serveMetrics(f.MetricsListen, who, stdout, h.Metrics); err != nil {
			lg.Error("cannot serve metrics", "err", err)
			h.Kill()
			return 1
		}
	}
	if ka, ok := sb.KafkaEndpoint(); ok {
		fmt.Fprintf(stdout, "broker %d Kafka listener on %s\n", f.ID, ka)
	}
	fmt.Fprintf(stdout, "broker %d listening on %s (advertised %s), data in %s\n", f.ID, sb.Addr(), sb.Endpoint(), f.Dir)

	health := time.NewTicker(time.Second)
	defer health.Stop()
	var lastRefusal error
	// refusal logs a new refusal of the registration: every one, since the
	// backoff spaces them.
	refusal := func(err error) {
		if err != nil && err != lastRefusal {
			lg.Warn("registration refused", "err", err)
		}
		lastRefusal = err
	}
	for {
		select {
		case <-events:
			var epoch int64 = -1
			var refused error
			var cluster string
			h.Do(func(int64) {
				if !b.Fenced() {
					epoch = b.Epoch()
				}
				refused, cluster = b.RegistrationRefused(), b.ClusterID()
			})
			refusal(refused)
			if epoch >= 0 {
				fmt.Fprintf(stdout, "broker %d ready: registered at broker epoch %d, unfenced, cluster %s\n", f.ID, epoch, cluster)
				events = nil // announced: no more looks
			}
		case <-health.C:
			var halted, refused error
			h.Do(func(int64) { halted, refused = b.Halted(), b.RegistrationRefused() })
			if halted == nil {
				refusal(refused)
			}
			if halted != nil {
				lg.Error("halted", "err", halted)
				h.Kill()
				return 1
			}
		case s := <-stop:
			fmt.Fprintf(stdout, "broker %d: %v: shutting down (a second signal stops at once)\n", f.ID, s)
			return stopHost(h.Close, stop, stdout, lg, who)
		}
	}
}

// stopHost runs closeNode (a Host's Close, or a server.Controller's); a
// signal on stop before it is done returns 1 at once.
func stopHost(closeNode func() error, stop <-chan os.Signal, stdout io.Writer, lg *slog.Logger, who string) int {
	done := make(chan error, 1)
	go func() {
		err := closeNode()
		if errors.Is(err, server.ErrShutdownTimedOut) {
			lg.Warn("closed cleanly without the controller's go-ahead", "err", server.ErrShutdownTimedOut)
			err = withoutTimeout(err)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			lg.Error("stop failed", "err", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s stopped cleanly\n", who)
		return 0
	case s := <-stop:
		lg.Warn("a second signal: stopping at once", "signal", s.String())
		return 1
	}
}

// withoutTimeout returns err less server.ErrShutdownTimedOut: what else
// went wrong, or nil.
func withoutTimeout(err error) error {
	if err == server.ErrShutdownTimedOut {
		return nil
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	var rest []error
	for _, e := range j.Unwrap() {
		if e != server.ErrShutdownTimedOut {
			rest = append(rest, e)
		}
	}
	return errors.Join(rest...)
}

// notify signals ch without waiting.
func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
