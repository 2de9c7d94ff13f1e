package faulttest

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/wire"
)

var (
	faultsFlag = flag.Int("faults", 50, "how many faults the nemesis injects")
	seedFlag   = flag.Uint64("fault.seed", 0, "the nemesis's seed (0: a new one, printed)")
)

const (
	topic      = "faults"
	partitions = 3
	// idempotentProducer: the producer asks the controller for a producer
	// id and the leaders' dedupe windows answer its retries; duplicates
	// then fail the test.
	idempotentProducer = true
	// produceEvery and produceBurst pace the producer: produceBurst
	// records every produceEvery, about 2,000 records a second.
	produceEvery = 5 * time.Millisecond
	produceBurst = 10
)

// Fault kinds.
const (
	killLeader     = "kill-leader"
	killFollower   = "kill-follower"
	killController = "kill-controller"
	pauseShort     = "pause-short"
	pauseLong      = "pause-long" // longer than the session timeout
	// preferLeader asks the controller for a preferred election: the
	// leadership moves from a live leader to the first replica when that
	// one is back in the ISR, while records stream.
	preferLeader = "prefer-leader"
	// reassign moves a partition's replicas (KIP-455) while records
	// stream: from three replicas to two (one of them, the leader
	// perhaps, dropped at once), or from two back to three (the broker
	// added creates its replica, catches up and joins the ISR).
	reassign = "reassign"
)

var faultKinds = []string{killLeader, killFollower, killController, pauseShort, pauseLong, preferLeader, reassign}

// recorder is what the producer and the consumers saw, shared.
type recorder struct {
	mu        sync.Mutex
	acked     []Entry
	seen      []Entry
	failed    int // records whose produce failed (outcome unknown)
	consumerE int // consumer iterations ended by an error
	lastErr   map[string]int
}

func (r *recorder) err(kind string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastErr == nil {
		r.lastErr = map[string]int{}
	}
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120]
	}
	r.lastErr[kind+": "+msg]++
}

