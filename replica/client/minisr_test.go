package client_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// acks=all with a follower cut off: the leader drops it from the ISR after
// replica.lag.time.max.ms, the ISR falls below min.insync.replicas, and
// the leader refuses every acks=all batch with NOT_ENOUGH_REPLICAS before
// appending it. The producer retries the refusal (it is retriable) until
// the delivery timeout fails the record, with that error.
func TestNotEnoughReplicasIsRetriedUntilTheDeliveryTimeout(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 3, lagMs: 1000})
	cl := newClient(t, c)
	createTopic(t, c, cl, "strict", 1, 3, 3)
	p, err := cl.NewProducer(client.ProducerConfig{AckTimeoutMs: 1000, DeliveryTimeoutMs: 3000})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()
	if _, err := p.Produce(ctx, client.Record{Topic: "strict", Value: []byte("while all three are in")}); err != nil {
		t.Fatal(err)
	}
	leader := partition(c, "strict", 0).Leader
	follower := int32(1)
	for follower == leader {
		follower++
	}
	c.Kill(follower)
	c.Await("the ISR without the follower", func() bool {
		return !slices.Contains(partition(c, "strict", 0).ISR, follower)
	})
	c.AwaitBrokers()
	_, err = p.Produce(ctx, client.Record{Topic: "strict", Value: []byte("with two of three")})
	if !errors.Is(err, client.ErrDeliveryTimeout) || !errors.Is(err, wire.ErrNotEnoughReplicas) {
		t.Fatalf("produce under min ISR: %v, want ErrDeliveryTimeout and NOT_ENOUGH_REPLICAS", err)
	}
	var we *wire.Error
	if !errors.As(err, &we) || !we.Retriable() {
		t.Fatalf("%v carries no retriable *wire.Error", err)
	}
}
