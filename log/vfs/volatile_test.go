package vfs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// vcOpen opens name through fsys for reading and writing, creating it.
func vcOpen(t *testing.T, fsys FS, name string, flag int) File {
	t.Helper()
	f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|flag, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func vcWrite(t *testing.T, f File, s string, off int64) {
	t.Helper()
	if _, err := f.WriteAt([]byte(s), off); err != nil {
		t.Fatal(err)
	}
}

func vcSync(t *testing.T, f File) {
	t.Helper()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

// vcKill is a process kill: the cache's unsynced data goes; what the
// inner Mem holds stays (KeepUnsynced: the kernel outlives the process).
func vcKill(c *VolatileCache, m *Mem) {
	c.Crash()
	m.Crash(KeepUnsynced, 0)
}

// TestVolatileCacheKill is the table of what a process kill leaves of
// each unsynced change: live is what the process saw before the kill,
// after what a new process sees.
func TestVolatileCacheKill(t *testing.T) {
	const name = "/d/f"
	type result struct {
		content string
		exists  bool
	}
	for _, tc := range []struct {
		name        string
		do          func(t *testing.T, c *VolatileCache)
		live, after result
	}{
		{"unsynced write: lost; the file stays (metadata is applied at once)", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, name, 0)
			vcWrite(t, f, "abc", 0)
		}, result{"abc", true}, result{"", true}},
		{"synced write: kept", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, name, 0)
			vcWrite(t, f, "abc", 0)
			vcSync(t, f)
		}, result{"abc", true}, result{"abc", true}},
		{"synced, then an unsynced append: the synced prefix", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, name, 0)
			vcWrite(t, f, "hello", 0)
			vcSync(t, f)
			vcWrite(t, f, " world", 5)
		}, result{"hello world", true}, result{"hello", true}},
		{"unsynced overwrite: the old bytes", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, name, 0)
			vcWrite(t, f, "hello", 0)
			vcSync(t, f)
			vcWrite(t, f, "J", 0)
		}, result{"Jello", true}, result{"hello", true}},
		{"unsynced truncation: undone", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, name, 0)
			vcWrite(t, f, "hello world", 0)
			vcSync(t, f)
			if err := f.Truncate(5); err != nil {
				t.Fatal(err)
			}
		}, result{"hello", true}, result{"hello world", true}},
		{"truncation, a write past the end, sync: the cut bytes read as zeros", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, name, 0)
			vcWrite(t, f, "hello world", 0)
			vcSync(t, f)
			if err := f.Truncate(5); err != nil {
				t.Fatal(err)
			}
			vcWrite(t, f, "!", 7)
			vcSync(t, f)
		}, result{"hello\x00\x00!", true}, result{"hello\x00\x00!", true}},
		{"extending truncation, synced", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, name, 0)
			vcWrite(t, f, "ab", 0)
			if err := f.Truncate(4); err != nil {
				t.Fatal(err)
			}
			vcSync(t, f)
		}, result{"ab\x00\x00", true}, result{"ab\x00\x00", true}},
		{"O_TRUNC and a write, unsynced: the old content", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, name, 0)
			vcWrite(t, f, "old content", 0)
			vcSync(t, f)
			f.Close()
			g := vcOpen(t, c, name, os.O_TRUNC)
			vcWrite(t, g, "new", 0)
		}, result{"new", true}, result{"old content", true}},
		{"closed unsynced: a reopen in the process sees it, the kill loses it", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, name, 0)
			vcWrite(t, f, "abc", 0)
			f.Close()
			g, err := c.OpenFile(name, os.O_RDONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := io.ReadAll(io.NewSectionReader(g, 0, 100)); string(got) != "abc" {
				t.Fatalf("reopened: %q, want the unsynced abc", got)
			}
			g.Close()
		}, result{"abc", true}, result{"", true}},
		{"a Sync through a read-only File writes the file's pages", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, name, 0)
			vcWrite(t, f, "abc", 0)
			f.Close()
			g, err := c.OpenFile(name, os.O_RDONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			vcSync(t, g)
		}, result{"abc", true}, result{"abc", true}},
		{"renamed with unsynced data: the data follows, the name stays", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, "/d/tmp", 0)
			vcWrite(t, f, "abc", 0)
			vcSync(t, f)
			vcWrite(t, f, "def", 3)
			f.Close()
			if err := c.Rename("/d/tmp", name); err != nil {
				t.Fatal(err)
			}
		}, result{"abcdef", true}, result{"abc", true}},
		{"removed: gone", func(t *testing.T, c *VolatileCache) {
			f := vcOpen(t, c, name, 0)
			vcWrite(t, f, "abc", 0)
			vcSync(t, f)
			f.Close()
			if err := c.Remove(name); err != nil {
				t.Fatal(err)
			}
		}, result{"", false}, result{"", false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMem()
			if err := m.MkdirAll("/d", 0o755); err != nil {
				t.Fatal(err)
			}
			c := NewVolatileCache(m, 0)
			tc.do(t, c)
			if got, ok := memContent(t, c, name); ok != tc.live.exists || string(got) != tc.live.content {
				t.Fatalf("before the kill: %q (exists %v), want %q (exists %v)", got, ok, tc.live.content, tc.live.exists)
			}
			vcKill(c, m)
			if got, ok := memContent(t, NewVolatileCache(m, 0), name); ok != tc.after.exists || string(got) != tc.after.content {
				t.Fatalf("after the kill: %q (exists %v), want %q (exists %v)", got, ok, tc.after.content, tc.after.exists)
			}
		})
	}
}

