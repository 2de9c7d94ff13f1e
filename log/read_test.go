package log

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// stStored is one batch as the log stores it.
type stStored struct {
	h     BatchHeader
	bytes []byte
}

// stSplit splits whole batches into stStored values.
func stSplit(t testing.TB, buf []byte) []stStored {
	t.Helper()
	var out []stStored
	for _, h := range stHeaders(t, buf) {
		out = append(out, stStored{h, buf[:h.Size()]})
		buf = buf[h.Size():]
	}
	return out
}

// stNaiveRead is the Read contract written as plainly as possible: start at
// the first batch ending at or after from, take batches whose last offset is
// below bound while they fit in maxBytes, but always the first; nothing at
// all when from is at or past the bound (as in Kafka, a consumer past the HW
// gets an empty answer even if the batch holding from began below it, and a
// batch the HW falls inside is held back whole).
func stNaiveRead(batches []stStored, from uint64, maxBytes int, bound uint64) []byte {
	var out []byte
	if from >= bound {
		return nil
	}
	for _, b := range batches {
		if b.h.LastOffset() < from {
			continue
		}
		if b.h.LastOffset() >= bound || (len(out) > 0 && len(out)+len(b.bytes) > maxBytes) {
			break
		}
		out = append(out, b.bytes...)
		if len(out) >= maxBytes {
			break
		}
	}
	return out
}

func TestReadMatchesNaiveOracle(t *testing.T) {
	seed := uint64(20260903)
	rng := rand.New(rand.NewPCG(seed, seed))
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 1500, IndexIntervalBytes: 300})
	l.StopEagerHighWatermark()
	for range 60 {
		if _, err := l.AppendAsLeader(stBatch(t, 0, 1+rng.IntN(6), rng.IntN(80), 1), 3); err != nil {
			t.Fatal(err)
		}
	}
	all := stReadAll(t, l, IsolationLogEnd)
	batches := stSplit(t, all)
	leo := l.EndOffset()
	if len(l.segments) < 5 {
		t.Fatalf("only %d segments; the test wants reads across segments", len(l.segments))
	}
	// A HW strictly inside a batch, the case where Read must stop short of
	// the batch holding from when from >= HW.
	hw := uint64(0)
	for _, b := range batches[len(batches)/2:] {
		if b.h.LastOffset() >= b.h.BaseOffset+2 {
			hw = b.h.BaseOffset + 1
			break
		}
	}
	if hw == 0 {
		t.Fatal("no batch with 3 records in the second half")
	}
	if err := l.SetHighWatermark(hw); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 0, 1<<16)
	for from := uint64(0); from <= leo; from++ {
		for _, maxBytes := range []int{-1, 0, 1, 61, 100, 400, 1000, 5000, 1 << 20} {
			for _, iso := range []Isolation{IsolationLogEnd, IsolationHighWatermark} {
				bound := leo
				if iso == IsolationHighWatermark {
					bound = hw
				}
				want := stNaiveRead(batches, from, maxBytes, bound)
				got, err := l.Read(dst[:0], from, maxBytes, iso)
				if err != nil {
					t.Fatalf("seed %d: Read(%d, %d, %v): %v", seed, from, maxBytes, iso, err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("seed %d: Read(%d, %d, %v) = %v, want %v", seed, from, maxBytes, iso,
						stOffsets(stHeaders(t, got)), stOffsets(stHeaders(t, want)))
				}
			}
		}
	}
}

func TestReadAppendsToDst(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{})
	stored := stAppendLeader(t, l, 2, 3, 10, 1)
	prefix := []byte("prefix")
	got, err := l.Read(bytes.Clone(prefix), 0, 1<<20, IsolationLogEnd)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append(prefix, stored...)) {
		t.Error("Read did not append to dst")
	}
}

