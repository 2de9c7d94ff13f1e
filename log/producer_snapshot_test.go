package log

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// Producer state across restarts: the snapshot written with the recovery
// point and at Close, the batches replayed past it, and everything that
// can go wrong with the file.

const pdir = "/p/orders-0"

// pWorkload appends idempotent batches of producers 0..producers-1 (and a
// few plain ones) to l, each at its next sequence.
func pWorkload(t testing.TB, l *Log, producers, batches int, rng *rand.Rand) {
	t.Helper()
	for i := range batches {
		if rng.IntN(8) == 0 {
			plainAppend(t, l, 1+rng.IntN(3), int64(i))
			continue
		}
		pid := int64(rng.IntN(producers))
		epoch, seq := int16(0), int32(0)
		if p, ok := l.Producer(pid); ok {
			epoch, seq = p.Epoch, incrementSequence(p.Batches[len(p.Batches)-1].LastSeq, 1)
		}
		if _, err := l.AppendAsLeader(idBatch(t, pid, epoch, seq, 1+rng.IntN(4), int64(1000+i)), 1); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
}

func TestProducerStateSurvivesACleanRestart(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, SegmentBytes: 1000}
	l := stOpen(t, pdir, opts)
	pWorkload(t, l, 7, 80, rand.New(rand.NewPCG(1, 2)))
	want := l.Producers()
	leo := l.EndOffset()
	stClose(t, l)

	l = stOpen(t, pdir, opts)
	r := l.Recovery()
	if !r.Clean || r.SegmentsVerified != 0 || !r.HaveProducerSnapshot || r.ProducerSnapshot != leo ||
		r.ProducerBatchesReplayed != 0 || r.ProducerStateRebuilt || r.Producers != len(want) {
		t.Fatalf("clean open:\n%s", r)
	}
	if got := l.Producers(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a clean restart\n got %+v\nwant %+v", got, want)
	}
	// A retry of any of the last five batches is still a duplicate:
	// kaenlog's snapshot keeps them all.
	p := want[0]
	for _, b := range p.Batches {
		info, err := l.AppendAsLeader(idBatch(t, p.ProducerID, p.Epoch, b.FirstSeq, int(b.LastOffset-b.FirstOffset)+1, 1), 1)
		if err != nil || !info.Duplicate || info.FirstOffset != b.FirstOffset {
			t.Fatalf("retry of %+v after the restart: %+v, %v", b, info, err)
		}
	}
	if !strings.Contains(r.String(), fmt.Sprintf("producer state: %d producers, from the snapshot at %d", len(want), leo)) {
		t.Fatalf("report:\n%s", r)
	}
}

// After a crash, Open loads the snapshot at the recovery point and replays
// only the batches past it, in the pass that verifies them.
func TestProducerStateAfterACrashReplaysOnlyPastTheRecoveryPoint(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, SegmentBytes: 1000}
	l := stOpen(t, pdir, opts)
	rng := rand.New(rand.NewPCG(3, 4))
	pWorkload(t, l, 5, 60, rng)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	rp := l.EndOffset()
	if !l.hasSnapshot(rp) {
		t.Fatalf("no snapshot at the recovery point %d: %v", rp, l.snapshots)
	}
	pWorkload(t, l, 5, 20, rng)
	want, leo := l.Producers(), l.EndOffset()
	if err := l.Abandon(); err != nil { // kill -9: the page cache keeps everything
		t.Fatal(err)
	}
	l = stOpen(t, pdir, opts)
	r := l.Recovery()
	if r.Clean || !r.HaveProducerSnapshot || r.ProducerSnapshot != rp || r.ProducerStateRebuilt || r.EndOffset != leo {
		t.Fatalf("after a crash:\n%s", r)
	}
	if r.ProducerBatchesReplayed == 0 || r.ProducerBatchesReplayed > 20 {
		t.Fatalf("replayed %d producer batches, want those of the last 20 appends only", r.ProducerBatchesReplayed)
	}
	if got := l.Producers(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a crash\n got %+v\nwant %+v", got, want)
	}
	// The unclean Open wrote the state at its recovery point.
	if !l.hasSnapshot(leo) {
		t.Fatalf("no snapshot at the new recovery point %d: %v", leo, l.snapshots)
	}
}