func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("the process fault test runs without -short")
	}
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("nemesis seed %d (replay its choices with -fault.seed %d)", seed, seed)
	fmt.Printf("faulttest: seed %d\n", seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	c := startCluster(t)
	cl, err := client.New(client.Config{Controller: c.ctl.addr, Clock: wallclock.New(), RequestTimeoutMs: 3000,
		RetryBackoffMs: 50, RetryBackoffMaxMs: 500})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err = cl.CreateTopic(ctx, client.TopicConfig{Name: topic, Partitions: partitions, ReplicationFactor: 3, MinISR: 2})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, startLimit, "every partition led with a full ISR", func() bool { return isrFull(c) })

	prod, err := cl.NewProducer(client.ProducerConfig{Acks: client.AcksAll, DisableIdempotence: !idempotentProducer,
		AckTimeoutMs: 2000, DeliveryTimeoutMs: 15000, LingerMs: 2})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}

	// The producer: unique values, round robin over the partitions.
	prodCtx, stopProducing := context.WithCancel(context.Background())
	var prodWG sync.WaitGroup
	var handed atomic.Int64
	prodWG.Add(1)
	go func() {
		defer prodWG.Done()
		produce(prodCtx, prod, rec, &handed)
	}()

	// The consumers: one long-polling iteration per partition, resumed
	// after the last offset seen whenever one ends with an error.
	co, err := cl.NewConsumer(client.ConsumerConfig{MaxWaitMs: 300})
	if err != nil {
		t.Fatal(err)
	}
	consCtx, stopConsuming := context.WithCancel(context.Background())
	var consWG sync.WaitGroup
	for p := range int32(partitions) {
		consWG.Add(1)
		go func() {
			defer consWG.Done()
			consume(consCtx, co, p, rec)
		}()
	}

	// The nemesis.
	faults := map[string]int{}
	start := time.Now()
	for i := 0; i < *faultsFlag; i++ {
		kind := faultKinds[rng.IntN(len(faultKinds))]
		desc := inject(t, c, rng, kind)
		faults[kind]++
		t.Logf("%6.1fs fault %d: %s", time.Since(start).Seconds(), i+1, desc)
		time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond) // nemesis pacing
	}

	// Heal, let the ISRs fill, then stop producing and wait for every
	// outcome.
	heal(t, c)
	eventually(t, 90*time.Second, "every ISR full after healing", func() bool { return isrFull(c) })
	stopProducing()
	prodWG.Wait()
	final := flushAndRead(t, c, prod, co, partitions)
	stopConsuming()
	consWG.Wait()

	rec.mu.Lock()
	h := History{Acked: slices.Clone(rec.acked), Final: final, Seen: slices.Clone(rec.seen)}
	failed, consumerErrs, errs := rec.failed, rec.consumerE, rec.lastErr
	rec.mu.Unlock()
	res := Check(h)

	reps, divergent := stopAndCompare(t, c, partitions)

	for k, n := range errs {
		t.Logf("error seen %d times: %s", n, k)
	}
	t.Logf("records handed to the producer %d, acknowledged %d, failed %d; consumer observations %d (iterations ended by an error: %d)",
		handed.Load(), len(h.Acked), failed, len(h.Seen), consumerErrs)
	for _, r := range reps {
		t.Logf("replica broker %d partition %d: checkpointed HW %d, %d records", r.Broker, r.Partition, r.HW, len(r.Records))
	}
	var kinds []string
	total := 0
	for _, k := range faultKinds {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, faults[k]))
		total += faults[k]
	}
	summary := fmt.Sprintf("faulttest summary: seed %d; faults %d (%s); acknowledged %d; lost %d; misplaced %d; duplicated %d; truncated-but-seen %d; replica divergences %d; idempotent producer %v",
		seed, total, strings.Join(kinds, ", "), res.Acked, res.Lost, res.Misplaced, res.Duplicated, res.TruncatedSeen, len(divergent), idempotentProducer)
	t.Log(summary)
	fmt.Println(summary)
	for _, p := range res.Problems {
		t.Log(p)
	}
	for _, d := range divergent {
		t.Error("replica divergence: " + d)
	}
	if res.Lost > 0 || res.Misplaced > 0 || res.TruncatedSeen > 0 {
		t.Errorf("the checker failed the run (seed %d): lost %d, misplaced %d, truncated-but-seen %d", seed, res.Lost, res.Misplaced, res.TruncatedSeen)
	}
	if res.Duplicated > 0 {
		if idempotentProducer {
			t.Errorf("duplicates with an idempotent producer (seed %d): %d", seed, res.Duplicated)
		} else {
			t.Logf("duplicates (the producer is not idempotent on this branch, so they are reported, not failed): %d", res.Duplicated)
		}
	}
	if res.Acked == 0 {
		t.Error("nothing was acknowledged: the run checked nothing")
	}
}

// produce hands the producer produceBurst records every produceEvery
// until ctx ends: unique values, round robin over the partitions; rec
// learns each outcome.
func produce(ctx context.Context, prod *client.Producer, rec *recorder, handed *atomic.Int64) {
	tick := time.NewTicker(produceEvery)
	defer tick.Stop()
	for i := 0; ; {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for range produceBurst {
			v := fmt.Sprintf("v%09d", i)
			p := int32(i % partitions)
			i++
			err := prod.ProduceAsync(client.Record{Topic: topic, Partition: p, Value: []byte(v)}, func(o client.Offset, err error) {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				if err != nil {
					rec.failed++
					return
				}
				rec.acked = append(rec.acked, Entry{o.Partition, o.Offset, v})
			})
			if err != nil {
				rec.err("produce", err)
				continue
			}
			handed.Add(1)
		}
	}
}

