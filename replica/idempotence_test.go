package replica_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The idempotent producer, told as stories on an in-memory cluster: a
// producer takes an id from the controller, sends batches carrying its id,
// epoch and sequence, and retries what it did not hear back about. Without
// idempotence those retries are how acks=all duplicates records (the
// chapter's TwoErrors section); with it, a retry is recognised and
// answered with the offsets the first attempt got.

// producer is a test's idempotent producer: its id and epoch, and the
// sequence of its next record.
type producer struct {
	t     *testing.T
	c     *replica.Cluster
	id    int64
	epoch int16
	seq   int32
}

func newProducer(t *testing.T, c *replica.Cluster) *producer {
	t.Helper()
	id, epoch, err := c.InitProducerID()
	if err != nil {
		t.Fatalf("InitProducerID: %v", err)
	}
	return &producer{t: t, c: c, id: id, epoch: epoch}
}

// batch builds the producer's next batch of values and moves its sequence
// past them: what it will send, and send again if it must retry.
func (p *producer) batch(values ...string) []byte {
	p.t.Helper()
	vs := make([][]byte, len(values))
	for i, v := range values {
		vs[i] = []byte(v)
	}
	b, err := replica.ProducerBatch(p.id, p.epoch, p.seq, p.c.NowMs(), vs...)
	if err != nil {
		p.t.Fatal(err)
	}
	p.seq += int32(len(values))
	return b
}

// send produces batch and waits for the answer (at most maxMs, with the
// leader's wait bounded by timeoutMs).
func send(t *testing.T, c *replica.Cluster, acks int16, timeoutMs int32, maxMs int64, batch []byte) (wire.ProducePartitionResponse, error) {
	t.Helper()
	call := c.SendProduceBatch(topic, acks, timeoutMs, batch)
	if err := c.AwaitProduce(call, maxMs); err != nil {
		t.Fatal(err)
	}
	resp, _, err := call.Result()
	return resp, err
}

// count returns how many times v is in broker id's log.
func count(t *testing.T, c *replica.Cluster, id int32, v string) int {
	t.Helper()
	n := 0
	for _, got := range logOf(t, c, id) {
		if got == v {
			n++
		}
	}
	return n
}

// Story 1. A follower is cut off, but not yet out of the ISR (the lag
// timer has not fired): the acks=all write cannot commit and the producer
// hears REQUEST_TIMED_OUT. It retries while the follower is still away —
// the retry is recognised, nothing is written, and it waits for the
// original batch — and the follower comes back: the retry is answered
// NONE with the first attempt's offset. The record is in the log once.
func TestIdempotentRetryAfterRequestTimedOut(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2, 3}}, 2, 1, 2, 3)
	p := newProducer(t, c)
	produce(t, c, wire.AcksAll, "before")
	c.Network().Cut(replica.BrokerAt(3), replica.BrokerAt(1))

	b := p.batch("pay 10")
	first, err := send(t, c, wire.AcksAll, 1000, 10_000, b)
	if !errors.Is(err, wire.ErrRequestTimedOut) || !first.HasBaseOffset || first.BaseOffset != 1 {
		t.Fatalf("first attempt: %+v, %v; want REQUEST_TIMED_OUT at offset 1", first, err)
	}
	if got := isrOf(c); !slices.Equal(got, []int32{1, 2, 3}) {
		t.Fatalf("ISR %v: the story needs the follower still in it", got)
	}
	leader, _ := c.Replica(1, topic)
	leo := leader.LEO()

	retry := c.SendProduceBatch(topic, wire.AcksAll, 60_000, b)
	rounds(c, 3)
	if retry.Done() {
		t.Fatal("the retry was answered before the original batch committed")
	}
	if leader.LEO() != leo || leader.Parked() != 1 {
		t.Fatalf("the retry was written (LEO %d, was %d) or not parked (%d)", leader.LEO(), leo, leader.Parked())
	}
	c.Network().Heal()
	// The follower's lost fetch is sent again after its request timeout.
	if err := c.AwaitProduce(retry, 60_000); err != nil {
		t.Fatal(err)
	}
	resp, _, err := retry.Result()
	if err != nil || resp.BaseOffset != first.BaseOffset {
		t.Fatalf("retry: %+v, %v; want NONE at the first attempt's offset %d", resp, err, first.BaseOffset)
	}
	converge(t, c)
	for _, id := range c.BrokerIDs() {
		if n := count(t, c, id, "pay 10"); n != 1 {
			t.Fatalf("broker %d holds the record %d times", id, n)
		}
	}
	// The next batch follows on.
	if resp, err := send(t, c, wire.AcksAll, 30_000, 30_000, p.batch("pay 20")); err != nil || resp.BaseOffset != 2 {
		t.Fatalf("next batch: %+v, %v", resp, err)
	}
}

