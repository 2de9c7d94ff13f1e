package main

import (
	"crypto/rand"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/kaenlog/kaenlog/replica/server"
)

// roleKafkaBroker is a broker with a Kafka listener beside its kaenlog
// one (the -kgo mode): examples/broker's defaults (ContinuousFetch,
// replica.fetch.wait.max.ms 500, the OS flushing the log) plus
// replica/kafka's codec on a second free loopback port.
const roleKafkaBroker = "kafka-broker"

// lineKafkaReady is what a Kafka broker child prints once it is
// registered and unfenced, then its Kafka listener's address.
const lineKafkaReady = "kfakebench-child kafka broker ready "

// runKafkaBroker is the kafka-broker role: -id, -controller and -dir, as
// examples/broker takes them. The harness kills it (its data is thrown
// away), so there is no clean shutdown.
func runKafkaBroker(args []string) int {
	fs := flag.NewFlagSet(roleKafkaBroker, flag.ContinueOnError)
	id := fs.Int("id", -1, "broker id")
	ctl := fs.String("controller", "", "the controller's host:port")
	dir := fs.String("dir", "", "data directory")
	fs.String("listen", "127.0.0.1:0", "ignored: both listeners take free loopback ports")
	if err := fs.Parse(args); err != nil || *id < 0 || *ctl == "" || *dir == "" {
		fmt.Fprintf(os.Stderr, "kfakebench %s: needs -id, -controller and -dir (%v)\n", roleKafkaBroker, err)
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "kfakebench %s %d: %v\n", roleKafkaBroker, *id, err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	kln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	clk := wallclock.New()
	cfg := replica.BrokerConfig{
		ID: int32(*id), Dir: *dir, Endpoint: ln.Addr().String(), KafkaEndpoint: kln.Addr().String(),
		ContinuousFetch: true, ReplicaFetchWaitMs: 500,
	}
	if v := os.Getenv(envGroupInitialDelay); v != "" { // the -groups mode's -group-initial-delay-ms
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return fail(fmt.Errorf("%s=%q: not a delay in ms", envGroupInitialDelay, v))
		}
		cfg.Groups = group.DefaultConfig()
		cfg.Groups.InitialRebalanceDelayMs = ms
	}
	rand.Read(cfg.IncarnationID[:])
	b, err := replica.OpenBroker(cfg, clk.NowMs())
	if err != nil {
		return fail(err)
	}
	events := make(chan struct{}, 1)
	h, err := server.Serve(ln, b, server.Config{
		Clock: clk, Controller: *ctl,
		OnEvent: func() {
			select {
			case events <- struct{}{}:
			default:
			}
		},
		Listeners: []server.Listener{{Listener: kln, Codec: kafka.NewCodec(b, kafka.Config{})}},
	})
	if err != nil {
		return fail(err)
	}
	go steer(os.Stdin, os.Stdout)
	health := time.NewTicker(time.Second)
	defer health.Stop()
	for announced := false; ; {
		select {
		case <-events:
		case <-health.C:
		}
		var halted error
		unfenced := false
		h.Do(func(int64) { halted, unfenced = b.Halted(), !b.Fenced() })
		if halted != nil {
			h.Kill()
			return fail(halted)
		}
		if unfenced && !announced {
			fmt.Printf("%s%s\n", lineKafkaReady, kln.Addr())
			// Announced: no more looks after every event, which would
			// take the node's lock in the middle of every commit.
			announced, events = true, nil
		}
	}
}
