package log

import (
	"bytes"
	"errors"
	"math/rand/v2"
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
