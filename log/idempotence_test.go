package log

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// The idempotent producer's rules in the log: Kafka's ProducerAppendInfo
// and UnifiedLog.analyzeAndValidateProducerState, one story per rule.

// idBatch encodes a producer's batch of n records: producer id pid,
// epoch, base sequence seq, timestamps ts, ts+1, ...
func idBatch(t testing.TB, pid int64, epoch int16, seq int32, n int, ts int64) []byte {
	t.Helper()
	recs := stRecords(n, 8, nil)
	b := Batch{
		BaseTimestamp: ts, MaxTimestamp: ts + int64(n-1),
		ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq, Records: recs,
	}
	out, err := AppendBatch(nil, &b)
	if err != nil {
		t.Fatalf("AppendBatch: %v", err)
	}
	return out
}

// recomputeProducers is the oracle: the producer state the batches in all
// build, applied one by one in log order with no rule at all.
func recomputeProducers(t testing.TB, all []byte) []ProducerState {
	t.Helper()
	m := producerMap{}
	for _, h := range stHeaders(t, all) {
		if b, ok := producerBatchOf(&h); ok {
			m.apply(&b)
		}
	}
	out := []ProducerState{}
	for _, id := range m.sortedIDs() {
		out = append(out, m[id].state(id))
	}
	return out
}

