package client

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// run is one call of a ProduceManyAsync callback.
type run struct {
	call, i, n int
	first      Offset
	err        error
}

// runLog collects the runs of several ProduceManyAsync calls.
type runLog struct {
	mu   sync.Mutex
	runs []run
	ch   chan struct{}
}

func newRunLog() *runLog { return &runLog{ch: make(chan struct{}, 100)} }

// done returns the callback of call number call.
func (l *runLog) done(call int) func(i, n int, first Offset, err error) {
	return func(i, n int, first Offset, err error) {
		l.mu.Lock()
		l.runs = append(l.runs, run{call, i, n, first, err})
		l.mu.Unlock()
		l.ch <- struct{}{}
	}
}

// await waits for n more runs.
func (l *runLog) await(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-l.ch:
		case <-time.After(waitGuard):
			t.Fatalf("no run within %s", waitGuard)
		}
	}
}

// sorted returns the runs so far, by call and index.
func (l *runLog) sorted() []run {
	l.mu.Lock()
	defer l.mu.Unlock()
	rs := slices.Clone(l.runs)
	slices.SortFunc(rs, func(a, b run) int { return (a.call-b.call)*1_000_000 + a.i - b.i })
	return rs
}

// records returns records of tp with the given values.
func records(tp TopicPartition, values ...string) []Record {
	recs := make([]Record, len(values))
	for i, v := range values {
		recs[i] = Record{Topic: tp.Topic, Partition: tp.Partition, Value: []byte(v)}
	}
	return recs
}

// value40 returns a 40-byte value starting with s: records of it take 47
// bytes in a batch.
func value40(s string) string { return fmt.Sprintf("%-40s", s) }

// Records of one ProduceManyAsync call may fill several batches, and share
// batches with records of ProduceAsync before and after them: each run
// (the call's records in one batch) is told the offset of its first
// record from its own batch's base offset, and each single record its own.
func TestProduceManyOffsetsAcrossBatches(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	// Three 47-byte records fill a batch; the linger holds a batch until
	// it is full.
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, LingerMs: 20_000, BatchBytes: 61 + 3*47, DeliveryTimeoutMs: 200_000})
	if err != nil {
		t.Fatal(err)
	}
	l := newRunLog()
	a := produceAsync(t, p, tp, value40("a"))
	m := records(tp, value40("m0"), value40("m1"), value40("m2"), value40("m3"), value40("m4"), value40("m5"), value40("m6"))
	if n, err := p.ProduceManyAsync(m, l.done(1)); n != len(m) || err != nil {
		t.Fatalf("ProduceManyAsync took %d of %d: %v", n, len(m), err)
	}
	z := produceAsync(t, p, tp, value40("z"))
	if n, err := p.ProduceManyAsync(records(tp, value40("n0"), value40("n1")), l.done(2)); n != 2 || err != nil {
		t.Fatalf("ProduceManyAsync took %d of 2: %v", n, err)
	}
	y := produceAsync(t, p, tp, value40("y"))

	// Four full batches go, in order; each is answered at base 100*k.
	want := [][]string{{"a", "m0", "m1"}, {"m2", "m3", "m4"}, {"m5", "m6", "z"}, {"n0", "n1", "y"}}
	for k, vs := range want {
		r := fc.brokers[1].next(t)
		got := values(batchOf(t, r.produce(t).Partitions[0]))
		for i := range got {
			got[i] = got[i][:2]
			if got[i][1] == ' ' {
				got[i] = got[i][:1]
			}
		}
		if !slices.Equal(got, vs) {
			t.Fatalf("batch %d holds %q, want %q", k, got, vs)
		}
		r.answerProduce(t, wire.CodeNone, uint64(100*(k+1)))
	}
	l.await(t, 4)
	wantRuns := []run{
		{1, 0, 2, Offset{"t", 0, 101, true}, nil},
		{1, 2, 3, Offset{"t", 0, 200, true}, nil},
		{1, 5, 2, Offset{"t", 0, 300, true}, nil},
		{2, 0, 2, Offset{"t", 0, 400, true}, nil},
	}
	if got := l.sorted(); !slices.Equal(got, wantRuns) {
		t.Errorf("runs %+v\nwant %+v", got, wantRuns)
	}
	for _, s := range []struct {
		name string
		ch   chan outcome
		off  uint64
	}{{"a", a, 100}, {"z", z, 302}, {"y", y, 402}} {
		if o := await(t, s.ch); o.err != nil || o.off != (Offset{"t", 0, s.off, true}) {
			t.Errorf("record %s: %+v %v, want offset %d", s.name, o.off, o.err, s.off)
		}
	}
}

