package client_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kaenlog/kaenlog/replica/client"
)

// An acks=0 producer gets no answers, so a broker that refuses its records
// must tell it some other way that it is talking to the wrong broker:
// Kafka's broker closes the connection when an acks=0 produce fails
// (KafkaApis.handleProduceRequest: "the server will close socket server
// so that the producer client will know that some error has happened and
// will refresh its metadata"), and the producer then finds the new leader. kaenlog's broker returns nothing and keeps the
// connection (replica/broker_produce.go handleProduce: `if req.Acks ==
// wire.AcksNone { return }`), so after the leader moves to another broker
// that stays up, every later acks=0 record goes to the old leader and is
// dropped, each reported done, for as long as nothing else refreshes the
// client's metadata.
func TestAcksZeroProducerFollowsAMovedLeader(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 3, lagMs: 2000, sessionMs: 3000})
	cl := newClient(t, c)
	createTopic(t, c, cl, "fire", 1, 3, 1)
	tp := client.TopicPartition{Topic: "fire"}
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	p, err := cl.NewProducer(client.ProducerConfig{Acks: client.AcksNone})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Produce(ctx, client.Record{Topic: "fire", Value: []byte("before")}); err != nil {
		t.Fatal(err)
	}
	old := c.partition("fire", 0).Leader
	// The leader begins a controlled shutdown: its leadership moves, the
	// broker stays up (and its connections open) until it is closed.
	c.mu.Lock()
	br := c.brokers[old]
	c.mu.Unlock()
	br.h.Do(func(int64) { br.b.BeginShutdown() })
	c.ev.await(t, "a new leader", func() bool {
		now := c.partition("fire", 0)
		return now.Leader >= 0 && now.Leader != old
	})
	const n = 50
	for i := range n {
		if _, err := p.Produce(ctx, client.Record{Topic: "fire", Value: []byte(fmt.Sprintf("after-%02d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	// A marker through an acks=all producer of a fresh client: once it is
	// committed, everything the acks=0 producer delivered sits before it.
	marker := newClient(t, c)
	mp, err := marker.NewProducer(client.ProducerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	moff, err := mp.Produce(ctx, client.Record{Topic: "fire", Value: []byte("marker")})
	if err != nil {
		t.Fatal(err)
	}
	recs := readN(t, marker, tp, client.FromStart(), int(moff.Offset)+1)
	arrived := 0
	for _, r := range recs {
		if len(r.Value) > 6 && string(r.Value[:6]) == "after-" {
			arrived++
		}
	}
	t.Logf("leader %d -> %d: %d of %d acks=0 records produced after the move arrived", old, c.partition("fire", 0).Leader, arrived, n)
	if arrived < n/2 {
		t.Fatalf("%d of %d acks=0 records sent after the leader moved arrived: the producer kept sending to the old leader, which dropped them silently", arrived, n)
	}
}
