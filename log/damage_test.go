package log

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/epoch"
	"github.com/kaenlog/kaenlog/log/vfs"
)

// Damaged directories: what Open does with each kind of damage a crash, a
// bad disk or an operator can leave, and what its report says. The tests
// run on the in-memory file system.

const stDir = "/data/orders-0"

// stMemOpts are the options of the damage tests' logs: small segments, so
// that a few batches make several.
func stMemOpts(fsys vfs.FS) Options {
	return Options{FS: fsys, SegmentBytes: 360, IndexIntervalBytes: 100}
}

// stEpochLog writes a log of 10 batches over 4 segments and 3 leader
// epochs (1, 3, 4) on a new Mem, closes it cleanly, and returns the files
// and the batches as stored.
func stEpochLog(t testing.TB) (files map[string][]byte, all []byte) {
	t.Helper()
	m := vfs.NewMem()
	l, err := Open(stDir, stMemOpts(m))
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range []int32{1, 1, 1, 1, 3, 3, 3, 4, 4, 4} {
		if err := l.AssignEpoch(e); err != nil {
			t.Fatal(err)
		}
		if _, err := l.AppendAsLeader(stBatch(t, 0, 2, 20, int64(100*i)), e); err != nil {
			t.Fatal(err)
		}
	}
	all = stReadAll(t, l, IsolationLogEnd)
	if len(l.segments) != 4 {
		t.Fatalf("%d segments, want 4", len(l.segments))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return stMemFiles(t, m, stDir), all
}

// stMemFiles returns every file of dir in m.
func stMemFiles(t testing.TB, m vfs.FS, dir string) map[string][]byte {
	t.Helper()
	entries, err := m.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		data, err := vfs.ReadFile(m, filepath.Join(dir, e.Name), 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name] = data
	}
	return files
}

// stMemDir returns a new Mem holding files in stDir, all durable, except
// the names in drop.
func stMemDir(t testing.TB, files map[string][]byte, drop ...string) *vfs.Mem {
	t.Helper()
	m := vfs.NewMem()
	if err := m.MkdirAll(stDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if name == lockFileName || slices.Contains(drop, name) {
			continue
		}
		stMemWrite(t, m, name, data)
	}
	if err := m.SyncDir(stDir); err != nil {
		t.Fatal(err)
	}
	return m
}

