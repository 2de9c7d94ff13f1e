package epoch

import (
	"math"
	"testing"
)

// chapterEntries is the vector from the chapter's "leader epoch" block.
var chapterEntries = []Entry{{0, 0}, {1, 5}, {3, 6}}

const chapterLEO = 6

func TestEndOffsetForEpochChapterTable(t *testing.T) {
	tests := []struct {
		e         int32
		wantEpoch int32
		wantEnd   uint64
		wantOK    bool
	}{
		{0, 0, 5, true},
		{1, 1, 6, true},
		{2, 1, 6, true}, // never existed: the largest epoch <= 2 is 1 (KIP-279)
		{3, 3, 6, true},
		{4, 3, 6, true},
		{-1, 0, 0, false},
	}
	for _, tt := range tests {
		epoch, end, ok := EndOffsetForEpoch(chapterEntries, tt.e, chapterLEO)
		if epoch != tt.wantEpoch || end != tt.wantEnd || ok != tt.wantOK {
			t.Errorf("EndOffsetForEpoch(chapter, %d, %d) = (%d, %d, %v), want (%d, %d, %v)",
				tt.e, chapterLEO, epoch, end, ok, tt.wantEpoch, tt.wantEnd, tt.wantOK)
		}
	}
}

func TestEndOffsetForEpochEdges(t *testing.T) {
	tests := []struct {
		name      string
		entries   []Entry
		e         int32
		leo       uint64
		wantEpoch int32
		wantEnd   uint64
		wantOK    bool
	}{
		{"empty cache", nil, 0, 10, 0, 0, false},
		{"below the first epoch", []Entry{{3, 7}, {5, 9}}, 2, 10, 0, 0, false},
		{"max epoch", []Entry{{3, 7}}, math.MaxInt32, 10, 3, 10, true},
		{"min epoch", []Entry{{0, 0}}, math.MinInt32, 10, 0, 0, false},
		{"KIP-101 demo: epoch 0 ends at the leader's LEO 2", []Entry{{0, 0}}, 0, 2, 0, 2, true},
		{"latest entry starts past leo: still leo", []Entry{{0, 0}, {1, 9}}, 1, 4, 1, 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			epoch, end, ok := EndOffsetForEpoch(tt.entries, tt.e, tt.leo)
			if epoch != tt.wantEpoch || end != tt.wantEnd || ok != tt.wantOK {
				t.Fatalf("EndOffsetForEpoch(%v, %d, %d) = (%d, %d, %v), want (%d, %d, %v)",
					tt.entries, tt.e, tt.leo, epoch, end, ok, tt.wantEpoch, tt.wantEnd, tt.wantOK)
			}
		})
	}
}

// naiveEndOffset is the oracle: scan everything for the best epoch <= e,
// then scan everything again for the smallest start of a later epoch.
func naiveEndOffset(entries []Entry, e int32, leo uint64) (int32, uint64, bool) {
	found := -1
	for i, x := range entries {
		if x.Epoch <= e && (found < 0 || x.Epoch > entries[found].Epoch) {
			found = i
		}
	}
	if found < 0 {
		return 0, 0, false
	}
	end := leo
	for _, x := range entries {
		if x.Epoch > entries[found].Epoch && x.StartOffset < end {
			end = x.StartOffset
		}
	}
	return entries[found].Epoch, end, true
}

func TestEndOffsetForEpochMatchesOracle(t *testing.T) {
	r := newRand(t)
	for iter := range 20000 {
		entries := randomVector(r)
		var last uint64
		if n := len(entries); n > 0 {
			last = entries[n-1].StartOffset
		}
		leo := last + r.Uint64N(5)
		e := int32(r.IntN(40)) - 2
		ge, gend, gok := EndOffsetForEpoch(entries, e, leo)
		we, wend, wok := naiveEndOffset(entries, e, leo)
		if ge != we || gend != wend || gok != wok {
			t.Fatalf("iteration %d: EndOffsetForEpoch(%v, %d, %d) = (%d, %d, %v), oracle (%d, %d, %v)",
				iter, entries, e, leo, ge, gend, gok, we, wend, wok)
		}
	}
}

// randomVector returns a valid epoch vector: strictly increasing epochs and
// start offsets.
func randomVector(r interface {
	IntN(int) int
	Uint64N(uint64) uint64
}) []Entry {
	var entries []Entry
	epoch, start := int32(r.IntN(3)), r.Uint64N(3)
	for range r.IntN(7) {
		entries = append(entries, Entry{epoch, start})
		epoch += 1 + int32(r.IntN(4))
		start += 1 + r.Uint64N(6)
	}
	return entries
}

func TestEndOffsetForEpochDoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { EndOffsetForEpoch(chapterEntries, 2, chapterLEO) }); n != 0 {
		t.Fatalf("EndOffsetForEpoch allocated %v times per run", n)
	}
}
