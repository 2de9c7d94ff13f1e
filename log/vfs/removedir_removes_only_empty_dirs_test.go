package vfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// RemoveDir deletes an empty directory and refuses one that holds a file
// or a subdirectory, on every FS; the removal of a Mem directory survives
// a crash.
func TestRemoveDirRemovesOnlyEmptyDirectories(t *testing.T) {
	for name, fsys := range map[string]FS{"os": OS(), "mem": NewMem(), "faulty": Faulty(NewMem()), "volatile": NewVolatileCache(OS(), 1<<20)} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "t-0")
			if err := fsys.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := fsys.RemoveDir(dir); err == nil {
				t.Fatal("removed a directory holding a subdirectory")
			}
			if err := fsys.RemoveDir(filepath.Join(dir, "sub")); err != nil {
				t.Fatal(err)
			}
			f, err := fsys.OpenFile(filepath.Join(dir, "x"), os.O_RDWR|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := fsys.RemoveDir(dir); err == nil {
				t.Fatal("removed a directory holding a file")
			}
			if err := fsys.Remove(filepath.Join(dir, "x")); err != nil {
				t.Fatal(err)
			}
			if err := fsys.SyncDir(dir); err != nil {
				t.Fatal(err)
			}
			if err := fsys.RemoveDir(dir); err != nil {
				t.Fatalf("removing the emptied directory: %v", err)
			}
			if m, ok := fsys.(*Mem); ok {
				m.Crash(LoseUnsynced, 1)
			}
			if _, err := fsys.ReadDir(dir); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("ReadDir of the removed directory: %v, want fs.ErrNotExist", err)
			}
		})
	}
}
