package log

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// Fuzz targets for the files Open decodes besides segments: the
// clean-shutdown marker, the offset checkpoints, and the active segment's
// index, which a clean shutdown vouches for.

// FuzzCleanShutdownMarker decodes arbitrary bytes as a marker: never a
// panic; what decodes re-encodes to the same record; and Open over a
// directory with that marker either trusts it (only if it describes the
// directory exactly) or ignores it, and serves the log as written.
func FuzzCleanShutdownMarker(f *testing.F) {
	files, all := stEpochLog(f)
	f.Add(files[cleanShutdownFileName])
	f.Add([]byte("kaenlog clean shutdown 2\nstart 0\nend 0\nmax-timestamp -1 0\nsegments 1\n0 0\ncrc 00000000\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if rec, err := parseShutdownRecord(data); err == nil {
			again, err := parseShutdownRecord(appendShutdownRecord(nil, rec))
			if err != nil || again.start != rec.start || again.end != rec.end || again.activeMax != rec.activeMax || !slices.Equal(again.segments, rec.segments) {
				t.Fatalf("round trip of %+v: %+v, %v", rec, again, err)
			}
		}
		damaged := maps(files)
		damaged[cleanShutdownFileName] = data
		m := stMemDir(t, damaged)
		l, err := Open(stDir, stMemOpts(m))
		if err != nil {
			t.Fatalf("Open with marker %q: %v", data, err)
		}
		defer l.Close()
		if l.Recovery().Clean && !bytes.Equal(data, files[cleanShutdownFileName]) {
			// Another marker that still describes the directory exactly
			// would be fine; any other one must not be trusted.
			rec, _ := parseShutdownRecord(data)
			want, _ := parseShutdownRecord(files[cleanShutdownFileName])
			if rec.start != want.start || rec.end != want.end || rec.activeMax != want.activeMax || !slices.Equal(rec.segments, want.segments) {
				t.Fatalf("Open trusted a marker that does not describe the directory: %q", data)
			}
		}
		got, err := l.Read(nil, 0, 1<<20, IsolationLogEnd)
		if err != nil || !bytes.Equal(got, all) {
			t.Fatalf("Read: %d bytes, %v", len(got), err)
		}
	})
}

// FuzzOffsetCheckpoints stores arbitrary bytes as each offset checkpoint
// (recovery point, log start, damage hint) of a flushed log: Open fails
// with ErrBadCheckpoint, refuses with ErrDamageBelowRecoveryPoint (a
// recovery point or hint that vouches for what is not there), or serves a
// log that reads back as written. Never a panic, never other bytes.
func FuzzOffsetCheckpoints(f *testing.F) {
	files, all := stEpochLog(f)
	for _, s := range []string{"0\n20\n", "0\n0\n", "0\n1000\n", "", "0\n", "1\n2\n", "0\n-1\n", "0\n99999999999999999999\n", "0\n6\n"} {
		f.Add(uint8(0), []byte(s))
	}
	names := []string{recoveryPointFileName, logStartFileName, verifyFromFileName}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		damaged := maps(files)
		damaged[names[int(which)%len(names)]] = data
		m := stMemDir(t, damaged, cleanShutdownFileName)
		l, err := Open(stDir, stMemOpts(m))
		if errors.Is(err, ErrBadCheckpoint) || errors.Is(err, ErrDamageBelowRecoveryPoint) {
			return
		}
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer l.Close()
		if _, err := stReadChecked(t, l, all, "fuzzed checkpoint"); err != nil {
			t.Fatalf("Read: %v", err)
		}
	})
}

// FuzzActiveIndex stores arbitrary bytes as the active segment's index
// after a clean shutdown, the one file Open takes without verifying (to
// continue the index on append): appends and reads must still be right,
// and after a restart the index is the one rebuilt from the batches.
func FuzzActiveIndex(f *testing.F) {
	files, all := stEpochLog(f)
	active := stSegNames(files)[len(stSegNames(files))-1]
	index := active[:len(active)-len(segmentSuffix)] + indexSuffix
	f.Add(files[index])
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 10})
	f.Add(bytes.Repeat([]byte{0xff}, 16))
	f.Fuzz(func(t *testing.T, data []byte) {
		damaged := maps(files)
		damaged[index] = data
		m := stMemDir(t, damaged)
		l, err := Open(stDir, stMemOpts(m))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		more := stBatch(t, 0, 3, 30, 1)
		if _, err := l.AppendAsLeader(more, 4); err != nil {
			t.Fatal(err)
		}
		want := append(bytes.Clone(all), more...)
		for off := uint64(0); off < l.EndOffset(); off += 3 {
			got, err := l.Read(nil, off, 1<<20, IsolationLogEnd)
			if err != nil || !bytes.HasSuffix(want, got) || len(got) == 0 {
				t.Fatalf("Read(%d): %d bytes, %v", off, len(got), err)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		l, err = Open(stDir, stMemOpts(m))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, want) {
			t.Fatal("reopened log differs")
		}
	})
}
