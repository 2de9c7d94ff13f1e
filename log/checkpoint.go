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
)

const (
	// checkpointFileName is the high-watermark checkpoint in the partition
	// directory. Its content is two lines, "0\n<offset>\n": a version
	// (always 0) and the high watermark in decimal.
	checkpointFileName = "high-watermark-checkpoint"
	// checkpointTempSuffix marks a checkpoint being written. A leftover one
	// is an interrupted write; Open deletes it (the old checkpoint stands).
	checkpointTempSuffix = ".tmp"
	checkpointVersion    = "0"
)

// formatCheckpoint returns the checkpoint file content for hw.
func formatCheckpoint(hw uint64) []byte {
	return fmt.Appendf(nil, "%s\n%d\n", checkpointVersion, hw)
}

// parseCheckpoint decodes a checkpoint file. It accepts exactly the version
// line "0" and one decimal offset that fits int64 (a final newline is
// optional); anything else, including an empty file, is ErrBadCheckpoint.
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
	hw, err := strconv.ParseUint(offset, 10, 64)
	if err != nil || hw > math.MaxInt64 {
		return 0, fmt.Errorf("offset %q does not fit int64: %w", clipForError([]byte(offset)), ErrBadCheckpoint)
	}
	return hw, nil
}

// clipForError shortens garbage for an error message.
func clipForError(b []byte) []byte {
	if len(b) > 32 {
		return b[:32]
	}
	return b
}

// readCheckpoint loads the checkpoint in dir. found is false, with a nil
// error, when there is no checkpoint file.
func readCheckpoint(dir string) (hw uint64, found bool, err error) {
	path := filepath.Join(dir, checkpointFileName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("log: read checkpoint: %w", err)
	}
	hw, err = parseCheckpoint(data)
	if err != nil {
		return 0, false, fmt.Errorf("log: %s: %w", path, err)
	}
	return hw, true, nil
}

// writeCheckpoint replaces the checkpoint in dir atomically: it writes a
// temporary file, fsyncs it, renames it over the checkpoint and fsyncs the
// directory, so after a crash the file holds either the old or the new
// value, never a mix or nothing.
func writeCheckpoint(dir string, hw uint64) error {
	path := filepath.Join(dir, checkpointFileName)
	tmp := path + checkpointTempSuffix
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("log: write checkpoint: %w", err)
	}
	_, err = f.Write(formatCheckpoint(hw))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("log: write checkpoint: %w", err)
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory, making file creations, renames and deletions
// in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("log: sync dir: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("log: sync dir: %w", err)
	}
	return nil
}
