package log

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Crash consistency. Most tests simulate a crash by copying the partition
// directory while the log is open (with SyncNever every write is a
// completed system call, so the copy is what a process crash leaves), and
// sometimes damage the copy the way an interrupted operation would;
// TestKill9, below, kills real processes.

// rvInvariant fails unless StartOffset <= HW <= LEO.
func rvInvariant(t *testing.T, l *Log, what string) {
	t.Helper()
	if s, hw, e := l.StartOffset(), l.HighWatermark(), l.EndOffset(); s > hw || hw > e {
		t.Fatalf("%s: start %d, HW %d, LEO %d break start <= HW <= LEO", what, s, hw, e)
	}
}

// rvCrashCopy copies dir (the files as a process crash leaves them) into a
// new temporary directory and returns it.
func rvCrashCopy(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	stCopyDir(t, dir, dst)
	return dst
}

// TestTruncateEveryOffsetThenCrashAndReopen truncates a multi-segment
// log to every offset (inside batches, at batch and segment boundaries,
// exactly at a segment base), then checks the result three ways: in memory,
// after a crash right after TruncateTo, and after new appends, a crash, and
// a clean reopen. The HW lowered by truncation must never come back over the
// records appended after it.
func TestTruncateEveryOffsetThenCrashAndReopen(t *testing.T) {
	src := t.TempDir()
	opts := Options{SegmentBytes: 260, IndexIntervalBytes: 70}
	l := stOpen(t, src, opts)
	for i := range 10 {
		if _, err := l.AppendAsLeader(stBatch(t, 0, 1+i%3, 20, int64(i)), 1); err != nil {
			t.Fatal(err)
		}
	}
	all := stSplit(t, stReadAll(t, l, IsolationLogEnd))
	var bases []uint64
	for _, s := range l.segments {
		bases = append(bases, s.base)
	}
	if len(bases) < 4 {
		t.Fatalf("%d segments, want several", len(bases))
	}
	leo := l.EndOffset()
	stClose(t, l) // checkpoint HW = LEO

	for off := uint64(0); off <= leo; off++ {
		dir := rvCrashCopy(t, src)
		l := stOpen(t, dir, opts)
		l.StopEagerHighWatermark()
		if err := l.TruncateTo(off); err != nil {
			t.Fatalf("TruncateTo(%d): %v", off, err)
		}
		// The kept prefix: batches ending below off.
		var keep []stStored
		for _, b := range all {
			if b.h.LastOffset() < off {
				keep = append(keep, b)
			}
		}
		wantLEO := uint64(0)
		if len(keep) > 0 {
			wantLEO = keep[len(keep)-1].h.NextOffset()
		}
		check := func(l *Log, what string, wantHW uint64) {
			t.Helper()
			rvInvariant(t, l, what)
			if l.EndOffset() != wantLEO || l.HighWatermark() != wantHW {
				t.Fatalf("TruncateTo(%d), %s: LEO %d, HW %d; want %d, %d", off, what, l.EndOffset(), l.HighWatermark(), wantLEO, wantHW)
			}
			if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, stJoin(keep)) {
				t.Fatalf("TruncateTo(%d), %s: contents %v", off, what, stOffsets(stHeaders(t, got)))
			}
		}
		check(l, "in memory", wantLEO)
		crashed := stOpen(t, rvCrashCopy(t, dir), opts)
		check(crashed, "after a crash", wantLEO)
		stClose(t, crashed)

		// New, different records over the truncated range; then a crash
		// before any checkpoint: the HW must stay at the truncation point.
		newer := stBatch(t, 0, 4, 9, 99)
		if _, err := l.AppendAsLeader(newer, 2); err != nil {
			t.Fatal(err)
		}
		crashed = stOpen(t, rvCrashCopy(t, dir), opts)
		rvInvariant(t, crashed, "crash after appends")
		if crashed.HighWatermark() > wantLEO {
			t.Fatalf("TruncateTo(%d), append, crash: HW %d covers records appended after the truncation (LEO then %d)", off, crashed.HighWatermark(), wantLEO)
		}
		if crashed.EndOffset() != wantLEO+4 {
			t.Fatalf("TruncateTo(%d), append, crash: LEO %d, want %d", off, crashed.EndOffset(), wantLEO+4)
		}
		stClose(t, crashed)
		stClose(t, l)
		l = stOpen(t, dir, opts)
		rvInvariant(t, l, "clean reopen")
		if l.EndOffset() != wantLEO+4 || l.HighWatermark() != wantLEO {
			t.Fatalf("TruncateTo(%d), append, reopen: LEO %d, HW %d; want %d, %d", off, l.EndOffset(), l.HighWatermark(), wantLEO+4, wantLEO)
		}
		out, err := l.Read(nil, wantLEO, 1<<20, IsolationLogEnd)
		if err != nil || !bytes.Equal(out, newer) {
			t.Fatalf("TruncateTo(%d): new batch not read back at %d: %v", off, wantLEO, err)
		}
		stClose(t, l)
	}
}

