package log

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// roRecorder wraps an FS and records every call that could change the
// directory: an open that may write or create, Remove, Rename, MkdirAll,
// SyncDir, Lock, and a file's WriteAt, Truncate and Sync.
type roRecorder struct {
	vfs.FS
	mu       sync.Mutex
	mutating []string
	reads    int
}

func (r *roRecorder) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mutating = append(r.mutating, s)
}

func (r *roRecorder) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	if flag != os.O_RDONLY {
		r.note(fmt.Sprintf("open %s flag %#x", filepath.Base(name), flag))
	}
	f, err := r.FS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &roFile{File: f, r: r, name: filepath.Base(name)}, nil
}
func (r *roRecorder) Remove(name string) error { r.note("remove " + name); return r.FS.Remove(name) }
func (r *roRecorder) Rename(a, b string) error { r.note("rename " + a); return r.FS.Rename(a, b) }
func (r *roRecorder) MkdirAll(dir string, perm fs.FileMode) error {
	r.note("mkdir " + dir)
	return r.FS.MkdirAll(dir, perm)
}
func (r *roRecorder) SyncDir(dir string) error { r.note("syncdir " + dir); return r.FS.SyncDir(dir) }
func (r *roRecorder) Lock(path string) (io.Closer, error) {
	r.note("lock " + path)
	return r.FS.Lock(path)
}

type roFile struct {
	vfs.File
	r    *roRecorder
	name string
}

func (f *roFile) WriteAt(p []byte, off int64) (int, error) {
	f.r.note("write " + f.name)
	return f.File.WriteAt(p, off)
}
func (f *roFile) Truncate(size int64) error {
	f.r.note("truncate " + f.name)
	return f.File.Truncate(size)
}
func (f *roFile) Sync() error { f.r.note("sync " + f.name); return f.File.Sync() }
func (f *roFile) ReadAt(p []byte, off int64) (int, error) {
	f.r.mu.Lock()
	f.r.reads++
	f.r.mu.Unlock()
	return f.File.ReadAt(p, off)
}

