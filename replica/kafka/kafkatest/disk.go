package kafkatest

import (
	"io"
	"sync"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// osDisk is a broker's run on the OS's files (Config.Dir): a
// VolatileCache that holds what is not fsynced, so that a crash drops it
// as a power cut would, and the directory locks the run took, which a
// crash lets go as the kernel does for a dead process (this process
// lives on, so the OS would not).
type osDisk struct {
	*vfs.VolatileCache

	mu    sync.Mutex
	locks []io.Closer
}

func newOSDisk() *osDisk { return &osDisk{VolatileCache: vfs.NewVolatileCache(vfs.OS(), 0)} }

// Lock implements vfs.FS, remembering the lock for crash.
func (d *osDisk) Lock(path string) (io.Closer, error) {
	l, err := d.VolatileCache.Lock(path)
	if err == nil {
		d.mu.Lock()
		d.locks = append(d.locks, l)
		d.mu.Unlock()
	}
	return l, err
}

// crash drops every unsynced byte, kills the run's files and lets its
// locks go.
func (d *osDisk) crash() {
	d.VolatileCache.Crash()
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, l := range d.locks {
		l.Close() // a lock the run closed already answers an error; it is gone either way
	}
	d.locks = nil
}
