package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica"
	kclient "github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/server"
)

// A controller and three brokers embedded in one Go program, each on its
// own loopback port, then a topic with three replicas and a record
// produced with acks=all.
func ExampleStartBroker() {
	dir, _ := os.MkdirTemp("", "kaenlog-embed-")
	defer os.RemoveAll(dir)
	clk := wallclock.New()

	ctl, err := server.StartController(server.ControllerSpec{Dir: filepath.Join(dir, "controller"), Clock: clk})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctl.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for id := int32(1); id <= 3; id++ {
		b, err := server.StartBroker(server.BrokerSpec{
			Broker:     replica.BrokerConfig{ID: id, Dir: filepath.Join(dir, fmt.Sprint("broker-", id))},
			Controller: ctl.Addr().String(),
			Clock:      clk,
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		defer b.Close()
		if err := b.WaitReady(ctx); err != nil { // registered and unfenced
			fmt.Println(err)
			return
		}
	}

	c, _ := kclient.New(kclient.Config{Controller: ctl.Addr().String(), Clock: clk})
	defer c.Close()
	err = c.CreateTopic(ctx, kclient.TopicConfig{Name: "orders", Partitions: 1, ReplicationFactor: 3, MinISR: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := c.NewProducer(kclient.ProducerConfig{}) // acks=all, idempotent
	off, err := p.Produce(ctx, kclient.Record{Topic: "orders", Value: []byte("hello")})
	fmt.Println(off.Offset, err)
	// Output:
	// 0 <nil>
}
