package log

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kaenlog/kaenlog/epoch"
	"github.com/kaenlog/kaenlog/log/vfs"
)

// The files of a partition directory besides its segments and indexes; see
// the table in doc.go.
const (
	// checkpointFileName is the high-watermark checkpoint.
	checkpointFileName = "high-watermark-checkpoint"
	// recoveryPointFileName holds the recovery point: every offset below it
	// was fsynced, segments and directory entries alike.
	recoveryPointFileName = "recovery-point-offset-checkpoint"
	// logStartFileName holds the log start offset.
	logStartFileName = "log-start-offset-checkpoint"
	// epochFileName is the leader-epoch checkpoint, Kafka's format
	// (epoch.AppendCheckpoint).
	epochFileName = "leader-epoch-checkpoint"
	// verifyFromFileName is written when a segment that Open trusted turns
	// out damaged when first read: it makes the next Open verify from that
	// offset, so that it refuses (or repairs) instead of trusting the
	// segment again.
	verifyFromFileName = "verify-from-offset-checkpoint"
	// cleanShutdownFileName is the clean-shutdown marker (marker.go).
	cleanShutdownFileName = ".kafka_cleanshutdown"
	// lockFileName is the directory lock.
	lockFileName = ".lock"
	// checkpointTempSuffix marks a checkpoint being written. A leftover one
	// is an interrupted write; Open deletes it (the old checkpoint stands).
	checkpointTempSuffix = ".tmp"
	// damagedSuffix names where Open with Repair moves a checkpoint path
	// that is not a regular file (a directory), so that the log can write
	// the checkpoint again.
	damagedSuffix     = ".damaged"
	checkpointVersion = "0"

	// Bounds on what Open reads of each kind of file before parsing it.
	offsetCheckpointLimit = 64
	epochCheckpointLimit  = 16 << 20
)

// offsetCheckpoints are the files holding a single offset, in the format
// of formatCheckpoint.
var offsetCheckpoints = []string{checkpointFileName, recoveryPointFileName, logStartFileName, verifyFromFileName}

// ownedTempFiles are the checkpoint-like files written through
// writeFileAtomic: their ".tmp" leftovers are Open's to delete.
var ownedTempFiles = append([]string{epochFileName, cleanShutdownFileName}, offsetCheckpoints...)

// formatCheckpoint returns the content of an offset checkpoint holding off:
// two lines, "0\n<offset>\n", a version (always 0) and the offset.
func formatCheckpoint(off uint64) []byte {
	return fmt.Appendf(nil, "%s\n%d\n", checkpointVersion, off)
}

// parseCheckpoint decodes an offset checkpoint. It accepts exactly the
// version line "0" and one decimal offset that fits int64 (a final newline
// is optional); anything else, including an empty file, is
// ErrBadCheckpoint.
func parseCheckpoint(data []byte) (uint64, error) {
	text, _ := strings.CutSuffix(string(data), "\n")
	version, offset, ok := strings.Cut(text, "\n")
	if !ok {
		return 0, fmt.Errorf("want 2 lines, have %q: %w", clipForError(data), ErrBadCheckpoint)
	}
	if version != checkpointVersion {
		return 0, fmt.Errorf("version %q, want %q: %w", clipForError([]byte(version)), checkpointVersion, ErrBadCheckpoint)
	}
	// Digits only: no sign, spaces or a second value on the line.
	if offset == "" || strings.TrimLeft(offset, "0123456789") != "" {
		return 0, fmt.Errorf("offset %q is not a decimal number: %w", clipForError([]byte(offset)), ErrBadCheckpoint)
	}
	v, err := strconv.ParseUint(offset, 10, 64)
	if err != nil || v > math.MaxInt64 {
		return 0, fmt.Errorf("offset %q does not fit int64: %w", clipForError([]byte(offset)), ErrBadCheckpoint)
	}
	return v, nil
}

// clipForError shortens garbage for an error message.
func clipForError(b []byte) []byte {
	if len(b) > 32 {
		return b[:32]
	}
	return b
}

// readFile reads dir/name, at most limit bytes. found is false, with a nil
// error, when the file does not exist. A file over the limit is
// ErrBadCheckpoint: none of these files can be that large.
func readFile(fsys vfs.FS, dir, name string, limit int64) (data []byte, found bool, err error) {
	data, err = vfs.ReadFile(fsys, filepath.Join(dir, name), limit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case errors.Is(err, vfs.ErrTooLarge):
		return nil, true, fmt.Errorf("log: %s: %w: %w", name, ErrBadCheckpoint, err)
	case err != nil:
		return nil, false, fmt.Errorf("log: read %s: %w", name, err)
	}
	return data, true, nil
}

// readOffsetCheckpoint loads an offset checkpoint. found is false, with a
// nil error, when there is no such file.
func readOffsetCheckpoint(fsys vfs.FS, dir, name string) (off uint64, found bool, err error) {
	data, found, err := readFile(fsys, dir, name, offsetCheckpointLimit)
	if err != nil || !found {
		return 0, found, err
	}
	off, err = parseCheckpoint(data)
	if err != nil {
		return 0, true, fmt.Errorf("log: %s: %w", name, err)
	}
	return off, true, nil
}

// readEpochCheckpoint loads the leader-epoch checkpoint. A missing file and
// an empty one both give no entries; found tells them apart.
func readEpochCheckpoint(fsys vfs.FS, dir string) (entries []epoch.Entry, found bool, err error) {
	data, found, err := readFile(fsys, dir, epochFileName, epochCheckpointLimit)
	if err != nil || !found {
		return nil, found, err
	}
	entries, err = epoch.ParseCheckpoint(data)
	if err != nil {
		return nil, true, fmt.Errorf("log: %s: %w: %w", epochFileName, ErrBadCheckpoint, err)
	}
	return entries, true, nil
}

// checkpointFile is one file for writeFilesAtomic.
type checkpointFile struct {
	name string
	data []byte
}

// writeFilesAtomic replaces each dir/name with its data: it writes every
// name.tmp and fsyncs it, renames each over its name, and fsyncs the
// directory once, so that after a crash each file holds its old or its
// new content, whole, never a mix or nothing. It is the one writer of every
// checkpoint file and of the clean-shutdown marker; files that must become
// durable in order are written by separate calls. On failure it leaves
// temporary files for Open to delete: the caller puts the log in the
// failed state, which needs no clean-up.
func writeFilesAtomic(fsys vfs.FS, dir string, files ...checkpointFile) error {
	for _, cf := range files {
		f, err := fsys.OpenFile(filepath.Join(dir, cf.name)+checkpointTempSuffix, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return fmt.Errorf("log: write %s: %w", cf.name, err)
		}
		_, err = f.WriteAt(cf.data, 0)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("log: write %s: %w", cf.name, err)
		}
	}
	for _, cf := range files {
		path := filepath.Join(dir, cf.name)
		if err := fsys.Rename(path+checkpointTempSuffix, path); err != nil {
			return fmt.Errorf("log: write %s: %w", cf.name, err)
		}
	}
	if err := fsys.SyncDir(dir); err != nil {
		return fmt.Errorf("log: write %s: %w", files[0].name, err)
	}
	return nil
}
