package client_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/controller"
	"github.com/kaenlog/kaenlog/replica/server"
)

// startBroker starts a controller and one broker in this process, each
// served over loopback TCP by its own server.Host, and returns once the
// broker is registered and unfenced: the controller's address, and stop,
// which kills both hosts and removes their files.
func startBroker() (controllerAddr string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "kaenlog-example-")
	if err != nil {
		return "", nil, err
	}
	var store controller.Store
	var ctlHost, brokerHost *server.Host
	stop = func() {
		for _, h := range []*server.Host{brokerHost, ctlHost} {
			if h != nil {
				h.Kill()
			}
		}
		if store != nil {
			store.Close()
		}
		os.RemoveAll(dir)
	}
	clk := wallclock.New()
	if store, err = controller.OpenLogStore(filepath.Join(dir, "controller"), log.Options{Sync: log.SyncEveryAppend}); err != nil {
		return "", stop, err
	}
	ctl, err := controller.Open(store, controller.Config{}, clk.NowMs())
	if err != nil {
		return "", stop, err
	}
	ctlLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", stop, err
	}
	if ctlHost, err = server.Serve(ctlLn, replica.NewControllerNode(ctl), server.Config{Clock: clk}); err != nil {
		return "", stop, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", stop, err
	}
	cfg := replica.BrokerConfig{ID: 1, Dir: filepath.Join(dir, "broker-1"), Endpoint: ln.Addr().String(), ContinuousFetch: true}
	rand.Read(cfg.IncarnationID[:]) // a new incarnation of the broker
	b, err := replica.OpenBroker(cfg, clk.NowMs())
	if err != nil {
		return "", stop, err
	}
	// The broker's state is read on its host's goroutine (Do); OnEvent
	// says when to look again.
	changed := make(chan struct{}, 1)
	onEvent := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	if brokerHost, err = server.Serve(ln, b, server.Config{Clock: clk, Controller: ctlLn.Addr().String(), OnEvent: onEvent}); err != nil {
		return "", stop, err
	}
	for unfenced := false; !unfenced; {
		brokerHost.Do(func(int64) { unfenced = !b.Fenced() })
		if !unfenced {
			<-changed
		}
	}
	return ctlLn.Addr().String(), stop, nil
}

// Hand a slice of records over in one call: the producer takes its lock
// and reads its clock once for the call, and the callback hears once per
// run of records that went into one batch, with the offset of the run's
// first record.
func ExampleProducer_ProduceManyAsync() {
	controllerAddr, stop, err := startBroker()
	if stop != nil {
		defer stop()
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.New(client.Config{Controller: controllerAddr, Clock: wallclock.New()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if err := c.CreateTopic(context.Background(), client.TopicConfig{Name: "orders", Partitions: 1, ReplicationFactor: 1}); err != nil {
		fmt.Println(err)
		return
	}
	p, err := c.NewProducer(client.ProducerConfig{}) // acks=all, idempotent
	if err != nil {
		fmt.Println(err)
		return
	}

	var recs []client.Record
	for _, v := range []string{"a", "b", "c", "d", "e"} {
		recs = append(recs, client.Record{Topic: "orders", Partition: 0, Value: []byte(v)})
	}
	n, err := p.ProduceManyAsync(recs, func(i, n int, first client.Offset, err error) {
		if err != nil {
			fmt.Printf("records %d to %d failed: %v\n", i, i+n-1, err)
			return
		}
		for k := range n {
			fmt.Printf("%s at orders-%d offset %d\n", recs[i+k].Value, first.Partition, first.Offset+uint64(k))
		}
	})
	if err != nil {
		fmt.Printf("took %d of %d records: %v\n", n, len(recs), err)
	}
	if err := p.Flush(context.Background()); err != nil { // waits for every callback
		fmt.Println(err)
	}
	// Output:
	// a at orders-0 offset 0
	// b at orders-0 offset 1
	// c at orders-0 offset 2
	// d at orders-0 offset 3
	// e at orders-0 offset 4
}
