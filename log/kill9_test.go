package log

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

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