// checkProducersMatchLog fails unless l's producer state is exactly what
// its surviving batches build.
func checkProducersMatchLog(t testing.TB, l *Log, what string) {
	t.Helper()
	all, err := l.Read(nil, l.StartOffset(), 1<<30, IsolationLogEnd)
	if err != nil {
		t.Fatalf("%s: Read: %v", what, err)
	}
	want := recomputeProducers(t, all)
	got := l.Producers()
	if len(got) == 0 {
		got = []ProducerState{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: producer state\n got %+v\nwant %+v (recomputed from the log)", what, got, want)
	}
}

// plainAppend appends one batch of n records without a producer id, at
// leader epoch 1.
func plainAppend(t testing.TB, l *Log, n int, ts int64) {
	t.Helper()
	if _, err := l.AppendAsLeader(stBatch(t, 0, n, 5, ts), 1); err != nil {
		t.Fatalf("AppendAsLeader: %v", err)
	}
}

func memLog(t testing.TB, opts Options) (*Log, *vfs.Mem) {
	t.Helper()
	mem := vfs.NewMem()
	opts.FS = mem
	return stOpen(t, "/p/orders-0", opts), mem
}

// TestProducerRules is the table of Kafka's rules. Each case appends a
// history, then one batch, and expects either an append, a duplicate
// (nothing written, the original's offsets), or a refusal with the
// sentinel the replica layer answers with the named Kafka error.
func TestProducerRules(t *testing.T) {
	type step struct {
		pid   int64
		epoch int16
		seq   int32
		n     int
	}
	for _, tc := range []struct {
		name    string
		history []step
		next    step
		extra   bool  // a second, non-idempotent batch in the same append
		want    error // nil: appended or duplicate
		dupOf   int   // 1-based index into history of the original, 0: not a duplicate
		wire    string
	}{
		{name: "unknown producer starts at any sequence", next: step{7, 0, 42, 3}, wire: "NONE"},
		{name: "unknown producer starts at any epoch", history: []step{{8, 0, 0, 1}}, next: step{7, 9, 0, 1}, wire: "NONE"},
		{name: "next sequence", history: []step{{7, 0, 0, 3}}, next: step{7, 0, 3, 2}, wire: "NONE"},
		{name: "a gap in the sequence", history: []step{{7, 0, 0, 3}}, next: step{7, 0, 4, 1},
			want: ErrOutOfOrderSequence, wire: "OUT_OF_ORDER_SEQUENCE_NUMBER (45)"},
		{name: "a sequence already written, other range", history: []step{{7, 0, 0, 3}}, next: step{7, 0, 1, 2},
			want: ErrOutOfOrderSequence, wire: "OUT_OF_ORDER_SEQUENCE_NUMBER (45)"},
		{name: "same first sequence, longer batch", history: []step{{7, 0, 0, 3}}, next: step{7, 0, 0, 4},
			want: ErrOutOfOrderSequence, wire: "OUT_OF_ORDER_SEQUENCE_NUMBER (45)"},
		{name: "duplicate", history: []step{{7, 0, 0, 3}, {7, 0, 3, 2}}, next: step{7, 0, 0, 3}, dupOf: 1, wire: "NONE, original offsets"},
		{name: "duplicate of the last", history: []step{{7, 0, 0, 3}, {7, 0, 3, 2}}, next: step{7, 0, 3, 2}, dupOf: 2, wire: "NONE, original offsets"},
		{name: "stale epoch", history: []step{{7, 1, 0, 3}}, next: step{7, 0, 3, 1},
			want: ErrInvalidProducerEpoch, wire: "INVALID_PRODUCER_EPOCH (47)"},
		{name: "stale epoch, same range as a cached batch", history: []step{{7, 0, 0, 3}, {7, 1, 0, 3}}, next: step{7, 0, 0, 3},
			want: ErrInvalidProducerEpoch, wire: "INVALID_PRODUCER_EPOCH (47)"},
		{name: "new epoch at sequence 0", history: []step{{7, 0, 0, 3}}, next: step{7, 1, 0, 1}, wire: "NONE"},
		{name: "new epoch not at sequence 0", history: []step{{7, 0, 0, 3}}, next: step{7, 1, 3, 1},
			want: ErrOutOfOrderSequence, wire: "OUT_OF_ORDER_SEQUENCE_NUMBER (45)"},
		{name: "another producer's sequence is its own", history: []step{{7, 0, 0, 3}}, next: step{8, 0, 5, 1}, wire: "NONE"},
		{name: "not alone in its append", next: step{7, 0, 0, 1}, extra: true,
			want: ErrInvalidRecord, wire: "INVALID_RECORD (87)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, _ := memLog(t, Options{})
			var infos []AppendInfo
			for i, s := range tc.history {
				info, err := l.AppendAsLeader(idBatch(t, s.pid, s.epoch, s.seq, s.n, 1000+int64(i)), 1)
				if err != nil || info.Duplicate {
					t.Fatalf("history %d: %+v, %v", i, info, err)
				}
				infos = append(infos, info)
			}
			before, leo := l.Producers(), l.EndOffset()
			in := idBatch(t, tc.next.pid, tc.next.epoch, tc.next.seq, tc.next.n, 2000)
			if tc.extra {
				in = append(stBatch(t, 0, 1, 4, 2000), in...)
			}
			info, err := l.AppendAsLeader(in, 1)
			switch {
			case tc.want != nil:
				if !errors.Is(err, tc.want) {
					t.Fatalf("append: %v; want %v (Kafka's %s)", err, tc.want, tc.wire)
				}
				if !reflect.DeepEqual(l.Producers(), before) || l.EndOffset() != leo {
					t.Fatalf("a refused append changed the state or the log")
				}
			case tc.dupOf > 0:
				orig := infos[tc.dupOf-1]
				if err != nil || !info.Duplicate || info.FirstOffset != orig.FirstOffset || info.NextOffset != orig.NextOffset {
					t.Fatalf("append: %+v, %v; want a duplicate of %+v", info, err, orig)
				}
				if l.EndOffset() != leo || !reflect.DeepEqual(l.Producers(), before) {
					t.Fatalf("a duplicate was written (LEO %d, was %d) or changed the state", l.EndOffset(), leo)
				}
			default:
				if err != nil || info.Duplicate || info.FirstOffset != leo {
					t.Fatalf("append: %+v, %v; want it appended at %d", info, err, leo)
				}
			}
			checkProducersMatchLog(t, l, tc.name)
		})
	}
}

