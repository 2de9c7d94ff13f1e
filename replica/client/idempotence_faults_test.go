package client

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

var idemFaultRuns = flag.Int("idem.faults", 300, "seeds TestIdempotentProducerAgainstAFaultyBroker runs (without the dedupe-window rule, seeds 4, 106, 120, 162 and 176 of the first 300 write a record twice)")

// The idempotent producer never writes a record twice, and every record it
// acknowledges is in the log once, at the offset it reported, in the order
// the records were produced — whatever the broker answers. A fake broker
// appends through a real log (its producer state and dedupe window are the
// broker's) and, at random, refuses before the append (NOT_ENOUGH_REPLICAS,
// a closed connection, NOT_LEADER_OR_FOLLOWER after a change of leader),
// answers after it REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS_AFTER_APPEND,
// closes the connection after it, refuses for good (CORRUPT_MESSAGE), or
// loses the tail of its log, as an unclean election does (acknowledged
// records then lost are excused, nothing else). The producer's clock moves
// only when it waits for nothing but time. It found the dedupe-window rule
// (TestUnresolvedBatchStaysInTheDedupeWindow).
//
// One rule is the fake's, not the log's: a producer the log has no state
// for must start at sequence 0 (OUT_OF_ORDER_SEQUENCE_NUMBER otherwise, as
// Kafka before KIP-360 answered UNKNOWN_PRODUCER_ID). The log takes any
// sequence from it, as Kafka's now does, so a first batch refused before
// its append can be overtaken by the next one, and no producer rule
// prevents that reordering. For the same reason a loss keeps at least one
// of the producer's batches.
func TestIdempotentProducerAgainstAFaultyBroker(t *testing.T) {
	n := *idemFaultRuns
	if testing.Short() {
		n = min(n, 30)
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { faultyBrokerRun(t, seed) })
	}
}

