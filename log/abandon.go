package log

import "errors"

// Abandon releases the log's open files and its directory lock without
// writing anything: no flush, no checkpoint, no clean-shutdown marker. The
// directory is left exactly as a killed process leaves it, and the next
// Open recovers it as after a crash. It exists for tests and simulators
// that crash a broker inside one process; a real process's death releases
// the files by itself. Every later call returns ErrClosed.
func (l *Log) Abandon() error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.ckMu.Lock()
	defer l.ckMu.Unlock()
	if l.closed {
		return ErrClosed
	}
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	return errors.Join(l.closeFiles(), l.lock.Close())
}
