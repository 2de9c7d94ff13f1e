package client_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/client"
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

// startLocalCluster starts a controller and brokers 1..brokers in this
// process, each on its own loopback port (server.StartController,
// server.StartBroker), and returns once every broker is registered and
// unfenced: the controller's address, and stop, which stops them and
// removes their files. It is what `go run ./examples/cluster` does with
// one process each.
func startLocalCluster(brokers int) (controllerAddr string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "kaenlog-example-")
	if err != nil {
		return "", nil, err
	}
	var ctl *server.Controller
	var brokerHosts []*server.Broker
	stop = func() {
		// The brokers' controlled shutdowns run together, then the
		// controller stops.
		var wg sync.WaitGroup
		for _, b := range brokerHosts {
			wg.Go(func() { b.Close() })
		}
		wg.Wait()
		if ctl != nil {
			ctl.Close()
		}
		os.RemoveAll(dir)
	}
	clk := wallclock.New()
	ctl, err = server.StartController(server.ControllerSpec{Dir: filepath.Join(dir, "controller"), Clock: clk})
	if err != nil {
		return "", stop, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for id := int32(1); id <= int32(brokers); id++ {
		b, err := server.StartBroker(server.BrokerSpec{
			Broker:     replica.BrokerConfig{ID: id, Dir: filepath.Join(dir, fmt.Sprintf("broker-%d", id))},
			Controller: ctl.Addr().String(),
			Clock:      clk,
		})
		if err != nil {
			return "", stop, err
		}
		brokerHosts = append(brokerHosts, b)
		if err := b.WaitReady(ctx); err != nil {
			return "", stop, err
		}
	}
	return ctl.Addr().String(), stop, nil
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
