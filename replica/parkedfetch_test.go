package replica_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// A fetch that finds nothing new parks in the broker (Kafka's DelayedFetch,
// the course's parked fetch) until data arrives (for a consumer, the high
// watermark moves), the partition's leadership changes or its wait ends. Followers therefore
// long-poll, and an acks=all produce commits without any timer firing.

// longPollCluster is three brokers whose followers fetch continuously with
// a 500 ms wait, as the network runtime runs them.
func longPollCluster(t *testing.T) *replica.Cluster {
	t.Helper()
	cfg := replica.ClusterConfig{Brokers: []int32{1, 2, 3}}
	cfg.Broker.ContinuousFetch = true
	cfg.Broker.ReplicaFetchWaitMs = 500
	return openTestCluster(t, cfg, 2, 1, 2, 3)
}

// countFetches counts the fetch requests of followers to broker to.
func countFetches(c *replica.Cluster, to int32) *int {
	n := new(int)
	c.Watch(func(env replica.Envelope) {
		if m, ok := env.Msg.(*wire.FetchRequest); ok && !env.Response && env.To == replica.BrokerAt(to) && m.ReplicaID >= 0 {
			*n++
		}
	})
	return n
}

// consumerFetch sends a consumer's fetch of topic from offset to broker
// to, and returns where its answer will be (nil until it arrives).
func consumerFetch(c *replica.Cluster, to int32, offset uint64, maxWaitMs, minBytes int32) **wire.FetchResponse {
	corr := c.NextCorrelation()
	got := new(*wire.FetchResponse)
	c.Watch(func(env replica.Envelope) {
		if m, ok := env.Msg.(*wire.FetchResponse); ok && env.Response && env.To == replica.ClientAt(0) && m.CorrelationID == corr {
			*got = m
		}
	})
	c.Network().Send(replica.Envelope{From: replica.ClientAt(0), To: replica.BrokerAt(to), Msg: &wire.FetchRequest{
		CorrelationID: corr, ReplicaID: -1, ReplicaEpoch: -1, MaxWaitMs: maxWaitMs, MinBytes: minBytes, MaxBytes: 1 << 20,
		Partitions: []wire.FetchPartition{{Topic: topic.Topic, Partition: topic.Partition, CurrentLeaderEpoch: -1, FetchOffset: offset, LastFetchedEpoch: -1, MaxBytes: 1 << 20}},
	}})
	c.Run()
	return got
}

func TestIdleFollowersLongPoll(t *testing.T) {
	c := longPollCluster(t)
	fetches := countFetches(c, 1)
	c.Advance(10_000)
	// Two followers, one fetch per 500 ms wait each: about 40, not the
	// millions a follower answered at once would send in a loop.
	if *fetches < 36 || *fetches > 44 {
		t.Fatalf("%d follower fetches in 10 s of idle, want about 40 (two followers, 500 ms waits)", *fetches)
	}
}

// ContinuousFetch long-polls with the default wait too: a zero
// ReplicaFetchWaitMs is Kafka's replica.fetch.wait.max.ms (500 ms), like
// every other zero in BrokerConfig, not "answer at once" — with
// ContinuousFetch that is a follower asking in a loop, and on the
// Cluster's manual clock time never passes (OpenCluster never
// returned).
func TestContinuousFetchWaitsByDefault(t *testing.T) {
	cfg := replica.ClusterConfig{Brokers: []int32{1, 2, 3}}
	cfg.Broker.ContinuousFetch = true
	c := openTestCluster(t, cfg, 2, 1, 2, 3)
	fetches := countFetches(c, 1)
	c.Advance(10_000)
	if *fetches < 36 || *fetches > 44 {
		t.Fatalf("%d follower fetches in 10 s of idle, want about 40 (two followers, 500 ms waits)", *fetches)
	}
}

