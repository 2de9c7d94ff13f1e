package epoch

import (
	"path/filepath"
	"testing"
)

func BenchmarkEndOffsetForEpoch(b *testing.B) {
	b.ReportAllocs()
	entries := make([]Entry, 64)
	for i := range entries {
		entries[i] = Entry{Epoch: int32(i * 2), StartOffset: uint64(i * 100)}
	}
	for i := 0; b.Loop(); i++ {
		EndOffsetForEpoch(entries, int32(i&127), 10000)
	}
}

func BenchmarkParseCheckpoint(b *testing.B) {
	b.ReportAllocs()
	entries := make([]Entry, 64)
	for i := range entries {
		entries[i] = Entry{Epoch: int32(i * 2), StartOffset: uint64(i * 100)}
	}
	data := formatCheckpoint(entries)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := parseCheckpoint(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAssignPersisted measures a become-leader Assign with its
// temp-file, fsync, rename, fsync-dir write.
func BenchmarkAssignPersisted(b *testing.B) {
	b.ReportAllocs()
	c, err := Open(filepath.Join(b.TempDir(), "leader-epoch-checkpoint"))
	if err != nil {
		b.Fatal(err)
	}
	var epoch int32
	for b.Loop() {
		epoch++
		if err := c.Assign(epoch, uint64(epoch)); err != nil {
			b.Fatal(err)
		}
	}
}
