package kafka_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A kgo member (through the Kafka listener, range balancer) and a member
// of kaenlog's own client (through kaenlog's listener) are members of one
// group on the same coordinator: the one elected leader assigns both in
// Kafka's ConsumerProtocol format, and they split the topic's partitions,
// each partition to one of them.
func TestAKgoMemberAndAKaenlogMemberShareOneGroup(t *testing.T) {
	const topic = "shared"
	c := startCluster(t, 3)
	c.createTopic(topic, 4, 3, 2)

	var mu sync.Mutex
	var kgoHeld []int32
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	kcl := kgoClient(t, c, kgo.ConsumerGroup("mixed"), kgo.ConsumeTopics(topic), kgo.Balancers(kgo.RangeBalancer()),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			mu.Lock()
			kgoHeld = append(kgoHeld, m[topic]...)
			mu.Unlock()
			poke()
		}),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			mu.Lock()
			kgoHeld = slices.DeleteFunc(kgoHeld, func(p int32) bool { return slices.Contains(m[topic], p) })
			mu.Unlock()
			poke()
		}))
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			kcl.PollFetches(ctx) // a member polls: kgo joins and heartbeats meanwhile
		}
	}()

	cl, err := client.New(client.Config{Controller: c.Controller(), Clock: wallclock.New(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	member, err := cl.NewGroupConsumer(client.GroupConfig{Group: "mixed", Topics: []string{topic}, HeartbeatIntervalMs: 200,
		OnAssigned: func(int32, []client.TopicPartition) { poke() }})
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()

	for {
		mu.Lock()
		theirs := slices.Sorted(slices.Values(kgoHeld))
		mu.Unlock()
		var ours []int32
		for _, tp := range member.Assignment() {
			ours = append(ours, tp.Partition)
		}
		all := slices.Sorted(slices.Values(append(slices.Clone(ours), theirs...)))
		if len(ours) == 2 && len(theirs) == 2 && slices.Equal(all, []int32{0, 1, 2, 3}) {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("no split of the 4 partitions in %v: kgo holds %v, kaenlog's member %v", clusterWait, theirs, ours)
		}
	}
}
