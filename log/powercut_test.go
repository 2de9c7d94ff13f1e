package log

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
)

// Power cuts, through the in-memory file system: a seeded workload
// (appends, flushes, rolls and their FlushRolled, truncations, compaction,
// retention, the log start, epochs, clean restarts) runs until the power fails at a chosen
// file call (every later call fails, as nothing reaches the disk any
// more), then the Mem crashes (losing what was not fsynced, or keeping a
// torn prefix of it, or, for a process crash, keeping everything), and the
// log is opened again. It must hold:
//
//   - Open succeeds without Repair: a power cut only tears what was not
//     flushed, which is never damage;
//   - every record acknowledged under SyncEveryAppend, or covered by a
//     successful Flush or Close (for a process crash: every acknowledged
//     record) is there, byte for byte;
//   - nothing is invented: every batch served is one that was written at
//     that offset, and the batches continue each other from the log start
//     to the log end, with no hole;
//   - the report agrees with the log and claims no lost flushed data.

var (
	powerCuts    = flag.Int("powercuts", 2000, "power cuts TestPowerCut runs")
	powerCutSeed = flag.Int64("powercut.seed", -1, "run only this seed of TestPowerCut, tracing every operation")
)

var errPowerCut = errors.New("power cut")

// pcModel is what the workload knows the log must hold.
type pcModel struct {
	batches   []stStored // the log's batches, in order
	start     uint64     // log start
	leo, hw   uint64
	epoch     int32
	history   map[uint64][][]byte // every batch ever at this base offset
	guarantee uint64              // offsets below it survive the crash mode
	maxStart  uint64              // the largest log start ever asked for
	minStart  uint64              // the log start known to be checkpointed
}

func (m *pcModel) remember(all []byte) {
	for len(all) > 0 {
		h, _ := ReadBatchHeader(all)
		b := all[:h.Size()]
		if !slicesContainBytes(m.history[h.BaseOffset], b) {
			m.history[h.BaseOffset] = append(m.history[h.BaseOffset], bytes.Clone(b))
		}
		all = all[h.Size():]
	}
}

func slicesContainBytes(list [][]byte, b []byte) bool {
	for _, x := range list {
		if bytes.Equal(x, b) {
			return true
		}
	}
	return false
}

func TestPowerCut(t *testing.T) {
	if *powerCutSeed >= 0 {
		pcTrace = true
		stPowerCut(t, uint64(*powerCutSeed))
		return
	}
	n := *powerCuts
	if testing.Short() {
		n /= 10
	}
	midOp := 0
	for i := range n {
		seed := uint64(i)
		ok, cut := stPowerCut(t, seed)
		if !ok {
			t.Fatalf("power cut seed %d failed; rerun it with -run TestPowerCut -powercut.seed %d", seed, seed)
		}
		if cut {
			midOp++
		}
	}
	t.Logf("%d power cuts, %d of them in the middle of the workload", n, midOp)
}