// Power cuts through the in-memory file system: an idempotent workload
// (retries, epoch bumps, flushes, rolls, truncations, clean restarts)
// until the power fails at a chosen file call, then a crash that loses,
// tears or keeps what was not fsynced. Open must succeed, and the state it
// rebuilds must equal the state recomputed from the log that survived.
// Retention and expiry are left out: they forget batches or producers on
// purpose, which the recomputation could not know (retention across a
// crash is TestRetentionKeepsProducerStateAcrossACrash and
// TestProducerStateSurvivesACrashThatLosesNothing). So is
// TruncateFullyAndStartAt, which forgets every producer: its cuts are
// TestTruncateFullyAndStartAtCrashes, its producer side
// TestInterruptedTruncateFullyForgetsProducers.
var producerCuts = flag.Int("producercuts", 600, "power cuts TestProducerStatePowerCuts runs")

func TestProducerStatePowerCuts(t *testing.T) {
	n := *producerCuts
	if testing.Short() {
		n /= 6
	}
	rebuilt, fromSnapshot := 0, 0
	for seed := range uint64(n) {
		r := pPowerCut(t, seed)
		if r.ProducerStateRebuilt {
			rebuilt++
		}
		if r.HaveProducerSnapshot {
			fromSnapshot++
		}
		if t.Failed() {
			t.Fatalf("seed %d failed", seed)
		}
	}
	t.Logf("%d power cuts: %d recovered from a snapshot, %d rebuilt from headers", n, fromSnapshot, rebuilt)
	if fromSnapshot == 0 {
		t.Fatal("no recovery started from a snapshot: the workload does not exercise them")
	}
}

func pPowerCut(t *testing.T, seed uint64) RecoveryReport {
	rng := rand.New(rand.NewPCG(seed, 0x69646d))
	mode := []vfs.CrashMode{vfs.LoseUnsynced, vfs.TornUnsynced, vfs.KeepUnsynced}[rng.IntN(3)]
	sync := []SyncPolicy{SyncNever, SyncEveryAppend}[rng.IntN(2)]
	mem := vfs.NewMem()
	fsys := vfs.Faulty(mem)
	fsys.CutAt(1+rng.IntN(700), errPowerCut)
	opts := Options{FS: fsys, Sync: sync, SegmentBytes: int64(300 + rng.IntN(700))}
	what := fmt.Sprintf("seed %d (%v, %v)", seed, sync, mode)
	l, err := Open(pdir, opts)
	for op := 0; err == nil && op < 80; op++ {
		switch r := rng.IntN(100); {
		case r < 55:
			pid := int64(rng.IntN(4))
			epoch, seq := int16(0), int32(0)
			p, known := l.Producer(pid)
			if known {
				epoch, seq = p.Epoch, incrementSequence(p.Batches[len(p.Batches)-1].LastSeq, 1)
			}
			n := 1 + rng.IntN(3)
			switch k := rng.IntN(10); {
			case k == 0 && known: // a retry
				b := p.Batches[rng.IntN(len(p.Batches))]
				seq, n = b.FirstSeq, int(b.LastOffset-b.FirstOffset)+1
			case k == 1 && known: // a bump
				epoch, seq = epoch+1, 0
			}
			_, err = l.AppendAsLeader(idBatch(t, pid, epoch, seq, n, int64(op)), 1)
		case r < 62:
			_, err = l.AppendAsLeader(stBatch(t, 0, 1+rng.IntN(2), 10, int64(op)), 1)
		case r < 72:
			err = l.Flush()
		case r < 77:
			err = l.CheckpointRecoveryPoint()
		case r < 88:
			err = l.TruncateTo(l.StartOffset() + rng.Uint64N(l.EndOffset()-l.StartOffset()+1))
		default:
			if err = l.Close(); err == nil {
				l, err = Open(pdir, opts)
			}
		}
		if err == nil {
			// The state must be the log's at every step, not only after
			// the cut (the read itself may meet the power cut).
			var all []byte
			if all, err = l.Read(nil, l.StartOffset(), 1<<30, IsolationLogEnd); err == nil {
				if got, want := l.Producers(), recomputeProducers(t, all); len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
					t.Errorf("%s op %d: state\n got %+v\nwant %+v", what, op, got, want)
					return RecoveryReport{}
				}
			}
		}
	}
	if err != nil && !errors.Is(err, errPowerCut) {
		t.Errorf("%s: %v, not the power cut", what, err)
		return RecoveryReport{}
	}
	mem.Crash(mode, seed)
	opts.FS = mem
	l2, err := Open(pdir, opts)
	if err != nil {
		t.Errorf("%s: Open after the cut: %v", what, err)
		return RecoveryReport{}
	}
	defer l2.Close()
	checkProducersMatchLog(t, l2, what+" after the cut")
	for _, s := range l2.snapshots {
		if s > l2.EndOffset() {
			t.Errorf("%s: snapshot at %d past the log end %d survived Open", what, s, l2.EndOffset())
		}
	}
	// Appends and truncations after the crash: no snapshot that a
	// truncation before the crash meant to delete may come back.
	for i := range 6 {
		if i%2 == 0 {
			pWorkload(t, l2, 4, 4, rng)
		} else if err := l2.TruncateTo(l2.StartOffset() + rng.Uint64N(l2.EndOffset()-l2.StartOffset()+1)); err != nil {
			t.Errorf("%s: TruncateTo after the cut: %v", what, err)
			return RecoveryReport{}
		}
		checkProducersMatchLog(t, l2, what+fmt.Sprintf(" after the cut, step %d", i))
	}
	// And once more, cleanly: the state it wrote is the same.
	want := l2.Producers()
	if err := l2.Close(); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	l3, err := Open(pdir, opts)
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return l2.Recovery()
	}
	defer l3.Close()
	if got := l3.Producers(); !reflect.DeepEqual(got, want) || l3.Recovery().ProducerStateRebuilt {
		t.Errorf("%s: clean reopen: %+v, want %+v\n%s", what, got, want, l3.Recovery())
	}
	return l2.Recovery()
}