// TestCrashDuringRoll builds the directories a crash while rolling a
// segment can leave, and checks that Open recovers the log as it was and
// that the log then appends and reopens normally.
func TestCrashDuringRoll(t *testing.T) {
	src := t.TempDir()
	b := stBatch(t, 0, 2, 40, 1)
	opts := Options{SegmentBytes: int64(2 * len(b))}
	l := stOpen(t, src, opts)
	for range 4 {
		if _, err := l.AppendAsLeader(bytes.Clone(b), 1); err != nil {
			t.Fatal(err)
		}
	}
	want := stReadAll(t, l, IsolationLogEnd)
	leo := l.EndOffset() // 8; segments 0 and 4, both full
	stClose(t, l)
	next := stBatch(t, leo, 2, 40, 1)

	for _, tc := range []struct {
		name    string
		damage  func(dir string)
		wantLEO uint64
	}{
		{"new segment created, empty, no index", func(dir string) {
			stWriteFile(t, stSeg(dir, leo, segmentSuffix), nil)
		}, leo},
		{"new segment with a torn first batch", func(dir string) {
			stWriteFile(t, stSeg(dir, leo, segmentSuffix), next[:len(next)/2])
			stWriteFile(t, stSeg(dir, leo, indexSuffix), nil)
		}, leo},
		{"only the new index", func(dir string) {
			stWriteFile(t, stSeg(dir, leo, indexSuffix), nil)
		}, leo},
		{"new segment whole but the old one torn", func(dir string) {
			stWriteFile(t, stSeg(dir, leo, segmentSuffix), next)
			old := stSeg(dir, 4, segmentSuffix)
			data := stReadFile(t, old)
			stWriteFile(t, old, data[:len(data)-7])
		}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := rvCrashCopy(t, src)
			stUnflush(t, dir) // the roll happened while appending, unflushed
			tc.damage(dir)
			l := stOpen(t, dir, opts)
			rvInvariant(t, l, "after recovery")
			if l.EndOffset() != tc.wantLEO {
				t.Fatalf("LEO = %d, want %d", l.EndOffset(), tc.wantLEO)
			}
			got := stReadAll(t, l, IsolationLogEnd)
			if !bytes.HasPrefix(want, got) || len(stHeaders(t, got)) != int(tc.wantLEO/2) {
				t.Fatalf("recovered %v, want a prefix of %v", stOffsets(stHeaders(t, got)), stOffsets(stHeaders(t, want)))
			}
			if _, err := l.AppendAsLeader(stBatch(t, 0, 2, 40, 1), 1); err != nil {
				t.Fatal(err)
			}
			grown := stReadAll(t, l, IsolationLogEnd)
			stClose(t, l)
			l = stOpen(t, dir, opts)
			rvInvariant(t, l, "after reopen")
			if l.EndOffset() != tc.wantLEO+2 || !bytes.Equal(stReadAll(t, l, IsolationLogEnd), grown) {
				t.Errorf("after append and reopen: LEO %d, want %d", l.EndOffset(), tc.wantLEO+2)
			}
		})
	}
}