func TestReadBounds(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{SegmentBytes: 300})
	one := stBatch(t, 0, 2, 60, 1)
	for range 5 {
		if _, err := l.AppendAsLeader(bytes.Clone(one), 1); err != nil {
			t.Fatal(err)
		}
	}
	l.StopEagerHighWatermark()
	stAppendLeader(t, l, 2, 2, 60, 1)
	if err := l.SetHighWatermark(11); err != nil { // inside batch 10-11
		t.Fatal(err)
	}
	if n, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1}, 0); err != nil || n == 0 {
		t.Fatalf("retention deleted %d, %v", n, err)
	}
	start, leo, hw := l.StartOffset(), l.EndOffset(), l.HighWatermark()
	if start != 10 || leo != 14 || hw != 11 {
		t.Fatalf("start, LEO, HW = %d, %d, %d", start, leo, hw)
	}
	for _, tc := range []struct {
		from    uint64
		iso     Isolation
		wantErr error
		empty   bool
	}{
		{start - 1, IsolationLogEnd, ErrOffsetOutOfRange, true},
		{leo + 1, IsolationLogEnd, ErrOffsetOutOfRange, true},
		{leo + 1, IsolationHighWatermark, ErrOffsetOutOfRange, true},
		{leo, IsolationLogEnd, nil, true},
		{hw, IsolationHighWatermark, nil, true},
		{hw + 1, IsolationHighWatermark, nil, true},
		{hw, IsolationLogEnd, nil, false},
		// The HW is inside the batch holding start: a consumer gets
		// nothing until the whole batch is committed.
		{start, IsolationHighWatermark, nil, true},
	} {
		got, err := l.Read(nil, tc.from, 1000, tc.iso)
		if !errors.Is(err, tc.wantErr) || (len(got) == 0) != tc.empty {
			t.Errorf("Read(from %d, %v) = %d bytes, %v; want empty=%v, err %v", tc.from, tc.iso, len(got), err, tc.empty, tc.wantErr)
		}
	}
	if _, err := l.Read(nil, start, 10, Isolation(7)); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("unknown isolation: %v, want ErrInvalidArgument", err)
	}
}

func TestReadDoesNotAllocate(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 4096, IndexIntervalBytes: 512})
	stAppendLeader(t, l, 50, 10, 30, 1)
	dst := make([]byte, 0, 1<<20)
	leo := l.EndOffset()
	from := uint64(0)
	allocs := testing.AllocsPerRun(200, func() {
		out, err := l.Read(dst[:0], from, 3000, IsolationHighWatermark)
		if err != nil || len(out) == 0 {
			t.Fatalf("Read(%d): %d bytes, %v", from, len(out), err)
		}
		from = (from + 7) % leo
	})
	if allocs != 0 {
		t.Errorf("Read allocates %.1f times per call, want 0", allocs)
	}
}

// Tests: reads at the edges (inside a batch, at segment boundaries,
// after retention, tiny or negative budgets, the HW on and inside a batch)
// and reads racing with truncation and retention.

// rvCheckConsumerRead fails unless out is whole verified batches with
// consecutive offsets, the first holding from (or, after compaction, the
// first after it), and every record in them below hw: a consumer must never
// see an uncommitted offset, not even one sharing a batch with committed
// ones.
func rvCheckConsumerRead(t *testing.T, out []byte, from, hw uint64) {
	t.Helper()
	var next uint64
	for i, h := range stHeaders(t, out) {
		if i == 0 && h.LastOffset() < from {
			t.Fatalf("first batch %d-%d ends before from %d", h.BaseOffset, h.LastOffset(), from)
		}
		if i > 0 && h.BaseOffset != next {
			t.Fatalf("batch %d starts at %d, want %d", i, h.BaseOffset, next)
		}
		if h.LastOffset() >= hw {
			t.Fatalf("consumer read returned batch %d-%d with offsets at or above HW %d", h.BaseOffset, h.LastOffset(), hw)
		}
		next = h.NextOffset()
	}
}

// TestHighWatermarkInsideBatch puts the HW on every offset of a log of
// multi-record batches, including inside a batch, and reads with
// IsolationHighWatermark from every offset below it.
func TestHighWatermarkInsideBatch(t *testing.T) {
	dir := t.TempDir()
	l := stOpen(t, dir, Options{SegmentBytes: 400, IndexIntervalBytes: 100})
	l.StopEagerHighWatermark()
	for i := range 12 {
		if _, err := l.AppendAsLeader(stBatch(t, 0, 1+i%4, 20, int64(i)), 1); err != nil {
			t.Fatal(err)
		}
	}
	leo := l.EndOffset()
	for hw := uint64(0); hw <= leo; hw++ {
		if err := l.SetHighWatermark(hw); err != nil {
			t.Fatal(err)
		}
		for from := uint64(0); from <= leo; from++ {
			for _, maxBytes := range []int{-1, 0, 61, 1 << 20} {
				out, err := l.Read(nil, from, maxBytes, IsolationHighWatermark)
				if err != nil {
					t.Fatalf("HW %d: Read(%d, %d): %v", hw, from, maxBytes, err)
				}
				rvCheckConsumerRead(t, out, from, hw)
			}
		}
	}
}