func TestAcksAllCommitsWithoutWaitingForATimer(t *testing.T) {
	c := longPollCluster(t)
	c.Advance(1_000) // followers parked on the leader
	fetches := countFetches(c, 1)
	before := c.NowMs()
	off := produce(t, c, wire.AcksAll, "a")
	if c.NowMs() != before {
		t.Fatalf("acks=all took %d ms of the clock: a parked fetch waited for its deadline", c.NowMs()-before)
	}
	// Each follower's parked fetch carries the record back (answered by
	// the append); its next fetch moves the high watermark and parks
	// again, as in Kafka: a move of the high watermark alone answers no
	// follower's fetch. One new fetch per follower.
	if *fetches != 2 {
		t.Fatalf("%d follower fetches for one commit, want 2", *fetches)
	}
	if hw := replicaOf(t, c, 1).HighWatermark(); hw != off+1 {
		t.Fatalf("leader HW %d, want %d", hw, off+1)
	}
	// The followers learn the high watermark when their parked fetch is
	// answered: at the end of its wait, or with the next records.
	c.Advance(500)
	for _, id := range []int32{2, 3} {
		if hw := replicaOf(t, c, id).HighWatermark(); hw != off+1 {
			t.Errorf("follower %d HW %d after its fetch's wait, want %d", id, hw, off+1)
		}
	}
	off2 := produce(t, c, wire.AcksAll, "b")
	for _, id := range []int32{2, 3} {
		if hw := replicaOf(t, c, id).HighWatermark(); hw < off2 {
			t.Errorf("follower %d HW %d after the next records, want at least %d", id, hw, off2)
		}
	}
}

func TestConsumerFetchParksUntilCommitted(t *testing.T) {
	c := longPollCluster(t)
	c.Advance(1_000)
	got := consumerFetch(c, 1, 0, 5_000, 1)
	if *got != nil {
		t.Fatalf("a consumer fetch at the high watermark was answered at once: %+v", **got)
	}
	before := c.NowMs()
	produce(t, c, wire.AcksLeader, "a")
	c.Run()
	if *got == nil {
		t.Fatal("the consumer's parked fetch was not answered when the record committed")
	}
	p := (*got).Partitions[0]
	if p.ErrorCode != wire.CodeNone || p.HighWatermark != 1 || len(p.Records) == 0 || c.NowMs() != before {
		t.Fatalf("answer %+v at +%d ms, want the committed record at once", p, c.NowMs()-before)
	}
}

func TestParkedFetchEndsAtMaxWait(t *testing.T) {
	c := longPollCluster(t)
	got := consumerFetch(c, 1, 0, 300, 1)
	c.Advance(299)
	if *got != nil {
		t.Fatal("answered before its MaxWaitMs with nothing to say")
	}
	c.Advance(1)
	if *got == nil {
		t.Fatal("not answered at its MaxWaitMs")
	}
	if p := (*got).Partitions[0]; p.ErrorCode != wire.CodeNone || len(p.Records) != 0 {
		t.Fatalf("answer %+v, want no records and no error", p)
	}
}

func TestParkedFetchWaitsForMinBytes(t *testing.T) {
	c := longPollCluster(t)
	c.Advance(1_000)
	got := consumerFetch(c, 1, 0, 5_000, 400)
	produce(t, c, wire.AcksAll, "small")
	c.Run()
	if *got != nil {
		t.Fatalf("answered with %d bytes, under MinBytes 400", len((*got).Partitions[0].Records))
	}
	produce(t, c, wire.AcksAll, string(make([]byte, 400)))
	c.Run()
	if *got == nil || len((*got).Partitions[0].Records) < 400 {
		t.Fatal("not answered once MinBytes had committed")
	}
}

func TestParkedFetchAnsweredWhenLeadershipMoves(t *testing.T) {
	c := longPollCluster(t)
	c.Advance(1_000)
	got := consumerFetch(c, 1, 0, 60_000, 1)
	c.Broker(1).BeginShutdown() // a controlled shutdown moves its leaderships away
	before := c.NowMs()
	if err := c.Await(func() bool { return *got != nil }, 10_000); err != nil {
		t.Fatal("the parked fetch was not answered when its leader stepped down")
	}
	if p := (*got).Partitions[0]; p.ErrorCode != wire.CodeNotLeaderOrFollower {
		t.Fatalf("answer %+v after %d ms, want NOT_LEADER_OR_FOLLOWER", p, c.NowMs()-before)
	}
}

func TestDisconnectedClientLosesItsParkedFetch(t *testing.T) {
	c := longPollCluster(t)
	c.Advance(1_000)
	got := consumerFetch(c, 1, 0, 5_000, 1)
	c.Disconnect(replica.ClientAt(0), replica.BrokerAt(1))
	produce(t, c, wire.AcksAll, "a")
	c.Advance(10_000)
	if *got != nil {
		t.Fatal("a parked fetch from a client whose connection broke was still answered")
	}
}