// TestVolatileCacheBookkeeping checks what the cache holds: pages while
// data is unsynced, nothing once it is synced, removed or written back,
// and dead Files after Crash.
func TestVolatileCacheBookkeeping(t *testing.T) {
	m := NewMem()
	m.MkdirAll("/d", 0o755)
	c := NewVolatileCache(m, 2*VolatilePageSize)
	f := vcOpen(t, c, "/d/a", 0)
	vcWrite(t, f, "x", VolatilePageSize-1) // one byte in page 0
	if got := c.Unsynced(); got != VolatilePageSize {
		t.Fatalf("Unsynced %d after a one-byte write, want one page", got)
	}
	vcWrite(t, f, "yz", VolatilePageSize-1) // pages 0 and 1
	if got := c.Unsynced(); got != 2*VolatilePageSize {
		t.Fatalf("Unsynced %d, want two pages", got)
	}
	vcSync(t, f)
	if got := c.Unsynced(); got != 0 {
		t.Fatalf("Unsynced %d after Sync, want 0", got)
	}
	f.Close()
	c.mu.Lock()
	n := len(c.files)
	c.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d files cached after a clean close, want 0", n)
	}

	// Writeback: past the limit, the written file goes to the inner FS
	// (not fsynced), so a kill keeps it.
	g := vcOpen(t, c, "/d/b", 0)
	big := bytes.Repeat([]byte("w"), 3*VolatilePageSize)
	if _, err := g.WriteAt(big, 0); err != nil {
		t.Fatal(err)
	}
	if got := c.Unsynced(); got != 0 {
		t.Fatalf("Unsynced %d after a write past the limit, want 0 (written back)", got)
	}
	vcWrite(t, g, "tail", int64(len(big)))
	h := vcOpen(t, c, "/d/c", 0)
	vcWrite(t, h, "removed before it was synced", 0)
	h.Close()
	if err := c.Remove("/d/c"); err != nil {
		t.Fatal(err)
	}
	if got := c.Unsynced(); got != VolatilePageSize {
		t.Fatalf("Unsynced %d, want one page (b's tail)", got)
	}
	vcKill(c, m)
	if _, err := g.ReadAt(make([]byte, 1), 0); !errors.Is(err, ErrCrashed) {
		t.Fatalf("read after Crash = %v, want ErrCrashed", err)
	}
	if err := g.Close(); !errors.Is(err, ErrCrashed) {
		t.Fatalf("Close after Crash = %v, want ErrCrashed", err)
	}
	if got := c.Unsynced(); got != 0 {
		t.Fatalf("Unsynced %d after Crash, want 0", got)
	}
	if got, _ := memContent(t, c, "/d/b"); !bytes.Equal(got, big) {
		t.Fatalf("after the kill b has %d bytes, want the %d written back", len(got), len(big))
	}

	// Permissions and errors as a real File's.
	ro, err := c.OpenFile("/d/b", os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.WriteAt([]byte("x"), 0); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("write through a read-only File = %v", err)
	}
	ro.Close()
	if _, err := ro.ReadAt(make([]byte, 1), 0); !errors.Is(err, fs.ErrClosed) {
		t.Fatalf("read after Close = %v, want ErrClosed", err)
	}
	if _, err := c.OpenFile("/d/missing", os.O_RDWR, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("open of a missing file = %v", err)
	}
	if _, err := c.OpenFile("/d/b", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("O_EXCL of an existing file = %v", err)
	}
}