// TestCheckpointCrashes covers the checkpoint as a crash can leave
// it: a torn temporary file beside a good checkpoint, only a temporary file,
// a checkpoint above the recovered LEO, and one below StartOffset.
func TestCheckpointCrashes(t *testing.T) {
	src := t.TempDir()
	opts := Options{SegmentBytes: 300}
	l := stOpen(t, src, opts)
	stAppendLeader(t, l, 8, 2, 40, 1)
	leo := l.EndOffset()
	stClose(t, l)
	ck := func(dir string) string { return filepath.Join(dir, checkpointFileName) }

	for _, tc := range []struct {
		name   string
		damage func(dir string)
		wantHW uint64
	}{
		{"torn temporary beside a good checkpoint", func(dir string) {
			stWriteFile(t, ck(dir), formatCheckpoint(6))
			stWriteFile(t, ck(dir)+checkpointTempSuffix, []byte("0\n1"))
		}, 6},
		{"only a temporary file", func(dir string) {
			os.Remove(ck(dir))
			stWriteFile(t, ck(dir)+checkpointTempSuffix, formatCheckpoint(10))
		}, 0},
		{"checkpoint above the LEO", func(dir string) {
			stWriteFile(t, ck(dir), formatCheckpoint(leo+100))
		}, leo},
		{"checkpoint at MaxInt64", func(dir string) {
			stWriteFile(t, ck(dir), formatCheckpoint(1<<63-1))
		}, leo},
		{"checkpoint above the LEO of a torn log", func(dir string) {
			stUnflush(t, dir) // a crash tears only what was not flushed
			seg := stSegmentFiles(t, dir)
			last := filepath.Join(dir, seg[len(seg)-1])
			data := stReadFile(t, last)
			stWriteFile(t, last, data[:len(data)-1])
		}, leo - 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := rvCrashCopy(t, src)
			tc.damage(dir)
			l := stOpen(t, dir, opts)
			l.StopEagerHighWatermark()
			rvInvariant(t, l, "after Open")
			if l.HighWatermark() != tc.wantHW {
				t.Errorf("HW = %d, want %d", l.HighWatermark(), tc.wantHW)
			}
			if _, err := os.Stat(ck(dir) + checkpointTempSuffix); !os.IsNotExist(err) {
				t.Errorf("temporary checkpoint not deleted: %v", err)
			}
			// The log keeps working from there, and the clamped value is
			// what the next checkpoint holds.
			if err := l.SetHighWatermark(l.EndOffset()); err != nil {
				t.Errorf("SetHighWatermark(LEO): %v", err)
			}
			hw := l.HighWatermark()
			stClose(t, l)
			if got, _, err := readCheckpoint(dir); err != nil || got != hw {
				t.Errorf("checkpoint after Close = %d, %v; want %d", got, err, hw)
			}
		})
	}

	t.Run("checkpoint below StartOffset", func(t *testing.T) {
		dir := rvCrashCopy(t, src)
		l := stOpen(t, dir, opts)
		if n, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 1}, 0); err != nil || n == 0 {
			t.Fatalf("retention: %d, %v", n, err)
		}
		start := l.StartOffset()
		stClose(t, l)
		stWriteFile(t, ck(dir), formatCheckpoint(1))
		l = stOpen(t, dir, opts)
		rvInvariant(t, l, "after Open")
		if l.HighWatermark() != start {
			t.Errorf("HW = %d, want StartOffset %d", l.HighWatermark(), start)
		}
	})
	t.Run("garbled checkpoint", func(t *testing.T) {
		dir := rvCrashCopy(t, src)
		stWriteFile(t, ck(dir), []byte("0\n12x\n"))
		if _, err := Open(dir, opts); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("Open with a garbled checkpoint = %v, want ErrBadCheckpoint", err)
		}
	})
}

