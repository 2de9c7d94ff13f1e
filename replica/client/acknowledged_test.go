package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/internal/clustertest"
	"github.com/kaenlog/kaenlog/wire"
)

// Every acknowledged record is in its partition once, at its acknowledged
// offset, with its own bytes, and every replica's log holds the same
// bytes — with the producer reusing answered batches' buffers
// (MaxBufferedBytes a few batches), ProduceManyAsync's runs and inline
// path mixed with ProduceAsync, and acks=all leaders sending followers
// the produce requests' own bytes (fetchAppended).
//
// With kill, the leader of partition 0 is killed half way: batches are
// retried on new connections, and a batch from a broken connection is
// never reused.
func TestAcknowledgedRecordsAreWhereTheirOffsetsSay(t *testing.T) {
	t.Run("steady", func(t *testing.T) { testAcknowledgedRecords(t, false) })
	t.Run("leader killed", func(t *testing.T) { testAcknowledgedRecords(t, true) })
}

func testAcknowledgedRecords(t *testing.T, kill bool) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	c := startCluster(t, clusterOptions{brokers: 3, lagMs: 5000, sessionMs: 3000})
	cl, err := client.New(client.Config{Controller: c.Controller(), Clock: wallclock.New(), Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	const parts = 3
	createTopic(t, c, cl, "acked", parts, 3, 2)
	// Records name their partitions, keyed ones too: ManualPartitioner.
	p, err := cl.NewProducer(client.ProducerConfig{BatchBytes: 1024, MaxBufferedBytes: 6 * 1024, MaxRecordBytes: 1024, Partitioner: client.ManualPartitioner})
	if err != nil {
		t.Fatal(err)
	}

	// Record id's bytes, which say its id.
	record := func(id int) client.Record {
		r := rand.New(rand.NewPCG(seed, uint64(id)))
		rec := client.Record{Topic: "acked", Partition: int32(r.IntN(parts))}
		v := fmt.Appendf(nil, "id=%d;", id)
		for range r.IntN(200) {
			v = append(v, byte('a'+r.IntN(26)))
		}
		rec.Value = v
		switch r.IntN(6) {
		case 0:
			rec.Key = fmt.Appendf(nil, "k%d", id)
		case 1:
			rec.Headers = []client.Header{{Key: "h", Value: fmt.Appendf(nil, "%d", id)}}
		case 2:
			rec.Value = nil
			rec.Key = fmt.Appendf(nil, "id=%d;", id)
		}
		return rec
	}
	const total = 4000
	var (
		mu      sync.Mutex
		offsets = make([]int64, total) // acknowledged offset, -1 none yet
		failed  []error
		left    = total
		allDone = make(chan struct{})
	)
	for i := range offsets {
		offsets[i] = -1
	}
	ack := func(id int, off client.Offset, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failed = append(failed, fmt.Errorf("record %d: %w", id, err))
		} else if !off.HasOffset {
			failed = append(failed, fmt.Errorf("record %d: no offset", id))
		} else if offsets[id] != -1 {
			failed = append(failed, fmt.Errorf("record %d acknowledged twice", id))
		} else {
			offsets[id] = int64(off.Offset)
		}
		if left--; left == 0 {
			close(allDone)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()
	for id := 0; id < total; {
		if kill && id >= total/2 {
			kill = false
			c.Kill(partition(c, "acked", 0).Leader)
		}
		if rng.IntN(4) == 0 {
			id0 := id
			if err := p.ProduceAsync(record(id), func(off client.Offset, err error) { ack(id0, off, err) }); err == nil {
				id++
				continue
			} else if !errors.Is(err, client.ErrBufferFull) {
				t.Fatal(err)
			}
		} else {
			n := min(1+rng.IntN(60), total-id)
			recs := make([]client.Record, n)
			for k := range recs {
				recs[k] = record(id + k)
			}
			base := id
			took, err := p.ProduceManyAsync(recs, func(i, n int, first client.Offset, err error) {
				for k := range n {
					off := first
					off.Offset += uint64(k)
					ack(base+i+k, off, err)
				}
			})
			id += took
			if err == nil {
				continue
			}
			if !errors.Is(err, client.ErrBufferFull) {
				t.Fatal(err)
			}
		}
		// The buffer is full: Produce waits for room.
		id0 := id
		off, err := p.Produce(ctx, record(id))
		ack(id0, off, err)
		if err != nil {
			t.Fatal(err)
		}
		id++
	}
	select {
	case <-allDone:
	case <-ctx.Done():
		t.Fatal("not every record has its outcome")
	}
	mu.Lock()
	if len(failed) > 0 {
		t.Fatalf("seed %d: %d failures, the first: %v", seed, len(failed), failed[0])
	}
	mu.Unlock()

	// Each partition from its start: every record is the one acknowledged
	// at its offset.
	byOffset := map[client.TopicPartition]map[uint64]int{}
	for id := range total {
		tp := client.TopicPartition{Topic: "acked", Partition: record(id).Partition}
		if byOffset[tp] == nil {
			byOffset[tp] = map[uint64]int{}
		}
		if prev, dup := byOffset[tp][uint64(offsets[id])]; dup {
			t.Fatalf("seed %d: records %d and %d both acknowledged at %s offset %d", seed, prev, id, tp, offsets[id])
		}
		byOffset[tp][uint64(offsets[id])] = id
	}
	for tp, want := range byOffset {
		got := readN(t, cl, tp, client.FromStart(), len(want))
		for _, rec := range got {
			id, ok := want[rec.Offset]
			if !ok {
				t.Fatalf("seed %d: %s offset %d holds %q, acknowledged for no record", seed, tp, rec.Offset, rec.Value)
			}
			exp := record(id)
			if !bytes.Equal(rec.Key, exp.Key) || !bytes.Equal(rec.Value, exp.Value) || (rec.Value == nil) != (exp.Value == nil) || len(rec.Headers) != len(exp.Headers) {
				t.Fatalf("seed %d: %s offset %d: key %q value %q, record %d acknowledged there is key %q value %q", seed, tp, rec.Offset, rec.Key, rec.Value, id, exp.Key, exp.Value)
			}
		}
	}

	// Every replica holds the leader's bytes.
	logs := map[int32][]byte{}
	for pi := range int32(parts) {
		tp := replica.TopicPartition{Topic: "acked", Partition: pi}
		end := uint64(len(byOffset[client.TopicPartition{Topic: "acked", Partition: pi}]))
		c.Await("every replica at the log end", func() bool {
			clear(logs)
			for _, br := range c.Brokers() {
				id := br.ID
				var data []byte
				var rerr error
				br.Host.Do(func(int64) {
					r, ok := br.Broker.Replica(tp)
					if !ok || r.Log().EndOffset() != end {
						return
					}
					data, rerr = r.Log().Read(nil, 0, 1<<30, log.IsolationLogEnd)
				})
				if rerr != nil {
					t.Fatalf("broker %d: %s: %v", id, tp, rerr)
				}
				if data == nil {
					return false
				}
				logs[id] = data
			}
			return true
		})
		var first []byte
		for id, data := range logs {
			if first == nil {
				first = data
			} else if !bytes.Equal(first, data) {
				t.Fatalf("seed %d: %s: broker %d's log differs from another replica's", seed, tp, id)
			}
		}
	}
}

// A record with a negative timestamp is refused when handed over, as
// Kafka's producer refuses it: taken, its delta from the timestamps of the
// records it shares a batch with can leave int64, and the leader then
// refuses the whole batch (INVALID_RECORD) — records that were valid
// failing for a neighbour's.
func TestANegativeTimestampDoesNotFailItsBatch(t *testing.T) {
	c := startCluster(t, clusterOptions{brokers: 1, lagMs: 5000, sessionMs: 3000})
	cl := newClient(t, c)
	createTopic(t, c, cl, "ts", 1, 1, 1)
	p, err := cl.NewProducer(client.ProducerConfig{LingerMs: 60_000})
	if err != nil {
		t.Fatal(err)
	}
	valid := make(chan error, 16)
	for _, ts := range []int64{1_700_000_000_000, 0} {
		if err := p.ProduceAsync(client.Record{Topic: "ts", Value: []byte("valid"), TimestampMs: ts}, func(_ client.Offset, err error) { valid <- err }); err != nil {
			t.Fatal(err)
		}
	}
	for _, ts := range []int64{math.MinInt64, -1} {
		err := p.ProduceAsync(client.Record{Topic: "ts", Value: []byte("early"), TimestampMs: ts}, nil)
		if !errors.Is(err, wire.ErrInvalidRecord) {
			t.Errorf("ProduceAsync with timestamp %d: %v, want a refusal matching wire.ErrInvalidRecord", ts, err)
		}
		recs := []client.Record{{Topic: "ts", Value: []byte("fine"), TimestampMs: 1_700_000_000_001}, {Topic: "ts", Value: []byte("early"), TimestampMs: ts}}
		if n, err := p.ProduceManyAsync(recs, func(_, _ int, _ client.Offset, err error) { valid <- err }); n != 1 || !errors.Is(err, wire.ErrInvalidRecord) {
			t.Errorf("ProduceManyAsync with timestamp %d took %d records: %v, want 1 and wire.ErrInvalidRecord", ts, n, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), clustertest.WaitLimit)
	defer cancel()
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		select {
		case err := <-valid:
			if err != nil {
				t.Fatalf("a valid record in the batch: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("a valid record has no outcome")
		}
	}
}
