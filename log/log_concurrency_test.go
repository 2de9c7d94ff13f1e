package log

import (
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentReadersAndOneWriter runs one appending goroutine against
// several readers. Every read must return whole batches that verify, with
// consecutive offsets, starting with the batch that holds the requested
// offset and never past the bound of its isolation. Run it with -race.
func TestConcurrentReadersAndOneWriter(t *testing.T) {
	t.Run("append", func(t *testing.T) { stConcurrent(t, false) })
	// The writer also deletes old segments under the readers' feet; a read
	// below the (rising) start offset may then fail, but only that way.
	t.Run("append and retention", func(t *testing.T) { stConcurrent(t, true) })
}

func stConcurrent(t *testing.T, retention bool) {
	const (
		seed    = 42
		appends = 400
		readers = 4
	)
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 8 << 10, IndexIntervalBytes: 256})
	l.StopEagerHighWatermark()

	// Pre-encode the writer's batches so the goroutine only appends.
	rng := rand.New(rand.NewPCG(seed, 0))
	inputs := make([][]byte, appends)
	for i := range inputs {
		inputs[i] = stBatch(t, 0, 1+rng.IntN(20), rng.IntN(100), int64(i))
	}

	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer done.Store(true)
		wrng := rand.New(rand.NewPCG(seed, 1))
		for i, in := range inputs {
			if _, err := l.AppendAsLeader(in, int32(i/100)); err != nil {
				t.Errorf("seed %d: append %d: %v", seed, i, err)
				return
			}
			hw, leo := l.HighWatermark(), l.EndOffset()
			if err := l.SetHighWatermark(hw + wrng.Uint64N(leo-hw+1)); err != nil {
				t.Errorf("seed %d: SetHighWatermark: %v", seed, err)
				return
			}
			if retention && i%25 == 24 {
				if _, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 16 << 10}, 0); err != nil {
					t.Errorf("seed %d: retention: %v", seed, err)
					return
				}
			}
		}
	}()

	var reads atomic.Int64
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rrng := rand.New(rand.NewPCG(seed, uint64(10+r)))
			dst := make([]byte, 0, 64<<10)
			follow := uint64(0) // a follower-style cursor
			for !done.Load() || rrng.IntN(4) != 0 {
				iso := Isolation(rrng.IntN(2))
				from := follow
				if rrng.IntN(2) == 0 {
					from = rrng.Uint64N(l.EndOffset() + 1)
				}
				maxBytes := rrng.IntN(20 << 10)
				out, err := l.Read(dst[:0], from, maxBytes, iso)
				if retention && errors.Is(err, ErrOffsetOutOfRange) && from < l.StartOffset() {
					follow = l.StartOffset()
					continue
				}
				if err != nil {
					t.Errorf("seed %d reader %d: Read(%d): %v", seed, r, from, err)
					return
				}
				reads.Add(1)
				bound := l.EndOffset()
				if iso == IsolationHighWatermark {
					bound = l.HighWatermark() // only grows: a valid upper bound now
				}
				if !stCheckRead(t, out, from, bound) {
					t.Errorf("seed %d reader %d: bad Read(%d, %d, %v)", seed, r, from, maxBytes, iso)
					return
				}
				if from == follow && len(out) > 0 {
					hs := stHeaders(t, out)
					follow = hs[len(hs)-1].NextOffset()
				}
			}
		}()
	}
	wg.Wait()
	if reads.Load() < readers {
		t.Errorf("only %d reads ran", reads.Load())
	}
	all := stHeaders(t, stReadAll(t, l, IsolationLogEnd))
	if retention {
		if l.StartOffset() == 0 || all[0].BaseOffset != l.StartOffset() {
			t.Errorf("retention did not run: start %d", l.StartOffset())
		}
	} else if len(all) != appends {
		t.Errorf("read back %d batches, want %d", len(all), appends)
	}
}

// stCheckRead reports (with t.Errorf) whether out is whole valid batches
// with consecutive offsets, the first holding from, all below bound.
func stCheckRead(t *testing.T, out []byte, from, bound uint64) bool {
	next := uint64(0)
	for pos, i := 0, 0; pos < len(out); i++ {
		h, err := VerifyBatch(out[pos:])
		if err != nil {
			t.Errorf("batch %d at byte %d: %v", i, pos, err)
			return false
		}
		if i == 0 && (h.BaseOffset > from || h.LastOffset() < from) {
			t.Errorf("first batch %d-%d does not hold %d", h.BaseOffset, h.LastOffset(), from)
			return false
		}
		if i > 0 && h.BaseOffset != next {
			t.Errorf("batch %d starts at %d, want %d", i, h.BaseOffset, next)
			return false
		}
		if h.BaseOffset >= bound {
			t.Errorf("batch %d at offset %d is at or past the bound %d", i, h.BaseOffset, bound)
			return false
		}
		next = h.NextOffset()
		pos += h.Size()
	}
	return true
}

// TestHighWatermarkRacesTheWriter: SetHighWatermark and
// CheckpointHighWatermark (which take no writer lock) run against a writer
// that appends, truncates, moves the log start and closes: no data race
// (run with -race), and StartOffset <= HW <= LEO holds throughout.
func TestHighWatermarkRacesTheWriter(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{SegmentBytes: 400})
	l.StopEagerHighWatermark()
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			l.SetHighWatermark(l.EndOffset())
			l.CheckpointHighWatermark()
			if s, hw, e := l.StartOffset(), l.HighWatermark(), l.EndOffset(); s > hw || hw > e {
				t.Errorf("start %d, HW %d, LEO %d", s, hw, e)
				return
			}
		}
	}()
	for i := range 200 {
		stAppendLeader(t, l, 1, 2, 20, int64(i))
		switch i % 10 {
		case 3:
			if err := l.TruncateTo(l.EndOffset() - 1); err != nil {
				t.Error(err)
			}
		case 7:
			if err := l.IncrementStartOffset(l.HighWatermark() / 2); err != nil && !errors.Is(err, ErrOffsetOutOfRange) {
				t.Error(err)
			}
		}
	}
	done.Store(true)
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}