// The snapshot a clean Open wants, damaged in every way: every byte
// flipped, cut short, emptied, deleted, made to name another offset. Open
// never takes that as "no producers": it rebuilds the state from the log
// and says so, and the state is right.
func TestDamagedProducerSnapshotIsRebuilt(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, SegmentBytes: 800}
	l := stOpen(t, pdir, opts)
	pWorkload(t, l, 3, 40, rand.New(rand.NewPCG(5, 6)))
	want, leo := l.Producers(), l.EndOffset()
	stClose(t, l)
	path := filepath.Join(pdir, producerSnapshotName(leo))
	good := mustRead(t, mem, path)
	if len(good) < 100 {
		t.Fatalf("snapshot of %d bytes", len(good))
	}

	// Each case damages the snapshot of a cleanly closed log, opens it,
	// and closes it cleanly again (which writes a good snapshot back).
	check := func(name string, damaged []byte, gone bool) {
		t.Helper()
		if gone {
			if err := mem.Remove(path); err != nil {
				t.Fatal(err)
			}
		} else {
			mustWrite(t, mem, path, damaged)
		}
		l, err := Open(pdir, opts)
		if err != nil {
			t.Fatalf("%s: Open: %v", name, err)
		}
		defer stClose(t, l)
		r := l.Recovery()
		if !r.Clean {
			t.Fatalf("%s: not a clean open:\n%s", name, r)
		}
		if !r.ProducerStateRebuilt || (!gone && len(r.ProducerSnapshotsIgnored) == 0) {
			t.Fatalf("%s: the report does not say the state was rebuilt:\n%s", name, r)
		}
		if got := l.Producers(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: rebuilt\n%+v\nwant\n%+v", name, got, want)
		}
	}
	for i := range good {
		for _, x := range []byte{0x01, 0x80} {
			b := bytes.Clone(good)
			b[i] ^= x
			check(fmt.Sprintf("byte %d ^ %#x", i, x), b, false)
		}
	}
	check("cut short", good[:len(good)-1], false)
	check("empty", nil, false)
	check("a byte more", append(bytes.Clone(good), 0), false)
	check("missing", nil, true)
	// The state at another offset, under this one's name.
	other := appendProducerSnapshot(nil, leo-1, producerMap{})
	check("names another offset", other, false)
	check("too large", make([]byte, producerSnapshotLimit+1), false)
}

