package vfs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestFaultyFailsTheNthCall fails the second call of each kind and checks
// that the failed call reports the injected error and did nothing, and
// that the calls around it work.
func TestFaultyFailsTheNthCall(t *testing.T) {
	calls := map[Op]func(fsys FS, f File) error{
		OpOpen: func(fsys FS, _ File) error {
			_, err := fsys.OpenFile("/d/f", os.O_RDWR, 0)
			return err
		},
		OpRead:     func(_ FS, f File) error { _, err := f.ReadAt(make([]byte, 1), 0); return err },
		OpWrite:    func(_ FS, f File) error { _, err := f.WriteAt([]byte("w"), 0); return err },
		OpSync:     func(_ FS, f File) error { return f.Sync() },
		OpTruncate: func(_ FS, f File) error { return f.Truncate(1) },
		OpRename:   func(fsys FS, _ File) error { return fsys.Rename("/d/f", "/d/f") },
		OpRemove: func(fsys FS, _ File) error {
			memWrite(t, fsys, "/d/r", nil, false)
			return fsys.Remove("/d/r")
		},
		OpSyncDir: func(fsys FS, _ File) error { return fsys.SyncDir("/d") },
		OpReadDir: func(fsys FS, _ File) error { _, err := fsys.ReadDir("/d"); return err },
		OpLock: func(fsys FS, _ File) error {
			l, err := fsys.Lock("/d/.lock")
			if err == nil {
				l.Close()
			}
			return err
		},
	}
	for _, op := range Ops {
		t.Run(op.String(), func(t *testing.T) {
			m := NewMem()
			m.MkdirAll("/d", 0o755)
			memWrite(t, m, "/d/f", []byte("abc"), false)
			fsys := Faulty(m)
			f, err := fsys.OpenFile("/d/f", os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			base := fsys.Calls(op)
			fsys.FailNth(op, base+2, syscall.EIO)
			if err := calls[op](fsys, f); err != nil {
				t.Fatalf("call 1: %v", err)
			}
			before, _ := memContent(t, m, "/d/f")
			err = calls[op](fsys, f)
			if !errors.Is(err, syscall.EIO) {
				t.Fatalf("call 2 = %v, want EIO", err)
			}
			if after, _ := memContent(t, m, "/d/f"); string(after) != string(before) {
				t.Fatalf("the failed call changed the file: %q -> %q", before, after)
			}
			if err := calls[op](fsys, f); err != nil {
				t.Fatalf("call 3 = %v, want success after a one-off fault", err)
			}
			if got := fsys.Calls(op) - base; got < 3 {
				t.Fatalf("Calls counted %d, want >= 3", got)
			}
		})
	}
}

func TestFaultyFailFromIsSticky(t *testing.T) {
	m := NewMem()
	m.MkdirAll("/d", 0o755)
	fsys := Faulty(m)
	f := memWrite(t, fsys, "/d/f", []byte("a"), false)
	fsys.FailFrom(OpWrite, fsys.Calls(OpWrite)+1, syscall.ENOSPC)
	for i := range 3 {
		if _, err := f.WriteAt([]byte("b"), 1); !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("write %d on a full disk = %v, want ENOSPC", i, err)
		}
	}
	fsys.Heal()
	if _, err := f.WriteAt([]byte("b"), 1); err != nil {
		t.Fatalf("write after Heal = %v", err)
	}
}

// TestFaultyOverOS: the wrapper works over the real file system too.
func TestFaultyOverOS(t *testing.T) {
	dir := t.TempDir()
	fsys := Faulty(OS())
	f := memWrite(t, fsys, filepath.Join(dir, "f"), []byte("abc"), false)
	fsys.FailNth(OpSync, fsys.Calls(OpSync)+1, syscall.EIO)
	if err := f.Sync(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("Sync = %v, want EIO", err)
	}
	if err := f.Sync(); err != nil {
		t.Fatalf("second Sync = %v", err)
	}
	f.Close()
}

func TestOSFiles(t *testing.T) {
	dir := t.TempDir()
	fsys := OS()
	f := memWrite(t, fsys, filepath.Join(dir, "f"), []byte("hello"), true)
	defer f.Close()
	if size, err := f.Size(); err != nil || size != 5 {
		t.Fatalf("Size = %d, %v", size, err)
	}
	if err := fsys.SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := fsys.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := fsys.ReadDir(dir)
	if err != nil || len(entries) != 2 || entries[0] != (DirEntry{"f", true}) || entries[1] != (DirEntry{"sub", false}) {
		t.Fatalf("ReadDir = %+v, %v", entries, err)
	}
}

// TestOSReadDirMany: a listing longer than one getdents buffer returns
// every name once, with its type, as os.ReadDir does.
func TestOSReadDirMany(t *testing.T) {
	dir := t.TempDir()
	want := map[string]bool{}
	for i := range 1500 {
		name := fmt.Sprintf("%0*d.log", 200+i%50, i) // about 240-byte records: 2 buffers
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		want[name] = true
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	want["sub"] = false
	entries, err := OS().ReadDir(dir)
	if err != nil || len(entries) != len(want) {
		t.Fatalf("ReadDir: %d entries, %v; want %d", len(entries), err, len(want))
	}
	for _, e := range entries {
		regular, ok := want[e.Name]
		if !ok || regular != e.Regular {
			t.Fatalf("ReadDir listed %+v", e)
		}
		delete(want, e.Name)
	}
}

// TestOSLockInProcess: flock locks belong to the open file, so a second
// Lock in the same process is refused, naming this process.
func TestOSLockInProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	l, err := OS().Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = OS().Lock(path)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), strconv.Itoa(os.Getpid())) {
		t.Fatalf("second Lock = %v, want ErrLocked naming pid %d", err, os.Getpid())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l2, err := OS().Lock(path)
	if err != nil {
		t.Fatalf("Lock after Close = %v", err)
	}
	var _ io.Closer = l2
	l2.Close()
}

// TestFaultyCutAt: from the n-th call overall, every call of every kind
// fails; the ones before succeed.
func TestFaultyCutAt(t *testing.T) {
	m := NewMem()
	m.MkdirAll("/d", 0o755)
	fsys := Faulty(m)
	f := memWrite(t, fsys, "/d/f", []byte("a"), false) // open, write: calls 1, 2
	fsys.CutAt(4, syscall.EIO)
	if err := f.Sync(); err != nil { // call 3
		t.Fatalf("call 3 = %v", err)
	}
	if err := fsys.SyncDir("/d"); !errors.Is(err, syscall.EIO) {
		t.Fatalf("call 4 = %v, want EIO", err)
	}
	if _, err := f.ReadAt(make([]byte, 1), 0); !errors.Is(err, syscall.EIO) {
		t.Fatalf("call 5 = %v, want EIO", err)
	}
	if n := fsys.TotalCalls(); n != 5 {
		t.Fatalf("TotalCalls = %d, want 5", n)
	}
	fsys.Heal()
	if err := f.Sync(); err != nil {
		t.Fatalf("after Heal: %v", err)
	}
}
