package log

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// The recovery point is a promise (doc.go, "Durability"): after a power
// cut, Open keeps every batch below it as it was, and the producer state
// of every producer whose last batch lies below it. This drives a seeded
// mix of appends, FlushRolled, Flush, truncation, retention,
// IncrementStartOffset and compaction, cuts the power at random points
// (LoseUnsynced or TornUnsynced) and holds Open to that promise.
func TestRecoveryPointHoldsAcrossPowerCutsWithFlushRolled(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { powerCutWorkload(t, seed, false) })
	}
}

// The same with FlushRolled running on its own goroutine, as the host's
// flush goroutine runs it, beside every other operation (run with -race).
func TestRecoveryPointHoldsWithConcurrentFlushRolled(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { powerCutWorkload(t, seed, true) })
	}
}

// flushRolledLoop calls FlushRolled on l until stop is closed; the first
// error other than ErrClosed goes to errs.
func flushRolledLoop(l *Log, stop <-chan struct{}, done chan<- error) {
	for {
		select {
		case <-stop:
			done <- nil
			return
		default:
		}
		if err := l.FlushRolled(); err != nil && !errors.Is(err, ErrClosed) {
			done <- err
			return
		}
		runtime.Gosched()
	}
}

func powerCutWorkload(t *testing.T, seed uint64, concurrent bool) {
	{
		rng := rand.New(rand.NewPCG(seed, 77))
		mem := vfs.NewMem()
		opts := Options{FS: mem, SegmentBytes: 700}
		l := stOpen(t, rollDir, opts)
		var trace []string
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("seed %d: ops:\n%s", seed, strings.Join(trace, "\n"))
			}
		})
		for round := range 6 {
			var stop chan struct{}
			var done chan error
			if concurrent {
				stop, done = make(chan struct{}), make(chan error, 1)
				go flushRolledLoop(l, stop, done)
			}
			nops := 5 + rng.IntN(30)
			for op := range nops {
				var err error
				var what string
				switch k := rng.IntN(20); {
				case k < 10:
					pWorkload(t, l, 4, 1+rng.IntN(4), rng)
					trace = append(trace, fmt.Sprintf("append: LEO %d segments %v", l.EndOffset(), l.segmentBases()))
					continue
				case k < 13:
					what, err = "FlushRolled", l.FlushRolled()
				case k < 14:
					what, err = "Flush", l.Flush()
				case k < 16:
					lo, hi := l.StartOffset(), l.EndOffset()
					off := lo + uint64(rng.Int64N(int64(hi-lo)+1))
					what, err = "TruncateTo", l.TruncateTo(off)
				case k < 17:
					_, err = l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1 + rng.Int64N(2000)}, 0)
					what = "DeleteRetainedSegments"
				case k < 19:
					lo, hw := l.StartOffset(), l.HighWatermark()
					if hw > lo {
						what, err = "IncrementStartOffset", l.IncrementStartOffset(lo+uint64(rng.Int64N(int64(hw-lo)+1)))
					}
				default:
					_, err = l.Compact()
					what = "Compact"
				}
				trace = append(trace, fmt.Sprintf("%s: %v: start %d LEO %d HW %d RP %d segments %v", what, err, l.StartOffset(), l.EndOffset(), l.HighWatermark(), l.RecoveryPoint(), l.segmentBases()))
				if err != nil && !errors.Is(err, ErrOffsetOutOfRange) {
					t.Fatalf("seed %d round %d op %d: %s: %v", seed, round, op, what, err)
				}
			}
			if concurrent {
				close(stop)
				if err := <-done; err != nil {
					t.Fatalf("seed %d round %d: concurrent FlushRolled: %v", seed, round, err)
				}
			}
			// What the recovery point promises now.
			rp := l.RecoveryPoint()
			want, err := l.Read(nil, l.StartOffset(), 1<<30, IsolationLogEnd)
			if err != nil {
				t.Fatalf("seed %d round %d: Read: %v", seed, round, err)
			}
			var promised []ProducerState
			for _, p := range l.Producers() {
				if p.Batches[len(p.Batches)-1].LastOffset < rp {
					promised = append(promised, p)
				}
			}
			l.Abandon()
			trace = append(trace, fmt.Sprintf("power cut, round %d", round))
			mode := vfs.LoseUnsynced
			if rng.IntN(2) == 0 {
				mode = vfs.TornUnsynced
			}
			mem.Crash(mode, seed*100+uint64(round))
			l, err = Open(rollDir, opts)
			if err != nil {
				t.Fatalf("seed %d round %d: Open after a power cut (%v) with the recovery point at %d: %v", seed, round, mode, rp, err)
			}
			if l.EndOffset() < rp {
				t.Fatalf("seed %d round %d: power cut (%v): log end %d below the recovery point %d\n%s", seed, round, mode, l.EndOffset(), rp, l.Recovery())
			}
			got, err := l.Read(nil, l.StartOffset(), 1<<30, IsolationLogEnd)
			if err != nil {
				t.Fatalf("seed %d round %d: Read after the cut: %v", seed, round, err)
			}
			if !prefixUpTo(t, got, want, rp) {
				t.Fatalf("seed %d round %d: power cut (%v): the batches below the recovery point %d changed\n%s", seed, round, mode, rp, l.Recovery())
			}
			for _, p := range promised {
				if q, ok := l.Producer(p.ProducerID); !ok || !reflect.DeepEqual(q, p) {
					t.Fatalf("seed %d round %d: power cut (%v): producer %d (last batch below the recovery point %d) is %+v (known %v), want %+v\n%s",
						seed, round, mode, p.ProducerID, rp, q, ok, p, l.Recovery())
				}
			}
		}
		l.Abandon()
	}
}

