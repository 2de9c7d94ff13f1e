package log

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A checkpoint path (or the clean-shutdown marker's, or a temporary
// file's) that is a directory is a damaged checkpoint: the
// default Open refuses it with ErrBadCheckpoint, Open with Repair ignores
// it and says so, and what Repair leaves behind opens without Repair, the
// HW as Repair recovered it. Repair moves the directory aside, under a
// name its report gives, rather than deleting what it holds: it never
// destroys what it cannot prove is a checkpoint.
func TestACheckpointThatIsADirectoryIsRepairedForTheNextOpen(t *testing.T) {
	// Every file the log writes through writeFilesAtomic, and a temporary
	// one of them.
	names := append(slices.Clone(ownedTempFiles), checkpointFileName+checkpointTempSuffix)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l := stOpen(t, dir, Options{})
			stAppendLeader(t, l, 3, 2, 1, 1) // LEO 6
			stClose(t, l)
			path := filepath.Join(dir, name)
			os.Remove(path)
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			stWriteFile(t, filepath.Join(path, "kept"), []byte("not ours"))

			if l, err := Open(dir, Options{}); !errors.Is(err, ErrBadCheckpoint) {
				if l != nil {
					l.Close()
				}
				t.Fatalf("Open = %v, want ErrBadCheckpoint", err)
			}
			l, err := Open(dir, Options{Repair: true})
			if err != nil {
				t.Fatalf("Open with Repair: %v", err)
			}
			report := l.Recovery().String()
			if !strings.Contains(report, name) || !strings.Contains(report, "ignored damaged checkpoint") {
				t.Errorf("the report does not say %s was ignored:\n%s", name, report)
			}
			if l.EndOffset() != 6 {
				t.Errorf("LEO = %d after Repair, want 6", l.EndOffset())
			}
			hw := l.HighWatermark()
			stClose(t, l)

			l, err = Open(dir, Options{})
			if err != nil {
				t.Fatalf("the default Open after a successful Repair: %v", err)
			}
			defer l.Close()
			if l.EndOffset() != 6 || l.HighWatermark() != hw {
				t.Errorf("LEO, HW = %d, %d after Repair and a clean close; want 6, %d", l.EndOffset(), l.HighWatermark(), hw)
			}
			// What was in the directory is still there, moved aside.
			matches, _ := filepath.Glob(filepath.Join(dir, name+"*", "kept"))
			if len(matches) != 1 {
				t.Fatalf("the directory's contents: %v, want one copy, moved aside", matches)
			}
			if !strings.Contains(report, filepath.Base(filepath.Dir(matches[0]))) {
				t.Errorf("the report does not name %s, where the directory went:\n%s", filepath.Dir(matches[0]), report)
			}
		})
	}
}
