package kafkatest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kaenlog/kaenlog/replica/kafka/kafkatest"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A kgo producer writes ten records with acks=all to a three-broker
// cluster (RF 3, min ISR 2); the partition's leader then loses its power.
// Another broker takes over, and a consumer reads every acknowledged
// record back.
func Example() {
	c, err := kafkatest.NewCluster(kafkatest.Config{})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if err := c.CreateTopic("orders", 1); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	prod, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.DefaultProduceTopic("orders"))
	if err != nil {
		panic(err)
	}
	defer prod.Close()
	for i := range 10 {
		r := &kgo.Record{Value: fmt.Appendf(nil, "order-%d", i)}
		if err := prod.ProduceSync(ctx, r).FirstErr(); err != nil {
			panic(err)
		}
	}

	old := c.Leader("orders", 0)
	if err := c.Crash(old); err != nil {
		panic(err)
	}
	if _, err := c.AwaitLeader("orders", 0, old); err != nil {
		panic(err)
	}
	fmt.Println("the leader crashed; another broker leads")

	cons, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"orders": {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		panic(err)
	}
	defer cons.Close()
	for read := 0; read < 10; {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			panic(err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			fmt.Printf("%d %s\n", r.Offset, r.Value)
			read++
		})
	}
	// Output:
	// the leader crashed; another broker leads
	// 0 order-0
	// 1 order-1
	// 2 order-2
	// 3 order-3
	// 4 order-4
	// 5 order-5
	// 6 order-6
	// 7 order-7
	// 8 order-8
	// 9 order-9
}