// TestInvariantsUnderRandomOpsAndCrashes drives a log with random
// appends, truncations, HW moves, checkpoints, retention, clean restarts
// and crashes (some leaving a torn tail, an empty rolled segment, or a
// torn temporary checkpoint), against a model of batches and offsets. After
// every operation and every reopen StartOffset <= HW <= LEO must hold, and
// the log must hold exactly the model's batches.
func TestInvariantsUnderRandomOpsAndCrashes(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 2026))
		opts := Options{SegmentBytes: int64(200 + rng.IntN(600)), IndexIntervalBytes: 1 + rng.IntN(300)}
		dir := t.TempDir()
		l := stOpen(t, dir, opts)
		l.StopEagerHighWatermark()

		var model []stStored
		var start, hw, ckpt uint64
		leo := func() uint64 {
			if len(model) == 0 {
				return start
			}
			return model[len(model)-1].h.NextOffset()
		}
		reopen := func(what string) {
			l = stOpen(t, dir, opts)
			l.StopEagerHighWatermark()
			hw = min(max(ckpt, start), leo())
			ckpt = hw // Close will write it; Open does not, but it is what it reads again
			rvInvariant(t, l, what)
		}
		for op := range 200 {
			what := ""
			switch r := rng.IntN(24); {
			case r < 10:
				what = "append"
				b := stBatch(t, 0, 1+rng.IntN(5), rng.IntN(90), int64(op))
				if _, err := l.AppendAsLeader(b, 1); err != nil {
					t.Fatalf("seed %d op %d: append: %v", seed, op, err)
				}
				model = append(model, stSplit(t, b)...)
			case r < 12:
				what = "truncate"
				off := start + rng.Uint64N(leo()-start+2)
				if err := l.TruncateTo(off); err != nil {
					t.Fatalf("seed %d op %d: TruncateTo(%d): %v", seed, op, off, err)
				}
				for len(model) > 0 && model[len(model)-1].h.LastOffset() >= off {
					model = model[:len(model)-1]
				}
				if hw > leo() {
					hw = leo()
					ckpt = hw
				}
			case r < 16:
				what = "raise HW"
				hw += rng.Uint64N(leo() - hw + 1)
				if err := l.SetHighWatermark(hw); err != nil {
					t.Fatalf("seed %d op %d: SetHighWatermark(%d): %v", seed, op, hw, err)
				}
			case r < 17:
				what = "checkpoint"
				if err := l.CheckpointHighWatermark(); err != nil {
					t.Fatal(err)
				}
				ckpt = hw
			case r < 19:
				what = "retention"
				if _, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: int64(1 + rng.IntN(1500))}, 0); err != nil {
					t.Fatalf("seed %d op %d: retention: %v", seed, op, err)
				}
				start = l.StartOffset()
				if start > hw {
					t.Fatalf("seed %d op %d: retention raised start to %d above HW %d", seed, op, start, hw)
				}
				for len(model) > 0 && model[0].h.BaseOffset < start {
					if model[0].h.LastOffset() >= start {
						t.Fatalf("seed %d op %d: start %d inside batch %d-%d", seed, op, start, model[0].h.BaseOffset, model[0].h.LastOffset())
					}
					model = model[1:]
				}
			case r < 20:
				what = "restart"
				stClose(t, l)
				ckpt = hw
				reopen(what)
			default:
				what = "crash"
				crashDir := rvCrashCopy(t, dir)
				switch rng.IntN(4) {
				case 1: // an append torn mid-write
					b := stBatch(t, leo(), 1+rng.IntN(3), 40, 1)
					l.mu.RLock()
					active := l.active()
					name, size := filepath.Base(active.path(segmentSuffix)), active.size
					l.mu.RUnlock()
					torn := b[:1+rng.IntN(len(b)-1)]
					f, err := os.OpenFile(filepath.Join(crashDir, name), os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := f.WriteAt(torn, size); err != nil {
						t.Fatal(err)
					}
					f.Close()
				case 2: // a roll that created the next segment and died
					stWriteFile(t, stSeg(crashDir, leo(), segmentSuffix), nil)
				case 3: // a checkpoint write that died before its rename
					stWriteFile(t, filepath.Join(crashDir, checkpointFileName+checkpointTempSuffix), []byte("0\n9"))
				}
				// The crashed process is gone; its files are its own.
				l.closeFiles()
				l.closed = true
				dir = crashDir
				reopen(what)
			}
			rvInvariant(t, l, what)
			if l.EndOffset() != leo() || l.StartOffset() != start || l.HighWatermark() != hw {
				t.Fatalf("seed %d op %d (%s): start %d, HW %d, LEO %d; model %d, %d, %d",
					seed, op, what, l.StartOffset(), l.HighWatermark(), l.EndOffset(), start, hw, leo())
			}
			if op%10 == 0 || what == "crash" || what == "restart" {
				if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, stJoin(model)) {
					t.Fatalf("seed %d op %d (%s): contents %v, model %v", seed, op, what,
						stOffsets(stHeaders(t, got)), stOffsets(stHeaders(t, stJoin(model))))
				}
			}
		}
	}
}

