package client_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
)

// An acks=0 producer gets no answers, so a broker that refuses its records
// must tell it some other way that it is talking to the wrong broker:
// Kafka's broker closes the connection when an acks=0 produce fails
// (KafkaApis.handleProduceRequest: "the server will close socket server
// so that the producer client will know that some error has happened and
// will refresh its metadata"), and the producer then finds the new leader.
// Without that, after the leader moves to another broker that stays up,
// every later acks=0 record would go to the old leader and be dropped,
// each reported done, for as long as nothing else refreshed the client's
// metadata. (The records of the refused request itself are lost: acks=0
// promises nothing about them.)
func TestAcksZeroProducerFollowsAMovedLeader(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 3, lagMs: 2000, sessionMs: 3000})
	cl := newClient(t, c)
	createTopic(t, c, cl, "fire", 1, 3, 1)
	tp := client.TopicPartition{Topic: "fire"}
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()
	p, err := cl.NewProducer(client.ProducerConfig{Acks: client.AcksNone})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Produce(ctx, client.Record{Topic: "fire", Value: []byte("before")}); err != nil {
		t.Fatal(err)
	}
	old := partition(c, "fire", 0).Leader
	// The leader begins a controlled shutdown: its leadership moves, the
	// broker stays up (and its connections open) until it is closed.
	br := c.Broker(old)
	br.Host.Do(func(int64) { br.Broker.BeginShutdown() })
	c.Await("the old leader to know it leads no more", func() bool { return !leads(c, old, "fire") })
	// A record to the old leader, refused: the broker closes the
	// connection, and the client's metadata follows the new leader.
	if _, err := p.Produce(ctx, client.Record{Topic: "fire", Value: []byte("refused")}); err != nil {
		t.Fatal(err)
	}
	now, err := client.AwaitLeaderOtherThan(ctx, cl, tp, old)
	if err != nil {
		t.Fatalf("the client never learned that broker %d leads no more: %v", old, err)
	}
	// The new leader may learn it leads after the client does; a record
	// it refused before would be lost (acks=0) and end this connection.
	c.Await("the new leader to know it leads", func() bool { return leads(c, now, "fire") })
	const n = 50
	for i := range n {
		if _, err := p.Produce(ctx, client.Record{Topic: "fire", Value: []byte(fmt.Sprintf("after-%02d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	// A marker through an acks=all producer of the same client, so on the
	// same connection, behind the acks=0 records: the broker reads a
	// connection's requests in order, so once the marker is committed,
	// everything the acks=0 producer delivered sits before it. (A marker
	// on another connection could overtake records still in the socket.)
	mp, err := cl.NewProducer(client.ProducerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	moff, err := mp.Produce(ctx, client.Record{Topic: "fire", Value: []byte("marker")})
	if err != nil {
		t.Fatal(err)
	}
	recs := readN(t, cl, tp, client.FromStart(), int(moff.Offset)+1)
	arrived := 0
	for _, r := range recs {
		if len(r.Value) > 6 && string(r.Value[:6]) == "after-" {
			arrived++
		}
	}
	t.Logf("leader %d -> %d: %d of %d acks=0 records produced after the client followed arrived", old, now, arrived, n)
	if arrived != n {
		t.Fatalf("%d of %d acks=0 records sent to the new leader arrived", arrived, n)
	}
}

// leads reports whether broker id of c knows it leads topic's partition 0.
func leads(c *clustertest.Cluster, id int32, topic string) bool {
	br := c.Broker(id)
	yes := false
	br.Host.Do(func(int64) {
		r, ok := br.Broker.Replica(replica.TopicPartition{Topic: topic})
		yes = ok && r.Role() == replica.RoleLeader
	})
	return yes
}
