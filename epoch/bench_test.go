package epoch

import "testing"

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
	data := AppendCheckpoint(nil, entries)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseCheckpoint(data); err != nil {
			b.Fatal(err)
		}
	}
}