// Story 2. The committed ISR falls under min.insync.replicas after the
// append: the producer hears NOT_ENOUGH_REPLICAS_AFTER_APPEND (written, not
// committed). Once the follower is back in the ISR it retries: NONE, the
// original offset, one copy.
func TestIdempotentRetryAfterNotEnoughReplicasAfterAppend(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2}}, 2, 1, 2)
	p := newProducer(t, c)
	c.Network().Cut(replica.BrokerAt(2), replica.BrokerAt(1))
	b := p.batch("order 1", "order 2")
	first, err := send(t, c, wire.AcksAll, 120_000, 120_000, b)
	if !errors.Is(err, wire.ErrNotEnoughReplicasAfterAppend) || first.BaseOffset != 0 {
		t.Fatalf("first attempt: %+v, %v; want NOT_ENOUGH_REPLICAS_AFTER_APPEND at 0", first, err)
	}
	c.Network().Heal()
	if err := c.Await(func() bool { c.FetchRound(); return len(isrOf(c)) == 2 }, 60_000); err != nil {
		t.Fatalf("ISR %v: the follower did not rejoin", isrOf(c))
	}
	resp, err := send(t, c, wire.AcksAll, 30_000, 30_000, b)
	if err != nil || resp.BaseOffset != 0 {
		t.Fatalf("retry: %+v, %v; want NONE at 0", resp, err)
	}
	converge(t, c)
	for _, id := range c.BrokerIDs() {
		if got := logOf(t, c, id); !slices.Equal(got, []string{"order 1", "order 2"}) {
			t.Fatalf("broker %d holds %q, want the batch once", id, got)
		}
	}
}

// Story 3. The leader appends the batch and a fetch round copies it to
// both followers, then the leader crashes before anyone hears back. The
// producer retries to the new leader, which learned the producer's state
// from the batches it copied: the retry is a duplicate, answered with the
// original offset.
func TestIdempotentRetryToTheNewLeader(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2, 3}}, 2, 1, 2, 3)
	p := newProducer(t, c)
	produce(t, c, wire.AcksAll, "r0")
	b := p.batch("r1")
	call := c.SendProduceBatch(topic, wire.AcksAll, 30_000, b)
	c.FetchRound() // the followers copy r1; the leader's HW has not passed it yet
	if call.Done() {
		t.Fatal("answered before the high watermark moved")
	}
	for _, id := range []int32{2, 3} {
		r, _ := c.Replica(id, topic)
		if _, ok := r.Log().Producer(p.id); !ok {
			t.Fatalf("follower %d knows nothing of producer %d", id, p.id)
		}
	}
	if err := c.CrashBroker(1, vfs.KeepUnsynced); err != nil {
		t.Fatal(err)
	}
	next := awaitLeader(t, c, 1, 60_000)
	resp, err := send(t, c, wire.AcksAll, 30_000, 30_000, b)
	if err != nil || resp.BaseOffset != 1 {
		t.Fatalf("retry to the new leader %d: %+v, %v; want NONE at offset 1", next, resp, err)
	}
	if got := logOf(t, c, next); !slices.Equal(got, []string{"r0", "r1"}) {
		t.Fatalf("new leader %d holds %q", next, got)
	}
}

