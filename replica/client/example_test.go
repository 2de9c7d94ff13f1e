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

// produceAndConsume is the README's snippet: it writes two records to
// partition 0 of topic orders on the cluster whose controller is at
// controller, acks=all and idempotent, and reads them back.
//
// README begin
func produceAndConsume(controller string) error {
	ctx := context.Background()
	c, err := client.New(client.Config{Controller: controller, Clock: wallclock.New()})
	if err != nil {
		return err
	}
	defer c.Close()

	p, err := c.NewProducer(client.ProducerConfig{}) // acks=all, idempotent
	if err != nil {
		return err
	}
	for _, v := range []string{"hello", "world"} {
		off, err := p.Produce(ctx, client.Record{Topic: "orders", Partition: 0, Value: []byte(v)})
		if err != nil {
			return err
		}
		fmt.Printf("produced %q to orders-%d at offset %d\n", v, off.Partition, off.Offset)
	}

	cons, err := c.NewConsumer(client.ConsumerConfig{})
	if err != nil {
		return err
	}
	orders0 := client.TopicPartition{Topic: "orders", Partition: 0}
	read := 0
	for rec, err := range cons.Records(ctx, orders0, client.FromStart()) {
		if err != nil {
			return err
		}
		fmt.Printf("read %q at offset %d\n", rec.Value, rec.Offset)
		if read++; read == 2 {
			break
		}
	}
	return nil
}

// README end

// startLocalCluster starts a controller and brokers 1..brokers in this process,
// each served over loopback TCP by its own server.Host, and returns once
// every broker is registered and unfenced: the controller's address, and
// stop, which kills the hosts and removes their files. It is what
// `go run ./examples/cluster` does with one process each.
func startLocalCluster(brokers int) (controllerAddr string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "kaenlog-example-")
	if err != nil {
		return "", nil, err
	}
	var hosts []*server.Host
	var store controller.Store
	stop = func() {
		for _, h := range hosts {
			h.Kill()
		}
		if store != nil {
			store.Close()
		}
		os.RemoveAll(dir)
	}
	clk := wallclock.New()
	changed := make(chan struct{}, 1)
	onEvent := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	store, err = controller.OpenLogStore(filepath.Join(dir, "controller"), log.Options{Sync: log.SyncEveryAppend})
	if err != nil {
		return "", stop, err
	}
	ctl, err := controller.Open(store, controller.Config{}, clk.NowMs())
	if err != nil {
		return "", stop, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", stop, err
	}
	h, err := server.Serve(ln, replica.NewControllerNode(ctl), server.Config{Clock: clk})
	if err != nil {
		return "", stop, err
	}
	hosts = append(hosts, h)
	controllerAddr = ln.Addr().String()

	var bs []*replica.Broker
	for id := int32(1); id <= int32(brokers); id++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", stop, err
		}
		cfg := replica.BrokerConfig{ID: id, Dir: filepath.Join(dir, fmt.Sprintf("broker-%d", id)), Endpoint: ln.Addr().String(), ContinuousFetch: true}
		rand.Read(cfg.IncarnationID[:]) // a new incarnation of the broker
		b, err := replica.OpenBroker(cfg, clk.NowMs())
		if err != nil {
			return "", stop, err
		}
		h, err := server.Serve(ln, b, server.Config{Clock: clk, Controller: controllerAddr, OnEvent: onEvent})
		if err != nil {
			return "", stop, err
		}
		hosts, bs = append(hosts, h), append(bs, b)
	}
	// Each broker's state is read on its host's goroutine (Do); OnEvent
	// says when to look again.
	for i, b := range bs {
		for unfenced := false; !unfenced; {
			hosts[i+1].Do(func(int64) { unfenced = !b.Fenced() })
			if !unfenced {
				<-changed
			}
		}
	}
	return controllerAddr, stop, nil
}

// Produce two records to a local cluster and read them back: a controller
// and three brokers over loopback TCP, in this process, with the topic
// orders (3 partitions, 3 replicas, min.insync.replicas 2) — what
// `go run ./examples/cluster -topic orders -partitions 3 -rf 3 -min-isr 2`
// starts as processes and prints the controller's address of.
func Example() {
	controllerAddr, stop, err := startLocalCluster(3)
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
	// The producer and the consumer wait for the new topic's leaders.
	err = c.CreateTopic(context.Background(), client.TopicConfig{Name: "orders", Partitions: 3, ReplicationFactor: 3, MinISR: 2})
	if err == nil {
		err = produceAndConsume(controllerAddr)
	}
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// produced "hello" to orders-0 at offset 0
	// produced "world" to orders-0 at offset 1
	// read "hello" at offset 0
	// read "world" at offset 1
}
