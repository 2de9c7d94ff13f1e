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
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/server"
)

// consumeInGroup reads n records of topic as a member of group billing,
// commits what it read and leaves the group.
func consumeInGroup(controllerAddr, topic string, n int) error {
	ctx := context.Background()
	c, err := client.New(client.Config{Controller: controllerAddr, Clock: wallclock.New()})
	if err != nil {
		return err
	}
	defer c.Close()
	member, err := c.NewGroupConsumer(client.GroupConfig{
		Group:  "billing",
		Topics: []string{topic},
		Reset:  client.ResetEarliest, // where a partition with no commit starts
	})
	if err != nil {
		return err
	}
	defer member.Close() // leaves the group: it rebalances at once
	read := 0
	for rec, err := range member.Records(ctx) {
		if err != nil {
			return err
		}
		fmt.Printf("read %q at %s offset %d\n", rec.Value, client.TopicPartition{Topic: rec.Topic, Partition: rec.Partition}, rec.Offset)
		if read++; read == n {
			break
		}
	}
	// Answered once the offsets are committed in __consumer_offsets.
	if err := member.Commit(ctx); err != nil {
		return err
	}
	fmt.Printf("committed after %d records\n", read)
	return nil
}

// startGroupsCluster starts a controller and one broker in this process,
// over loopback TCP, whose group coordinators start a group's first
// rebalance at once (Kafka waits group.initial.rebalance.delay.ms, 3 s,
// for more members) on a small __consumer_offsets.
func startGroupsCluster() (controllerAddr string, stop func(), err error) {
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
	if store, err = controller.OpenLogStore(filepath.Join(dir, "controller"), log.Options{Sync: log.SyncEveryAppend}); err != nil {
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

	if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return "", stop, err
	}
	cfg := replica.BrokerConfig{ID: 1, Dir: filepath.Join(dir, "broker-1"), Endpoint: ln.Addr().String(), ContinuousFetch: true,
		Groups: group.DefaultConfig(), OffsetsTopicPartitions: 3}
	cfg.Groups.InitialRebalanceDelayMs = 0
	rand.Read(cfg.IncarnationID[:])
	b, err := replica.OpenBroker(cfg, clk.NowMs())
	if err != nil {
		return "", stop, err
	}
	if h, err = server.Serve(ln, b, server.Config{Clock: clk, Controller: controllerAddr, OnEvent: onEvent}); err != nil {
		return "", stop, err
	}
	hosts = append(hosts, h)
	for unfenced := false; !unfenced; {
		h.Do(func(int64) { unfenced = !b.Fenced() })
		if !unfenced {
			<-changed
		}
	}
	return controllerAddr, stop, nil
}

// A consumer group on kaenlog's own protocol: a member reads two records
// and commits; the next member of the group, after the first left,
// resumes from the commit.
func ExampleGroupConsumer() {
	controllerAddr, stop, err := startGroupsCluster()
	if stop != nil {
		defer stop()
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	c, err := client.New(client.Config{Controller: controllerAddr, Clock: wallclock.New()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if err := c.CreateTopic(ctx, client.TopicConfig{Name: "invoices", Partitions: 1, ReplicationFactor: 1, MinISR: 1}); err != nil {
		fmt.Println(err)
		return
	}
	p, err := c.NewProducer(client.ProducerConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range []string{"inv-1", "inv-2", "inv-3"} {
		if _, err := p.Produce(ctx, client.Record{Topic: "invoices", Value: []byte(v)}); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := consumeInGroup(controllerAddr, "invoices", 2); err != nil {
		fmt.Println(err)
	}
	if err := consumeInGroup(controllerAddr, "invoices", 1); err != nil {
		fmt.Println(err)
	}
	// Output:
	// read "inv-1" at invoices-0 offset 0
	// read "inv-2" at invoices-0 offset 1
	// committed after 2 records
	// read "inv-3" at invoices-0 offset 2
	// committed after 1 records
}