// TestVolatileCacheSyncReachesDisk checks that Sync fsyncs the inner
// file, and that a failed Sync keeps the data unsynced (a later kill
// loses it) instead of reporting it written.
func TestVolatileCacheSyncReachesDisk(t *testing.T) {
	m := NewMem()
	m.MkdirAll("/d", 0o755)
	ff := Faulty(m)
	c := NewVolatileCache(ff, 0)
	f := vcOpen(t, c, "/d/a", 0)
	if err := m.SyncDir("/d"); err != nil { // the name is durable; the data is the test
		t.Fatal(err)
	}
	vcWrite(t, f, "abc", 0)
	vcSync(t, f)
	if n := ff.Calls(OpSync); n != 1 {
		t.Fatalf("inner fsyncs %d, want 1", n)
	}
	m.Crash(LoseUnsynced, 0) // a power cut of the machine itself
	c.Crash()
	if got, _ := memContent(t, c, "/d/a"); string(got) != "abc" {
		t.Fatalf("after a power cut: %q, want the synced abc", got)
	}

	g := vcOpen(t, c, "/d/a", 0)
	ff.FailNth(OpWrite, ff.Calls(OpWrite)+1, errors.New("EIO"))
	vcWrite(t, g, "def", 3)
	if err := g.Sync(); err == nil {
		t.Fatal("Sync with a failing write succeeded")
	}
	if got := c.Unsynced(); got != VolatilePageSize {
		t.Fatalf("Unsynced %d after a failed Sync, want the page still dirty", got)
	}
	vcKill(c, m)
	if got, _ := memContent(t, c, "/d/a"); string(got) != "abc" {
		t.Fatalf("after a failed Sync and a kill: %q, want abc", got)
	}
}

// TestVolatileCacheModel runs seeded random writes, truncations, syncs,
// reopens and kills on a VolatileCache over a Mem and on a Mem alone
// whose power cut (LoseUnsynced) is the model: both must read the same
// at every step.
func TestVolatileCacheModel(t *testing.T) {
	for seed := range uint64(4) {
		volatileModel(t, seed)
	}
}

// volatileModel is one seed's run of TestVolatileCacheModel.
func volatileModel(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	inner, model := NewMem(), NewMem()
	for _, m := range []*Mem{inner, model} {
		m.MkdirAll("/d", 0o755)
	}
	c := NewVolatileCache(inner, 1<<30)
	names := []string{"/d/a", "/d/b"}
	open := func() (map[string]File, map[string]File) {
		cf, mf := map[string]File{}, map[string]File{}
		for _, n := range names {
			cf[n], mf[n] = vcOpen(t, c, n, 0), vcOpen(t, model, n, 0)
		}
		return cf, mf
	}
	cf, mf := open()
	model.SyncDir("/d") // names are durable at once in the cache's model
	buf, wbuf := make([]byte, 3*VolatilePageSize), make([]byte, 3*VolatilePageSize)
	for step := range 1500 {
		n := names[rng.IntN(len(names))]
		var what string
		switch op := rng.IntN(20); {
		case op < 10:
			size, _ := mf[n].Size()
			off := rng.Int64N(size + VolatilePageSize)
			data := make([]byte, 1+rng.IntN(2*VolatilePageSize))
			for i := range data {
				data[i] = byte(rng.IntN(256))
			}
			what = fmt.Sprintf("WriteAt(%d bytes, %d)", len(data), off)
			cf[n].WriteAt(data, off)
			mf[n].WriteAt(data, off)
		case op < 13:
			size, _ := mf[n].Size()
			to := rng.Int64N(size + VolatilePageSize)
			what = fmt.Sprintf("Truncate(%d)", to)
			cf[n].Truncate(to)
			mf[n].Truncate(to)
		case op < 16:
			what = "Sync"
			if err := cf[n].Sync(); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			mf[n].Sync()
		case op < 18:
			what = "Close and reopen"
			cf[n].Close()
			mf[n].Close()
			cf[n], mf[n] = vcOpen(t, c, n, 0), vcOpen(t, model, n, 0)
		default:
			what = "kill"
			vcKill(c, inner)
			model.Crash(LoseUnsynced, 0)
			cf, mf = open()
		}
		for _, n := range names {
			want, _ := memContent(t, model, n)
			got, _ := memContent(t, c, n)
			if !bytes.Equal(got, want) {
				t.Fatalf("seed %d step %d (%s on %s): %s reads %d bytes, the model %d", seed, step, what, n, n, len(got), len(want))
			}
			// A read at a random offset, as the log reads.
			size, _ := mf[n].Size()
			off := rng.Int64N(size + 1)
			l := rng.IntN(len(buf)) + 1
			gn, gerr := cf[n].ReadAt(buf[:l], off)
			wn, werr := mf[n].ReadAt(wbuf[:l], off)
			if gn != wn || gerr != werr || !bytes.Equal(buf[:gn], wbuf[:wn]) {
				t.Fatalf("seed %d step %d (%s): %s ReadAt(%d bytes, %d) = %d, %v; the model's %d, %v", seed, step, what, n, l, off, gn, gerr, wn, werr)
			}
		}
	}
}