func faultyBrokerRun(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	fc := newFakeCluster(t, 2, 2)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tps := []TopicPartition{{"t", 0}, {"t", 1}}
	for _, tp := range tps {
		primeMetadata(t, c, tp)
	}
	p, err := c.NewProducer(ProducerConfig{
		AckTimeoutMs: 1000, DeliveryTimeoutMs: 1000 + int64(rng.IntN(20000)),
		LingerMs: int64(rng.IntN(3)), BatchBytes: 100 + rng.IntN(100),
	})
	if err != nil {
		t.Fatal(err)
	}
	logs := make([]*log.Log, len(tps))
	for i := range logs {
		if logs[i], err = log.Open(fmt.Sprintf("/p/t-%d", i), log.Options{FS: vfs.NewMem()}); err != nil {
			t.Fatal(err)
		}
		defer logs[i].Abandon()
	}
	var trace []string
	defer func() {
		if t.Failed() {
			t.Logf("seed %d:\n%s", seed, strings.Join(trace, "\n"))
		}
	}()

	// Outcomes, by record.
	type result struct {
		v   string
		off Offset
		err error
	}
	var (
		mu      sync.Mutex
		results []result
		left    int
	)
	done := make(chan struct{})
	records, produced := 20+rng.IntN(50), 0
	left = records
	produce := func() {
		v := fmt.Sprintf("v%04d", produced)
		produced++
		tp := tps[rng.IntN(len(tps))]
		if err := p.ProduceAsync(Record{Topic: tp.Topic, Partition: tp.Partition, Value: []byte(v)}, func(off Offset, err error) {
			mu.Lock()
			defer mu.Unlock()
			results = append(results, result{v, off, err})
			if left--; left == 0 {
				close(done)
			}
		}); err != nil {
			t.Fatal(err)
		}
	}

	// The fake broker. lost[i] is where partition i's log was cut.
	leader := int32(1)
	lost := make([]uint64, len(tps))
	for i := range lost {
		lost[i] = ^uint64(0)
	}
	handle := func(id int32, r *fakeReq) {
		if r.key != wire.APIProduce {
			t.Fatalf("broker %d: a %s request", id, r.key)
		}
		req := r.produce(t)
		resp := &wire.ProduceResponse{}
		closeAfter := false
		for _, pp := range req.Partitions {
			l := logs[pp.Partition]
			pr := wire.ProducePartitionResponse{Topic: pp.Topic, Partition: pp.Partition}
			h, err := log.ReadBatchHeader(pp.Records)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("[%d ms] broker %d: t-%d producer %d epoch %d sequence %d, %d records:", clk.NowMs(), id, pp.Partition, h.ProducerID, h.ProducerEpoch, h.BaseSequence, h.LastOffsetDelta+1)
			if id != leader {
				pr.ErrorCode = wire.CodeNotLeaderOrFollower
				trace = append(trace, what+" not the leader")
				resp.Partitions = append(resp.Partitions, pr)
				continue
			}
			if _, known := l.Producer(h.ProducerID); !known && h.BaseSequence != 0 {
				pr.ErrorCode = wire.CodeOutOfOrderSequenceNumber
				trace = append(trace, what+" OUT_OF_ORDER_SEQUENCE_NUMBER (an unknown producer not at sequence 0)")
				resp.Partitions = append(resp.Partitions, pr)
				continue
			}
			k := rng.IntN(100)
			switch {
			case k < 10:
				pr.ErrorCode = wire.CodeNotEnoughReplicas
				trace = append(trace, what+" NOT_ENOUGH_REPLICAS")
				resp.Partitions = append(resp.Partitions, pr)
				continue
			case k < 14:
				trace = append(trace, what+" connection closed before the append")
				r.conn.nc.Close()
				return
			case k < 16:
				pr.ErrorCode = wire.CodeCorruptMessage
				trace = append(trace, what+" CORRUPT_MESSAGE")
				resp.Partitions = append(resp.Partitions, pr)
				continue
			}
			info, err := l.AppendAsLeader(slices.Clone(pp.Records), 0)
			switch {
			case errors.Is(err, log.ErrOutOfOrderSequence):
				pr.ErrorCode = wire.CodeOutOfOrderSequenceNumber
			case errors.Is(err, log.ErrInvalidProducerEpoch):
				pr.ErrorCode = wire.CodeInvalidProducerEpoch
			case err != nil:
				t.Fatalf("append: %v", err)
			default:
				pr.BaseOffset, pr.HasBaseOffset = info.FirstOffset, true
			}
			what += fmt.Sprintf(" %v at %d (duplicate %v)", pr.ErrorCode, info.FirstOffset, info.Duplicate)
			if pr.ErrorCode == wire.CodeNone {
				switch {
				case k < 26:
					pr.ErrorCode = wire.CodeRequestTimedOut
					what += ", answered REQUEST_TIMED_OUT"
				case k < 33:
					pr.ErrorCode = wire.CodeNotEnoughReplicasAfterAppend
					what += ", answered NOT_ENOUGH_REPLICAS_AFTER_APPEND"
				case k < 40:
					closeAfter = true
					what += ", connection closed"
				}
			}
			trace = append(trace, what)
			resp.Partitions = append(resp.Partitions, pr)
		}
		if closeAfter {
			r.conn.nc.Close()
			return
		}
		r.reply(resp)
	}

	// idle reports whether the producer waits for nothing but time: no
	// batch in flight (the broker answers or closes at once), no producer
	// id or metadata asked for. ev is closed at its next event.
	idle := func() (bool, <-chan struct{}) {
		p.mu.Lock()
		ev := p.nextEvent() // first: a metadata answer after it closes it
		busy := p.initing
		for _, part := range p.order {
			busy = busy || part.inflight > 0
		}
		p.mu.Unlock()
		c.meta.mu.Lock()
		busy = busy || c.meta.inflight
		c.meta.mu.Unlock()
		return !busy, ev
	}
	brokers := []*fakeBroker{fc.brokers[1], fc.brokers[2]}
	for {
		select {
		case <-done:
			goto check
		case r := <-brokers[0].reqs:
			handle(1, r)
			continue
		case r := <-brokers[1].reqs:
			handle(2, r)
			continue
		default:
		}
		ok, ev := idle()
		if !ok || len(brokers[0].reqs)+len(brokers[1].reqs) > 0 {
			select {
			case <-ev:
			case r := <-brokers[0].reqs:
				handle(1, r)
			case r := <-brokers[1].reqs:
				handle(2, r)
			case <-done:
			case <-time.After(waitGuard):
				t.Fatalf("seed %d: the producer did nothing for %s: %s", seed, waitGuard, producerState(p))
			}
			continue
		}
		// Idle: produce, move the leader, lose a log's tail, or let time
		// pass.
		switch k := rng.IntN(10); {
		case produced < records && k < 5:
			for range 1 + rng.IntN(3) {
				if produced < records {
					produce()
				}
			}
		case k == 6 && rng.IntN(4) == 0:
			leader = 3 - leader
			for _, tp := range tps {
				fc.setLeader(tp, leader, int32(len(trace)))
			}
			trace = append(trace, fmt.Sprintf("leader: broker %d", leader))
		case k == 7 && rng.IntN(4) == 0:
			i := rng.IntN(len(logs))
			l := logs[i]
			to := l.EndOffset() - min(l.EndOffset(), uint64(1+rng.IntN(3)))
			if ps := l.Producers(); len(ps) == 1 && ps[0].Batches[0].LastOffset < to {
				if err := l.TruncateTo(to); err != nil {
					t.Fatal(err)
				}
				lost[i] = min(lost[i], l.EndOffset())
				trace = append(trace, fmt.Sprintf("t-%d lost its tail from %d", i, l.EndOffset()))
			}
		default:
			next, ok := clk.NextMs()
			switch {
			case ok:
				clk.AdvanceTo(next)
			case produced < records:
				produce()
			default:
				// No timer: outcomes on their way to the callbacks, or
				// work a broken connection is about to start (its metadata
				// refresh comes after its requests' failures).
				select {
				case <-done:
				case <-ev:
				case r := <-brokers[0].reqs:
					handle(1, r)
				case r := <-brokers[1].reqs:
					handle(2, r)
				case <-time.After(waitGuard):
					t.Fatalf("seed %d: records unresolved, and nothing left to wait for: %s", seed, producerState(p))
				}
			}
		}
	}

check:
	where := map[string][]Offset{}
	for i, l := range logs {
		all, err := l.Read(nil, 0, 1<<30, log.IsolationLogEnd)
		if err != nil {
			t.Fatal(err)
		}
		for len(all) > 0 {
			b, n, err := log.DecodeBatch(all)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range b.Records {
				where[string(r.Value)] = append(where[string(r.Value)], Offset{Topic: "t", Partition: int32(i), Offset: b.BaseOffset + uint64(r.OffsetDelta), HasOffset: true})
			}
			all = all[n:]
		}
	}
	mu.Lock()
	defer mu.Unlock()
	acked := 0
	defer func() {
		t.Logf("seed %d: %d records, %d acknowledged, %d broker events", seed, records, acked, len(trace))
	}()
	slices.SortFunc(results, func(a, b result) int { return strings.Compare(a.v, b.v) })
	last := map[int32]uint64{}
	for _, r := range results {
		at := where[r.v]
		if len(at) > 1 {
			t.Errorf("seed %d: %s written %d times, at %v", seed, r.v, len(at), at)
		}
		if r.err != nil {
			continue
		}
		acked++
		if len(at) == 0 && r.off.Offset >= lost[r.off.Partition] {
			continue // acknowledged, then lost with the log's tail
		}
		if len(at) != 1 || at[0] != r.off {
			t.Errorf("seed %d: %s acknowledged at %v, the logs hold it at %v", seed, r.v, r.off, at)
		}
		if r.off.Offset < last[r.off.Partition] {
			t.Errorf("seed %d: %s acknowledged at %v, below an earlier record's %d", seed, r.v, r.off, last[r.off.Partition])
		}
		last[r.off.Partition] = r.off.Offset
	}
}

// producerState describes p's partitions, for a failure.
func producerState(p *Producer) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "now %d ident %+v initing %v;", p.c.clock.NowMs(), p.ident, p.initing)
	for _, part := range p.order {
		fmt.Fprintf(&b, " %s: inflight %d to %d retryAt %d needBump %v open %v batches", part.tp, part.inflight, part.inflightTo, part.retryAt, part.needBump, part.open != nil)
		for _, x := range part.batches {
			fmt.Fprintf(&b, " {state %d seq %d hasSeq %v created %d}", x.state, x.seq, x.hasSeq, x.createdMs)
		}
		b.WriteString(";")
	}
	return b.String()
}
