package log

import "errors"

// Abandon releases the log's open files and its directory lock without
// writing anything: no flush, no checkpoint, no clean-shutdown marker. The
// directory is left exactly as a killed process leaves it, and the next
// Open recovers it as after a crash. It exists for tests and simulators
// that crash a broker inside one process; a real process's death releases
// the files by itself. Every later call returns ErrClosed.
func (l *Log) Abandon() error {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.newGeneration()
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

// Failed returns nil while the log is usable, and otherwise the error every
// operation now returns: one wrapping ErrLogFailed and the first failure's
// cause. Only a fresh Open clears it. A broker with a single log directory
// stops when one of its logs fails, as Kafka's does when its last log
// directory goes offline.
func (l *Log) Failed() error {
	if f := l.failed.Load(); f != nil {
		return &failedError{cause: f.cause}
	}
	return nil
}