// Each batch of a call has its own outcome: a run whose batch is refused
// gets the refusal, and the run of the next batch its offset.
func TestProduceManyErrorsPerBatch(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, BatchBytes: 61 + 3*47})
	if err != nil {
		t.Fatal(err)
	}
	l := newRunLog()
	recs := records(tp, value40("0"), value40("1"), value40("2"), value40("3"), value40("4"), value40("5"))
	if n, err := p.ProduceManyAsync(recs, l.done(1)); n != len(recs) || err != nil {
		t.Fatalf("ProduceManyAsync took %d of %d: %v", n, len(recs), err)
	}
	// The first batch went when it was sealed, during the call; the
	// second at the call's end.
	fc.brokers[1].next(t).answerProduce(t, wire.CodeInvalidRecord, 0)
	fc.brokers[1].next(t).answerProduce(t, wire.CodeNone, 50)
	l.await(t, 2)
	rs := l.sorted()
	if len(rs) != 2 || rs[0].i != 0 || rs[0].n != 3 || rs[1].i != 3 || rs[1].n != 3 {
		t.Fatalf("runs %+v, want recs[0:3] and recs[3:6]", rs)
	}
	if !errors.Is(rs[0].err, wire.ErrInvalidRecord) || rs[0].first.HasOffset {
		t.Errorf("refused run: %+v, want INVALID_RECORD and no offset", rs[0])
	}
	if rs[1].err != nil || rs[1].first != (Offset{"t", 0, 50, true}) {
		t.Errorf("written run: %+v, want offset 50", rs[1])
	}
}

// A call is taken in part when the producer's buffer fills: it returns
// how many records it took and ErrBufferFull, the callback covers those
// only, and the rest are taken once the buffer has room again.
func TestProduceManyTakesWhatFitsTheBuffer(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	// Room for two 47-byte records.
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, MaxBufferedBytes: 2 * 47})
	if err != nil {
		t.Fatal(err)
	}
	l := newRunLog()
	recs := records(tp, value40("0"), value40("1"), value40("2"), value40("3"), value40("4"))
	n, err := p.ProduceManyAsync(recs, l.done(1))
	if n != 2 || err != ErrBufferFull {
		t.Fatalf("ProduceManyAsync took %d of 5 with %v, want 2 and ErrBufferFull", n, err)
	}
	r := fc.brokers[1].next(t)
	if got := len(batchOf(t, r.produce(t).Partitions[0]).Records); got != 2 {
		t.Fatalf("batch of %d records, want the 2 taken", got)
	}
	r.answerProduce(t, wire.CodeNone, 0)
	l.await(t, 1)
	// The answer freed the room.
	n2, err := p.ProduceManyAsync(recs[n:], l.done(2))
	if n2 != 2 || err != ErrBufferFull {
		t.Fatalf("second call took %d of 3 with %v, want 2 and ErrBufferFull", n2, err)
	}
	fc.brokers[1].next(t).answerProduce(t, wire.CodeNone, 2)
	l.await(t, 1)
	want := []run{{1, 0, 2, Offset{"t", 0, 0, true}, nil}, {2, 0, 2, Offset{"t", 0, 2, true}, nil}}
	if got := l.sorted(); !slices.Equal(got, want) {
		t.Errorf("runs %+v, want %+v", got, want)
	}
}

