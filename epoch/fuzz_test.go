package epoch

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseCheckpoint feeds arbitrary bytes to the checkpoint decoder. It
// must never panic; it either fails with ErrBadCheckpoint or returns a valid
// vector that survives a format/parse round trip, with the canonical bytes
// stable. The seed corpus is in testdata/fuzz/FuzzParseCheckpoint.
func FuzzParseCheckpoint(f *testing.F) {
	f.Add([]byte("0\n3\n0 0\n1 5\n3 6\n"))
	f.Add([]byte(""))
	f.Add([]byte("0\n2\n3 0\n1 5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ParseCheckpoint(data)
		if err != nil {
			if !errors.Is(err, ErrBadCheckpoint) {
				t.Fatalf("ParseCheckpoint(%q) error %v does not wrap ErrBadCheckpoint", data, err)
			}
			if entries != nil {
				t.Fatalf("ParseCheckpoint(%q) returned entries with error", data)
			}
			return
		}
		for i, e := range entries {
			if e.Epoch < 0 || (i > 0 && (e.Epoch <= entries[i-1].Epoch || e.StartOffset <= entries[i-1].StartOffset)) {
				t.Fatalf("ParseCheckpoint(%q) accepted an invalid vector %v", data, entries)
			}
		}
		if _, err := FromEntries(entries); err != nil {
			t.Fatalf("FromEntries(%v) of a parsed checkpoint: %v", entries, err)
		}
		canonical := AppendCheckpoint(nil, entries)
		again, err := ParseCheckpoint(canonical)
		if err != nil {
			t.Fatalf("re-parse of %q: %v", canonical, err)
		}
		if diff := cmp.Diff(entries, again, sameEntries); diff != "" {
			t.Fatalf("round trip of %q changed entries (-first +second):\n%s", data, diff)
		}
		if !bytes.Equal(AppendCheckpoint(nil, again), canonical) {
			t.Fatalf("canonical form of %q is not stable", data)
		}
	})
}
