package log

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// TruncateFullyAndStartAt is crash-safe (doc.go, "Offsets never move":
// "the new start is checkpointed first, so that a crash midway leaves
// segments below it that Open deletes as leftovers"). Cut the power at
// every file-system call of one, past the log end as a follower resetting
// to its leader's log start does, in every crash mode: Open must succeed
// and hold either the old log, the empty log at the new start, or (a new
// start below the old end) the log from the new start with a prefix of the
// old segments from there on, as the doc allows.
func TestTruncateFullyAndStartAtCrashesAtEveryCall(t *testing.T) {
	for _, mode := range []vfs.CrashMode{vfs.KeepUnsynced, vfs.LoseUnsynced, vfs.TornUnsynced} {
		for _, flushed := range []bool{false, true} {
			for _, past := range []bool{true, false} {
				for cut := 1; ; cut++ {
					what := fmt.Sprintf("%v, flushed %v, past the end %v, power cut at call %d", mode, flushed, past, cut)
					mem := vfs.NewMem()
					fsys := vfs.Faulty(mem)
					opts := Options{FS: fsys, SegmentBytes: 400}
					l, err := Open(pdir, opts)
					if err != nil {
						t.Fatal(err)
					}
					for i := range 12 {
						plainAppend(t, l, 2, int64(i))
					}
					if flushed {
						if err := l.Flush(); err != nil {
							t.Fatal(err)
						}
					}
					oldEnd := l.EndOffset()
					off := oldEnd + 100
					if !past {
						off = oldEnd / 2 // a batch boundary: batches of 2
					}
					fsys.CutAt(fsys.TotalCalls()+cut, errPowerCut)
					err = l.TruncateFullyAndStartAt(off)
					l.Abandon()
					mem.Crash(mode, uint64(cut))
					opts.FS = mem
					l2, oerr := Open(pdir, opts)
					if oerr != nil {
						t.Errorf("%s: Open after the crash: %v", what, oerr)
					} else {
						s, e := l2.StartOffset(), l2.EndOffset()
						// Unflushed appends may be lost by a power cut.
						lossy := !flushed && mode != vfs.KeepUnsynced
						old := s == 0 && (e == oldEnd || lossy && e <= oldEnd)
						// Below the old end, old segments from off on may stay
						// (deleted newest first: a prefix of them).
						kept := !past && s == off && e <= oldEnd
						if !old && !kept && !(s == off && e == off) {
							t.Errorf("%s: log [%d, %d), want the old log ending at %d or the empty log at %d", what, s, e, oldEnd, off)
						}
						l2.Close()
					}
					if err == nil || !errors.Is(err, errPowerCut) {
						break // the whole call ran before the cut
					}
				}
			}
		}
	}
}