// stMemWrite replaces stDir/name in m with data, durably.
func stMemWrite(t testing.TB, m vfs.FS, name string, data []byte) {
	t.Helper()
	f, err := m.OpenFile(filepath.Join(stDir, name), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	m.SyncDir(stDir)
}

// stSegNames returns the segment file names in files, in offset order.
func stSegNames(files map[string][]byte) []string {
	var names []string
	for name := range files {
		if strings.HasSuffix(name, segmentSuffix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// stReadChecked reads the whole log and checks it against all, the bytes
// written: it must be a prefix of them. It returns the bytes, or the read
// error.
func stReadChecked(t *testing.T, l *Log, all []byte, what string) ([]byte, error) {
	t.Helper()
	got, err := l.Read(nil, l.StartOffset(), 1<<20, IsolationLogEnd)
	if err != nil {
		return nil, err
	}
	// What was written from the batch holding the log start on.
	for len(all) > 0 {
		h, _ := ReadBatchHeader(all)
		if h.LastOffset() >= l.StartOffset() {
			break
		}
		all = all[h.Size():]
	}
	if !bytes.HasPrefix(all, got) {
		t.Fatalf("%s: the log served bytes that were never written: %v", what, stOffsets(stHeaders(t, got)))
	}
	return got, nil
}

// TestDamagedDirectories is the table of damage, each case with what Open
// must do and what its report must say.
func TestDamagedDirectories(t *testing.T) {
	files, all := stEpochLog(t)
	segs := stSegNames(files)
	batches := stSplit(t, all)
	leo := batches[len(batches)-1].h.NextOffset()
	base := func(i int) uint64 { b, _ := parseSegmentName(segs[i]); return b }
	edit := func(name string, f func([]byte) []byte) func(m *vfs.Mem) {
		return func(m *vfs.Mem) { stMemWrite(t, m, name, f(bytes.Clone(files[name]))) }
	}
	remove := func(names ...string) func(m *vfs.Mem) {
		return func(m *vfs.Mem) {
			for _, n := range names {
				m.Remove(filepath.Join(stDir, n))
			}
			m.SyncDir(stDir)
		}
	}
	unflushed := []string{cleanShutdownFileName, recoveryPointFileName}
	flushed := []string{cleanShutdownFileName}
	firstOf := func(i int) int { // index of segment i's first batch
		for k, b := range batches {
			if b.h.BaseOffset == base(i) {
				return k
			}
		}
		return -1
	}

	type want struct {
		err    []error // Open's error matches all of these (nil: Open succeeds)
		leo    uint64
		cut    error // the reason of the report's only cut (nil: no cut)
		below  bool  // the cut was below the recovery point (Repair)
		report []string
		epochs []epoch.Entry // nil: as written, truncated at leo
	}
	for _, tc := range []struct {
		name   string
		drop   []string
		damage func(m *vfs.Mem)
		repair bool
		want   want
	}{
		{name: "intact, clean shutdown", want: want{leo: leo, report: []string{"clean shutdown"}}},
		{name: "intact, flushed", drop: flushed, want: want{leo: leo, report: []string{"unclean", "recovery point"}}},
		{name: "intact, nothing flushed", drop: unflushed, want: want{leo: leo, report: []string{"no recovery point"}}},
		{name: "stray empty segment past the end moves nothing", drop: flushed,
			damage: func(m *vfs.Mem) { stMemWrite(t, m, segmentName(leo+1000, segmentSuffix), nil) },
			want:   want{leo: leo, cut: ErrHole}},
		{name: "stray empty segment at the end is an empty active segment", drop: flushed,
			damage: func(m *vfs.Mem) { stMemWrite(t, m, segmentName(leo, segmentSuffix), nil) },
			want:   want{leo: leo}},
		{name: "stray segment named inside another", drop: unflushed,
			damage: func(m *vfs.Mem) { stMemWrite(t, m, segmentName(base(1)+1, segmentSuffix), nil) },
			want:   want{leo: base(2), cut: ErrBadOffset}},
		{name: "deleted middle segment, nothing flushed", drop: unflushed, damage: remove(segs[1]),
			want: want{leo: base(1), cut: ErrHole}},
		{name: "emptied middle segment, nothing flushed", drop: unflushed, damage: edit(segs[1], func([]byte) []byte { return nil }),
			want: want{leo: base(1), cut: ErrHole}},
		{name: "older segment lost a whole-batch tail, the next survived", drop: unflushed,
			damage: edit(segs[1], func(b []byte) []byte { return b[:len(batches[firstOf(1)].bytes)] }),
			want:   want{leo: batches[firstOf(1)].h.NextOffset(), cut: ErrHole}},
		{name: "every segment deleted, flushed", drop: flushed, damage: remove(segs...),
			want: want{err: []error{ErrDamageBelowRecoveryPoint, ErrCorrupt, ErrHole}}},
		{name: "every segment deleted, flushed, repaired", drop: flushed, damage: remove(segs...), repair: true,
			want: want{leo: 0, cut: ErrHole, below: true, report: []string{"LOST FLUSHED DATA"}}},
		{name: "every segment deleted, nothing flushed, HW checkpointed", drop: unflushed, damage: remove(segs...),
			want: want{leo: 0, report: []string{"committed records were lost locally"}}},
		{name: "last segment deleted, flushed", drop: flushed, damage: remove(segs[3]),
			want: want{err: []error{ErrDamageBelowRecoveryPoint, ErrHole}}},
		{name: "garbage tail", drop: unflushed, damage: edit(segs[3], func(b []byte) []byte { return append(b, "kaen-log"...) }),
			want: want{leo: leo, cut: ErrTruncated}},
		{name: "garbage tail, flushed: past the recovery point, a torn write", drop: flushed,
			damage: edit(segs[3], func(b []byte) []byte { return append(b, make([]byte, 100)...) }),
			want:   want{leo: leo, cut: ErrBadLength}},
		{name: "garbage in segment 1 of 4, nothing flushed: the report says what went", drop: unflushed,
			damage: edit(segs[1], func(b []byte) []byte { b[70] ^= 0xff; return b }),
			want:   want{leo: base(1), cut: ErrBadCRC, report: []string{"7 batches"}}},
		{name: "flipped baseOffset in the last segment, flushed", drop: flushed,
			damage: edit(segs[3], func(b []byte) []byte { b[4] ^= 0x10; return b }),
			want:   want{err: []error{ErrDamageBelowRecoveryPoint, ErrCorrupt, ErrHole}}},
		{name: "flipped epoch in the last segment, flushed, repaired", drop: flushed, repair: true,
			damage: edit(segs[3], func(b []byte) []byte { b[13] ^= 0x01; return b }),
			want:   want{leo: base(3), cut: ErrEpochMismatch, below: true, report: []string{"LOST FLUSHED DATA"}}},
		{name: "missing epoch checkpoint: rebuilt from the batches", drop: append([]string{epochFileName}, unflushed...),
			want: want{leo: leo, report: []string{"rebuilt from the batches"}}},
		{name: "empty epoch checkpoint: rebuilt from the batches", drop: flushed,
			damage: edit(epochFileName, func([]byte) []byte { return nil }),
			want:   want{leo: leo, report: []string{"rebuilt from the batches"}}},
		{name: "garbled epoch checkpoint", drop: flushed,
			damage: edit(epochFileName, func([]byte) []byte { return []byte("0\n2\n1 0\n") }),
			want:   want{err: []error{ErrBadCheckpoint}}},
		{name: "garbled epoch checkpoint, repaired: rebuilt", drop: flushed, repair: true,
			damage: edit(epochFileName, func([]byte) []byte { return []byte("0\n2\n1 0\n") }),
			want:   want{leo: leo, report: []string{"ignored damaged checkpoint", "rebuilt from the batches"}}},
		{name: "epoch checkpoint entry past the end is dropped", drop: flushed,
			damage: edit(epochFileName, func([]byte) []byte { return []byte(fmt.Sprintf("0\n4\n1 0\n3 8\n4 14\n9 %d\n", leo+5)) }),
			want:   want{leo: leo, report: []string{"dropped leader-epoch entry (epoch 9"}}},
		{name: "epoch checkpoint missing the last epoch: its batches are not trusted", drop: unflushed,
			damage: edit(epochFileName, func([]byte) []byte { return []byte("0\n2\n1 0\n3 8\n") }),
			want:   want{leo: 14, cut: ErrEpochMismatch, epochs: []epoch.Entry{{Epoch: 1, StartOffset: 0}, {Epoch: 3, StartOffset: 8}}}},
		{name: "missing recovery point: every segment verified", drop: []string{cleanShutdownFileName, recoveryPointFileName},
			want: want{leo: leo, report: []string{"verified 4 segments, 10 batches"}}},
		{name: "garbled recovery point", drop: flushed,
			damage: edit(recoveryPointFileName, func([]byte) []byte { return []byte("0\n-1\n") }),
			want:   want{err: []error{ErrBadCheckpoint}}},
		{name: "missing HW checkpoint", drop: append([]string{checkpointFileName}, flushed...), want: want{leo: leo}},
		{name: "damaged clean-shutdown marker is ignored",
			damage: edit(cleanShutdownFileName, func(b []byte) []byte { b[30] ^= 1; return b }),
			want:   want{leo: leo, report: []string{"marker ignored (damaged: crc mismatch)"}}},
		{name: "active segment shorter than the marker says: flushed data lost",
			damage: edit(segs[3], func(b []byte) []byte { return b[:len(b)-1] }),
			want:   want{err: []error{ErrDamageBelowRecoveryPoint, ErrTruncated}}},
		{name: "active segment longer than the marker says: marker ignored, tail cut",
			damage: edit(segs[3], func(b []byte) []byte { return append(b, "kaen-log"...) }),
			want:   want{leo: leo, cut: ErrTruncated, report: []string{"marker ignored (00000000000000000018.log is 123 bytes, not 115)"}}},
		{name: "leftovers: temporary files, a compaction copy, an index without a segment", drop: flushed,
			damage: func(m *vfs.Mem) {
				for _, n := range []string{checkpointFileName + ".tmp", segs[0] + cleanedSuffix, segmentName(12345, indexSuffix)} {
					stMemWrite(t, m, n, []byte("junk"))
				}
			},
			want: want{leo: leo, report: []string{"deleted leftover " + segmentName(12345, indexSuffix)}}},
		{name: "log start checkpointed past the first segment: it is a leftover", drop: flushed,
			damage: edit(logStartFileName, func([]byte) []byte { return formatCheckpoint(base(1)) }),
			want:   want{leo: leo, report: []string{"deleted leftover " + segs[0]}, epochs: []epoch.Entry{{Epoch: 1, StartOffset: base(1)}, {Epoch: 3, StartOffset: 8}, {Epoch: 4, StartOffset: 14}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := stMemDir(t, files, tc.drop...)
			if tc.damage != nil {
				tc.damage(m)
			}
			opts := stMemOpts(m)
			opts.Repair = tc.repair
			l, err := Open(stDir, opts)
			if tc.want.err != nil {
				for _, e := range tc.want.err {
					if !errors.Is(err, e) {
						t.Errorf("Open = %v, want an error matching %v", err, e)
					}
				}
				if err == nil {
					l.Close()
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer l.Close()
			r := l.Recovery()
			report := r.String()
			if l.EndOffset() != tc.want.leo {
				t.Errorf("LEO %d, want %d\n%s", l.EndOffset(), tc.want.leo, report)
			}
			if _, err := stReadChecked(t, l, all, tc.name); err != nil {
				t.Errorf("Read: %v", err)
			}
			switch {
			case tc.want.cut == nil && len(r.Cuts) > 0:
				t.Errorf("unexpected cuts:\n%s", report)
			case tc.want.cut != nil && (len(r.Cuts) != 1 || !errors.Is(r.Cuts[0].Reason, tc.want.cut) || !errors.Is(r.Cuts[0].Reason, ErrCorrupt)):
				t.Errorf("want one cut for %v:\n%s", tc.want.cut, report)
			case tc.want.cut != nil && r.Cuts[0].BelowRecoveryPoint != tc.want.below:
				t.Errorf("cut below the recovery point = %v, want %v", r.Cuts[0].BelowRecoveryPoint, tc.want.below)
			}
			if r.LostFlushedData != tc.want.below {
				t.Errorf("LostFlushedData = %v, want %v", r.LostFlushedData, tc.want.below)
			}
			// Close checkpointed HW = LEO: a shorter log is below it.
			if hwClamped := tc.want.leo < leo && !slices.Contains(tc.drop, checkpointFileName); r.HighWatermarkClamped != hwClamped {
				t.Errorf("HighWatermarkClamped = %v, want %v\n%s", r.HighWatermarkClamped, hwClamped, report)
			}
			for _, s := range tc.want.report {
				if !strings.Contains(report, s) {
					t.Errorf("report lacks %q:\n%s", s, report)
				}
			}
			wantEpochs := tc.want.epochs
			if wantEpochs == nil {
				c, _ := epoch.FromEntries([]epoch.Entry{{Epoch: 1, StartOffset: 0}, {Epoch: 3, StartOffset: 8}, {Epoch: 4, StartOffset: 14}})
				c.TruncateFromEnd(tc.want.leo)
				wantEpochs = c.Entries()
			}
			if got := l.EpochEntries(); !slices.Equal(got, wantEpochs) {
				t.Errorf("epochs %v, want %v", got, wantEpochs)
			}
			if s, hw, e := l.StartOffset(), l.HighWatermark(), l.EndOffset(); s > hw || hw > e {
				t.Errorf("start %d, HW %d, LEO %d", s, hw, e)
			}
		})
	}
}

// TestEveryByteFlipped flips one bit of every byte of every segment file
// of a log with several segments and epochs, in three states: nothing
// flushed, everything flushed, and after a clean shutdown. In no case may
// a read return bytes that differ from what was written:
//
//   - nothing flushed: Open cuts at the damage and says so; reads return a
//     prefix of what was written;
//   - flushed: Open refuses with a *CorruptError naming the file (the
//     damage is below the recovery point), or, for a segment it trusts
//     without reading, the first read of it fails with ErrCorrupt and the
//     log fails; then the next Open refuses, and with Repair cuts and
//     reports LostFlushedData;
//   - clean shutdown: Open trusts the directory; the first read of the
//     damaged segment fails with ErrCorrupt and fails the log, and the next
//     Open refuses (Repair cuts).
func TestEveryByteFlipped(t *testing.T) {
	files, all := stEpochLog(t)
	for _, mode := range []struct {
		name string
		drop []string
	}{
		{"nothing flushed", []string{cleanShutdownFileName, recoveryPointFileName}},
		{"flushed", []string{cleanShutdownFileName}},
		{"clean shutdown", nil},
	} {
		t.Run(mode.name, func(t *testing.T) {
			flips := 0
			for _, name := range stSegNames(files) {
				for pos := range files[name] {
					what := fmt.Sprintf("%s: %s byte %d", mode.name, name, pos)
					damaged := maps(files)
					damaged[name] = bytes.Clone(files[name])
					damaged[name][pos] ^= 1 << (pos % 8)
					stFlipCase(t, damaged, mode.drop, all, what)
					flips++
				}
			}
			t.Logf("%d flips", flips)
		})
	}
}

// maps returns a shallow copy of files.
func maps(files map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(files))
	for k, v := range files {
		out[k] = v
	}
	return out
}

// stFlipCase opens one damaged directory and checks the rules of
// TestEveryByteFlipped.
func stFlipCase(t *testing.T, files map[string][]byte, drop []string, all []byte, what string) {
	t.Helper()
	m := stMemDir(t, files, drop...)
	flushed := !slices.Contains(drop, recoveryPointFileName)
	l, err := Open(stDir, stMemOpts(m))
	if err != nil {
		var ce *CorruptError
		if !flushed || !errors.Is(err, ErrDamageBelowRecoveryPoint) || !errors.As(err, &ce) || ce.File == "" {
			t.Fatalf("%s: Open = %v; want success, or a *CorruptError naming the file below the recovery point", what, err)
		}
		stRepairCase(t, m, all, what)
		return
	}
	got, rerr := stReadChecked(t, l, all, what)
	r := l.Recovery()
	switch {
	case rerr != nil:
		// A trusted segment turned out damaged when read.
		if !flushed || !errors.Is(rerr, ErrCorrupt) || !errors.Is(rerr, ErrLogFailed) {
			t.Fatalf("%s: Read = %v; want ErrCorrupt and ErrLogFailed", what, rerr)
		}
		if err := l.Close(); !errors.Is(err, ErrLogFailed) {
			t.Fatalf("%s: Close = %v", what, err)
		}
		if _, err := Open(stDir, stMemOpts(m)); !errors.Is(err, ErrDamageBelowRecoveryPoint) {
			t.Fatalf("%s: Open after the damage was found = %v, want ErrDamageBelowRecoveryPoint", what, err)
		}
		stRepairCase(t, m, all, what)
		return
	case !bytes.Equal(got, all) && len(r.Cuts) == 0:
		t.Fatalf("%s: the log lost batches without reporting a cut:\n%s", what, r)
	case bytes.Equal(got, all):
		t.Fatalf("%s: a flipped byte went unnoticed:\n%s", what, r)
	case flushed:
		t.Fatalf("%s: flushed data was cut without Repair:\n%s", what, r)
	}
	l.Close()
}

// stRepairCase opens a damaged directory with Repair: Open cuts, reports
// the loss of flushed data, and serves a prefix of what was written.
func stRepairCase(t *testing.T, m *vfs.Mem, all []byte, what string) {
	t.Helper()
	opts := stMemOpts(m)
	opts.Repair = true
	l, err := Open(stDir, opts)
	if err != nil {
		t.Fatalf("%s: Open with Repair: %v", what, err)
	}
	defer l.Close()
	if !l.Recovery().LostFlushedData {
		t.Fatalf("%s: Repair did not report lost flushed data:\n%s", what, l.Recovery())
	}
	if _, err := stReadChecked(t, l, all, what+" (repaired)"); err != nil {
		t.Fatalf("%s: Read after Repair: %v", what, err)
	}
}