// TestHighWatermarkAtBatchBoundary checks the other half: with the HW
// exactly at a batch boundary, a consumer gets every batch below it.
func TestHighWatermarkAtBatchBoundary(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 300, IndexIntervalBytes: 64})
	l.StopEagerHighWatermark()
	var ends []uint64
	var stored [][]byte
	for i := range 10 {
		b := stBatch(t, 0, 1+i%3, 30, int64(i))
		if _, err := l.AppendAsLeader(b, 1); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, l.EndOffset())
		stored = append(stored, b)
	}
	for i, hw := range ends {
		if err := l.SetHighWatermark(hw); err != nil {
			t.Fatal(err)
		}
		out, err := l.Read(nil, 0, 1<<20, IsolationHighWatermark)
		if err != nil {
			t.Fatal(err)
		}
		if want := bytes.Join(stored[:i+1], nil); !bytes.Equal(out, want) {
			t.Errorf("HW %d at a boundary: read %v, want %v", hw, stOffsets(stHeaders(t, out)), stOffsets(stHeaders(t, want)))
		}
	}
}

// TestReadEdges reads from inside a batch, at a segment boundary,
// after retention raised StartOffset, and with budgets of 0, negative, and
// smaller than one batch.
func TestReadEdges(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 500, IndexIntervalBytes: 90})
	var batches []stStored
	for i := range 20 {
		b := stBatch(t, 0, 3, 25, int64(i))
		if _, err := l.AppendAsLeader(b, 1); err != nil {
			t.Fatal(err)
		}
		batches = append(batches, stSplit(t, b)...)
	}
	if len(l.segments) < 4 {
		t.Fatalf("%d segments, want several", len(l.segments))
	}
	holding := func(off uint64) int {
		for i, b := range batches {
			if b.h.LastOffset() >= off {
				return i
			}
		}
		return -1
	}
	check := func(from uint64, maxBytes int) {
		t.Helper()
		out, err := l.Read(nil, from, maxBytes, IsolationLogEnd)
		if err != nil {
			t.Fatalf("Read(%d, %d): %v", from, maxBytes, err)
		}
		i := holding(from)
		if i < 0 {
			if len(out) != 0 {
				t.Fatalf("Read(%d) at LEO returned %d bytes", from, len(out))
			}
			return
		}
		hs := stHeaders(t, out)
		if len(hs) == 0 || hs[0].BaseOffset != batches[i].h.BaseOffset {
			t.Fatalf("Read(%d, %d) = %v; want it to start with the batch %d-%d", from, maxBytes, stOffsets(hs), batches[i].h.BaseOffset, batches[i].h.LastOffset())
		}
		if maxBytes < len(batches[i].bytes) && len(hs) != 1 {
			t.Fatalf("Read(%d, %d) returned %d batches over a budget smaller than one", from, maxBytes, len(hs))
		}
		if len(out) > max(maxBytes, len(batches[i].bytes)) {
			t.Fatalf("Read(%d, %d) returned %d bytes", from, maxBytes, len(out))
		}
		want := stNaiveRead(batches, from, maxBytes, l.EndOffset())
		if !bytes.Equal(out, want) {
			t.Fatalf("Read(%d, %d) = %v, want %v", from, maxBytes, stOffsets(hs), stOffsets(stHeaders(t, want)))
		}
	}
	var bases []uint64
	for _, s := range l.segments {
		bases = append(bases, s.base)
	}
	for _, from := range []uint64{0, 1, 2, 3, 4, 5} {
		for _, mb := range []int{-5, 0, 1, 60, 61, 62, 200, 1 << 20} {
			check(from, mb)
		}
	}
	for _, base := range bases[1:] { // segment boundaries
		for _, from := range []uint64{base - 1, base, base + 1} {
			for _, mb := range []int{0, 100, 1 << 20} {
				check(from, mb)
			}
		}
	}
	check(l.EndOffset(), 100)

	if n, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1}, 0); err != nil || n == 0 {
		t.Fatalf("retention: %d, %v", n, err)
	}
	start := l.StartOffset()
	if start != bases[len(bases)-1] {
		t.Fatalf("StartOffset = %d, want %d", start, bases[len(bases)-1])
	}
	if _, err := l.Read(nil, start-1, 100, IsolationLogEnd); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("Read below StartOffset: %v, want ErrOffsetOutOfRange", err)
	}
	if _, err := l.Read(nil, 0, 100, IsolationHighWatermark); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("Read(0) after retention: %v, want ErrOffsetOutOfRange", err)
	}
	for from := start; from <= l.EndOffset(); from++ {
		check(from, 0)
		check(from, 1<<20)
	}
}