// A snapshot past the recovered log end (the batches under it were torn
// away) is deleted, durably, and never loaded.
func TestProducerSnapshotPastTheLogEndIsDeleted(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, SegmentBytes: 800}
	l := stOpen(t, pdir, opts)
	rng := rand.New(rand.NewPCG(7, 8))
	pWorkload(t, l, 3, 20, rng)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	rp := l.EndOffset()
	pWorkload(t, l, 3, 30, rng) // rolls: unsynced snapshots past the recovery point
	if len(l.snapshotsPast(rp)) == 0 {
		t.Fatal("no snapshot past the recovery point")
	}
	l.Abandon()
	mem.Crash(vfs.LoseUnsynced, 1) // the segments' tail is gone, the renamed snapshots may not be
	// Bring a snapshot back past the log end, as a page cache that wrote
	// it back would.
	fake := appendProducerSnapshot(nil, rp+5, producerMap{99: {epoch: 0, n: 1, batches: [5]BatchMetadata{{FirstOffset: rp, LastOffset: rp}}}})
	mustWrite(t, mem, filepath.Join(pdir, producerSnapshotName(rp+5)), fake)
	if err := mem.SyncDir(pdir); err != nil {
		t.Fatal(err)
	}
	l = stOpen(t, pdir, opts)
	r := l.Recovery()
	if r.EndOffset != rp || len(r.ProducerSnapshotsIgnored) == 0 || !r.HaveProducerSnapshot || r.ProducerSnapshot != rp {
		t.Fatalf("report:\n%s", r)
	}
	if _, ok := l.Producer(99); ok {
		t.Fatal("the state of a snapshot past the log end was loaded")
	}
	checkProducersMatchLog(t, l, "after the cut")
	l.Abandon()
	mem.Crash(vfs.LoseUnsynced, 2)
	if _, err := mem.OpenFile(filepath.Join(pdir, producerSnapshotName(rp+5)), os.O_RDONLY, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the deletion was not durable: %v", err)
	}
}

// snapshotsPast returns the snapshot offsets above off.
func (l *Log) snapshotsPast(off uint64) []uint64 {
	var out []uint64
	for _, s := range l.snapshots {
		if s > off {
			out = append(out, s)
		}
	}
	return out
}

// A failed write of the snapshot fails the log like any other file.
func TestProducerSnapshotWriteFailureFailsTheLog(t *testing.T) {
	for _, when := range []string{"flush", "roll", "close"} {
		t.Run(when, func(t *testing.T) {
			fsys := &snapFailFS{FS: vfs.NewMem()}
			l, err := Open(pdir, Options{FS: fsys, SegmentBytes: 300})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if _, err := l.AppendAsLeader(idBatch(t, 1, 0, 0, 2, 1), 1); err != nil {
				t.Fatal(err)
			}
			fsys.fail = true
			switch when {
			case "flush":
				err = l.Flush()
			case "roll":
				for err == nil {
					_, err = l.AppendAsLeader(stBatch(t, 0, 5, 30, 1), 1)
				}
			case "close":
				err = l.Close()
			}
			if !errors.Is(err, ErrLogFailed) || !errors.Is(err, errSnapshotDisk) {
				t.Fatalf("%s: %v, want ErrLogFailed with the cause", when, err)
			}
			if err := l.Failed(); when != "close" && err == nil {
				t.Fatal("the log is not failed")
			}
		})
	}
}

var errSnapshotDisk = errors.New("snapshot disk error")

// snapFailFS fails the creation of producer-state snapshot files once
// fail is set.
type snapFailFS struct {
	vfs.FS
	fail bool
}

func (f *snapFailFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	if f.fail && strings.HasSuffix(name, producerSnapshotSuffix+checkpointTempSuffix) {
		return nil, errSnapshotDisk
	}
	return f.FS.OpenFile(name, flag, perm)
}

// Retention deletes the snapshots of the segments it deletes, and keeps
// the producers' state, as Kafka does, until they expire.
func TestRetentionKeepsProducersAndDropsTheirSnapshots(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, SegmentBytes: 500}
	l := stOpen(t, pdir, opts)
	pWorkload(t, l, 4, 60, rand.New(rand.NewPCG(9, 10)))
	want := l.Producers()
	n, err := l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: 800}, 0)
	if err != nil || n == 0 {
		t.Fatalf("retention: %d, %v", n, err)
	}
	for _, s := range l.snapshots {
		if s < l.segments[0].base {
			t.Fatalf("snapshot at %d below the first segment %d", s, l.segments[0].base)
		}
	}
	if got := l.Producers(); !reflect.DeepEqual(got, want) {
		t.Fatalf("retention changed the producer state")
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	l.Abandon()
	l = stOpen(t, pdir, opts)
	if got := l.Producers(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after retention and a crash\n got %+v\nwant %+v\n%s", got, want, l.Recovery())
	}
}