// consume records everything the consumer hands for partition p.
func consume(ctx context.Context, co *client.Consumer, p int32, rec *recorder) {
	next := uint64(0)
	for ctx.Err() == nil {
		for r, err := range co.Records(ctx, client.TopicPartition{Topic: topic, Partition: p}, client.FromOffset(next)) {
			if err != nil {
				if ctx.Err() == nil {
					rec.err("consume", err)
					rec.mu.Lock()
					rec.consumerE++
					rec.mu.Unlock()
				}
				break
			}
			rec.mu.Lock()
			rec.seen = append(rec.seen, Entry{p, r.Offset, string(r.Value)})
			rec.mu.Unlock()
			next = r.Offset + 1
		}
		select { // pacing before a new iteration
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// isrFull reports whether every partition has a leader and all three
// replicas in its ISR, and every broker is up and unfenced.
func isrFull(c *cluster) bool {
	md, err := c.metadata(topic)
	if err != nil || len(md.Topics) != 1 || len(md.Topics[0].Partitions) != partitions {
		return false
	}
	for _, b := range md.Brokers {
		if b.Fenced {
			return false
		}
	}
	for _, p := range md.Topics[0].Partitions {
		if p.Leader < 1 || len(p.ISR) != 3 {
			return false
		}
	}
	return true
}

// inject applies one fault and heals it (a killed process restarted, a
// paused one continued), and describes what it did.
func inject(t *testing.T, c *cluster, rng *rand.Rand, kind string) string {
	t.Helper()
	part := int32(rng.IntN(partitions))
	pick := rng.IntN(1 << 30)
	downMs := 100 + rng.IntN(900)
	var target *node
	switch kind {
	case reassign:
		ps := c.partitions(topic)
		if int(part) >= len(ps) {
			return fmt.Sprintf("%s of partition %d: no metadata", kind, part)
		}
		target := slices.Clone(ps[part].Replicas)
		if len(target) == len(c.brokers) {
			target = slices.Delete(target, pick%len(target), pick%len(target)+1)
		} else {
			target = fullReplicas(c, target)
		}
		return fmt.Sprintf("%s of partition %d: %v → %v: %s", kind, part, ps[part].Replicas, target, reassignTo(c, part, target))
	case preferLeader:
		m, err := call(c.ctl.addr, &wire.ElectLeadersRequest{CorrelationID: 1, Topic: topic, Partition: part, Preferred: true})
		if err != nil {
			return fmt.Sprintf("%s of partition %d: %v", kind, part, err)
		}
		r := m.(*wire.ElectLeadersResponse)
		return fmt.Sprintf("%s of partition %d: %v, leader %d at epoch %d", kind, part, r.ErrorCode, r.Leader, r.LeaderEpoch)
	case killLeader, killFollower:
		ps := c.partitions(topic)
		if int(part) < len(ps) && ps[part].Leader >= 1 {
			p := ps[part]
			if kind == killLeader {
				target = c.broker(p.Leader)
			} else {
				var fs []int32
				for _, r := range p.Replicas {
					if r != p.Leader {
						fs = append(fs, r)
					}
				}
				if len(fs) > 0 {
					target = c.broker(fs[pick%len(fs)])
				}
			}
		}
		if target == nil { // no leader known: any broker
			target = c.brokers[pick%len(c.brokers)]
		}
	case killController:
		target = c.ctl
	case pauseShort, pauseLong:
		target = c.brokers[pick%len(c.brokers)]
		if kind == pauseLong {
			downMs = sessionTimeoutMs + 200 + rng.IntN(800)
		}
	}
	switch kind {
	case pauseShort, pauseLong:
		target.pause()
		time.Sleep(time.Duration(downMs) * time.Millisecond) // the fault's length
		target.resume()
		return fmt.Sprintf("%s: SIGSTOP %s for %d ms, SIGCONT", kind, target.name, downMs)
	default:
		target.kill(t)
		time.Sleep(time.Duration(downMs) * time.Millisecond) // the fault's length
		target.start(t)
		what := kind
		if kind != killController {
			what = fmt.Sprintf("%s of partition %d", kind, part)
		}
		return fmt.Sprintf("%s: SIGKILL %s, down %d ms, restarted", what, target.name, downMs)
	}
}

// heal makes every node run, and gives every partition a replica on every
// broker again (a reassign fault may have left it two).
func heal(t *testing.T, c *cluster) {
	t.Helper()
	for _, n := range c.nodes() {
		switch {
		case !n.up:
			n.start(t)
		case n.paused:
			n.resume()
		}
	}
	eventually(t, 30*time.Second, "metadata with every partition", func() bool { return len(c.partitions(topic)) == partitions })
	for _, p := range c.partitions(topic) {
		if len(p.Replicas) < len(c.brokers) {
			target := fullReplicas(c, p.Replicas)
			t.Logf("heal: partition %d %v → %v: %s", p.Partition, p.Replicas, target, reassignTo(c, p.Partition, target))
		}
	}
}

// fullReplicas is replicas followed by every broker missing from them.
func fullReplicas(c *cluster, replicas []int32) []int32 {
	out := slices.Clone(replicas)
	for id := int32(1); int(id) <= len(c.brokers); id++ {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// reassignTo asks the controller to reassign partition p to target and
// says how it answered.
func reassignTo(c *cluster, p int32, target []int32) string {
	m, err := call(c.ctl.addr, &wire.AlterPartitionReassignmentsRequest{CorrelationID: 1, Topic: topic, Partition: p, Replicas: target})
	if err != nil {
		return err.Error()
	}
	return m.(*wire.AlterPartitionReassignmentsResponse).ErrorCode.String()
}

// readAll reads partition p from offset 0 to its leader's high watermark
// with the consumer.
func readAll(t *testing.T, c *cluster, co *client.Consumer, p int32) map[uint64]string {
	t.Helper()
	var hw uint64
	eventually(t, 30*time.Second, fmt.Sprintf("the high watermark of partition %d from its leader", p), func() bool {
		ps := c.partitions(topic)
		if int(p) >= len(ps) || c.broker(ps[p].Leader) == nil {
			return false
		}
		var err error
		hw, err = highWatermark(c.broker(ps[p].Leader).addr, topic, p)
		return err == nil
	})
	out := map[uint64]string{}
	if hw == 0 {
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for r, err := range co.Records(ctx, client.TopicPartition{Topic: topic, Partition: p}, client.FromOffset(0)) {
		if err != nil {
			t.Fatalf("reading partition %d from 0 to its HW %d: %v (read %d records)", p, hw, err, len(out))
		}
		if _, dup := out[r.Offset]; dup {
			t.Errorf("partition %d: the consumer handed offset %d twice", p, r.Offset)
		}
		out[r.Offset] = string(r.Value)
		if r.Offset+1 >= hw {
			break
		}
	}
	return out
}

// readReplica opens broker b's copy of partition p (b is stopped) and
// returns its records below its checkpointed high watermark.
func readReplica(t *testing.T, b *node, p int32) Replica {
	t.Helper()
	dir := filepath.Join(b.dir, client.TopicPartition{Topic: topic, Partition: p}.String())
	l, err := log.Open(dir, log.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer l.Close()
	r := Replica{Broker: b.id, Partition: p, HW: l.HighWatermark(), Records: map[uint64]string{}}
	for off := l.StartOffset(); off < r.HW; {
		buf, err := l.Read(nil, off, 1<<20, log.IsolationLogEnd)
		if err != nil {
			t.Fatalf("read %s at %d: %v", dir, off, err)
		}
		bs, err := log.DecodeBatches(buf)
		if err != nil {
			t.Fatalf("decode %s at %d: %v", dir, off, err)
		}
		if len(bs) == 0 {
			break
		}
		for _, batch := range bs {
			for _, rc := range batch.Records {
				o := batch.BaseOffset + uint64(rc.OffsetDelta)
				if o >= off && o < r.HW {
					r.Records[o] = string(rc.Value)
				}
			}
			if n := len(batch.Records); n > 0 {
				if last := batch.BaseOffset + uint64(batch.Records[n-1].OffsetDelta); last+1 > off {
					off = last + 1
				}
			} else if batch.BaseOffset+1 > off {
				off = batch.BaseOffset + 1
			}
		}
	}
	return r
}

// stopAndCompare stops every node of c cleanly and compares the replicas of
// its partitions below their checkpointed HWs.
func stopAndCompare(t *testing.T, c *cluster, partitions int) (reps []Replica, divergent []string) {
	t.Helper()
	for _, b := range c.brokers {
		if !b.stop(t) {
			t.Errorf("%s did not stop cleanly:\n%s", b.name, b.tail(2000))
		}
	}
	c.ctl.stop(t)
	for _, b := range c.brokers {
		for p := range int32(partitions) {
			reps = append(reps, readReplica(t, b, p))
		}
	}
	return reps, CompareReplicas(reps)
}

// flushAndRead waits for the outcome of everything prod was given and for
// every ISR to be full, then reads the final logs from the leaders, from
// offset 0.
func flushAndRead(t *testing.T, c *cluster, prod *client.Producer, co *client.Consumer, partitions int) map[int32]map[uint64]string {
	t.Helper()
	fctx, fcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer fcancel()
	if err := prod.Flush(fctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
	eventually(t, 90*time.Second, "every ISR full after the last produce", func() bool { return isrFull(c) })
	final := map[int32]map[uint64]string{}
	for p := range int32(partitions) {
		final[p] = readAll(t, c, co, p)
	}
	return final
}
