package log

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// Retention keeps the producer state (doc.go, "Producer state": "Retention
// keeps the state, as Kafka does, until it expires"), and SyncNever
// survives a process crash. So a kill -9 after retention must not forget a
// producer whose batches retention deleted: a retry of its acknowledged
// batch must still be answered as a duplicate, not written a second time.
func TestRetentionKeepsProducerStateAcrossACrash(t *testing.T) {
	for _, mode := range []vfs.CrashMode{vfs.KeepUnsynced, vfs.LoseUnsynced} {
		t.Run(mode.String(), func(t *testing.T) {
			mem := vfs.NewMem()
			opts := Options{FS: mem, SegmentBytes: 400, Sync: SyncEveryAppend}
			l, err := Open(pdir, opts)
			if err != nil {
				t.Fatal(err)
			}
			// Producer 7 writes one batch, acknowledged (eager HW: committed).
			first := idBatch(t, 7, 0, 0, 1, 1000)
			info, err := l.AppendAsLeader(append([]byte(nil), first...), 1)
			if err != nil {
				t.Fatal(err)
			}
			// Plain appends roll segments past it.
			for i := range 20 {
				plainAppend(t, l, 2, int64(2000+i))
			}
			want, ok := l.Producer(7)
			if !ok {
				t.Fatal("producer 7 unknown before retention")
			}
			n, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1}, 0)
			if err != nil || n == 0 {
				t.Fatalf("retention deleted %d segments, %v", n, err)
			}
			if got, ok := l.Producer(7); !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("retention changed producer 7: %+v %v (as documented it keeps it)", got, ok)
			}
			// Under SyncEveryAppend every append is fsynced: this crash
			// loses nothing that was acknowledged.
			l.Abandon()
			mem.Crash(mode, 1)
			l = stOpen(t, pdir, opts)
			got, ok := l.Producer(7)
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("after a crash (%v) producer 7 is %+v (known %v), want %+v as before the crash\n%s", mode, got, ok, want, l.Recovery())
			}
			// The consequence: the producer's retry of its acknowledged batch.
			leo := l.EndOffset()
			again, err := l.AppendAsLeader(append([]byte(nil), first...), 1)
			if err != nil {
				t.Fatalf("retry: %v", err)
			}
			if !again.Duplicate {
				t.Errorf("the retry of producer 7's batch (first written at offset %d) was written again at offset %d (LEO %d -> %d): a duplicate appended twice after a restart",
					info.FirstOffset, again.FirstOffset, leo, l.EndOffset())
			}
		})
	}
}

// A kill -9 loses nothing under any SyncPolicy (KeepUnsynced), and a power
// cut loses nothing under SyncEveryAppend: in both cases the producer
// state after Open must be exactly the state before the crash, whatever
// appends, flushes, truncations and log-start moves came before. Seeded;
// the failing seed and op are printed.
var producerCrashes = flag.Int("producercrashes", 300, "crashes per variant TestProducerStateSurvivesACrashThatLosesNothing runs")

func TestProducerStateSurvivesACrashThatLosesNothing(t *testing.T) {
	for _, startMoves := range []bool{false, true} {
		t.Run(fmt.Sprintf("startMoves=%v", startMoves), func(t *testing.T) {
			for seed := range uint64(*producerCrashes) {
				if !pCrashLosesNothing(t, seed, startMoves) {
					t.Fatalf("seed %d failed", seed)
				}
			}
		})
	}
}

func pCrashLosesNothing(t *testing.T, seed uint64, startMoves bool) bool {
	rng := rand.New(rand.NewPCG(seed, 0x726576))
	mode := []vfs.CrashMode{vfs.KeepUnsynced, vfs.LoseUnsynced, vfs.TornUnsynced}[rng.IntN(3)]
	sync := SyncEveryAppend
	if mode == vfs.KeepUnsynced && rng.IntN(2) == 0 {
		sync = SyncNever
	}
	mem := vfs.NewMem()
	opts := Options{FS: mem, Sync: sync, SegmentBytes: int64(300 + rng.IntN(700))}
	what := fmt.Sprintf("seed %d (%v, %v, startMoves %v)", seed, sync, mode, startMoves)
	l, err := Open(pdir, opts)
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return false
	}
	var ops []string
	for op := 0; op < 60; op++ {
		switch r := rng.IntN(100); {
		case r < 60:
			pid := int64(rng.IntN(4))
			epoch, seq := int16(0), int32(0)
			p, known := l.Producer(pid)
			if known {
				epoch, seq = p.Epoch, incrementSequence(p.Batches[len(p.Batches)-1].LastSeq, 1)
			}
			n := 1 + rng.IntN(3)
			if known && rng.IntN(10) == 0 {
				epoch, seq = epoch+1, 0
			}
			_, err = l.AppendAsLeader(idBatch(t, pid, epoch, seq, n, int64(op)), 1)
			ops = append(ops, fmt.Sprintf("append p%d e%d s%d n%d", pid, epoch, seq, n))
		case r < 70:
			_, err = l.AppendAsLeader(stBatch(t, 0, 1+rng.IntN(2), 10, int64(op)), 1)
			ops = append(ops, "plain")
		case r < 78:
			err = l.Flush()
			ops = append(ops, "flush")
		case r < 83:
			err = l.CheckpointRecoveryPoint()
			ops = append(ops, "checkpoint")
		case r < 90:
			to := l.StartOffset() + rng.Uint64N(l.EndOffset()-l.StartOffset()+1)
			err = l.TruncateTo(to)
			ops = append(ops, fmt.Sprintf("truncate %d", to))
		case startMoves && r < 96:
			to := l.StartOffset() + rng.Uint64N(l.HighWatermark()-l.StartOffset()+1)
			err = l.IncrementStartOffset(to)
			ops = append(ops, fmt.Sprintf("start %d", to))
		default:
			if err = l.Close(); err == nil {
				l, err = Open(pdir, opts)
			}
			ops = append(ops, "restart")
		}
		if err != nil {
			t.Errorf("%s op %d (%s): %v", what, op, ops[len(ops)-1], err)
			return false
		}
	}
	want, wantEnd := l.Producers(), l.EndOffset()
	l.Abandon()
	mem.Crash(mode, seed)
	l2, err := Open(pdir, opts)
	if err != nil {
		t.Errorf("%s: Open after the crash: %v\nops %v", what, err, ops)
		return false
	}
	defer l2.Close()
	if l2.EndOffset() != wantEnd {
		t.Errorf("%s: log end %d after the crash, want %d", what, l2.EndOffset(), wantEnd)
		return false
	}
	if got := l2.Producers(); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: producer state after the crash\n got %+v\nwant %+v (before the crash)\nops %v\n%s", what, got, want, ops, l2.Recovery())
		return false
	}
	return true
}
