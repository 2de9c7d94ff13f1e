package epoch

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// cacheWith returns an in-memory cache holding entries (assumed valid).
func cacheWith(entries ...Entry) *Cache {
	c := New()
	c.entries = append([]Entry(nil), entries...)
	return c
}

// sameEntries compares entry lists, treating nil and empty as equal.
var sameEntries = cmpopts.EquateEmpty()

func TestAssign(t *testing.T) {
	tests := []struct {
		name   string
		before []Entry
		epoch  int32
		start  uint64
		want   []Entry
	}{
		{"first entry", nil, 0, 0, []Entry{{0, 0}}},
		{"new epoch appends", []Entry{{0, 0}}, 1, 5, []Entry{{0, 0}, {1, 5}}},
		{"same epoch, later offset: no-op", []Entry{{0, 0}, {1, 5}}, 1, 9, []Entry{{0, 0}, {1, 5}}},
		{"same epoch, same offset: no-op", []Entry{{2, 4}}, 2, 4, []Entry{{2, 4}}},
		{"same epoch, earlier offset: replaces it", []Entry{{0, 0}, {1, 5}}, 1, 3, []Entry{{0, 0}, {1, 3}}},
		{"lower epoch removes newer epochs", []Entry{{0, 0}, {1, 5}, {3, 6}}, 2, 6, []Entry{{0, 0}, {1, 5}, {2, 6}}},
		{"lower epoch at a later offset still removes them", []Entry{{0, 0}, {1, 5}, {3, 6}}, 2, 10, []Entry{{0, 0}, {1, 5}, {2, 10}}},
		{"newer epoch at the same start replaces a data-less epoch", []Entry{{0, 0}, {1, 5}, {3, 6}}, 4, 6, []Entry{{0, 0}, {1, 5}, {4, 6}}},
		{"newer epoch at an earlier start removes later starts", []Entry{{0, 0}, {1, 5}}, 5, 2, []Entry{{0, 0}, {5, 2}}},
		{"epoch 0 at 0 clears everything newer", []Entry{{0, 0}, {1, 5}}, 0, 0, []Entry{{0, 0}}},
		{"largest legal offset", nil, 7, math.MaxInt64, []Entry{{7, math.MaxInt64}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cacheWith(tt.before...)
			if err := c.Assign(tt.epoch, tt.start); err != nil {
				t.Fatalf("Assign(%d, %d): %v", tt.epoch, tt.start, err)
			}
			if diff := cmp.Diff(tt.want, c.Entries(), sameEntries); diff != "" {
				t.Fatalf("entries after Assign(%d, %d) on %v (-want +got):\n%s", tt.epoch, tt.start, tt.before, diff)
			}
		})
	}
}

func TestAssignRejects(t *testing.T) {
	c := cacheWith(Entry{0, 0}, Entry{1, 5})
	if err := c.Assign(-1, 9); !errors.Is(err, ErrInvalidEpoch) {
		t.Fatalf("Assign(-1, 9) = %v, want ErrInvalidEpoch", err)
	}
	if err := c.Assign(2, math.MaxInt64+1); !errors.Is(err, ErrOffsetOverflow) {
		t.Fatalf("Assign(2, MaxInt64+1) = %v, want ErrOffsetOverflow", err)
	}
	if diff := cmp.Diff([]Entry{{0, 0}, {1, 5}}, c.Entries()); diff != "" {
		t.Fatalf("rejected Assign changed the cache (-want +got):\n%s", diff)
	}
}

func TestTruncateFromEnd(t *testing.T) {
	base := []Entry{{0, 0}, {1, 5}, {3, 6}}
	tests := []struct {
		end  uint64
		want []Entry
	}{
		{100, base},
		{7, base},
		{6, []Entry{{0, 0}, {1, 5}}},
		{5, []Entry{{0, 0}}},
		{1, []Entry{{0, 0}}},
		{0, nil},
	}
	for _, tt := range tests {
		c := cacheWith(base...)
		if err := c.TruncateFromEnd(tt.end); err != nil {
			t.Fatalf("TruncateFromEnd(%d): %v", tt.end, err)
		}
		if diff := cmp.Diff(tt.want, c.Entries(), sameEntries); diff != "" {
			t.Errorf("TruncateFromEnd(%d) (-want +got):\n%s", tt.end, diff)
		}
	}
}

func TestTruncateFromStart(t *testing.T) {
	base := []Entry{{0, 0}, {1, 5}, {3, 8}}
	tests := []struct {
		start uint64
		want  []Entry
	}{
		{0, base},
		{3, []Entry{{0, 3}, {1, 5}, {3, 8}}},
		{5, []Entry{{1, 5}, {3, 8}}}, // exclusive: an entry starting at 5 is kept
		{6, []Entry{{1, 6}, {3, 8}}},
		{8, []Entry{{3, 8}}},
		{100, []Entry{{3, 100}}},
		{math.MaxInt64, []Entry{{3, math.MaxInt64}}},
	}
	for _, tt := range tests {
		c := cacheWith(base...)
		if err := c.TruncateFromStart(tt.start); err != nil {
			t.Fatalf("TruncateFromStart(%d): %v", tt.start, err)
		}
		if diff := cmp.Diff(tt.want, c.Entries(), sameEntries); diff != "" {
			t.Errorf("TruncateFromStart(%d) (-want +got):\n%s", tt.start, diff)
		}
	}
	c := cacheWith(base...)
	if err := c.TruncateFromStart(math.MaxInt64 + 1); !errors.Is(err, ErrOffsetOverflow) {
		t.Fatalf("TruncateFromStart(MaxInt64+1) = %v, want ErrOffsetOverflow", err)
	}
	if err := New().TruncateFromStart(5); err != nil || len(New().Entries()) != 0 {
		t.Fatalf("TruncateFromStart on empty cache = %v", err)
	}
}

