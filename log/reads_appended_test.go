package log

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// A leader may send a follower the bytes of an append instead of reading
// them back (ReadsAppended) only when Read would return exactly those
// bytes: the log was only appended to since, the read starts where they
// do, and it would stop where they end.

// TestReadsAppendedOnlyWhatReadReturns drives a log with random leader
// appends (one to three batches each), truncations, retention and new log
// starts, and asks ReadsAppended about every append still remembered, from
// its first offset and elsewhere, with random budgets: each yes must be
// exactly what Read returns, and an append of a single batch at the log end
// must be a yes.
func TestReadsAppendedOnlyWhatReadReturns(t *testing.T) {
	type appended struct {
		bytes []byte
		first uint64
		gen   uint64
	}
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		opts := Options{SegmentBytes: int64(400 + rng.IntN(3000)), IndexIntervalBytes: 1 + rng.IntN(500)}
		l := stOpen(t, t.TempDir(), opts)
		var kept []appended
		yes := 0
		for op := range 300 {
			switch r := rng.IntN(20); {
			case r < 12:
				n := 1 + rng.IntN(3)
				var in []byte
				for range n {
					in = append(in, stBatch(t, 0, 1+rng.IntN(6), rng.IntN(150), int64(op))...)
				}
				info, err := l.AppendAsLeader(in, 2)
				if err != nil {
					t.Fatalf("seed %d op %d: append: %v", seed, op, err)
				}
				a := appended{bytes: in, first: info.FirstOffset, gen: l.Generation()}
				if n == 1 && !l.ReadsAppended(a.bytes, a.gen, a.first, rng.IntN(len(in)+1)) {
					t.Fatalf("seed %d op %d: the single batch just appended is not what a read returns", seed, op)
				}
				kept = append(kept, a)
			case r < 14:
				if leo := l.EndOffset(); leo > l.StartOffset() {
					if err := l.TruncateTo(l.StartOffset() + rng.Uint64N(leo-l.StartOffset()+1)); err != nil {
						t.Fatalf("seed %d op %d: truncate: %v", seed, op, err)
					}
				}
			case r < 15:
				if err := l.SetHighWatermark(l.EndOffset()); err != nil {
					t.Fatal(err)
				}
				if _, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: int64(rng.IntN(2000))}, 0); err != nil {
					t.Fatalf("seed %d op %d: retention: %v", seed, op, err)
				}
			case r < 16:
				if hw := l.HighWatermark(); hw > l.StartOffset() {
					if err := l.IncrementStartOffset(l.StartOffset() + rng.Uint64N(hw-l.StartOffset()+1)); err != nil {
						t.Fatalf("seed %d op %d: start: %v", seed, op, err)
					}
				}
			}
			for _, a := range kept[max(0, len(kept)-6):] {
				from := a.first
				if rng.IntN(4) == 0 {
					from += uint64(rng.IntN(3)) - 1
				}
				maxBytes := rng.IntN(2*len(a.bytes)+200) - 10
				if !l.ReadsAppended(a.bytes, a.gen, from, maxBytes) {
					continue
				}
				yes++
				got, err := l.Read(nil, from, maxBytes, IsolationLogEnd)
				if err != nil || !bytes.Equal(got, a.bytes) {
					t.Fatalf("seed %d op %d: ReadsAppended(%d bytes from %d, max %d) but Read returned %d bytes, %v",
						seed, op, len(a.bytes), from, maxBytes, len(got), err)
				}
			}
		}
		if yes == 0 {
			t.Fatalf("seed %d: ReadsAppended never said yes", seed)
		}
	}
}

// TestReadsAppendedAfterChanges: each change of the log other than an
// append gives it a new generation, and the bytes of an append made before
// are then read again, never sent.
func TestReadsAppendedAfterChanges(t *testing.T) {
	setup := func(t *testing.T, fsys vfs.FS) (*Log, []byte, uint64) {
		l, err := Open(t.TempDir(), Options{FS: fsys, SegmentBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() }) // a failed log's Close fails too
		stAppendLeader(t, l, 3, 4, 50, 1)
		b := stBatch(t, 0, 4, 50, 1)
		info, err := l.AppendAsLeader(b, 7)
		if err != nil {
			t.Fatal(err)
		}
		if !l.ReadsAppended(b, l.Generation(), info.FirstOffset, 1<<20) {
			t.Fatal("the last append, at the log end, is not what a read returns")
		}
		return l, b, info.FirstOffset
	}
	for _, c := range []struct {
		name   string
		change func(l *Log) error
	}{
		{"truncation to the log end", func(l *Log) error { return l.TruncateTo(l.EndOffset()) }},
		{"truncation below", func(l *Log) error { return l.TruncateTo(l.EndOffset() - 2) }},
		{"retention", func(l *Log) error {
			_, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1 << 30}, 0)
			return err
		}},
		{"compaction", func(l *Log) error { _, err := l.Compact(); return err }},
		{"close", func(l *Log) error { return l.Close() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, b, first := setup(t, vfs.OS())
			gen := l.Generation()
			if err := c.change(l); err != nil {
				t.Fatal(err)
			}
			if l.Generation() == gen || l.ReadsAppended(b, gen, first, 1<<20) {
				t.Fatalf("after %s: generation %d (was %d), the append's bytes are still sent", c.name, l.Generation(), gen)
			}
		})
	}
	t.Run("failed append after it", func(t *testing.T) {
		fsys := vfs.Faulty(vfs.OS())
		l, b, first := setup(t, fsys)
		gen := l.Generation()
		fsys.FailFrom(vfs.OpWrite, fsys.Calls(vfs.OpWrite)+1, errors.New("disk full"))
		if _, err := l.AppendAsLeader(stBatch(t, 0, 2, 10, 1), 7); err == nil {
			t.Fatal("append on a failing disk succeeded")
		}
		if l.ReadsAppended(b, gen, first, 1<<20) {
			t.Fatal("a failed log's bytes are sent")
		}
	})
	t.Run("appends keep the generation", func(t *testing.T) {
		l, b, first := setup(t, vfs.OS())
		gen := l.Generation()
		next := stBatch(t, 0, 4, 50, 1)
		if _, err := l.AppendAsLeader(next, 7); err != nil {
			t.Fatal(err)
		}
		if l.Generation() != gen {
			t.Fatal("an append changed the generation")
		}
		// A read with room for the next batch returns it too; one without
		// room stops where b ends.
		if l.ReadsAppended(b, gen, first, len(b)+len(next)) {
			t.Fatal("ReadsAppended although a read returns the next batch too")
		}
		if !l.ReadsAppended(b, gen, first, len(b)+len(next)-1) {
			t.Fatal("ReadsAppended refused although a read stops where the append ends")
		}
	})
	t.Run("another log", func(t *testing.T) {
		l, b, first := setup(t, vfs.OS())
		other, _, _ := setup(t, vfs.OS())
		if other.Generation() == l.Generation() || other.ReadsAppended(b, l.Generation(), first, 1<<20) {
			t.Fatal("two logs share a generation")
		}
	})
}