// stPowerCut runs one seeded workload with one power cut and checks the
// recovered log. It reports whether everything held, and whether the cut
// came before the workload's end.
func stPowerCut(t *testing.T, seed uint64) (ok, cut bool) {
	rng := rand.New(rand.NewPCG(seed, 0x706f776572))
	mode := []vfs.CrashMode{vfs.LoseUnsynced, vfs.TornUnsynced, vfs.KeepUnsynced}[rng.IntN(3)]
	sync := []SyncPolicy{SyncNever, SyncEveryAppend}[rng.IntN(2)]
	mem := vfs.NewMem()
	fsys := vfs.Faulty(mem)
	cutAt := 1 + rng.IntN(500)
	fsys.CutAt(cutAt, errPowerCut)
	opts := Options{FS: fsys, Sync: sync, SegmentBytes: int64(200 + rng.IntN(500)), IndexIntervalBytes: 1 + rng.IntN(300)}
	const dir = "/p/orders-0"
	what := fmt.Sprintf("seed %d (%v, %v, cut at call %d)", seed, sync, mode, cutAt)
	fail := func(format string, args ...any) (bool, bool) {
		t.Errorf("%s: %s", what, fmt.Sprintf(format, args...))
		return false, false
	}

	m := &pcModel{history: map[uint64][][]byte{}, epoch: 1}
	l, err := Open(dir, opts)
	if err == nil {
		err = l.AssignEpoch(m.epoch)
	}
	lastOp := "open"
	for op := 0; err == nil && op < 60; op++ {
		if pcTrace {
			t.Logf("op %d: model start %d leo %d guarantee %d; calls %d", op, m.start, m.leo, m.guarantee, fsys.TotalCalls())
		}
		switch r := rng.IntN(100); {
		case r < 40:
			lastOp = "append"
			var in []byte
			for range 1 + rng.IntN(3) {
				recs := make([]Record, 1+rng.IntN(4))
				for j := range recs {
					recs[j] = Record{OffsetDelta: int32(j), Key: fmt.Appendf(nil, "k%d", rng.IntN(6)), Value: make([]byte, rng.IntN(60))}
				}
				in = append(in, stBatchOf(t, 0, int64(op), recs)...)
			}
			var info AppendInfo
			if info, err = l.AppendAsLeader(in, m.epoch); err == nil {
				m.remember(in)
				m.batches = append(m.batches, stSplit(t, in)...)
				m.leo = info.NextOffset
				if l.EagerHighWatermark() {
					m.hw = m.leo
				}
				if sync == SyncEveryAppend || mode == vfs.KeepUnsynced {
					m.guarantee = m.leo
				}
			} else if h, _ := ReadBatchHeader(in); h.BaseOffset == m.leo && h.PartitionLeaderEpoch == m.epoch {
				// Cut after stamping: the bytes may be in the file, unacknowledged.
				m.remember(in)
			}
		case r < 48:
			lastOp = "flush"
			if err = l.Flush(); err == nil {
				m.guarantee = m.leo
			}
		case r < 54:
			lastOp = "truncate"
			off := m.start + rng.Uint64N(m.leo-m.start+1)
			keep := m.batches
			for len(keep) > 0 && keep[len(keep)-1].h.LastOffset() >= off {
				keep = keep[:len(keep)-1]
			}
			newLEO := m.start
			if len(keep) > 0 {
				newLEO = keep[len(keep)-1].h.NextOffset()
			}
			if off >= m.leo {
				newLEO = m.leo
			}
			if newLEO < m.start {
				break // would empty the log below its start: not this workload's business
			}
			m.guarantee = min(m.guarantee, newLEO)
			if err = l.TruncateTo(off); err == nil {
				m.batches, m.leo, m.hw = keep, newLEO, min(m.hw, newLEO)
				if mode == vfs.KeepUnsynced {
					m.guarantee = m.leo
				}
			}
		case r < 62:
			lastOp = "set HW"
			l.StopEagerHighWatermark()
			hw := m.hw + rng.Uint64N(m.leo-m.hw+1)
			if err = l.SetHighWatermark(hw); err == nil {
				m.hw = hw
			}
		case r < 66:
			lastOp = "checkpoint HW"
			err = l.CheckpointHighWatermark()
		case r < 71:
			lastOp = "compact"
			if _, err = l.Compact(); err == nil {
				var all []byte
				if all, err = l.Read(nil, m.start, 1<<30, IsolationLogEnd); err == nil {
					m.remember(all)
					m.batches = stSplit(t, all)
				}
			}
		case r < 75:
			lastOp = "retention"
			if _, err = l.DeleteRetainedSegments(RetentionPolicy{RetentionBytes: int64(300 + rng.IntN(1500))}, 0); err == nil {
				m.start = l.StartOffset()
				m.maxStart, m.minStart = max(m.maxStart, m.start), m.start
			} else {
				// Cut midway: the new start may be checkpointed already.
				// Retention never moves it past the HW.
				m.maxStart = max(m.maxStart, m.hw)
			}
		case r < 78:
			lastOp = "increment start"
			off := m.start + rng.Uint64N(m.hw-m.start+1)
			m.maxStart = max(m.maxStart, off)
			if err = l.IncrementStartOffset(off); err == nil {
				m.start = max(m.start, off)
				m.minStart = m.start
			}
		case r < 82:
			lastOp = "assign epoch"
			if err = l.AssignEpoch(m.epoch + 1); err == nil {
				m.epoch++
			}
		case r < 86:
			lastOp = "restart"
			if err = l.Close(); err == nil {
				m.guarantee = m.leo
				if l, err = Open(dir, opts); err == nil {
					l.StopEagerHighWatermark()
					m.hw = l.HighWatermark()
				}
			}
		case r < 89:
			lastOp = "checkpoint recovery point"
			err = l.CheckpointRecoveryPoint()
		case r < 93:
			lastOp = "flush rolled"
			if err = l.FlushRolled(); err == nil {
				base := activeBase(l)
				if rp := l.RecoveryPoint(); rp < base {
					return fail("FlushRolled left the recovery point at %d, below the active segment's base %d", rp, base)
				}
				m.guarantee = max(m.guarantee, base)
			}
		default:
			lastOp = "read"
			from := m.start + rng.Uint64N(m.leo-m.start+1)
			// The read serves exactly what the model holds from there
			// within maxBytes: the same batches, no fewer, no more.
			maxBytes := rng.IntN(2000)
			var got []byte
			if got, err = l.Read(nil, from, maxBytes, IsolationLogEnd); err == nil {
				if want := stNaiveRead(m.batches, from, maxBytes, m.leo); !bytes.Equal(got, want) {
					return fail("Read(%d, %d bytes) before the cut served %v, the model holds %v", from, maxBytes, stOffsets(stHeaders(t, got)), stOffsets(stHeaders(t, want)))
				}
			}
		}
		if pcTrace {
			t.Logf("  %s: %v", lastOp, err)
		}
		if err == nil && (l.EndOffset() != m.leo || l.StartOffset() != m.start) {
			return fail("after %s: start %d, LEO %d; model %d, %d", lastOp, l.StartOffset(), l.EndOffset(), m.start, m.leo)
		}
	}
	if err != nil && !errors.Is(err, errPowerCut) {
		return fail("%s failed with %v, not the power cut", lastOp, err)
	}
	cut = err != nil

	// The power fails; the machine comes back.
	mem.Crash(mode, seed)
	l2, err := Open(dir, Options{FS: mem, Sync: sync, SegmentBytes: opts.SegmentBytes, IndexIntervalBytes: opts.IndexIntervalBytes})
	if err != nil {
		return fail("Open after the cut (during %s): %v", lastOp, err)
	}
	defer l2.Close()
	r := l2.Recovery()
	if r.LostFlushedData || r.StartOffset != l2.StartOffset() || r.EndOffset != l2.EndOffset() {
		return fail("report disagrees with the log or claims lost flushed data:\n%s", r)
	}
	for _, c := range r.Cuts {
		if c.BelowRecoveryPoint {
			return fail("a cut below the recovery point after a power cut:\n%s", r)
		}
	}
	start, leo := l2.StartOffset(), l2.EndOffset()
	if start > m.maxStart || start < m.minStart {
		return fail("log start %d, asked for at most %d and checkpointed %d", start, m.maxStart, m.minStart)
	}
	if leo < m.guarantee {
		return fail("LEO %d after the cut (during %s), but offsets below %d were guaranteed\n%s", leo, lastOp, m.guarantee, r)
	}
	got, err := l2.Read(nil, start, 1<<30, IsolationLogEnd)
	if err != nil {
		return fail("Read after the cut: %v", err)
	}
	next := uint64(0)
	for i, b := range stSplit(t, got) {
		if i > 0 && b.h.BaseOffset != next {
			return fail("batch %d-%d after the cut does not continue %d: a hole", b.h.BaseOffset, b.h.LastOffset(), next)
		}
		if !slicesContainBytes(m.history[b.h.BaseOffset], b.bytes) && !m.compacted(t, b) {
			if pcTrace {
				for off := b.h.BaseOffset; off <= b.h.LastOffset(); off++ {
					for _, w := range m.history[off] {
						h, _ := ReadBatchHeader(w)
						t.Logf("history[%d]: %d-%d records %d", off, h.BaseOffset, h.LastOffset(), h.RecordCount)
					}
				}
			}
			return fail("batch %d-%d (%d records) after the cut was never written", b.h.BaseOffset, b.h.LastOffset(), b.h.RecordCount)
		}
		next = b.h.NextOffset()
	}
	if len(got) > 0 && next != leo {
		return fail("batches end at %d, LEO is %d", next, leo)
	}
	if hw := l2.HighWatermark(); hw < start || hw > leo {
		return fail("start %d, HW %d, LEO %d", start, hw, leo)
	}
	// The recovered log keeps working.
	if _, err := l2.AppendAsLeader(stBatch(t, 0, 1, 5, 1), m.epoch+1); err != nil {
		return fail("append after recovery: %v", err)
	}
	return true, cut
}