// IncrementStartOffset keeps the producer state (doc.go, "Producer
// state"), and a producer whose batches are below the recovery point is
// durable: after a truncation to 12, an append and the log start moved to
// 12, a power cut that takes only the unsynced tail must not forget it.
func TestIncrementStartOffsetKeepsDurableProducerAcrossPowerCut(t *testing.T) {
	for _, mode := range []vfs.CrashMode{vfs.KeepUnsynced, vfs.LoseUnsynced, vfs.TornUnsynced} {
		t.Run(mode.String(), func(t *testing.T) {
			mem := vfs.NewMem()
			opts := Options{FS: mem}
			l := stOpen(t, rollDir, opts)
			if _, err := l.AppendAsLeader(idBatch(t, 7, 0, 0, 4, 1000), 1); err != nil {
				t.Fatal(err)
			}
			plainAppend(t, l, 8, 2000) // offsets 4..11
			plainAppend(t, l, 8, 2000) // offsets 12..19
			if err := l.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := l.TruncateTo(12); err != nil {
				t.Fatal(err)
			}
			want, ok := l.Producer(7)
			if !ok || l.RecoveryPoint() != 12 {
				t.Fatalf("producer 7 known %v, recovery point %d", ok, l.RecoveryPoint())
			}
			plainAppend(t, l, 1, 3000) // offset 12, unsynced
			if err := l.IncrementStartOffset(12); err != nil {
				t.Fatal(err)
			}
			if got, ok := l.Producer(7); !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("IncrementStartOffset changed producer 7: %+v %v", got, ok)
			}
			l.Abandon()
			mem.Crash(mode, 1)
			l = stOpen(t, rollDir, opts)
			defer l.Abandon()
			if got, ok := l.Producer(7); !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("after a power cut (%v) producer 7 is %+v (known %v), want %+v\n%s", mode, got, ok, want, l.Recovery())
			}
		})
	}
}

// The same when IncrementStartOffset also deletes segments: the durable
// snapshot at the recovery point satisfies keepProducersPast (it is at or
// past the base of the segment holding the new start), but a power cut
// that takes the unsynced tail leaves the log start past the recovered log
// end, and recovery then deletes that snapshot as a leftover.
func TestIncrementStartOffsetPastRecoveryPointKeepsProducerAcrossPowerCut(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, SegmentBytes: 400}
	l := stOpen(t, rollDir, opts)
	if _, err := l.AppendAsLeader(idBatch(t, 7, 0, 0, 4, 1000), 1); err != nil {
		t.Fatal(err)
	}
	rollUntil(t, l, 3)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	rp := l.RecoveryPoint()
	want, ok := l.Producer(7)
	if !ok {
		t.Fatal("producer 7 unknown")
	}
	plainAppend(t, l, 3, 5000) // unsynced
	if err := l.IncrementStartOffset(l.EndOffset() - 1); err != nil {
		t.Fatal(err)
	}
	if got, ok := l.Producer(7); !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("IncrementStartOffset changed producer 7: %+v %v", got, ok)
	}
	start := l.StartOffset()
	l.Abandon()
	mem.Crash(vfs.LoseUnsynced, 1)
	l = stOpen(t, rollDir, opts)
	defer l.Abandon()
	if got, ok := l.Producer(7); !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("log start %d past the recovery point %d; after a power cut producer 7 is %+v (known %v), want %+v\n%s", start, rp, got, ok, want, l.Recovery())
	}
}