// TestReadsRaceTruncateAndRetention runs readers against a writer
// that appends, truncates (also across segment boundaries and to exactly a
// segment base), raises the HW and deletes old segments. Readers must see
// only whole verified batches with consecutive offsets, starting with the
// one holding from, or ErrOffsetOutOfRange. Run with -race.
func TestReadsRaceTruncateAndRetention(t *testing.T) {
	const seed = 7
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 2048, IndexIntervalBytes: 200})
	l.StopEagerHighWatermark()
	rng := rand.New(rand.NewPCG(seed, 0))
	inputs := make([][]byte, 600)
	for i := range inputs {
		inputs[i] = stBatch(t, 0, 1+rng.IntN(6), rng.IntN(60), int64(i))
	}

	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer done.Store(true)
		wrng := rand.New(rand.NewPCG(seed, 1))
		for i, in := range inputs {
			if _, err := l.AppendAsLeader(in, 1); err != nil {
				t.Errorf("seed %d: append %d: %v", seed, i, err)
				return
			}
			switch wrng.IntN(10) {
			case 0: // truncate somewhere above the HW
				hw, leo := l.HighWatermark(), l.EndOffset()
				if err := l.TruncateTo(hw + wrng.Uint64N(leo-hw+1)); err != nil {
					t.Errorf("seed %d: TruncateTo: %v", seed, err)
					return
				}
			case 1: // truncate to exactly the active segment's base, if above the HW
				l.mu.RLock()
				base := l.active().base
				l.mu.RUnlock()
				if base >= l.HighWatermark() {
					if err := l.TruncateTo(base); err != nil {
						t.Errorf("seed %d: TruncateTo(base %d): %v", seed, base, err)
						return
					}
				}
			case 2:
				if _, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 6 << 10}, 0); err != nil {
					t.Errorf("seed %d: retention: %v", seed, err)
					return
				}
			default:
				hw, leo := l.HighWatermark(), l.EndOffset()
				if err := l.SetHighWatermark(hw + wrng.Uint64N(leo-hw+1)); err != nil {
					t.Errorf("seed %d: SetHighWatermark: %v", seed, err)
					return
				}
			}
			if s, hw, e := l.StartOffset(), l.HighWatermark(), l.EndOffset(); s > hw || hw > e {
				t.Errorf("seed %d: start %d, HW %d, LEO %d", seed, s, hw, e)
				return
			}
		}
	}()
	var reads atomic.Int64
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rrng := rand.New(rand.NewPCG(seed, uint64(10+r)))
			dst := make([]byte, 0, 16<<10)
			for !done.Load() || rrng.IntN(4) != 0 {
				from := l.StartOffset() + rrng.Uint64N(l.EndOffset()-l.StartOffset()+2)
				iso := Isolation(rrng.IntN(2))
				out, err := l.Read(dst[:0], from, rrng.IntN(8<<10)-100, iso)
				if errors.Is(err, ErrOffsetOutOfRange) {
					continue // from fell outside a log that moved under us
				}
				if err != nil {
					t.Errorf("seed %d reader %d: Read(%d): %v", seed, r, from, err)
					return
				}
				reads.Add(1)
				if len(out) > 0 && !stCheckRead(t, out, from, ^uint64(0)) {
					t.Errorf("seed %d reader %d: bad Read(%d)", seed, r, from)
					return
				}
			}
		}()
	}
	wg.Wait()
	if reads.Load() == 0 {
		t.Error("no reads ran")
	}
}

// rvHeaderOnlyBatch is a follower-style batch at base with no records: the
// smallest legal batch, exactly BatchHeaderSize bytes.
func rvHeaderOnlyBatch(base uint64) []byte {
	b := make([]byte, BatchHeaderSize)
	binary.BigEndian.PutUint64(b[0:8], base)
	binary.BigEndian.PutUint32(b[8:12], BatchHeaderSize-BatchLogOverhead)
	b[16] = Magic
	binary.BigEndian.PutUint64(b[43:51], ^uint64(0)) // producerId -1
	binary.BigEndian.PutUint16(b[51:53], 0xffff)     // producerEpoch -1
	binary.BigEndian.PutUint32(b[53:57], 0xffffffff) // baseSequence -1
	binary.BigEndian.PutUint32(b[17:21], ChecksumCRC32C(b[21:]))
	return b
}

// TestReadHugeNegativeBudget: maxBytes is a budget, and no negative
// value, however large, may wrap around into an unlimited read when the
// first batch fills its segment exactly.
func TestReadHugeNegativeBudget(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 1})
	for off := range uint64(5) {
		if _, err := l.AppendAsFollower(rvHeaderOnlyBatch(off)); err != nil {
			t.Fatal(err)
		}
	}
	for _, maxBytes := range []int{math.MinInt, math.MinInt + 1, math.MinInt32, -1, 0} {
		out, err := l.Read(nil, 0, maxBytes, IsolationLogEnd)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != BatchHeaderSize {
			t.Errorf("Read(0, maxBytes %d) = %v; want the first batch only", maxBytes, stOffsets(stHeaders(t, out)))
		}
	}
}