// TestVolatileCacheConcurrent runs writers, readers and syncs on shared
// files at once (for -race), then checks each file against what its
// writer wrote.
func TestVolatileCacheConcurrent(t *testing.T) {
	m := NewMem()
	m.MkdirAll("/d", 0o755)
	c := NewVolatileCache(m, 8*VolatilePageSize) // small: writeback runs too
	var wg sync.WaitGroup
	want := make([][]byte, 4)
	for w := range want {
		name := fmt.Sprintf("/d/%d", w)
		f := vcOpen(t, c, name, 0)
		r := vcOpen(t, c, name, 0)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 300 {
				rec := bytes.Repeat([]byte{byte('a' + w)}, 100+i)
				if _, err := f.WriteAt(rec, int64(len(want[w]))); err != nil {
					t.Error(err)
					return
				}
				want[w] = append(want[w], rec...)
				if i%10 == 0 {
					if err := f.Sync(); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
		go func() {
			defer wg.Done()
			buf := make([]byte, 1000)
			for range 300 {
				size, _ := r.Size()
				n, err := r.ReadAt(buf, max(0, size-int64(len(buf))))
				if err != nil && err != io.EOF {
					t.Error(err)
					return
				}
				for _, b := range buf[:n] {
					if b != byte('a'+w) {
						t.Errorf("file %d: read byte %q", w, b)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for w := range want {
		if got, _ := memContent(t, c, fmt.Sprintf("/d/%d", w)); !bytes.Equal(got, want[w]) {
			t.Fatalf("file %d: %d bytes, want %d", w, len(got), len(want[w]))
		}
	}
}

const vcChildEnv = "KAENLOG_VOLATILE_CHILD_DIR"

// TestVolatileCacheKill9 is the real thing: a child process writes
// through a VolatileCache over the OS, synced and unsynced, says so and
// is SIGKILLed; the files then hold exactly the synced bytes (and what
// the metadata model keeps), while the same writes made straight to the
// OS all survive the kill.
func TestVolatileCacheKill9(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestVolatileCacheKill9Child$")
	cmd.Env = append(os.Environ(), vcChildEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe() // held open: the child blocks reading it
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	ready := false
	for sc.Scan() {
		if sc.Text() == "written" {
			ready = true
			break
		}
	}
	if !ready {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child did not say it wrote: %s", stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	for _, tc := range []struct{ file, want string }{
		{"cache/appended", "synced"},
		{"cache/never-synced", ""},
		{"cache/truncated", "0123456789"},
		{"cache/renamed", "ab"},
		{"cache/big", strings.Repeat("b", 3*VolatilePageSize)},
		{"os/appended", "synced+unsynced"},
		{"os/never-synced", "unsynced"},
		{"os/truncated", "01234"},
		{"os/renamed", "abcd"},
	} {
		got, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s after SIGKILL: %q, want %q", tc.file, got, tc.want)
		}
	}
}

// TestVolatileCacheKill9Child is TestVolatileCacheKill9's child: it
// writes, says "written" and waits to be killed.
func TestVolatileCacheKill9Child(t *testing.T) {
	dir := os.Getenv(vcChildEnv)
	if dir == "" {
		t.Skip("the child half of TestVolatileCacheKill9")
	}
	for _, sub := range []string{"cache", "os"} {
		var fsys FS = OS()
		if sub == "cache" {
			fsys = NewVolatileCache(OS(), 0)
		}
		d := filepath.Join(dir, sub)
		if err := fsys.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		a := vcOpen(t, fsys, filepath.Join(d, "appended"), 0)
		vcWrite(t, a, "synced", 0)
		vcSync(t, a)
		vcWrite(t, a, "+unsynced", 6)
		n := vcOpen(t, fsys, filepath.Join(d, "never-synced"), 0)
		vcWrite(t, n, "unsynced", 0)
		n.Close() // closing does not make it durable
		tr := vcOpen(t, fsys, filepath.Join(d, "truncated"), 0)
		vcWrite(t, tr, "0123456789", 0)
		vcSync(t, tr)
		if err := tr.Truncate(5); err != nil {
			t.Fatal(err)
		}
		r := vcOpen(t, fsys, filepath.Join(d, "tmp"), 0)
		vcWrite(t, r, "ab", 0)
		vcSync(t, r)
		vcWrite(t, r, "cd", 2)
		if err := fsys.Rename(filepath.Join(d, "tmp"), filepath.Join(d, "renamed")); err != nil {
			t.Fatal(err)
		}
		if sub == "cache" {
			// Past a cache's two-page limit: written back, so kept.
			small := NewVolatileCache(OS(), 2*VolatilePageSize)
			b := vcOpen(t, small, filepath.Join(d, "big"), 0)
			vcWrite(t, b, strings.Repeat("b", 3*VolatilePageSize), 0)
		}
	}
	fmt.Println("written")
	io.Copy(io.Discard, os.Stdin) // until killed
	t.Fatal("the parent closed stdin instead of killing")
}
