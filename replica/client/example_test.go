package client_test

import (
	"context"
	"fmt"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica/client"
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

// Produce two records to a local cluster and read them back: a controller
// and three brokers over loopback TCP, in this process, with the topic
// orders (3 partitions, 3 replicas, min.insync.replicas 2) — what
// `go run ./examples/cluster -topic orders -partitions 3 -rf 3 -min-isr 2`
// starts as processes and prints the controller's address of.
func Example() {
	var t exampleTB
	defer t.done()
	cluster := startCluster(&t, clusterOptions{brokers: 3})
	cluster.createTopic("orders", 3, 3, 2)

	if err := produceAndConsume(cluster.controller()); err != nil {
		fmt.Println(err)
	}
	// Output:
	// produced "hello" to orders-0 at offset 0
	// produced "world" to orders-0 at offset 1
	// read "hello" at offset 0
	// read "world" at offset 1
}

// Hand a slice of records over in one call: the producer takes its lock
// and reads its clock once for the call, and the callback hears once per
// run of records that went into one batch, with the offset of the run's
// first record.
func ExampleProducer_ProduceManyAsync() {
	var t exampleTB
	defer t.done()
	cluster := startCluster(&t, clusterOptions{brokers: 3})
	cluster.createTopic("orders", 1, 3, 2)
	c, err := client.New(client.Config{Controller: cluster.controller(), Clock: wallclock.New()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
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