// A call stops at the first record it refuses, with ProduceAsync's error
// for it; the records before it are taken and have their outcome.
func TestProduceManyStopsAtARefusedRecord(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, BatchBytes: 1000, MaxRecordBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		bad  Record
		want error
	}{
		{"invalid topic", Record{Topic: "", Value: []byte("x")}, wire.ErrInvalidTopic},
		{"negative partition", Record{Topic: "t", Partition: -1, Value: []byte("x")}, wire.ErrInvalidPartition},
		{"too large", Record{Topic: "t", Value: make([]byte, 1000)}, wire.ErrMessageTooLarge},
	} {
		t.Run(bc.name, func(t *testing.T) {
			l := newRunLog()
			recs := append(records(tp, "a", "b"), bc.bad, Record{Topic: "t", Value: []byte("c")})
			n, err := p.ProduceManyAsync(recs, l.done(1))
			if n != 2 || !errors.Is(err, bc.want) {
				t.Fatalf("took %d with %v, want 2 and %v", n, err, bc.want)
			}
			r := fc.brokers[1].next(t)
			if got := values(batchOf(t, r.produce(t).Partitions[0])); !slices.Equal(got, []string{"a", "b"}) {
				t.Fatalf("batch %q, want a b", got)
			}
			r.answerProduce(t, wire.CodeNone, 7)
			l.await(t, 1)
			if got := l.sorted(); len(got) != 1 || got[0] != (run{1, 0, 2, Offset{"t", 0, 7, true}, nil}) {
				t.Errorf("runs %+v, want recs[0:2] at 7", got)
			}
		})
	}
	p.Close()
	if n, err := p.ProduceManyAsync(records(tp, "a"), nil); n != 0 || err != ErrClosed {
		t.Errorf("after Close: took %d with %v, want 0 and ErrClosed", n, err)
	}
}

// A call's records may name several partitions: each partition's records
// go to its own batch, and a run never spans two partitions or records
// not next to each other in the call.
func TestProduceManyRunsFollowPartitions(t *testing.T) {
	fc := newFakeCluster(t, 1, 2)
	clk := clock.NewManual(0)
	c := newTestClient(t, fc, clk)
	tp0, tp1 := TopicPartition{"t", 0}, TopicPartition{"t", 1}
	primeMetadata(t, c, tp0)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, LingerMs: 10})
	if err != nil {
		t.Fatal(err)
	}
	l := newRunLog()
	recs := slices.Concat(records(tp0, "a", "b"), records(tp1, "c"), records(tp0, "d"), records(tp1, "e", "f"))
	if n, err := p.ProduceManyAsync(recs, l.done(1)); n != len(recs) || err != nil {
		t.Fatalf("took %d of %d: %v", n, len(recs), err)
	}
	clk.Advance(10)
	r := fc.brokers[1].next(t)
	req := r.produce(t)
	if len(req.Partitions) != 2 {
		t.Fatalf("%d partitions in the request, want 2", len(req.Partitions))
	}
	resp := &wire.ProduceResponse{}
	for _, pp := range req.Partitions {
		want := map[int32][]string{0: {"a", "b", "d"}, 1: {"c", "e", "f"}}[pp.Partition]
		if got := values(batchOf(t, pp)); !slices.Equal(got, want) {
			t.Errorf("partition %d: batch %q, want %q", pp.Partition, got, want)
		}
		resp.Partitions = append(resp.Partitions, wire.ProducePartitionResponse{Topic: "t", Partition: pp.Partition, BaseOffset: uint64(10 * (pp.Partition + 1)), HasBaseOffset: true})
	}
	r.reply(resp)
	l.await(t, 4)
	want := []run{
		{1, 0, 2, Offset{"t", 0, 10, true}, nil},
		{1, 2, 1, Offset{"t", 1, 20, true}, nil},
		{1, 3, 1, Offset{"t", 0, 12, true}, nil},
		{1, 4, 2, Offset{"t", 1, 21, true}, nil},
	}
	if got := l.sorted(); !slices.Equal(got, want) {
		t.Errorf("runs %+v\nwant %+v", got, want)
	}
}

// countingClock reads one millisecond later at every NowMs, so that a
// batch's timestamps show how often the producer read it. Its timers are
// the Manual's.
type countingClock struct {
	*clock.Manual
	reads atomic.Int64
}

