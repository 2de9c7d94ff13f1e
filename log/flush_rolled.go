package log

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// RolledUnflushed reports whether segments rolled since the last flush
// wait for an fsync: the recovery point is below the active segment's
// base, and FlushRolled has work. It takes no lock, so a runtime may ask it
// of every log often.
func (l *Log) RolledUnflushed() bool { return l.rolledUnflushed.Load() }

// FlushRolled makes every segment below the active one durable, as Kafka
// does after each roll (UnifiedLog.roll schedules flushUptoOffsetExclusive
// of the new segment's base on its scheduler): it fsyncs the rolled
// segments written since their last fsync (each through the descriptor
// that wrote it, kept open for this: writerPin), their index files, the
// producer-state snapshot the roll took at the active segment's base, and
// the directory if its entries changed; then it moves the recovery point to
// the active segment's base and writes its checkpoint.
//
// The fsyncs run without the append lock: appends to the active segment,
// reads and Flush go on meanwhile, so that fsyncing a full segment does not
// stall produces. Truncation, retention, compaction, Close and Abandon wait
// for a FlushRolled in progress (and it for them), so the files it fsyncs
// stay in place. A failed fsync puts the log in the failed state. It is
// meant to run outside the runtime's locks, when RolledUnflushed says so;
// with nothing to do it returns nil at once.
func (l *Log) FlushRolled() error {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()

	// Under writeMu: what waits, and the files to fsync, pinned open.
	l.writeMu.Lock()
	if err := l.usable(); err != nil {
		l.writeMu.Unlock()
		return err
	}
	active := l.active()
	target := active.base
	if l.recoveryPoint >= target {
		l.rolledUnflushed.Store(false)
		l.writeMu.Unlock()
		return nil
	}
	type pending struct {
		s     *segment
		f     vfs.File // the log file to fsync, pinned open; nil for none
		index bool     // fsync the index file
	}
	var work []pending
	l.fileMu.Lock()
	for _, s := range l.segments[:len(l.segments)-1] {
		p := pending{s: s, index: s.indexDirty}
		if s.unsynced && s.log == nil {
			// Never: a rolled segment keeps its file while unsynced
			// (writerPin). Without the descriptor that wrote it nothing
			// proves its bytes reached the disk: claim nothing.
			target = min(target, s.base)
		}
		if s.unsynced && s.log != nil {
			p.f = s.log
			s.pins++ // beside writerPin, which a concurrent Flush may drop
		}
		if p.f != nil || p.index {
			work = append(work, p)
		}
	}
	l.fileMu.Unlock()
	snap := l.rollSnap
	withSnap := snap.ok && snap.off == active.base && snap.off == target && l.hasSnapshot(target)
	syncDir, dirGen := l.dirDirty, l.dirGen
	l.writeMu.Unlock()

	// Without writeMu: flushMu keeps every segment below target in place,
	// and nothing appends below it.
	var err error
	for _, p := range work {
		if err == nil && p.f != nil {
			if e := p.f.Sync(); e != nil {
				err = l.fail(fmt.Errorf("log: flush rolled %s: %w", p.s.name(), e))
			}
		}
		if err == nil && p.index {
			if e := l.syncIndexes(p.s); e != nil {
				err = l.fail(fmt.Errorf("log: flush rolled: %w", e))
			}
		}
	}
	if err == nil && withSnap {
		err = l.syncFile(producerSnapshotName(target))
	}
	if err == nil && syncDir {
		if e := l.fs.SyncDir(l.dir); e != nil {
			err = l.fail(fmt.Errorf("log: flush rolled: sync directory: %w", e))
		}
	}

	// Under writeMu again: record what is durable and move the recovery
	// point.
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	for _, p := range work {
		if p.f != nil {
			l.release(p.s)
		}
	}
	if err != nil {
		return err
	}
	if err := l.usable(); err != nil {
		return err
	}
	// The directory fsync covered the entries as they were when it was
	// decided; a roll since (appends went on) may have missed it.
	if syncDir && l.dirGen == dirGen {
		l.dirDirty = false
	}
	for _, p := range work {
		if p.f != nil {
			p.s.unsynced = false
			l.unpinWriter(p.s)
		}
		if p.index {
			// Only verification of a segment Open did not read sets it
			// again, under fileMu; a rolled segment was written, so read.
			l.fileMu.Lock()
			p.s.indexDirty = false
			l.fileMu.Unlock()
		}
	}
	if l.recoveryPoint < target {
		l.recoveryPoint = target
		if err := l.writeRecoveryPoint(); err != nil {
			return err
		}
		if withSnap && l.hasSnapshot(target) && (!l.snapDurable.ok || l.snapDurable.off < target) {
			l.addSnapshot(target)
			l.snapDurable = snapshotMark{off: target, gen: snap.gen, ok: true}
			if err := l.pruneSnapshots(); err != nil {
				return err
			}
		}
	}
	l.rolledUnflushed.Store(l.recoveryPoint < l.active().base)
	return nil
}

// syncFile fsyncs the file name in the log directory through a descriptor
// opened for it: for files written whole, renamed into place and closed
// (producer-state snapshots), whose damage recovery detects and survives.
// A file already gone is not an error. A failure fails the log.
func (l *Log) syncFile(name string) error {
	f, err := l.fs.OpenFile(filepath.Join(l.dir, name), os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return l.fail(fmt.Errorf("log: flush rolled: fsync %s: %w", name, err))
	}
	return nil
}

// dirChanged records that the directory's entries changed (a segment
// created or deleted): the next Flush fsyncs the directory, and a
// FlushRolled whose directory fsync began before the change does not
// count it as synced. The caller holds writeMu.
func (l *Log) dirChanged() {
	l.dirDirty = true
	l.dirGen++
}
