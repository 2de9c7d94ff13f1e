package replica_test

import (
	"fmt"
	"slices"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The scenarios the chapter draws, driven: each opens a cluster of brokers
// and the controller in memory, on a clock that moves only when told, and
// prints what happened. Every run prints the same.

// payments0 is the partition of every scenario, and exampleStartMs the
// clock's start: the chapter's --now-ms.
var payments0 = replica.TopicPartition{Topic: "payments", Partition: 0}

const exampleStartMs = int64(1_700_000_000_000)

// exampleCluster opens an in-memory cluster of brokers with the partition
// payments-0 replicated on replicas (in preference order).
func exampleCluster(brokers []int32, minISR int32, replicas ...int32) *replica.Cluster {
	c, err := replica.OpenCluster(replica.ClusterConfig{Dir: "/example", Brokers: brokers, StartMs: exampleStartMs, InMemory: true})
	if err != nil {
		panic(err)
	}
	if err := c.CreateTopic(payments0.Topic, 1, int16(len(replicas)), minISR, [][]int32{replicas}); err != nil {
		panic(err)
	}
	return c
}

func mustProduce(c *replica.Cluster, acks int16, values ...string) {
	for _, v := range values {
		if _, err := c.Produce(payments0, acks, 30_000, []byte(v)); err != nil {
			panic(err)
		}
	}
}

// held returns the record values broker id holds.
func held(c *replica.Cluster, id int32) []string {
	r, _ := c.Replica(id, payments0)
	l := r.Log()
	buf, err := l.Read(nil, l.StartOffset(), 1<<20, log.IsolationLogEnd)
	if err != nil {
		panic(err)
	}
	batches, err := log.DecodeBatches(buf)
	if err != nil {
		panic(err)
	}
	var out []string
	for _, b := range batches {
		for _, rec := range b.Records {
			out = append(out, string(rec.Value))
		}
	}
	return out
}

func partition(c *replica.Cluster) string {
	p, _ := c.Controller().Image().Partition(payments0.Topic, payments0.Partition)
	return fmt.Sprintf("leader %d at epoch %d, ISR %v", p.Leader, p.LeaderEpoch, slices.Sorted(slices.Values(p.ISR)))
}

// sortedISR returns the ISR the controller committed, sorted.
func sortedISR(c *replica.Cluster) []int32 {
	p, _ := c.Controller().Image().Partition(payments0.Topic, payments0.Partition)
	return slices.Sorted(slices.Values(p.ISR))
}

func waitLeaderNot(c *replica.Cluster, not int32) {
	if err := c.Await(func() bool {
		l := c.LeaderOf(payments0)
		r, ok := c.Replica(l, payments0)
		return l >= 0 && l != not && ok && r.Role() == replica.RoleLeader
	}, 60_000); err != nil {
		panic(err)
	}
}

func cutOff(c *replica.Cluster, id int32, others ...replica.Addr) {
	for _, o := range others {
		c.Network().Cut(replica.BrokerAt(id), o)
	}
}

// KIP-279's fast leader change A→B→A, through the controller: A writes m2
// that nobody copies and loses its links; B is elected and writes m3 at the
// same offset; A comes back, learns from its first fetch where its epoch
// ended on B, drops m2 and rejoins the ISR; B dies and A leads again. Every
// log and every epoch cache ends equal.
func Example_fastLeaderChange() {
	c := exampleCluster([]int32{1, 2, 3}, 1, 1, 2, 3)
	defer c.Close()
	mustProduce(c, wire.AcksAll, "m1")
	mustProduce(c, wire.AcksLeader, "m2")
	fmt.Println("A:", partition(c), "· A holds", held(c, 1))
	cutOff(c, 1, replica.ControllerAt(), replica.BrokerAt(2), replica.BrokerAt(3))
	waitLeaderNot(c, 1)
	mustProduce(c, wire.AcksLeader, "m3")
	fmt.Println("B:", partition(c), "· B holds", held(c, 2))
	c.Network().Heal()
	c.Await(func() bool { c.FetchRound(); return slices.Contains(sortedISR(c), 1) }, 60_000)
	fmt.Println("A rejoined:", partition(c), "· A holds", held(c, 1))
	c.CrashBroker(2, vfs.KeepUnsynced)
	waitLeaderNot(c, 2)
	mustProduce(c, wire.AcksLeader, "m4")
	c.StartBroker(2)
	for range 5 {
		c.FetchRound()
	}
	fmt.Println("A again:", partition(c))
	for _, id := range c.BrokerIDs() {
		r, _ := c.Replica(id, payments0)
		fmt.Println("  broker", id, held(c, id), r.Epochs())
	}
	// Output:
	// A: leader 1 at epoch 0, ISR [1 2 3] · A holds [m1 m2]
	// B: leader 2 at epoch 1, ISR [2 3] · B holds [m1 m3]
	// A rejoined: leader 2 at epoch 1, ISR [1 2 3] · A holds [m1 m3]
	// A again: leader 1 at epoch 2, ISR [1 2 3]
	//   broker 1 [m1 m3 m4] [{0 0} {1 1} {2 2}]
	//   broker 2 [m1 m3 m4] [{0 0} {1 1} {2 2}]
	//   broker 3 [m1 m3 m4] [{0 0} {1 1} {2 2}]
}

// KAFKA-14139, fixed by KIP-966: a follower that lost its unflushed tail in
// a power cut registers as unclean, the controller takes it out of the ISR,
// and when the leader dies it is not elected.
func Example_lostTail() {
	c := exampleCluster([]int32{1, 2, 3}, 2, 1, 2, 3)
	defer c.Close()
	mustProduce(c, wire.AcksAll, "a", "b", "c", "d")
	for range 2 {
		c.FetchRound()
	}
	fmt.Println(partition(c))
	c.CrashBroker(2, vfs.LoseUnsynced)
	c.StartBroker(2)
	c.AwaitBrokers(60_000) // its old session expires first, then it registers
	r, _ := c.Replica(2, payments0)
	fmt.Println("broker 2 restarts with LEO", r.LEO(), "·", partition(c))
	c.CrashBroker(1, vfs.KeepUnsynced)
	waitLeaderNot(c, 1)
	fmt.Println("leader 1 dies:", partition(c), "· the new leader holds", held(c, c.LeaderOf(payments0)))
	// Output:
	// leader 1 at epoch 0, ISR [1 2 3]
	// broker 2 restarts with LEO 0 · leader 1 at epoch 0, ISR [1 3]
	// leader 1 dies: leader 3 at epoch 1, ISR [3] · the new leader holds [a b c d]
}

// Unclean election loses data only when asked for, and says so.
func Example_uncleanElection() {
	c := exampleCluster([]int32{1, 2}, 1, 1, 2)
	defer c.Close()
	mustProduce(c, wire.AcksAll, "kept")
	cutOff(c, 1, replica.BrokerAt(2))
	c.Advance(45_000)
	mustProduce(c, wire.AcksAll, "only-on-1")
	fmt.Println(partition(c))
	c.CrashBroker(1, vfs.KeepUnsynced)
	c.Advance(30_000)
	fmt.Println("broker 1 dies:", partition(c))
	for _, unclean := range []bool{false, true} {
		resp, _ := c.Call(replica.ControllerAt(), &wire.ElectLeadersRequest{
			CorrelationID: c.NextCorrelation(), Topic: payments0.Topic, Partition: payments0.Partition, Unclean: unclean,
		}, 10_000)
		r := resp.(*wire.ElectLeadersResponse)
		fmt.Printf("ElectLeaders unclean=%v: leader %d, data may be lost: %v\n", unclean, r.Leader, r.DataMayBeLost)
	}
	waitLeaderNot(c, 1)
	fmt.Println("broker 2 leads holding", held(c, 2))
	// Output:
	// leader 1 at epoch 0, ISR [1]
	// broker 1 dies: leader -1 at epoch 1, ISR []
	// ElectLeaders unclean=false: leader -1, data may be lost: false
	// ElectLeaders unclean=true: leader 2, data may be lost: true
	// broker 2 leads holding [kept]
}

// A lagging follower leaves the ISR by the leader's time rule and comes
// back once it has caught up: both changes proposed by the leader,
// committed by the controller, on the timer.
func Example_expansion() {
	c := exampleCluster([]int32{1, 2, 3}, 2, 1, 2, 3)
	defer c.Close()
	cutOff(c, 3, replica.BrokerAt(1))
	mustProduce(c, wire.AcksLeader, "x")
	c.Await(func() bool { c.FetchRound(); return !slices.Contains(sortedISR(c), 3) }, 60_000)
	fmt.Println("after", (c.NowMs()-exampleStartMs)/1000, "s:", partition(c))
	c.Network().Heal()
	c.Await(func() bool { c.FetchRound(); return slices.Contains(sortedISR(c), 3) }, 60_000)
	fmt.Println("caught up:", partition(c), "· broker 3 holds", held(c, 3))
	// Output:
	// after 45 s: leader 1 at epoch 0, ISR [1 2]
	// caught up: leader 1 at epoch 0, ISR [1 2 3] · broker 3 holds [x]
}

// A stale leader is fenced: cut off from everyone, it still believes it
// leads, but nothing it takes alone is ever acknowledged as committed, and
// once its links are back it follows the new leader and drops it.
func Example_staleLeader() {
	c := exampleCluster([]int32{1, 2, 3}, 2, 1, 2, 3)
	defer c.Close()
	mustProduce(c, wire.AcksAll, "before")
	cutOff(c, 1, replica.ControllerAt(), replica.BrokerAt(2), replica.BrokerAt(3))
	waitLeaderNot(c, 1)
	fmt.Println("controller:", partition(c))
	stale, _ := c.Replica(1, payments0)
	call, _ := c.SendProduceTo(1, payments0, wire.AcksAll, 30_000, []byte("stale"))
	c.Advance(40_000)
	_, done, err := call.Result()
	fmt.Printf("broker 1 still a %v; acks=all there answered: %v (%v)\n", stale.Role(), done, wire.CodeOf(err))
	c.Network().Heal()
	c.Await(func() bool {
		c.FetchRound()
		return stale.Role() == replica.RoleFollower && slices.Equal(held(c, 1), held(c, 2))
	}, 60_000)
	fmt.Println("healed: broker 1 is a", stale.Role(), "holding", held(c, 1))
	// Output:
	// controller: leader 2 at epoch 1, ISR [2 3]
	// broker 1 still a leader; acks=all there answered: true (REQUEST_TIMED_OUT)
	// healed: broker 1 is a follower holding [before]
}

// KIP-101 scenario 2, divergence after two hard failures: A holds m1 and
// m2, B only m1, and both crash. Each comes back from an unclean shutdown,
// so the controller (KIP-966) makes neither electable; an explicit unclean
// election puts B in charge, and it writes m3 at offset 1 — where A's m2
// is. When A follows B, the epochs tell it where the logs part: m2 goes, m3
// comes, and the logs agree again.
func Example_divergenceAfterTwoHardFailures() {
	c := exampleCluster([]int32{1, 2}, 1, 1, 2)
	defer c.Close()
	mustProduce(c, wire.AcksAll, "m1")
	mustProduce(c, wire.AcksLeader, "m2")
	fmt.Println("before:", held(c, 1), held(c, 2))
	c.CrashBroker(1, vfs.KeepUnsynced)
	c.CrashBroker(2, vfs.KeepUnsynced)
	c.Advance(30_000)
	c.StartBroker(2)
	c.AwaitBrokers(30_000)
	fmt.Println("B back:", partition(c))
	resp, _ := c.Call(replica.ControllerAt(), &wire.ElectLeadersRequest{
		CorrelationID: c.NextCorrelation(), Topic: payments0.Topic, Partition: payments0.Partition, Unclean: true,
	}, 10_000)
	fmt.Println("unclean election, data may be lost:", resp.(*wire.ElectLeadersResponse).DataMayBeLost)
	waitLeaderNot(c, 1)
	mustProduce(c, wire.AcksLeader, "m3")
	c.StartBroker(1)
	for range 5 {
		c.FetchRound()
	}
	fmt.Println("after:", held(c, 1), held(c, 2), "·", partition(c))
	// Output:
	// before: [m1 m2] [m1]
	// B back: leader -1 at epoch 2, ISR []
	// unclean election, data may be lost: true
	// after: [m1 m3] [m1 m3] · leader 2 at epoch 3, ISR [1 2]
}

// A follower the leader's time rule removed stays out when the leader
// restarts — the new leadership takes the controller's ISR — and when the
// leader then dies the controller elects an ISR member, never the straggler.
func Example_straggler() {
	c := exampleCluster([]int32{1, 2, 3}, 1, 1, 2, 3)
	defer c.Close()
	cutOff(c, 3, replica.BrokerAt(1))
	c.Advance(45_000)
	c.FetchRound()
	mustProduce(c, wire.AcksAll, "r1", "r2")
	fmt.Println(partition(c))
	c.StopBroker(1)
	c.StartBroker(1)
	c.AwaitBrokers(60_000) // its old session expires first, then it registers
	c.Await(func() bool { c.FetchRound(); return len(sortedISR(c)) == 2 }, 60_000)
	fmt.Println("leader restarted:", partition(c))
	c.CrashBroker(c.LeaderOf(payments0), vfs.KeepUnsynced)
	waitLeaderNot(c, -1)
	fmt.Println("leader dies:", partition(c), "· it holds", held(c, c.LeaderOf(payments0)))
	// Output:
	// leader 1 at epoch 0, ISR [1 2]
	// leader restarted: leader 2 at epoch 1, ISR [1 2]
	// leader dies: leader 1 at epoch 2, ISR [1] · it holds [r1 r2]
}

// An acks=all write that times out is retried. A follower is cut off but
// still in the ISR, so the write cannot commit and the producer hears
// REQUEST_TIMED_OUT; it sends the same batch again, and the follower comes
// back. A plain producer's retry is a second copy of the record (the
// chapter's TwoErrors). An idempotent producer's — an id from the
// controller, the batch carrying its id, epoch and sequence — is recognised
// by the leader and answered with the first attempt's offset: the record is
// in every log once.
func Example_idempotentRetry() {
	c := exampleCluster([]int32{1, 2, 3}, 2, 1, 2, 3)
	defer c.Close()
	attempt := func(what string, batch []byte, timeoutMs int32) {
		call := c.SendProduceBatch(payments0, wire.AcksAll, timeoutMs, batch)
		if err := c.AwaitProduce(call, 60_000); err != nil {
			panic(err)
		}
		resp, _, _ := call.Result()
		fmt.Printf("  %s: %v at offset %d\n", what, resp.ErrorCode, resp.BaseOffset)
	}
	retried := func(name string, batch []byte) {
		fmt.Println(name)
		cutOff(c, 3, replica.BrokerAt(1))
		attempt("first attempt", batch, 1000)
		c.Network().Heal()
		attempt("retry", batch, 60_000)
	}

	plain, _ := replica.ProducerBatch(wire.NoProducerID, wire.NoProducerEpoch, -1, c.NowMs(), []byte("pay 10"))
	retried("plain producer", plain)

	id, epoch, err := c.InitProducerID()
	if err != nil {
		panic(err)
	}
	idem, _ := replica.ProducerBatch(id, epoch, 0, c.NowMs(), []byte("pay 20"))
	retried(fmt.Sprintf("idempotent producer (id %d, epoch %d)", id, epoch), idem)

	for range 3 {
		c.FetchRound()
	}
	for _, b := range c.BrokerIDs() {
		fmt.Println("broker", b, held(c, b))
	}
	// Output:
	// plain producer
	//   first attempt: REQUEST_TIMED_OUT at offset 0
	//   retry: NONE at offset 1
	// idempotent producer (id 0, epoch 0)
	//   first attempt: REQUEST_TIMED_OUT at offset 2
	//   retry: NONE at offset 2
	// broker 1 [pay 10 pay 10 pay 20]
	// broker 2 [pay 10 pay 10 pay 20]
	// broker 3 [pay 10 pay 10 pay 20]
}