// Open's cost does not grow with the producers after a clean shutdown:
// the snapshot is read, no batch is.
func TestOpenWithManyProducersReadsNoBatch(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, SegmentBytes: 64 << 10}
	l := stOpen(t, pdir, opts)
	l.StopEagerHighWatermark()
	var all []byte
	for pid := range int64(20_000) {
		b := idBatch(t, pid, 0, 0, 1, 1)
		SetBaseOffset(b, uint64(pid))
		SetPartitionLeaderEpoch(b, 1)
		all = append(all, b...)
		if len(all) > 32<<10 {
			if _, err := l.AppendAsFollower(all); err != nil {
				t.Fatal(err)
			}
			all = all[:0]
		}
	}
	if _, err := l.AppendAsFollower(all); err != nil {
		t.Fatal(err)
	}
	stClose(t, l)
	fsys := vfs.Faulty(mem)
	opts.FS = fsys
	l = stOpen(t, pdir, opts)
	r := l.Recovery()
	if !r.Clean || r.SegmentsVerified != 0 || r.Producers != 20_000 || r.ProducerBatchesReplayed != 0 {
		t.Fatalf("clean open with 20,000 producers:\n%s", r)
	}
	// Reads: the checkpoints, the marker, the active index, the snapshot.
	if reads := fsys.Calls(vfs.OpRead); reads > 12 {
		t.Fatalf("clean open read %d times", reads)
	}
}

// The snapshot decoder's property, for the fuzzer and its seeds: no
// panic, a refusal wraps errBadProducerSnapshot, and what it accepts
// re-encodes to the same bytes.
func fuzzProducerSnapshot(t *testing.T, data []byte) {
	off, m, err := decodeProducerSnapshot(data)
	if err != nil {
		if !errors.Is(err, errBadProducerSnapshot) {
			t.Fatalf("decode: %v does not wrap errBadProducerSnapshot", err)
		}
		return
	}
	if again := appendProducerSnapshot(nil, off, m); !bytes.Equal(again, data) {
		t.Fatalf("accepted % x\nre-encodes as % x", data, again)
	}
}

func FuzzDecodeProducerSnapshot(f *testing.F) {
	for _, s := range pSnapshotSeeds() {
		f.Add(s)
	}
	f.Fuzz(fuzzProducerSnapshot)
}

// pSnapshotSeeds are valid snapshots: none, one producer, five batches, a
// wrapped sequence.
func pSnapshotSeeds() [][]byte {
	one := producerMap{7: {epoch: 2, n: 1, batches: [5]BatchMetadata{{FirstSeq: 0, LastSeq: 2, FirstOffset: 10, LastOffset: 12, MaxTimestamp: 99}}}}
	five := producerMap{1: {epoch: 0}, 2: {epoch: 1}}
	for i := range 5 {
		five[1].add(0, BatchMetadata{FirstSeq: int32(i), LastSeq: int32(i), FirstOffset: uint64(2 * i), LastOffset: uint64(2 * i), MaxTimestamp: int64(i)})
	}
	five[2].add(1, BatchMetadata{FirstSeq: math.MaxInt32, LastSeq: 1, FirstOffset: 20, LastOffset: 22, MaxTimestamp: -1})
	return [][]byte{
		appendProducerSnapshot(nil, 0, producerMap{}),
		appendProducerSnapshot(nil, 13, one),
		appendProducerSnapshot(nil, 40, five),
	}
}