// Story 4. A single broker leads; the producer's batches are written and
// acknowledged, then the broker goes down — cleanly, or by a process kill
// or a power cut (its log syncs every append, so the batches survive) —
// and comes back. Its log rebuilds the producer state at recovery, from
// the snapshot and the batches past it: retries are still duplicates.
// (After a crash KIP-966 keeps the only replica out of its ISR, so the
// operator elects it uncleanly, as it would to bring the partition back.)
func TestIdempotentRetryAfterTheLeaderRestarts(t *testing.T) {
	for _, how := range []string{"clean", "kill", "power cut", "torn power cut"} {
		t.Run(how, func(t *testing.T) {
			cfg := replica.ClusterConfig{Brokers: []int32{1}, Seed: 7}
			cfg.Broker.Replica.Log.Sync = log.SyncEveryAppend
			c := openTestCluster(t, cfg, 1, 1)
			p := newProducer(t, c)
			var sent [][]byte
			for i := range 7 {
				b := p.batch(fmt.Sprintf("m%d", i))
				if resp, err := send(t, c, wire.AcksAll, 30_000, 30_000, b); err != nil || resp.BaseOffset != uint64(i) {
					t.Fatalf("batch %d: %+v, %v", i, resp, err)
				}
				sent = append(sent, b)
				if i == 3 {
					r, _ := c.Replica(1, topic)
					if err := r.Log().Flush(); err != nil { // a snapshot at the recovery point
						t.Fatal(err)
					}
				}
			}
			var err error
			switch how {
			case "clean":
				err = c.StopBroker(1)
			case "kill":
				err = c.CrashBroker(1, vfs.KeepUnsynced)
			case "power cut":
				err = c.CrashBroker(1, vfs.LoseUnsynced)
			case "torn power cut":
				err = c.CrashBroker(1, vfs.TornUnsynced)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := c.StartBroker(1); err != nil {
				t.Fatal(err)
			}
			if how != "clean" {
				// The killed process's session expires before its new one
				// registers; then it may be elected.
				if err := c.AwaitBrokers(60_000); err != nil {
					t.Fatal(err)
				}
				resp, err := c.Call(replica.ControllerAt(), &wire.ElectLeadersRequest{
					CorrelationID: c.NextCorrelation(), Topic: topic.Topic, Partition: topic.Partition, Unclean: true,
				}, 10_000)
				if err != nil || resp.(*wire.ElectLeadersResponse).ErrorCode != wire.CodeNone {
					t.Fatalf("unclean election: %+v, %v", resp, err)
				}
			}
			awaitLeader(t, c, -1, 60_000)
			r, _ := c.Replica(1, topic)
			rep := r.Recovery()
			if rep.ProducerStateRebuilt || rep.Producers != 1 || !rep.HaveProducerSnapshot {
				t.Fatalf("recovery:\n%s", rep)
			}
			// After a crash, the snapshot at the recovery point (offset 4)
			// and the three batches past it, replayed as they are verified.
			if how != "clean" && (rep.ProducerSnapshot != 4 || rep.ProducerBatchesReplayed != 3) {
				t.Fatalf("recovery after a crash:\n%s", rep)
			}
			// The last five batches are remembered; each retry is answered
			// with its own offset.
			for i := 2; i < 7; i++ {
				resp, err := send(t, c, wire.AcksAll, 30_000, 30_000, sent[i])
				if err != nil || resp.BaseOffset != uint64(i) {
					t.Fatalf("retry of batch %d: %+v, %v", i, resp, err)
				}
			}
			if got := logOf(t, c, 1); len(got) != 7 {
				t.Fatalf("log holds %q after the retries", got)
			}
		})
	}
}

// Story 5. A producer's batch from a fenced epoch, and one that skips a
// sequence, are refused with Kafka's errors and write nothing.
func TestIdempotentRefusals(t *testing.T) {
	c := openTestCluster(t, replica.ClusterConfig{Brokers: []int32{1, 2}}, 1, 1, 2)
	p := newProducer(t, c)
	if p.epoch != 0 {
		t.Fatalf("a new producer id at epoch %d, want 0", p.epoch)
	}
	if _, err := send(t, c, wire.AcksLeader, 30_000, 30_000, p.batch("a", "b")); err != nil {
		t.Fatal(err)
	}
	// A gap: sequence 5 after 1.
	p.seq = 5
	resp, err := send(t, c, wire.AcksLeader, 30_000, 30_000, p.batch("c"))
	if !errors.Is(err, wire.ErrOutOfOrderSequenceNumber) || resp.ErrorCode != wire.CodeOutOfOrderSequenceNumber || resp.HasBaseOffset {
		t.Fatalf("a sequence gap: %+v, %v; want OUT_OF_ORDER_SEQUENCE_NUMBER", resp, err)
	}
	// The producer is re-initialised at epoch 1 (as Kafka's KIP-360
	// bump does) and writes; a zombie of epoch 0 is fenced.
	bumped := &producer{t: t, c: c, id: p.id, epoch: 1}
	if _, err := send(t, c, wire.AcksLeader, 30_000, 30_000, bumped.batch("d")); err != nil {
		t.Fatalf("epoch 1 at sequence 0: %v", err)
	}
	p.seq = 2
	resp, err = send(t, c, wire.AcksLeader, 30_000, 30_000, p.batch("zombie"))
	if !errors.Is(err, wire.ErrInvalidProducerEpoch) || resp.ErrorCode != wire.CodeInvalidProducerEpoch {
		t.Fatalf("a stale epoch: %+v, %v; want INVALID_PRODUCER_EPOCH", resp, err)
	}
	if got := logOf(t, c, 1); !slices.Equal(got, []string{"a", "b", "d"}) {
		t.Fatalf("log %q", got)
	}
}

// The replica maps each of the log's producer refusals to its wire code,
// and answers a duplicate as a success with the original offsets.
func TestProduceAnswersEveryProducerRule(t *testing.T) {
	g := newGroup(t, replica.Options{}, 1)
	g.elect(1, 1)
	batch := func(epoch int16, seq int32, n int) []byte {
		vs := make([][]byte, n)
		for i := range vs {
			vs[i] = []byte("v")
		}
		b, err := replica.ProducerBatch(77, epoch, seq, g.now, vs...)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	two := append(batch(0, 0, 1), batch(0, 1, 1)...)
	for _, tc := range []struct {
		name  string
		batch []byte
		code  wire.ErrorCode
		base  uint64
		dup   bool
	}{
		{"first batch", batch(0, 0, 3), wire.CodeNone, 0, false},
		{"next sequence", batch(0, 3, 2), wire.CodeNone, 3, false},
		{"retry of the first", batch(0, 0, 3), wire.CodeNone, 0, true},
		{"sequence gap", batch(0, 9, 1), wire.CodeOutOfOrderSequenceNumber, 0, false},
		{"new epoch not at 0", batch(1, 5, 1), wire.CodeOutOfOrderSequenceNumber, 0, false},
		{"new epoch at 0", batch(1, 0, 1), wire.CodeNone, 5, false},
		{"stale epoch", batch(0, 5, 1), wire.CodeInvalidProducerEpoch, 0, false},
		{"two batches", two, wire.CodeInvalidRecord, 0, false},
	} {
		res, _, err := g.r[1].Produce(1, tc.batch, wire.AcksLeader, 30_000, g.now)
		if wire.CodeOf(err) != tc.code {
			t.Fatalf("%s: %v, want %v", tc.name, err, tc.code)
		}
		if err == nil && (res.BaseOffset != tc.base || res.Duplicate != tc.dup) {
			t.Fatalf("%s: %+v, want base %d duplicate %v", tc.name, res, tc.base, tc.dup)
		}
	}
}

// Producer state expires on the replica's timed work, in either role: a
// producer silent for log.Options.ProducerIDExpirationMs is forgotten at
// the next check (every ProducerExpirationCheckMs).
func TestReplicaExpiresProducers(t *testing.T) {
	opts := replica.Options{ProducerExpirationCheckMs: 1000}
	opts.Log.ProducerIDExpirationMs = 5000
	g := newGroup(t, opts, 1, 2)
	g.elect(1, 1, 2)
	b, err := replica.ProducerBatch(5, 0, 0, g.now, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := g.r[1].Produce(1, b, wire.AcksLeader, 30_000, g.now); err != nil {
		t.Fatal(err)
	}
	g.fetch(2)
	g.fetch(2) // committed everywhere
	for _, id := range []int32{1, 2} {
		r := g.r[id]
		r.Tick(g.now + 4999)
		if _, ok := r.Log().Producer(5); !ok {
			t.Fatalf("broker %d forgot the producer early", id)
		}
		r.Tick(g.now + 5999) // the next check is due 1000 ms after the last
		if _, ok := r.Log().Producer(5); ok {
			t.Fatalf("broker %d (%v) kept an expired producer", id, r.Role())
		}
	}
}