// compacted reports whether b, a batch at an offset the workload wrote,
// is what compaction can make of the batches written there: the same
// batch with some of its records removed (same base and offset range), or
// one empty batch over a run of consecutive written batches.
func (m *pcModel) compacted(t *testing.T, b stStored) bool {
	for _, w := range m.history[b.h.BaseOffset] {
		h, _ := ReadBatchHeader(w)
		if h.LastOffset() == b.h.LastOffset() && stRecordSubset(t, b.bytes, w) {
			return true
		}
	}
	if b.h.RecordCount != 0 {
		return false
	}
	// An empty batch: a run of written batches must tile its range (the
	// history has several timelines when truncation rewrote offsets).
	end := b.h.NextOffset()
	tiles := map[uint64]bool{end: true}
	var tile func(off uint64) bool
	tile = func(off uint64) bool {
		if ok, seen := tiles[off]; seen {
			return ok
		}
		tiles[off] = false
		for _, w := range m.history[off] {
			if h, _ := ReadBatchHeader(w); h.NextOffset() <= end && tile(h.NextOffset()) {
				tiles[off] = true
				break
			}
		}
		return tiles[off]
	}
	return tile(b.h.BaseOffset)
}

// stRecordSubset reports whether the records of batch sub are records of
// batch super, at the same offsets.
func stRecordSubset(t *testing.T, sub, super []byte) bool {
	have := map[string]bool{}
	for _, r := range stRecordsOf(t, super) {
		have[r.String()] = true
	}
	for _, r := range stRecordsOf(t, sub) {
		if !have[r.String()] {
			return false
		}
	}
	return true
}

// pcTrace makes stPowerCut log every operation (-powercut.seed).
var pcTrace = false