func TestCacheQueries(t *testing.T) {
	c := New()
	if _, ok := c.LatestEpoch(); ok {
		t.Fatal("LatestEpoch on empty cache reported ok")
	}
	if _, _, ok := c.EndOffsetForEpoch(0, 0); ok {
		t.Fatal("EndOffsetForEpoch on empty cache reported ok")
	}
	for _, e := range chapterEntries {
		must(t, c.Assign(e.Epoch, e.StartOffset))
	}
	if e, ok := c.LatestEpoch(); !ok || e != 3 {
		t.Fatalf("LatestEpoch = (%d, %v), want (3, true)", e, ok)
	}
	for _, tt := range []struct {
		epoch int32
		start uint64
		ok    bool
	}{{0, 0, true}, {1, 5, true}, {2, 0, false}, {3, 6, true}, {4, 0, false}, {-1, 0, false}} {
		if start, ok := c.StartOffsetOf(tt.epoch); start != tt.start || ok != tt.ok {
			t.Errorf("StartOffsetOf(%d) = (%d, %v), want (%d, %v)", tt.epoch, start, ok, tt.start, tt.ok)
		}
	}
	if e, end, ok := c.EndOffsetForEpoch(2, chapterLEO); !ok || e != 1 || end != 6 {
		t.Fatalf("EndOffsetForEpoch(2) = (%d, %d, %v), want (1, 6, true)", e, end, ok)
	}
	got := c.Entries()
	got[0].StartOffset = 99
	if c.Entries()[0].StartOffset != 0 {
		t.Fatal("mutating Entries() result changed the cache")
	}
	for _, tt := range []struct {
		off   uint64
		epoch int32
		ok    bool
	}{{0, 0, true}, {4, 0, true}, {5, 1, true}, {6, 3, true}, {1000, 3, true}} {
		if e, ok := c.EpochForOffset(tt.off); e != tt.epoch || ok != tt.ok {
			t.Errorf("EpochForOffset(%d) = (%d, %v), want (%d, %v)", tt.off, e, ok, tt.epoch, tt.ok)
		}
	}
	if _, ok := cacheWith(Entry{2, 10}).EpochForOffset(9); ok {
		t.Error("EpochForOffset below the first entry reported ok")
	}
	if c.Len() != 3 {
		t.Fatalf("Len() = %d, want 3", c.Len())
	}
}

// TestCheckpointOfEveryMutation pins the checkpoint encoding of the cache
// after each kind of mutation, and that it parses back to the cache.
func TestCheckpointOfEveryMutation(t *testing.T) {
	c := New()
	if got := string(AppendCheckpoint(nil, c.Entries())); got != "0\n0\n" {
		t.Fatalf("empty cache checkpoint = %q, want %q", got, "0\n0\n")
	}
	steps := []struct {
		name string
		do   func() error
		file string
	}{
		{"assign 0@0", func() error { return c.Assign(0, 0) }, "0\n1\n0 0\n"},
		{"assign 1@5", func() error { return c.Assign(1, 5) }, "0\n2\n0 0\n1 5\n"},
		{"assign 3@6", func() error { return c.Assign(3, 6) }, "0\n3\n0 0\n1 5\n3 6\n"},
		{"truncate end 6", func() error { return c.TruncateFromEnd(6) }, "0\n2\n0 0\n1 5\n"},
		{"truncate start 2", func() error { return c.TruncateFromStart(2) }, "0\n2\n0 2\n1 5\n"},
	}
	for _, s := range steps {
		must(t, s.do())
		data := AppendCheckpoint(nil, c.Entries())
		if string(data) != s.file {
			t.Fatalf("after %s: checkpoint %q, want %q", s.name, data, s.file)
		}
		parsed, err := ParseCheckpoint(data)
		if err != nil {
			t.Fatalf("after %s: parse: %v", s.name, err)
		}
		reopened, err := FromEntries(parsed)
		if err != nil {
			t.Fatalf("after %s: FromEntries: %v", s.name, err)
		}
		if diff := cmp.Diff(c.Entries(), reopened.Entries(), sameEntries); diff != "" {
			t.Fatalf("after %s: reloaded cache differs (-mem +reloaded):\n%s", s.name, diff)
		}
	}
}

func TestFromEntriesRejectsWhatACacheCannotHold(t *testing.T) {
	for name, entries := range map[string][]Entry{
		"negative epoch":         {{-1, 0}},
		"epochs not increasing":  {{2, 0}, {2, 5}},
		"offsets not increasing": {{1, 5}, {2, 5}},
		"offset above int64":     {{1, math.MaxInt64 + 1}},
	} {
		if _, err := FromEntries(entries); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("%s: FromEntries(%v) = %v, want ErrBadCheckpoint", name, entries, err)
		}
	}
	src := []Entry{{0, 0}, {1, 5}}
	c, err := FromEntries(src)
	if err != nil {
		t.Fatal(err)
	}
	src[0].StartOffset = 99
	clone := c.Clone()
	must(t, clone.Assign(2, 9))
	if diff := cmp.Diff([]Entry{{0, 0}, {1, 5}}, c.Entries()); diff != "" {
		t.Fatalf("FromEntries aliases its input or Clone shares state (-want +got):\n%s", diff)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