// The decoder refuses what would make the state wrong, and counts that
// promise more producers than the bytes hold before allocating.
func TestDecodeProducerSnapshotRefuses(t *testing.T) {
	valid := pSnapshotSeeds()[2]
	reseal := func(b []byte) []byte {
		b = bytes.Clone(b)
		crc := ChecksumCRC32C(b[6:])
		b[2], b[3], b[4], b[5] = byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc)
		return b
	}
	patch := func(at int, v ...byte) []byte {
		b := bytes.Clone(valid)
		copy(b[at:], v)
		return reseal(b)
	}
	first := producerSnapshotHeader // the first producer
	batch0 := first + producerEntryHeader
	for name, b := range map[string][]byte{
		"version 2":              patch(0, 0, 2),
		"huge producer count":    patch(14, 0xff, 0xff, 0xff, 0xff),
		"one producer too many":  patch(14, 0, 0, 0, 3),
		"ids not ascending":      patch(first, 0, 0, 0, 0, 0, 0, 0, 9),
		"negative producer id":   patch(first, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
		"negative epoch":         patch(first+8, 0xff, 0xff),
		"no batches":             patch(first+10, 0),
		"six batches":            patch(first+10, 6),
		"negative sequence":      patch(batch0, 0xff, 0xff, 0xff, 0xff),
		"sequences disagree":     patch(batch0+4, 0, 0, 0, 9),
		"last before first":      patch(batch0+8, 0, 0, 0, 0, 0, 0, 0, 1),
		"batch at the snapshot":  patch(6, 0, 0, 0, 0, 0, 0, 0, 8),
		"offset past int64":      patch(6, 0x80, 0, 0, 0, 0, 0, 0, 0),
		"batches out of order":   patch(batch0+producerBatchSize+8, 0, 0, 0, 0, 0, 0, 0, 0),
		"trailing byte":          reseal(append(bytes.Clone(valid), 0)),
		"header only, cut":       valid[:producerSnapshotHeader-1],
		"crc of other bytes":     append(bytes.Clone(valid[:len(valid)-1]), valid[len(valid)-1]^1),
		"count says 1, has none": reseal(appendProducerSnapshotHeaderOnly(1)),
	} {
		if _, _, err := decodeProducerSnapshot(b); !errors.Is(err, errBadProducerSnapshot) {
			t.Errorf("%s: err = %v, want errBadProducerSnapshot", name, err)
		}
	}
	for _, s := range pSnapshotSeeds() {
		fuzzProducerSnapshot(t, s)
	}
}

func appendProducerSnapshotHeaderOnly(count uint32) []byte {
	b := appendProducerSnapshot(nil, 5, producerMap{})
	b[14], b[15], b[16], b[17] = byte(count>>24), byte(count>>16), byte(count>>8), byte(count)
	return b
}

func mustRead(t testing.TB, fsys vfs.FS, path string) []byte {
	t.Helper()
	b, err := vfs.ReadFile(fsys, path, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustWrite(t testing.TB, fsys vfs.FS, path string, data []byte) {
	t.Helper()
	f, err := fsys.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A truncation deletes the snapshots past its new log end durably before
// it returns: a power cut right after it cannot bring one back to be
// loaded over the batches appended later at those offsets.
func TestTruncationDeletesSnapshotsDurably(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, SegmentBytes: 1 << 20, Sync: SyncEveryAppend}
	l := stOpen(t, pdir, opts)
	pWorkload(t, l, 3, 10, rand.New(rand.NewPCG(11, 12)))
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	v := l.EndOffset()
	if !l.hasSnapshot(v) || len(l.segments) != 1 {
		t.Fatalf("want one segment and a snapshot at %d: %v", v, l.snapshots)
	}
	if err := l.TruncateTo(v - 2); err != nil {
		t.Fatal(err)
	}
	l.Abandon()
	mem.Crash(vfs.LoseUnsynced, 3)
	if _, err := mem.OpenFile(filepath.Join(pdir, producerSnapshotName(v)), os.O_RDONLY, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the snapshot at %d came back after a power cut: %v", v, err)
	}
}

// TruncateFullyAndStartAt forgets every producer; a crash right after it
// checkpointed the new log start leaves only segments below that start,
// which Open drops: it forgets the producers too, rather than replay them.
func TestInterruptedTruncateFullyForgetsProducers(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, SegmentBytes: 1000}
	l := stOpen(t, pdir, opts)
	pWorkload(t, l, 3, 30, rand.New(rand.NewPCG(13, 14)))
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	start := l.EndOffset() + 100
	if err := writeFilesAtomic(mem, pdir, checkpointFile{logStartFileName, formatCheckpoint(start)}); err != nil {
		t.Fatal(err)
	}
	l.Abandon()
	l = stOpen(t, pdir, opts)
	if l.StartOffset() != start || l.EndOffset() != start || len(l.Producers()) != 0 {
		t.Fatalf("start %d, end %d, producers %+v; want an empty log at %d and no producer\n%s",
			l.StartOffset(), l.EndOffset(), l.Producers(), start, l.Recovery())
	}
}