// kill -9 with real processes. The test binary runs itself again as a
// child (TestKill9Child) that appends to a log and reports, over a pipe,
// the log end offset after each append returned. The parent SIGKILLs it
// after a seeded number of acknowledgements, at whatever point of an
// append it then is, and opens the log: every acknowledged record must be
// there byte for byte (a process kill keeps the page cache, so this holds
// with SyncNever as with SyncEveryAppend), the batches must continue each
// other with no hole, and nothing may have been invented. The next child
// continues the same log.

var (
	kills     = flag.Int("kills", 50, "SIGKILLs TestKill9 sends")
	kill9Seed = flag.Uint64("kill9.seed", 1, "seed of TestKill9")
)

const (
	kill9DirEnv   = "KAENLOG_KILL9_DIR"
	kill9SyncEnv  = "KAENLOG_KILL9_SYNC"
	kill9EpochEnv = "KAENLOG_KILL9_EPOCH"
	kill9SeedEnv  = "KAENLOG_KILL9_SEED"
)

// kill9Opts are the child's and the parent's options: small segments, so
// that children roll often.
func kill9Opts(sync SyncPolicy) Options {
	return Options{SegmentBytes: 8 << 10, IndexIntervalBytes: 512, Sync: sync}
}

// kill9Batch is the producer batch the child appends when the log ends at
// base: a function of the seed and base only, so the parent can rebuild it.
func kill9Batch(t testing.TB, seed, base uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, base))
	recs := make([]Record, 1+rng.IntN(5))
	for i := range recs {
		v := make([]byte, rng.IntN(200))
		for j := range v {
			v[j] = byte(rng.Uint32())
		}
		recs[i] = Record{OffsetDelta: int32(i), TimestampDelta: int64(i), Value: v}
	}
	return stBatchOf(t, 0, int64(base), recs)
}

func TestKill9(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("needs SIGKILL")
	}
	seed := *kill9Seed
	rng := rand.New(rand.NewPCG(seed, 9))
	dir := t.TempDir()
	acked := uint64(0)
	for k := range *kills {
		sync := []SyncPolicy{SyncNever, SyncEveryAppend}[rng.IntN(2)]
		wantAcks := rng.IntN(50)
		last, err := kill9Run(t, dir, seed, sync, int32(k+1), wantAcks)
		if err != nil {
			t.Fatalf("seed %d kill %d: %v", seed, k, err)
		}
		acked = max(acked, last)
		if err := kill9Check(t, dir, seed, acked, k%4 == 3); err != nil {
			t.Fatalf("seed %d kill %d (%v, killed after %d acknowledgements, last acknowledged LEO %d): %v", seed, k, sync, wantAcks, last, err)
		}
	}
	t.Logf("%d kills, log end %d", *kills, acked)
}

// kill9Run starts a child appending to dir, reads acknowledged log end
// offsets until it has n of them, kills the child and returns the last
// one.
func kill9Run(t *testing.T, dir string, seed uint64, sync SyncPolicy, epoch int32, n int) (uint64, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9Child$")
	cmd.Env = append(os.Environ(),
		kill9DirEnv+"="+dir, kill9SyncEnv+"="+strconv.Itoa(int(sync)),
		kill9EpochEnv+"="+strconv.Itoa(int(epoch)), kill9SeedEnv+"="+strconv.FormatUint(seed, 10))
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.Close()
		return 0, err
	}
	w.Close()
	var last uint64
	sc := bufio.NewScanner(r)
	for i := 0; i < n && sc.Scan(); i++ {
		v, err := strconv.ParseUint(sc.Text(), 10, 64)
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return 0, fmt.Errorf("child said %q", sc.Text())
		}
		last = v
	}
	if err := cmd.Process.Kill(); err != nil {
		return 0, err
	}
	state, _ := cmd.Process.Wait()
	if state != nil && state.Exited() {
		return 0, fmt.Errorf("the child exited before the kill (%v): %s", state, stderr.String())
	}
	return last, nil
}