func TestDisconnectedPeerIsAskedAgainSoon(t *testing.T) {
	c := longPollCluster(t)
	heartbeats := 0
	c.Watch(func(env replica.Envelope) {
		if _, ok := env.Msg.(*wire.BrokerHeartbeatRequest); ok && env.From == replica.BrokerAt(2) {
			heartbeats++
		}
	})
	// Broker 2's next heartbeat is lost on a broken connection.
	c.Network().Cut(replica.BrokerAt(2), replica.ControllerAt())
	c.Advance(replica.DefaultHeartbeatIntervalMs)
	c.Network().Heal()
	c.Disconnect(replica.BrokerAt(2), replica.ControllerAt())
	n := heartbeats
	c.Advance(replica.DefaultReconnectBackoffMs)
	if heartbeats != n+1 {
		t.Fatalf("%d heartbeats within the reconnect backoff after the connection broke, want 1 (not the %d ms request timeout)",
			heartbeats-n, replica.DefaultRequestTimeoutMs)
	}
}

// replicaOf returns broker id's replica of topic.
func replicaOf(t *testing.T, c *replica.Cluster, id int32) *replica.Replica {
	t.Helper()
	r, ok := c.Replica(id, topic)
	if !ok {
		t.Fatalf("broker %d hosts no %v", id, topic)
	}
	return r
}

// A consumer whose position is past the high watermark (but not past the
// log end) — as after a fail-over, when the new leader's high watermark
// lags the one the consumer read up to — waits like any other: Kafka's
// DelayedFetch completes early only when the fetch offset lies on a later
// segment than the high watermark (a truncated leader), not whenever it is
// above it. Answering it at once, empty, every time it asks turns a
// long-polling consumer into a hot loop until the high watermark moves.
func TestAConsumerAheadOfTheHighWatermarkWaits(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2}}, 1, 1, 2)
	produce(t, c, wire.AcksAll, "a")
	rounds(c, 2)
	leader := c.LeaderOf(topic)
	produce(t, c, wire.AcksLeader, "b") // on the leader only: LEO 2, HW 1
	if r := replicaOf(t, c, leader); r.LEO() != 2 || r.HighWatermark() != 1 {
		t.Fatalf("leader LEO %d HW %d, the test needs 2 and 1", r.LEO(), r.HighWatermark())
	}
	start := c.NowMs()
	got := consumerFetch(c, leader, 2, 500, 1)
	c.Advance(499)
	if *got != nil {
		t.Fatalf("a consumer fetch at offset 2, above the HW 1, was answered empty before its 500 ms wait ended (at +%d ms)", c.NowMs()-start)
	}
	c.Advance(1)
	if *got == nil {
		t.Fatal("not answered at its MaxWaitMs")
	}
}

// The broker looks at its parked fetches only when one may be done (a
// fetch parked, a deadline passed, a partition they wait on changed): the
// fetches skipped in between must still end at each one's own deadline —
// the earliest first, even when it parked last — and on news after quiet
// events.
func TestParkedFetchesEndAtTheirOwnDeadlinesAndOnNewsAfterQuietEvents(t *testing.T) {
	c := longPollCluster(t)
	c.Advance(1_000)
	long := consumerFetch(c, 1, 0, 10_000, 1)
	short := consumerFetch(c, 1, 0, 1_000, 1)
	news := consumerFetch(c, 1, 0, 60_000, 1)
	c.Advance(999) // followers' long polls: events that change nothing the consumers wait on
	if *short != nil || *long != nil || *news != nil {
		t.Fatal("a parked fetch was answered before its MaxWaitMs with nothing to say")
	}
	c.Advance(1)
	if *short == nil || *long != nil {
		t.Fatalf("at 1000 ms: the 1000 ms fetch answered %v, the 10000 ms one %v; want only the first", *short != nil, *long != nil)
	}
	c.Advance(8_999)
	if *long != nil {
		t.Fatal("the 10000 ms fetch was answered before its wait ended")
	}
	c.Advance(1)
	if *long == nil || *news != nil {
		t.Fatalf("at 10000 ms: the 10000 ms fetch answered %v, the 60000 ms one %v; want only the first", *long != nil, *news != nil)
	}
	produce(t, c, wire.AcksLeader, "a")
	c.Run()
	if *news == nil || len((*news).Partitions[0].Records) == 0 {
		t.Fatal("the 60000 ms fetch was not answered with the record committed after quiet events")
	}
}