func (c *countingClock) NowMs() int64 { return c.Manual.NowMs() + c.reads.Add(1) }

// The records of one call without a TimestampMs share one reading of the
// clock (one CreateTime); a record's own TimestampMs is kept.
func TestProduceManyReadsTheClockOnce(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := &countingClock{Manual: clock.NewManual(1_000_000)}
	c, err := New(Config{Controller: fc.controller.addr(), Clock: clk, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, LingerMs: 10})
	if err != nil {
		t.Fatal(err)
	}
	recs := records(tp, "a", "b", "c", "d")
	recs[2].TimestampMs = 5
	if n, err := p.ProduceManyAsync(recs, nil); n != len(recs) || err != nil {
		t.Fatalf("took %d of %d: %v", n, len(recs), err)
	}
	clk.Advance(10)
	r := fc.brokers[1].next(t)
	b := batchOf(t, r.produce(t).Partitions[0])
	var ts []int64
	for _, rec := range b.Records {
		ts = append(ts, b.BaseTimestamp+rec.TimestampDelta)
	}
	if ts[0] != ts[1] || ts[1] != ts[3] || ts[2] != 5 || ts[0] < 1_000_000 {
		t.Errorf("timestamps %d, want one reading of the clock for a, b, d and 5 for c", ts)
	}
	r.answerProduce(t, wire.CodeNone, 0)
}

// A call's records are encoded as log encodes them, whatever their keys,
// values, headers and timestamps: the batch the broker gets decodes to
// the records handed over. (Records after the first of a batch take a
// short path of their own; a record with headers takes the long one.)
func TestProduceManyEncodesEveryRecord(t *testing.T) {
	fc := newFakeCluster(t, 1, 1)
	clk := clock.NewManual(1_700_000_000_000)
	c := newTestClient(t, fc, clk)
	tp := TopicPartition{"t", 0}
	primeMetadata(t, c, tp)
	p, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, LingerMs: 10, BatchBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for i := range 300 {
		r := Record{Topic: "t", Value: []byte(fmt.Sprintf("value %d %s", i, make([]byte, i%150)))}
		switch i % 4 {
		case 1:
			r.Key = []byte{}
		case 2:
			r.Key = []byte(fmt.Sprint("key", i))
		case 3:
			r.Value = nil
		}
		switch i % 5 {
		case 1:
			r.TimestampMs = 1_600_000_000_000 + int64(i) // before the batch's first: a negative delta
		case 2:
			r.TimestampMs = 1_800_000_000_000
		}
		if i%97 == 50 {
			r.Headers = []Header{{Key: "h", Value: []byte("v")}, {Key: "", Value: nil}}
		}
		recs = append(recs, r)
	}
	if n, err := p.ProduceManyAsync(recs, nil); n != len(recs) || err != nil {
		t.Fatalf("took %d of %d: %v", n, len(recs), err)
	}
	clk.Advance(10)
	r := fc.brokers[1].next(t)
	b := batchOf(t, r.produce(t).Partitions[0])
	if len(b.Records) != len(recs) {
		t.Fatalf("%d records in the batch, want %d", len(b.Records), len(recs))
	}
	for i, got := range b.Records {
		want := recs[i]
		ts := want.TimestampMs
		if ts == 0 {
			ts = 1_700_000_000_000
		}
		if got.OffsetDelta != int32(i) || b.BaseTimestamp+got.TimestampDelta != ts ||
			(got.Key == nil) != (want.Key == nil) || string(got.Key) != string(want.Key) ||
			(got.Value == nil) != (want.Value == nil) || string(got.Value) != string(want.Value) ||
			len(got.Headers) != len(want.Headers) {
			t.Fatalf("record %d decodes to %+v, want %+v at %d", i, got, want, ts)
		}
		for j, h := range got.Headers {
			if h.Key != want.Headers[j].Key || string(h.Value) != string(want.Headers[j].Value) || (h.Value == nil) != (want.Headers[j].Value == nil) {
				t.Fatalf("record %d header %d: %+v, want %+v", i, j, h, want.Headers[j])
			}
		}
	}
	r.answerProduce(t, wire.CodeNone, 0)
}
