package log

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestLogMatchesModel drives a Log with random operations (leader appends,
// truncation, HW moves, restarts, reads) and checks it against a model that
// is just a slice of batches: the plain meaning of the API.
func TestLogMatchesModel(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		dir := t.TempDir()
		opts := Options{SegmentBytes: int64(300 + rng.IntN(2000)), IndexIntervalBytes: 1 + rng.IntN(700)}
		l := stOpen(t, dir, opts)
		l.StopEagerHighWatermark()

		var model []stStored
		var hw uint64
		leo := func() uint64 {
			if len(model) == 0 {
				return 0
			}
			return model[len(model)-1].h.NextOffset()
		}
		for op := range 300 {
			switch r := rng.IntN(20); {
			case r < 9: // append as leader
				b := stBatch(t, 0, 1+rng.IntN(8), rng.IntN(120), int64(op))
				base, err := l.AppendAsLeader(b, int32(op))
				if err != nil || base.FirstOffset != leo() {
					t.Fatalf("seed %d op %d: append = %d, %v; want %d", seed, op, base.FirstOffset, err, leo())
				}
				model = append(model, stSplit(t, b)...)
			case r < 11: // truncate
				off := rng.Uint64N(leo() + 2)
				if err := l.TruncateTo(off); err != nil {
					t.Fatalf("seed %d op %d: TruncateTo(%d): %v", seed, op, off, err)
				}
				for len(model) > 0 && model[len(model)-1].h.LastOffset() >= off {
					model = model[:len(model)-1]
				}
				hw = min(hw, leo())
			case r < 14: // raise the HW
				hw += rng.Uint64N(leo() - hw + 1)
				if err := l.SetHighWatermark(hw); err != nil {
					t.Fatalf("seed %d op %d: SetHighWatermark(%d): %v", seed, op, hw, err)
				}
			case r < 15: // restart
				stClose(t, l)
				l = stOpen(t, dir, opts)
				l.StopEagerHighWatermark()
			default: // read
				from := rng.Uint64N(leo() + 1)
				maxBytes := rng.IntN(3000)
				iso := Isolation(rng.IntN(2))
				bound := leo()
				if iso == IsolationHighWatermark {
					bound = hw
				}
				got, err := l.Read(nil, from, maxBytes, iso)
				if err != nil {
					t.Fatalf("seed %d op %d: Read(%d): %v", seed, op, from, err)
				}
				if want := stNaiveRead(model, from, maxBytes, bound); !bytes.Equal(got, want) {
					t.Fatalf("seed %d op %d: Read(%d, %d, %v) = %v, want %v", seed, op, from, maxBytes, iso,
						stOffsets(stHeaders(t, got)), stOffsets(stHeaders(t, want)))
				}
			}
			if l.EndOffset() != leo() || l.HighWatermark() != hw || l.StartOffset() != 0 {
				t.Fatalf("seed %d op %d: LEO, HW, start = %d, %d, %d; model %d, %d, 0",
					seed, op, l.EndOffset(), l.HighWatermark(), l.StartOffset(), leo(), hw)
			}
		}
		if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, stJoin(model)) {
			t.Fatalf("seed %d: final contents differ", seed)
		}
	}
}
