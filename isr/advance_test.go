package isr

import (
	"slices"
	"testing"
)

func TestAdvanceHW(t *testing.T) {
	tests := []struct {
		name      string
		leaderLEO uint64
		followers []ReplicaLEO
		isr       []int32
		minISR    int
		want      uint64
		wantOK    bool
	}{
		{"leader alone at min 1 follows its own LEO", 7, nil, []int32{1}, 1, 7, true},
		{"slowest ISR follower wins", 10, []ReplicaLEO{{ID: 2, LEO: 8}, {ID: 3, LEO: 6}}, []int32{1, 2, 3}, 2, 6, true},
		{"follower outside the ISR does not hold HW back", 10, []ReplicaLEO{{ID: 2, LEO: 8}, {ID: 3, LEO: 1}}, []int32{1, 2}, 2, 8, true},
		{"caught-up follower outside the ISR holds HW back", 10, []ReplicaLEO{{ID: 2, LEO: 8}, {ID: 3, LEO: 5, CaughtUp: true}}, []int32{1, 2}, 2, 5, true},
		{"caught-up follower outside the ISR holds a lone leader back", 7, []ReplicaLEO{{ID: 2, LEO: 6, CaughtUp: true}}, []int32{1}, 1, 6, true},
		{"caught-up follower does not lift the min ISR", 10, []ReplicaLEO{{ID: 2, LEO: 10, CaughtUp: true}}, []int32{1}, 2, 0, false},
		{"follower ahead of leader cannot raise HW", 4, []ReplicaLEO{{ID: 2, LEO: 9}}, []int32{1, 2}, 2, 4, true},
		{"under min ISR proposes nothing", 10, []ReplicaLEO{{ID: 2, LEO: 10}}, []int32{1}, 2, 0, false},
		{"exactly min ISR advances", 3, []ReplicaLEO{{ID: 2, LEO: 3}}, []int32{1, 2}, 2, 3, true},
		{"chapter round 2: follower LEO 1 from the request", 2, []ReplicaLEO{{ID: 2, LEO: 1}}, []int32{1, 2}, 2, 1, true},
		{"proposal may go backwards; caller must refuse it", 10, []ReplicaLEO{{ID: 2, LEO: 0}}, []int32{1, 2}, 1, 0, true},
		{"min ISR 0 behaves like 1", 5, nil, nil, 0, 5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := AdvanceHW(tt.leaderLEO, tt.followers, tt.isr, tt.minISR)
			if got != tt.want || ok != tt.wantOK {
				t.Fatalf("AdvanceHW(%d, %v, %v, %d) = (%d, %v), want (%d, %v)",
					tt.leaderLEO, tt.followers, tt.isr, tt.minISR, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// naiveAdvanceHW is the oracle: collect every candidate, then take the min.
func naiveAdvanceHW(leaderLEO uint64, followers []ReplicaLEO, maximalISR []int32, minISR int) (uint64, bool) {
	if len(maximalISR) < minISR {
		return 0, false
	}
	candidates := []uint64{leaderLEO}
	for _, f := range followers {
		if f.CaughtUp {
			candidates = append(candidates, f.LEO)
		}
		for _, id := range maximalISR {
			if id == f.ID {
				candidates = append(candidates, f.LEO)
			}
		}
	}
	return slices.Min(candidates), true
}

func TestAdvanceHWMatchesOracle(t *testing.T) {
	r := newRand(t)
	for iter := range 20000 {
		leaderLEO := r.Uint64N(50)
		if r.IntN(10) == 0 {
			leaderLEO = ^uint64(0) - r.Uint64N(3)
		}
		var followers []ReplicaLEO
		for range r.IntN(6) {
			followers = append(followers, ReplicaLEO{ID: int32(r.IntN(8)), LEO: r.Uint64N(60), CaughtUp: r.IntN(3) == 0})
		}
		var maximal []int32
		for range r.IntN(6) {
			maximal = append(maximal, int32(r.IntN(8)))
		}
		minISR := r.IntN(5)
		got, ok := AdvanceHW(leaderLEO, followers, maximal, minISR)
		want, wantOK := naiveAdvanceHW(leaderLEO, followers, maximal, minISR)
		if got != want || ok != wantOK {
			t.Fatalf("iteration %d: AdvanceHW(%d, %v, %v, %d) = (%d, %v), oracle (%d, %v)",
				iter, leaderLEO, followers, maximal, minISR, got, ok, want, wantOK)
		}
		if ok && got > leaderLEO {
			t.Fatalf("iteration %d: proposal %d above leader LEO %d", iter, got, leaderLEO)
		}
	}
}

func TestAdvanceHWDoesNotAllocate(t *testing.T) {
	followers := []ReplicaLEO{{ID: 2, LEO: 8}, {ID: 3, LEO: 6}, {ID: 4, LEO: 9}}
	isr := []int32{1, 2, 3, 4}
	if n := testing.AllocsPerRun(100, func() { AdvanceHW(10, followers, isr, 2) }); n != 0 {
		t.Fatalf("AdvanceHW allocated %v times per run", n)
	}
}
