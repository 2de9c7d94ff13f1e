package vfs

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"testing"
)

// memWrite creates (or truncates) name in m and writes data into it.
func memWrite(t *testing.T, fsys FS, name string, data []byte, sync bool) File {
	t.Helper()
	f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// memContent returns the file's content, or nil and false if it is missing.
func memContent(t *testing.T, fsys FS, name string) ([]byte, bool) {
	t.Helper()
	data, err := ReadFile(fsys, name, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return data, true
}

func memNames(t *testing.T, fsys FS, dir string) string {
	t.Helper()
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, e := range entries {
		out = append(out, e.Name...)
		out = append(out, ' ')
	}
	return string(bytes.TrimSpace(out))
}

func TestMemFiles(t *testing.T) {
	m := NewMem()
	if err := m.MkdirAll("/d/e", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := m.OpenFile("/d/x", os.O_RDWR, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("open missing = %v, want ErrNotExist", err)
	}
	if _, err := m.OpenFile("/nodir/x", os.O_RDWR|os.O_CREATE, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("create in a missing directory = %v, want ErrNotExist", err)
	}
	f := memWrite(t, m, "/d/x", []byte("hello"), false)
	if _, err := m.OpenFile("/d/x", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("O_EXCL on an existing file = %v, want ErrExist", err)
	}
	buf := make([]byte, 8)
	if n, err := f.ReadAt(buf, 2); n != 3 || err != io.EOF || string(buf[:n]) != "llo" {
		t.Fatalf("ReadAt past the end = %d, %v, %q", n, err, buf[:n])
	}
	if err := f.Truncate(2); err != nil {
		t.Fatal(err)
	}
	// A write past the end zero-fills the gap, even where a truncation
	// left old bytes in the slice's capacity.
	if _, err := f.WriteAt([]byte("!"), 4); err != nil {
		t.Fatal(err)
	}
	if got, _ := memContent(t, m, "/d/x"); string(got) != "he\x00\x00!" {
		t.Fatalf("content %q, want %q", got, "he\x00\x00!")
	}
	if err := f.Truncate(7); err != nil {
		t.Fatal(err)
	}
	if size, _ := f.Size(); size != 7 {
		t.Fatalf("size %d after extending truncate, want 7", size)
	}
	ro, err := m.OpenFile("/d/x", os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.WriteAt([]byte("x"), 0); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("write to a read-only file = %v", err)
	}
	ro.Close()
	if _, err := ro.ReadAt(buf, 0); !errors.Is(err, fs.ErrClosed) {
		t.Fatalf("read after Close = %v, want ErrClosed", err)
	}
	if got := memNames(t, m, "/d"); got != "e x" {
		t.Fatalf("ReadDir = %q", got)
	}
	entries, _ := m.ReadDir("/d")
	if entries[0].Regular || !entries[1].Regular {
		t.Fatalf("Regular flags wrong: %+v", entries)
	}
	// Remove keeps open files readable, as on POSIX.
	if err := m.Remove("/d/x"); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.ReadAt(buf[:2], 0); n != 2 || string(buf[:2]) != "he" {
		t.Fatal("removed file no longer readable through its open File")
	}
	if err := m.Remove("/d/x"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("second Remove = %v", err)
	}
	if err := m.Rename("/d/x", "/d/y"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Rename of a missing file = %v", err)
	}
}

// TestMemCrashLoseUnsynced is the power-cut table: what each unsynced
// change leaves after LoseUnsynced (and, for comparison, KeepUnsynced).
func TestMemCrashLoseUnsynced(t *testing.T) {
	type result struct {
		content string
		exists  bool
	}
	for _, tc := range []struct {
		name       string
		do         func(t *testing.T, m *Mem)
		keep, lose result
	}{
		{"created and synced, directory not synced: vanishes", func(t *testing.T, m *Mem) {
			memWrite(t, m, "/d/f", []byte("abc"), true)
		}, result{"abc", true}, result{"", false}},
		{"created, directory synced, file not synced: empty", func(t *testing.T, m *Mem) {
			memWrite(t, m, "/d/f", []byte("abc"), false)
			m.SyncDir("/d")
		}, result{"abc", true}, result{"", true}},
		{"synced, then appended: the append is lost", func(t *testing.T, m *Mem) {
			f := memWrite(t, m, "/d/f", []byte("abc"), true)
			m.SyncDir("/d")
			f.WriteAt([]byte("def"), 3)
		}, result{"abcdef", true}, result{"abc", true}},
		{"synced, then truncated: the truncation is lost", func(t *testing.T, m *Mem) {
			f := memWrite(t, m, "/d/f", []byte("abcdef"), true)
			m.SyncDir("/d")
			f.Truncate(2)
		}, result{"ab", true}, result{"abcdef", true}},
		{"removed without SyncDir: comes back", func(t *testing.T, m *Mem) {
			memWrite(t, m, "/d/f", []byte("abc"), true)
			m.SyncDir("/d")
			m.Remove("/d/f")
		}, result{"", false}, result{"abc", true}},
		{"removed and SyncDir: gone", func(t *testing.T, m *Mem) {
			memWrite(t, m, "/d/f", []byte("abc"), true)
			m.SyncDir("/d")
			m.Remove("/d/f")
			m.SyncDir("/d")
		}, result{"", false}, result{"", false}},
		{"rename over it without SyncDir: reverts", func(t *testing.T, m *Mem) {
			memWrite(t, m, "/d/f", []byte("old"), true)
			m.SyncDir("/d")
			memWrite(t, m, "/d/f.tmp", []byte("new"), true)
			m.Rename("/d/f.tmp", "/d/f")
		}, result{"new", true}, result{"old", true}},
		{"rename over it and SyncDir: durable", func(t *testing.T, m *Mem) {
			memWrite(t, m, "/d/f", []byte("old"), true)
			m.SyncDir("/d")
			memWrite(t, m, "/d/f.tmp", []byte("new"), true)
			m.Rename("/d/f.tmp", "/d/f")
			m.SyncDir("/d")
		}, result{"new", true}, result{"new", true}},
		{"renamed away without SyncDir: the old name comes back with its synced content", func(t *testing.T, m *Mem) {
			f := memWrite(t, m, "/d/f", []byte("abc"), true)
			m.SyncDir("/d")
			f.WriteAt([]byte("xyz"), 3)
			m.Rename("/d/f", "/d/g")
		}, result{"", false}, result{"abc", true}},
	} {
		for _, mode := range []CrashMode{KeepUnsynced, LoseUnsynced} {
			t.Run(mode.String()+": "+tc.name, func(t *testing.T) {
				m := NewMem()
				m.MkdirAll("/d", 0o755)
				tc.do(t, m)
				m.Crash(mode, 1)
				want := tc.keep
				if mode == LoseUnsynced {
					want = tc.lose
				}
				got, ok := memContent(t, m, "/d/f")
				if ok != want.exists || string(got) != want.content {
					t.Fatalf("/d/f = %q (exists %v), want %q (exists %v)", got, ok, want.content, want.exists)
				}
			})
		}
	}
}

func TestMemCrashKillsOpenFilesAndLocks(t *testing.T) {
	m := NewMem()
	m.MkdirAll("/d", 0o755)
	f := memWrite(t, m, "/d/f", []byte("abc"), false)
	lock, err := m.Lock("/d/.lock")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Lock("/d/.lock"); !errors.Is(err, ErrLocked) || !bytes.Contains([]byte(err.Error()), []byte(strconv.Itoa(os.Getpid()))) {
		t.Fatalf("second Lock = %v, want ErrLocked naming pid %d", err, os.Getpid())
	}
	m.Crash(KeepUnsynced, 0)
	for name, err := range map[string]error{
		"write": func() error { _, err := f.WriteAt([]byte("x"), 0); return err }(),
		"read":  func() error { _, err := f.ReadAt(make([]byte, 1), 0); return err }(),
		"sync":  f.Sync(),
		"trunc": f.Truncate(0),
		"close": f.Close(),
	} {
		if !errors.Is(err, ErrCrashed) {
			t.Errorf("%s on a file of the crashed process = %v, want ErrCrashed", name, err)
		}
	}
	lock2, err := m.Lock("/d/.lock")
	if err != nil {
		t.Fatalf("Lock after a crash = %v, want the dead holder's lock released", err)
	}
	lock.Close() // the dead holder's Close must not release the new one
	if _, err := m.Lock("/d/.lock"); !errors.Is(err, ErrLocked) {
		t.Fatalf("Lock while held after the old holder's Close = %v", err)
	}
	lock2.Close()
	if l, err := m.Lock("/d/.lock"); err != nil {
		t.Fatalf("Lock after Close = %v", err)
	} else {
		l.Close()
	}
}

// TestMemCrashTorn checks the torn mode: a file that was only appended to
// keeps a prefix of the appended bytes, every length is possible, the
// choice is a function of the seed, and other unsynced changes are lost.
func TestMemCrashTorn(t *testing.T) {
	build := func() *Mem {
		m := NewMem()
		m.MkdirAll("/d", 0o755)
		f := memWrite(t, m, "/d/app", []byte("base"), true)
		f.WriteAt([]byte("0123456789"), 4)
		g := memWrite(t, m, "/d/mid", []byte("abcdef"), true)
		g.WriteAt([]byte("XY"), 2)
		g.WriteAt([]byte("gh"), 6)
		m.SyncDir("/d")
		return m
	}
	seen := map[int]bool{}
	for seed := range uint64(300) {
		m := build()
		m.Crash(TornUnsynced, seed)
		got, _ := memContent(t, m, "/d/app")
		if !bytes.HasPrefix([]byte("base0123456789"), got) || len(got) < 4 {
			t.Fatalf("seed %d: torn file %q is not a prefix of the written bytes at least as long as the synced ones", seed, got)
		}
		seen[len(got)] = true
		if mid, _ := memContent(t, m, "/d/mid"); string(mid) != "abcdef" {
			t.Fatalf("seed %d: overwritten file %q, want its synced content", seed, mid)
		}
		again := build()
		again.Crash(TornUnsynced, seed)
		if got2, _ := memContent(t, again, "/d/app"); !bytes.Equal(got, got2) {
			t.Fatalf("seed %d: two crashes with the same seed kept %q and %q", seed, got, got2)
		}
	}
	for n := 4; n <= 14; n++ {
		if !seen[n] {
			t.Errorf("no seed kept exactly %d bytes", n)
		}
	}
}

// TestMemSyncCopiesOnlyWhatChanged: Sync after writes in the middle, past
// the end and after truncations makes exactly the current content durable.
func TestMemSyncAfterMixedChanges(t *testing.T) {
	m := NewMem()
	m.MkdirAll("/d", 0o755)
	f := memWrite(t, m, "/d/f", []byte("0123456789"), true)
	m.SyncDir("/d")
	f.WriteAt([]byte("ab"), 3)
	f.Truncate(8)
	f.WriteAt([]byte("XYZ"), 10)
	f.Sync()
	want, _ := memContent(t, m, "/d/f")
	m.Crash(LoseUnsynced, 0)
	if got, _ := memContent(t, m, "/d/f"); !bytes.Equal(got, want) || string(want) != "012ab567\x00\x00XYZ" {
		t.Fatalf("after Sync and a power cut: %q, want %q", got, want)
	}
}

func TestReadFileLimit(t *testing.T) {
	m := NewMem()
	m.MkdirAll("/d", 0o755)
	memWrite(t, m, "/d/f", make([]byte, 100), false)
	if _, err := ReadFile(m, "/d/f", 99); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadFile over the limit = %v, want ErrTooLarge", err)
	}
	if data, err := ReadFile(m, "/d/f", 100); err != nil || len(data) != 100 {
		t.Fatalf("ReadFile at the limit = %d bytes, %v", len(data), err)
	}
}