// roDirHash hashes every name, size, mtime and byte in dir.
func roDirHash(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		var data []byte
		if !e.IsDir() {
			if data, err = os.ReadFile(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(h, "%s %v %d %d %x\n", e.Name(), info.Mode(), info.Size(), info.ModTime().UnixNano(), sha256.Sum256(data))
	}
	return fmt.Sprintf("%d files %x", len(entries), h.Sum(nil))
}

// roBuildLog writes a closed log of several segments in dir.
func roBuildLog(t *testing.T, dir string) {
	t.Helper()
	l, err := Open(dir, Options{SegmentBytes: 1024, IndexIntervalBytes: 256})
	if err != nil {
		t.Fatal(err)
	}
	stAppendLeader(t, l, 30, 3, 40, 1_700_000_000_000)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// roSegments lists the segment files of dir in offset order.
func roSegments(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil || len(m) < 3 {
		t.Fatalf("segments: %v %v", m, err)
	}
	slices.Sort(m)
	return m
}

func TestOpenReadOnlyChangesNothingOnDiskAndReportsDamageWithoutCutting(t *testing.T) {
	for _, tc := range []struct {
		name    string
		damage  func(t *testing.T, dir string)
		cause   error // nil: no damage expected
		clean   bool
		stale   bool // index files recovery would rewrite
		rpBelow bool
		lazy    bool // in a segment a clean Open trusts: found by the first read
		ignored int  // checkpoints ignored
		left    []string
		lost    bool // batches deleted: fewer than 30 to scan
	}{
		{name: "clean", damage: func(*testing.T, string) {}, clean: true},
		{name: "unclean (no marker)", damage: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, cleanShutdownFileName)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "torn tail", cause: ErrTruncated, damage: func(t *testing.T, dir string) {
			segs := roSegments(t, dir)
			f, err := os.OpenFile(segs[len(segs)-1], os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(make([]byte, 30)) // half a header
			f.Close()
		}},
		{name: "corrupt batch", cause: ErrBadCRC, rpBelow: true, lazy: true, clean: false, damage: func(t *testing.T, dir string) {
			seg := roSegments(t, dir)[1]
			data, _ := os.ReadFile(seg)
			data[len(data)-3] ^= 0xff // in the last batch's records
			if err := os.WriteFile(seg, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "leftovers and a checkpoint that is a directory", ignored: 1, clean: true,
			left: []string{"00000000000000000099.index", "high-watermark-checkpoint.tmp"},
			damage: func(t *testing.T, dir string) {
				for _, name := range []string{"00000000000000000099.index", "high-watermark-checkpoint.tmp"} {
					if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.Mkdir(filepath.Join(dir, "leader-epoch-checkpoint.tmp"), 0o755); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "lost head", cause: ErrHole, rpBelow: true, lost: true, damage: func(t *testing.T, dir string) {
			stem := strings.TrimSuffix(roSegments(t, dir)[0], ".log")
			for _, suffix := range []string{".log", ".index", ".timeindex"} {
				if err := os.Remove(stem + suffix); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{name: "missing index", stale: true, clean: true, damage: func(t *testing.T, dir string) {
			idx := strings.TrimSuffix(roSegments(t, dir)[0], ".log") + ".index"
			if err := os.Remove(idx); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			roBuildLog(t, dir)
			tc.damage(t, dir)
			before := roDirHash(t, dir)
			rec := &roRecorder{FS: vfs.OS()}
			r, err := OpenReadOnly(dir, Options{FS: rec, IndexIntervalBytes: 256})
			if err != nil {
				t.Fatalf("OpenReadOnly: %v", err)
			}
			batches := 0
			for _, s := range r.Segments() {
				err := r.ScanSegment(s.BaseOffset, func(b StoredBatch) bool { batches++; return true })
				if err != nil && !errors.Is(err, ErrCorrupt) {
					t.Fatalf("ScanSegment: %v", err)
				}
			}
			if len(rec.mutating) != 0 {
				t.Errorf("mutating calls: %q", rec.mutating)
			}
			if rec.reads == 0 {
				t.Errorf("no reads through the seam")
			}
			if after := roDirHash(t, dir); after != before {
				t.Errorf("directory changed: %s -> %s", before, after)
			}
			if batches < 30 != tc.lost {
				t.Errorf("scanned %d batches of 30, lost %v", batches, tc.lost)
			}
			cut, damaged := r.Damage()
			switch {
			case tc.cause == nil && damaged:
				t.Errorf("damage %+v on an undamaged log", cut)
			case tc.cause != nil && !damaged:
				t.Errorf("no damage reported, want %v", tc.cause)
			case tc.cause != nil:
				var ce *CorruptError
				if !errors.As(cut.Reason, &ce) || !errors.Is(cut.Reason, tc.cause) || ce.File != cut.File {
					t.Errorf("damage reason %v (file %s), want a *CorruptError for %v", cut.Reason, cut.File, tc.cause)
				}
				if cut.BelowRecoveryPoint != tc.rpBelow {
					t.Errorf("BelowRecoveryPoint %v, want %v", cut.BelowRecoveryPoint, tc.rpBelow)
				}
			}
			if r.CleanShutdown() != tc.clean {
				t.Errorf("CleanShutdown %v, want %v", r.CleanShutdown(), tc.clean)
			}
			if got := len(r.IndexesStale()) > 0; got != tc.stale {
				t.Errorf("IndexesStale %q, want stale %v", r.IndexesStale(), tc.stale)
			}
			if len(r.CheckpointsIgnored()) != tc.ignored {
				t.Errorf("CheckpointsIgnored %q, want %d", r.CheckpointsIgnored(), tc.ignored)
			}
			if !slices.Equal(r.Leftovers(), tc.left) {
				t.Errorf("Leftovers %q, want %q", r.Leftovers(), tc.left)
			}
			if tc.cause == nil && r.EndOffset() != 90 {
				t.Errorf("EndOffset %d, want 90", r.EndOffset())
			}

			// What OpenReadOnly found is what Open recovers, or (in a
			// segment Open trusts) what the first read of it finds.
			// The recorder sees what Open changes (the lock at least).
			openRec := &roRecorder{FS: vfs.OS()}
			l, err := Open(dir, Options{Repair: true, FS: openRec})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer l.Close()
			if len(openRec.mutating) == 0 {
				t.Errorf("the recorder saw no mutating call of Open")
			}
			if tc.lazy {
				_, err := l.Read(nil, cut.FirstOffset, 1<<20, IsolationLogEnd)
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.File != cut.File || int64(ce.Pos) != cut.Pos || !errors.Is(err, tc.cause) {
					t.Errorf("Read at %d: %v; OpenReadOnly found %s at %d: %v", cut.FirstOffset, err, cut.File, cut.Pos, cut.Reason)
				}
				return
			}
			if l.EndOffset() != r.EndOffset() || l.StartOffset() != r.StartOffset() || l.HighWatermark() != r.HighWatermark() {
				t.Errorf("Open recovered [%d, %d) hw %d; OpenReadOnly found [%d, %d) hw %d",
					l.StartOffset(), l.EndOffset(), l.HighWatermark(), r.StartOffset(), r.EndOffset(), r.HighWatermark())
			}
			if len(l.Recovery().Cuts) > 0 != damaged {
				t.Errorf("Open cut %+v; OpenReadOnly damaged %v", l.Recovery().Cuts, damaged)
			}
		})
	}
}

func TestScanSegmentRefusesALengthPastTheFileBeforeAllocating(t *testing.T) {
	dir := t.TempDir()
	roBuildLog(t, dir)
	seg := roSegments(t, dir)[0]
	data, _ := os.ReadFile(seg)
	data[8], data[9], data[10], data[11] = 0x7f, 0xff, 0xff, 0xff // batchLength 2 GiB
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	scanErr := r.ScanSegment(r.Segments()[0].BaseOffset, func(StoredBatch) bool { return true })
	if !errors.Is(scanErr, ErrTruncated) {
		t.Fatalf("ScanSegment: %v, want ErrTruncated", scanErr)
	}
	if cap(r.buf) > len(data) {
		t.Errorf("buffer grew to %d bytes for a %d-byte file", cap(r.buf), len(data))
	}
	cut, ok := r.Damage()
	if !ok || !errors.Is(cut.Reason, ErrTruncated) || cut.Pos != 0 || cut.FirstOffset != 0 {
		t.Errorf("Damage %+v %v, want a truncation at 0", cut, ok)
	}
}