// Kafka retains a producer's last five batches: a retry of any of them is
// a duplicate, answered with its own offsets; a retry of the sixth-newest
// no longer is (it is out of sequence).
func TestDuplicatesOfTheLastFiveBatches(t *testing.T) {
	l, _ := memLog(t, Options{})
	var infos []AppendInfo
	seq := int32(0)
	for i := range 6 {
		n := 1 + i%3
		info, err := l.AppendAsLeader(idBatch(t, 3, 0, seq, n, int64(i)), 1)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
		seq += int32(n)
	}
	leo := l.EndOffset()
	seq = 0
	for i, orig := range infos {
		n := 1 + i%3
		info, err := l.AppendAsLeader(idBatch(t, 3, 0, seq, n, 99), 1)
		seq += int32(n)
		if i == 0 {
			if !errors.Is(err, ErrOutOfOrderSequence) {
				t.Fatalf("retry of the 6th-newest batch: %+v, %v; want ErrOutOfOrderSequence", info, err)
			}
			continue
		}
		if err != nil || !info.Duplicate || info.FirstOffset != orig.FirstOffset || info.NextOffset != orig.NextOffset {
			t.Fatalf("retry of batch %d: %+v, %v; want a duplicate at [%d, %d)", i, info, err, orig.FirstOffset, orig.NextOffset)
		}
	}
	if l.EndOffset() != leo {
		t.Fatalf("retries were written: LEO %d, was %d", l.EndOffset(), leo)
	}
	if p, _ := l.Producer(3); len(p.Batches) != ProducerBatchesRetained {
		t.Fatalf("%d batches retained, want %d", len(p.Batches), ProducerBatchesRetained)
	}
}