// kill9Check opens the log a killed child left and checks it. Then it
// closes the log cleanly (so the next child opens after a clean shutdown)
// or, to keep the test fast, just lets go of its files and lock, as a
// crash would.
func kill9Check(t *testing.T, dir string, seed, acked uint64, clean bool) error {
	l, err := Open(dir, kill9Opts(SyncNever))
	if err != nil {
		return fmt.Errorf("Open after the kill: %w", err)
	}
	defer func() {
		if clean {
			l.Close()
			return
		}
		l.closeFiles()
		l.lock.Close()
	}()
	if r := l.Recovery(); r.LostFlushedData {
		return fmt.Errorf("a process kill lost flushed data:\n%s", r)
	}
	if l.EndOffset() < acked {
		return fmt.Errorf("LEO %d, but %d was acknowledged\n%s", l.EndOffset(), acked, l.Recovery())
	}
	got, err := l.Read(nil, 0, 1<<30, IsolationLogEnd)
	if err != nil {
		return err
	}
	next, prevEpoch := uint64(0), int32(0)
	for _, b := range stSplit(t, got) {
		if b.h.BaseOffset != next {
			return fmt.Errorf("batch at %d after %d: a hole", b.h.BaseOffset, next)
		}
		if b.h.PartitionLeaderEpoch < prevEpoch {
			return fmt.Errorf("batch at %d has epoch %d after %d", b.h.BaseOffset, b.h.PartitionLeaderEpoch, prevEpoch)
		}
		want := kill9Batch(t, seed, b.h.BaseOffset)
		SetBaseOffset(want, b.h.BaseOffset)
		SetPartitionLeaderEpoch(want, b.h.PartitionLeaderEpoch)
		if !bytes.Equal(b.bytes, want) {
			return fmt.Errorf("batch at %d differs from what the child wrote", b.h.BaseOffset)
		}
		next, prevEpoch = b.h.NextOffset(), b.h.PartitionLeaderEpoch
	}
	if next != l.EndOffset() {
		return fmt.Errorf("batches end at %d, LEO %d", next, l.EndOffset())
	}
	return nil
}

// TestKill9Child is TestKill9's child: it appends until it is killed.
func TestKill9Child(t *testing.T) {
	dir := os.Getenv(kill9DirEnv)
	if dir == "" {
		t.Skip("the child half of TestKill9")
	}
	sync, _ := strconv.Atoi(os.Getenv(kill9SyncEnv))
	epoch, _ := strconv.Atoi(os.Getenv(kill9EpochEnv))
	seed, _ := strconv.ParseUint(os.Getenv(kill9SeedEnv), 10, 64)
	acks := os.NewFile(3, "acks")
	l, err := Open(dir, kill9Opts(SyncPolicy(sync)))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.AssignEpoch(int32(epoch)); err != nil {
		t.Fatal(err)
	}
	var line []byte
	for i := 0; ; i++ {
		info, err := l.AppendAsLeader(kill9Batch(t, seed, l.EndOffset()), int32(epoch))
		if err != nil {
			t.Fatal(err)
		}
		// Acknowledged only now that the append returned.
		line = strconv.AppendUint(line[:0], info.NextOffset, 10)
		line = append(line, '\n')
		if _, err := acks.Write(line); err != nil {
			t.Fatal(strings.TrimSpace(err.Error()))
		}
		switch {
		case i%25 == 24:
			err = l.Flush()
		case i%40 == 39:
			err = l.CheckpointHighWatermark()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
