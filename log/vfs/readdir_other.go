//go:build !linux

package vfs

import "os"

// readDir lists dir with os.File.ReadDir, which does not sort.
func readDir(dir string) ([]DirEntry, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	entries, err := d.ReadDir(-1)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, len(entries))
	for i, e := range entries {
		out[i] = DirEntry{Name: e.Name(), Regular: e.Type().IsRegular()}
	}
	return out, nil
}