// Sequences wrap from MaxInt32 to 0, within a batch and between batches
// (Kafka's DefaultRecordBatch.incrementSequence and inSequence).
func TestSequenceWrap(t *testing.T) {
	l, _ := memLog(t, Options{})
	// An unknown producer may start anywhere: here two below MaxInt32,
	// three records, so the batch's last sequence is 0.
	if _, err := l.AppendAsLeader(idBatch(t, 1, 0, math.MaxInt32-1, 3, 1), 1); err != nil {
		t.Fatal(err)
	}
	p, _ := l.Producer(1)
	if b := p.Batches[0]; b.FirstSeq != math.MaxInt32-1 || b.LastSeq != 0 {
		t.Fatalf("batch sequences [%d, %d], want [MaxInt32-1, 0]", b.FirstSeq, b.LastSeq)
	}
	if _, err := l.AppendAsLeader(idBatch(t, 1, 0, 2, 1, 2), 1); !errors.Is(err, ErrOutOfOrderSequence) {
		t.Fatalf("sequence 2 after 0: %v, want ErrOutOfOrderSequence", err)
	}
	if _, err := l.AppendAsLeader(idBatch(t, 1, 0, 1, 1, 2), 1); err != nil {
		t.Fatalf("sequence 1 after 0: %v", err)
	}
	// A batch ending exactly at MaxInt32: the next one starts at 0.
	if _, err := l.AppendAsLeader(idBatch(t, 2, 0, math.MaxInt32-2, 3, 1), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AppendAsLeader(idBatch(t, 2, 0, math.MaxInt32, 1, 1), 1); !errors.Is(err, ErrOutOfOrderSequence) {
		t.Fatalf("MaxInt32 again: %v, want ErrOutOfOrderSequence", err)
	}
	if _, err := l.AppendAsLeader(idBatch(t, 2, 0, 0, 2, 1), 1); err != nil {
		t.Fatalf("0 after MaxInt32: %v", err)
	}
	// And a retry of the wrapped batch is a duplicate.
	info, err := l.AppendAsLeader(idBatch(t, 1, 0, math.MaxInt32-1, 3, 1), 1)
	if err != nil || !info.Duplicate || info.FirstOffset != 0 || info.NextOffset != 3 {
		t.Fatalf("retry of the wrapped batch: %+v, %v", info, err)
	}
	checkProducersMatchLog(t, l, "wrap")
}

// A producer re-initialised with a bumped epoch starts again at sequence
// 0; its old epoch is fenced from then on, retries of its old batches
// included; the new epoch's batches replace the old ones.
func TestProducerEpochBump(t *testing.T) {
	l, _ := memLog(t, Options{})
	for i := range 3 {
		if _, err := l.AppendAsLeader(idBatch(t, 5, 0, int32(2*i), 2, int64(i)), 1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.AppendAsLeader(idBatch(t, 5, 1, 0, 1, 10), 1); err != nil {
		t.Fatalf("epoch 1 at sequence 0: %v", err)
	}
	p, _ := l.Producer(5)
	if p.Epoch != 1 || len(p.Batches) != 1 || p.Batches[0].FirstOffset != 6 {
		t.Fatalf("after the bump: %+v", p)
	}
	for _, seq := range []int32{0, 2, 4, 6} {
		if _, err := l.AppendAsLeader(idBatch(t, 5, 0, seq, 2, 11), 1); !errors.Is(err, ErrInvalidProducerEpoch) {
			t.Fatalf("epoch 0 sequence %d after the bump: %v, want ErrInvalidProducerEpoch", seq, err)
		}
	}
	if _, err := l.AppendAsLeader(idBatch(t, 5, 1, 1, 1, 12), 1); err != nil {
		t.Fatalf("epoch 1 sequence 1: %v", err)
	}
	checkProducersMatchLog(t, l, "epoch bump")
}

// A follower takes its leader's producer fields as they are: no rule is
// checked (Kafka does not validate a replicated append), and its state
// ends equal to the leader's, so that it can answer retries once it leads.
func TestFollowerTakesTheLeadersProducerState(t *testing.T) {
	leader, _ := memLog(t, Options{SegmentBytes: 400})
	follower, _ := memLog(t, Options{SegmentBytes: 400})
	follower.StopEagerHighWatermark()
	seqs := map[int64]int32{}
	for i := range 30 {
		pid := int64(i % 4)
		n := 1 + i%3
		if _, err := leader.AppendAsLeader(idBatch(t, pid, 0, seqs[pid], n, int64(i)), 1); err != nil {
			t.Fatal(err)
		}
		seqs[pid] += int32(n)
		if i%7 == 0 { // some plain batches between
			plainAppend(t, leader, 2, int64(i))
		}
	}
	// Copy in two fetches, several batches each.
	all := stReadAll(t, leader, IsolationLogEnd)
	half := stSplit(t, all)
	cut := 0
	for _, b := range half[:len(half)/2] {
		cut += len(b.bytes)
	}
	for _, part := range [][]byte{all[:cut], all[cut:]} {
		if _, err := follower.AppendAsFollower(part); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(follower.Producers(), leader.Producers()) {
		t.Fatalf("follower\n%+v\nleader\n%+v", follower.Producers(), leader.Producers())
	}
	// Out of order, a stale epoch: a follower applies what its leader wrote.
	odd := idBatch(t, 0, 0, 1000, 1, 50)
	SetBaseOffset(odd, follower.EndOffset())
	SetPartitionLeaderEpoch(odd, 1)
	if _, err := follower.AppendAsFollower(odd); err != nil {
		t.Fatalf("out-of-sequence batch as a follower: %v", err)
	}
	stale := idBatch(t, 1, 0, 0, 1, 50)
	if _, err := follower.AppendAsLeader(stBatch(t, 0, 1, 1, 1), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := follower.AppendAsLeader(idBatch(t, 1, 3, 0, 1, 50), 1); err != nil {
		t.Fatal(err)
	}
	SetBaseOffset(stale, follower.EndOffset())
	SetPartitionLeaderEpoch(stale, 1)
	if _, err := follower.AppendAsFollower(stale); err != nil {
		t.Fatalf("older producer epoch as a follower: %v", err)
	}
	checkProducersMatchLog(t, follower, "follower")
	if p, _ := follower.Producer(1); p.Epoch != 0 {
		t.Fatalf("a follower keeps the epoch its leader wrote last: %+v", p)
	}
}

// Truncation leaves the producer state exactly as if the cut batches had
// never been appended, at every offset, with and without the snapshots
// of the segments it cuts into.
func TestTruncationRestoresProducerState(t *testing.T) {
	for _, withSnapshots := range []bool{true, false} {
		t.Run(fmt.Sprintf("snapshots=%v", withSnapshots), func(t *testing.T) {
			build := func() *Log {
				l, _ := memLog(t, Options{SegmentBytes: 600})
				l.StopEagerHighWatermark()
				seqs := map[int64]int32{}
				epochs := map[int64]int16{}
				for i := range 60 {
					pid := int64(i % 5)
					if i == 33 { // a bump halfway
						epochs[pid], seqs[pid] = 1, 0
					}
					n := 1 + i%4
					if _, err := l.AppendAsLeader(idBatch(t, pid, epochs[pid], seqs[pid], n, int64(i)), 1); err != nil {
						t.Fatal(err)
					}
					seqs[pid] += int32(n)
					if i%6 == 0 {
						plainAppend(t, l, 1, int64(i))
					}
					if i == 20 {
						if err := l.Flush(); err != nil {
							t.Fatal(err)
						}
					}
				}
				if !withSnapshots {
					for _, s := range append([]uint64(nil), l.snapshots...) {
						if err := l.removeSnapshot(s); err != nil {
							t.Fatal(err)
						}
					}
				}
				return l
			}
			l := build()
			leo := l.EndOffset()
			if len(l.segments) < 4 {
				t.Fatalf("only %d segments", len(l.segments))
			}
			for off := leo; off > 0; off -= 1 + off/9 {
				if err := l.TruncateTo(off); err != nil {
					t.Fatalf("TruncateTo(%d): %v", off, err)
				}
				checkProducersMatchLog(t, l, fmt.Sprintf("after TruncateTo(%d)", off))
				for _, s := range l.snapshots {
					if s > l.EndOffset() {
						t.Fatalf("a snapshot at %d survived a truncation to %d", s, l.EndOffset())
					}
				}
			}
			// The state keeps taking appends at the right sequences.
			for pid := range int64(5) {
				next := int32(0)
				if p, ok := l.Producer(pid); ok {
					next = p.Batches[len(p.Batches)-1].LastSeq + 1
				}
				epoch := int16(0)
				if p, ok := l.Producer(pid); ok {
					epoch = p.Epoch
				}
				if _, err := l.AppendAsLeader(idBatch(t, pid, epoch, next, 1, 1000), 1); err != nil {
					t.Fatalf("producer %d after the truncations: %v", pid, err)
				}
			}
			if err := l.TruncateFullyAndStartAt(l.EndOffset() + 10); err != nil {
				t.Fatal(err)
			}
			if n := len(l.Producers()); n != 0 || len(l.snapshots) > 1 {
				t.Fatalf("after TruncateFullyAndStartAt: %d producers, snapshots %v", n, l.snapshots)
			}
		})
	}
}

// Expiry (Kafka's producer.id.expiration.ms) forgets producers whose last
// batch is that old, never one with a batch at or above the high
// watermark.
func TestRemoveExpiredProducers(t *testing.T) {
	l, _ := memLog(t, Options{ProducerIDExpirationMs: 1000})
	l.StopEagerHighWatermark()
	for _, p := range []struct{ pid, ts int64 }{{1, 100}, {2, 500}, {3, 100}} {
		if _, err := l.AppendAsLeader(idBatch(t, p.pid, 0, 0, 1, p.ts), 1); err != nil {
			t.Fatal(err)
		}
	}
	// Producer 3's batch is the last one: keep the HW below it.
	p3, _ := l.Producer(3)
	if err := l.SetHighWatermark(p3.Batches[0].LastOffset); err != nil {
		t.Fatal(err)
	}
	if n, err := l.RemoveExpiredProducers(1099); err != nil || n != 0 {
		t.Fatalf("at 1099: removed %d, %v; nothing is 1000 ms old yet", n, err)
	}
	n, err := l.RemoveExpiredProducers(1100)
	if err != nil || n != 1 {
		t.Fatalf("at 1100: removed %d, %v; want producer 1 (exactly 1000 ms old)", n, err)
	}
	if _, ok := l.Producer(1); ok {
		t.Fatal("producer 1 kept")
	}
	if _, ok := l.Producer(3); !ok {
		t.Fatal("producer 3 expired with a batch above the high watermark")
	}
	if err := l.SetHighWatermark(l.EndOffset()); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.RemoveExpiredProducers(1500); n != 2 {
		t.Fatalf("at 1500 with everything committed: removed %d, want 2", n)
	}
	// An expired producer is unknown again: it may start anywhere.
	if _, err := l.AppendAsLeader(idBatch(t, 1, 0, 77, 1, 2000), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "x"), Options{ProducerIDExpirationMs: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("negative expiration: %v", err)
	}
}

// A known producer's append allocates nothing, as a plain one does.
func TestIdempotentAppendDoesNotAllocate(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 64 << 20})
	batch := idBatch(t, 9, 0, 0, 10, 1)
	seq := int32(0)
	step := func() {
		SetBaseOffset(batch, 0)
		binaryPutSeq(batch, seq)
		if _, err := l.AppendAsLeader(batch, 1); err != nil {
			t.Fatal(err)
		}
		seq += 10
	}
	step()
	if a := testing.AllocsPerRun(200, step); a != 0 {
		t.Fatalf("%v allocations per idempotent append, want 0", a)
	}
}

// binaryPutSeq rewrites a batch's base sequence and its CRC, as a producer
// building its next batch would.
func binaryPutSeq(batch []byte, seq int32) {
	batch[posBaseSequence] = byte(seq >> 24)
	batch[posBaseSequence+1] = byte(seq >> 16)
	batch[posBaseSequence+2] = byte(seq >> 8)
	batch[posBaseSequence+3] = byte(seq)
	size := BatchLogOverhead + int(uint32(batch[posBatchLength])<<24|uint32(batch[posBatchLength+1])<<16|uint32(batch[posBatchLength+2])<<8|uint32(batch[posBatchLength+3]))
	crc := ChecksumCRC32C(batch[posAttributes:size])
	batch[posCRC], batch[posCRC+1], batch[posCRC+2], batch[posCRC+3] = byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc)
}

// Rebuilding from batch headers reads only the headers of large batches,
// and gets the same state as from small ones.
func TestProducerRebuildOverLargeBatches(t *testing.T) {
	l, _ := memLog(t, Options{SegmentBytes: 200 << 10})
	seqs := map[int64]int32{}
	for i := range 40 {
		pid := int64(i % 3)
		recs := stRecords(2, 9000, nil)
		b := Batch{BaseTimestamp: int64(i), MaxTimestamp: int64(i) + 1, ProducerID: pid, ProducerEpoch: 0, BaseSequence: seqs[pid], Records: recs}
		batch, err := AppendBatch(nil, &b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.AppendAsLeader(batch, 1); err != nil {
			t.Fatal(err)
		}
		seqs[pid] += 2
		if i%5 == 0 {
			plainAppend(t, l, 3, int64(i))
		}
	}
	for _, s := range append([]uint64(nil), l.snapshots...) {
		if err := l.removeSnapshot(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, off := range []uint64{l.EndOffset() - 1, l.EndOffset() / 2, 7, 1} {
		if err := l.TruncateTo(off); err != nil {
			t.Fatal(err)
		}
		checkProducersMatchLog(t, l, fmt.Sprintf("TruncateTo(%d) over large batches", off))
	}
}
