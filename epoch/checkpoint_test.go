package epoch

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestParseCheckpointAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Entry
	}{
		{"empty file (Kafka creates it empty)", "", nil},
		{"no entries", "0\n0\n", nil},
		{"Kafka's doc example", "0\n2\n0 1\n1 2\n", []Entry{{0, 1}, {1, 2}}},
		{"chapter vector", "0\n3\n0 0\n1 5\n3 6\n", chapterEntries},
		{"no final newline", "0\n1\n4 9", []Entry{{4, 9}}},
		{"CRLF line ends", "0\r\n1\r\n4 9\r\n", []Entry{{4, 9}}},
		{"runs of whitespace between fields", "0\n2\n0  1\n1\t\t2\n", []Entry{{0, 1}, {1, 2}}},
		{"trailing whitespace (Java's split drops it)", "0\n1\n0 1 \n", []Entry{{0, 1}}},
		{"largest values", "0\n1\n2147483647 9223372036854775807\n", []Entry{{2147483647, 9223372036854775807}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCheckpoint([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseCheckpoint(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got, sameEntries); diff != "" {
				t.Fatalf("ParseCheckpoint(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestParseCheckpointRejects is the corruption table: every damaged file is
// an ErrBadCheckpoint, never a panic and never a partial result.
func TestParseCheckpointRejects(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"version 1", "1\n0\n"},
		{"version not a number", "v0\n0\n"},
		{"version with spaces", " 0\n0\n"},
		{"version only", "0\n"},
		{"blank first line", "\n0\n"},
		{"count not a number", "0\nx\n"},
		{"negative count", "0\n-1\n"},
		{"count above int32", "0\n2147483648\n"},
		{"fewer entries than count", "0\n2\n0 0\n"},
		{"more entries than count", "0\n1\n0 0\n1 5\n"},
		{"torn last entry line", "0\n2\n0 0\n1"},
		{"blank entry line", "0\n1\n\n"},
		{"one field", "0\n1\n5\n"},
		{"three fields", "0\n1\n0 0 0\n"},
		{"leading whitespace", "0\n1\n 0 0\n"},
		{"epoch not a number", "0\n1\na 0\n"},
		{"offset not a number", "0\n1\n0 b\n"},
		{"negative epoch", "0\n1\n-1 0\n"},
		{"negative offset", "0\n1\n0 -5\n"},
		{"epoch above int32", "0\n1\n2147483648 0\n"},
		{"offset above int64", "0\n1\n0 9223372036854775808\n"},
		{"epochs not increasing", "0\n2\n3 0\n3 5\n"},
		{"epochs decreasing", "0\n2\n3 0\n1 5\n"},
		{"offsets not increasing", "0\n2\n0 5\n1 5\n"},
		{"offsets decreasing", "0\n2\n0 5\n1 2\n"},
		{"binary garbage", "\x00\xff\x10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCheckpoint([]byte(tt.in))
			if !errors.Is(err, ErrBadCheckpoint) {
				t.Fatalf("ParseCheckpoint(%q) = (%v, %v), want ErrBadCheckpoint", tt.in, got, err)
			}
			if got != nil {
				t.Fatalf("ParseCheckpoint(%q) returned entries %v with its error", tt.in, got)
			}
		})
	}
}

// TestCheckpointGolden pins the bytes written for the chapter's vector, so a
// change to the format is a visible diff. Regenerate with -update.
func TestCheckpointGolden(t *testing.T) {
	golden := filepath.Join("testdata", "chapter.leader-epoch-checkpoint")
	c := New()
	for _, e := range chapterEntries {
		must(t, c.Assign(e.Epoch, e.StartOffset))
	}
	got := AppendCheckpoint(nil, c.Entries())
	if *update {
		must(t, os.WriteFile(golden, got, 0o644))
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Fatalf("checkpoint bytes differ from %s (-want +got):\n%s", golden, diff)
	}
	// And the golden file parses as the chapter's vector.
	parsed, err := ParseCheckpoint(want)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(chapterEntries, parsed); diff != "" {
		t.Fatalf("golden file opens differently (-want +got):\n%s", diff)
	}
}
