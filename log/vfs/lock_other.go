//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package vfs

import (
	"os"
	"path/filepath"
	"sync"
)

// Without flock, the lock only excludes other Opens in this process: a
// table of held paths. The pid is still written, for the operator.
var (
	heldMu sync.Mutex
	held   = map[string]bool{}
)

func lockFile(path string) (*tableLock, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	heldMu.Lock()
	defer heldMu.Unlock()
	if held[abs] {
		return nil, lockedError(path, os.Getpid())
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := writePID(f); err != nil {
		f.Close()
		return nil, err
	}
	held[abs] = true
	return &tableLock{abs: abs, f: f}, nil
}

type tableLock struct {
	abs string
	f   *os.File
}

func (l *tableLock) Close() error {
	heldMu.Lock()
	delete(held, l.abs)
	heldMu.Unlock()
	return l.f.Close()
}
