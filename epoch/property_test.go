package epoch

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mapModel is Kafka's LeaderEpochFileCache rules over a plain map keyed by
// epoch (Kafka uses a TreeMap), recomputing order on every call.
type mapModel map[int32]uint64

func (m mapModel) sortedEpochs() []int32 { return slices.Sorted(maps.Keys(m)) }

func (m mapModel) assign(epoch int32, start uint64) {
	epochs := m.sortedEpochs()
	if n := len(epochs); n > 0 && epochs[n-1] == epoch && start >= m[epoch] {
		return
	}
	for i := len(epochs) - 1; i >= 0; i-- {
		k := epochs[i]
		if k < epoch && m[k] < start {
			break
		}
		delete(m, k)
	}
	m[epoch] = start
}

func (m mapModel) truncateFromEnd(end uint64) {
	epochs := m.sortedEpochs()
	for i := len(epochs) - 1; i >= 0 && m[epochs[i]] >= end; i-- {
		delete(m, epochs[i])
	}
}

func (m mapModel) truncateFromStart(start uint64) {
	last, removed := int32(0), false
	for _, k := range m.sortedEpochs() {
		if m[k] > start {
			break
		}
		delete(m, k)
		last, removed = k, true
	}
	if removed {
		m[last] = start
	}
}

func (m mapModel) entries() []Entry {
	var out []Entry
	for _, k := range m.sortedEpochs() {
		out = append(out, Entry{k, m[k]})
	}
	return out
}

// randomOp applies one random mutation to both the cache and the model and
// describes it.
func randomOp(t *testing.T, r *rand.Rand, c *Cache, m mapModel) string {
	t.Helper()
	var desc string
	var err error
	switch op := r.IntN(10); {
	case op < 6:
		epoch, start := int32(r.IntN(12)), r.Uint64N(40)
		desc = fmt.Sprintf("Assign(%d, %d)", epoch, start)
		err = c.Assign(epoch, start)
		m.assign(epoch, start)
	case op < 8:
		end := r.Uint64N(45)
		desc = fmt.Sprintf("TruncateFromEnd(%d)", end)
		err = c.TruncateFromEnd(end)
		m.truncateFromEnd(end)
	default:
		start := r.Uint64N(45)
		desc = fmt.Sprintf("TruncateFromStart(%d)", start)
		err = c.TruncateFromStart(start)
		m.truncateFromStart(start)
	}
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	return desc
}

func checkStrictlyIncreasing(t *testing.T, where string, entries []Entry) {
	t.Helper()
	for i := 1; i < len(entries); i++ {
		if entries[i].Epoch <= entries[i-1].Epoch || entries[i].StartOffset <= entries[i-1].StartOffset {
			t.Fatalf("%s: entries not strictly increasing: %v", where, entries)
		}
	}
	for _, e := range entries {
		if e.Epoch < 0 {
			t.Fatalf("%s: negative epoch in %v", where, entries)
		}
	}
}

// TestCacheMatchesKafkaRulesInMemory runs many random sequences on an
// in-memory cache against the map model.
func TestCacheMatchesKafkaRulesInMemory(t *testing.T) {
	r := newRand(t)
	for run := range 1000 {
		c, m := New(), mapModel{}
		for step := range 30 {
			desc := randomOp(t, r, c, m)
			where := fmt.Sprintf("run %d step %d %s", run, step, desc)
			checkStrictlyIncreasing(t, where, c.entries) // c.entries: no copy in the hot loop
			if want := m.entries(); !slices.Equal(want, c.entries) {
				t.Fatalf("%s: cache differs from Kafka's rules (-model +cache):\n%s", where, cmp.Diff(want, c.Entries(), sameEntries))
			}
		}
	}
}

// TestCacheCheckpointRoundTrip runs random sequences and checks that the
// checkpoint encoding of the cache always parses back to the cache.
func TestCacheCheckpointRoundTrip(t *testing.T) {
	r := newRand(t)
	for run := range 200 {
		c, m := New(), mapModel{}
		for step := range 25 {
			desc := randomOp(t, r, c, m)
			where := fmt.Sprintf("run %d step %d %s", run, step, desc)
			checkStrictlyIncreasing(t, where, c.Entries())
			parsed, err := ParseCheckpoint(AppendCheckpoint(nil, c.Entries()))
			if err != nil {
				t.Fatalf("%s: parse: %v", where, err)
			}
			if diff := cmp.Diff(c.Entries(), parsed, sameEntries); diff != "" {
				t.Fatalf("%s: parsed checkpoint differs (-cache +parsed):\n%s", where, diff)
			}
			if diff := cmp.Diff(m.entries(), c.Entries(), sameEntries); diff != "" {
				t.Fatalf("%s: cache differs from Kafka's rules (-model +cache):\n%s", where, diff)
			}
		}
	}
}
