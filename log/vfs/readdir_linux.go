//go:build linux

package vfs

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// readDir lists dir with getdents64 into a large buffer, taking the file
// type from the entries: os.File.ReadDir reads 8 KiB at a time and
// allocates per entry, which costs more than the system calls in a
// directory of thousands of segments.
func readDir(dir string) ([]DirEntry, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	buf := make([]byte, 256<<10)
	// The names go into one string, sliced: one allocation for thousands
	// of names, grown once per getdents call rather than by append, and
	// not copied again at the end (strings.Builder hands over its bytes).
	type entry struct {
		start, end int32
		regular    bool
	}
	var names strings.Builder
	var entries []entry
	done := func() []DirEntry {
		all := names.String()
		out := make([]DirEntry, len(entries))
		for i, e := range entries {
			out[i] = DirEntry{Name: all[e.start:e.end], Regular: e.regular}
		}
		return out
	}
	for {
		n, err := syscall.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "getdents", Path: dir, Err: err}
		}
		if n <= 0 {
			return done(), nil
		}
		// Each record holds its name and at least 20 more bytes.
		names.Grow(n)
		entries = slices.Grow(entries, n/24)
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
		for off := 0; off+19 <= n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				return nil, &os.PathError{Op: "getdents", Path: dir, Err: syscall.EIO}
			}
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if string(name) == "." || string(name) == ".." {
				continue
			}
			regular := typ == syscall.DT_REG
			if typ == syscall.DT_UNKNOWN {
				st, err := os.Lstat(filepath.Join(dir, string(name)))
				if err != nil {
					continue // gone meanwhile
				}
				regular = st.Mode().IsRegular()
			}
			if names.Len()+len(name) > math.MaxInt32 {
				return nil, &os.PathError{Op: "getdents", Path: dir, Err: syscall.EOVERFLOW}
			}
			at := int32(names.Len())
			names.Write(name)
			entries = append(entries, entry{at, at + int32(len(name)), regular})
		}
	}
}
