package log

import (
	"errors"
	"fmt"
	"os"
)

// Open's part in the producer state: load the snapshot the last Close or
// Flush wrote, and replay only the batches past it, in the pass that
// verifies them. See doc.go ("Producer state").

// producerReplay applies, during recovery's verification pass, the
// producer fields of every batch from offset from on to m.
type producerReplay struct {
	m        producerMap
	from     uint64 // batches starting below it are in m already
	snap     uint64 // the snapshot m was loaded from, if haveSnap
	haveSnap bool
	replayed int
	// straddle is set when a batch starts below from and ends past it:
	// from is not a batch boundary of this log, so m cannot be right.
	straddle bool
}

// batch applies one verified batch, in log order. A nil replay does
// nothing (lazy verification).
func (p *producerReplay) batch(h *BatchHeader) {
	if p == nil {
		return
	}
	if h.BaseOffset < p.from {
		if h.NextOffset() > p.from {
			p.straddle = true
		}
		return
	}
	if b, ok := producerBatchOf(h); ok {
		p.m.apply(&b)
		p.replayed++
	}
}

// startProducerReplay prepares the producer state for an unclean Open
// whose verification pass starts at segment from: the newest snapshot at
// or below the recovery point that loads (damaged ones are set aside for
// deletion), with the batch headers between it and the pass's first
// segment replayed now; without a recovery point there is nothing to
// load, as the pass verifies every segment. It returns the segment the
// pass must start at: lower than from only when those headers do not hold
// together, so that the pass verifies them and deals with the damage as
// it deals with any other.
func (rc *recovery) startProducerReplay(from int) (int, error) {
	l := rc.l
	segs := l.segments
	rc.pr = &producerReplay{m: producerMap{}}
	if len(segs) == 0 {
		return from, nil
	}
	floor := segs[0].base
	rc.pr.from = floor
	if !rc.rpFound {
		return from, nil
	}
	for i := len(l.snapshots) - 1; i >= 0; i-- {
		s := l.snapshots[i]
		if s > rc.rp || s < floor {
			continue
		}
		m, err := l.loadProducerSnapshot(s)
		if errors.Is(err, errBadProducerSnapshot) {
			rc.badSnapshot(s, err)
			continue
		}
		if err != nil {
			return from, fmt.Errorf("log: open: %w", err)
		}
		rc.pr.m, rc.pr.from, rc.pr.snap, rc.pr.haveSnap = m, s, s, true
		break
	}
	if rc.pr.haveSnap && rc.pr.snap == rc.rp {
		return from, nil
	}
	rc.r.ProducerStateRebuilt = rc.rp > floor
	// Older segments the pass does not read: their headers only.
	passStart := segs[from].base
	if rc.pr.from >= passStart {
		return from, nil
	}
	saved := rc.pr.m.clone()
	n, bad, err := rc.replayUnverified(rc.pr.m, rc.pr.from, passStart)
	if err != nil {
		return from, err
	}
	if bad >= 0 {
		// Let the pass verify from the snapshot's segment on.
		rc.pr.m = saved
		return min(from, l.segmentFor(rc.pr.from)), nil
	}
	rc.pr.replayed += n
	return from, nil
}

// replayUnverified applies to m the producer batches in [from, to) of the
// segments Open does not verify, reading their headers only, and closes
// their files again. bad is the index of a segment whose headers do not
// hold together (-1 if none).
func (rc *recovery) replayUnverified(m producerMap, from, to uint64) (n, bad int, err error) {
	l := rc.l
	var buf []byte
	bad = -1
	for i := l.segmentFor(from); i < len(l.segments) && l.segments[i].base < to; i++ {
		s := l.segments[i]
		f, err := l.fs.OpenFile(s.path(segmentSuffix), os.O_RDONLY, 0)
		if err != nil {
			return n, bad, fmt.Errorf("log: open: %w", err)
		}
		size, err := f.Size()
		var k int
		var broken bool
		if err == nil {
			k, broken, buf, err = walkProducerHeaders(f, size, 0, s.base, s.next, from, to, m, buf)
		}
		f.Close()
		if err != nil {
			return n, bad, fmt.Errorf("log: open: %s: %w", s.name(), err)
		}
		n += k
		if broken {
			return n, i, nil
		}
	}
	return n, bad, nil
}

// badSnapshot sets a snapshot that does not load aside: reported, and
// deleted by finishProducers.
func (rc *recovery) badSnapshot(off uint64, err error) {
	rc.r.ProducerSnapshotsIgnored = append(rc.r.ProducerSnapshotsIgnored, err.Error())
	rc.deadSnapshots = append(rc.deadSnapshots, off)
}

// finishProducers settles the producer state once the log's extent is
// known: after a clean shutdown, the snapshot at the log end (no batch
// read); after an unclean one, the state the verification pass replayed.
// When that state cannot be right (the snapshot it wanted was missing,
// damaged or past the recovered log end, or the pass cut below it), the
// state is rebuilt from the newest snapshot that loads, or the log's
// first batch, by reading batch headers, and the report says so. Snapshots
// past the log end are deleted, durably, before anything can be appended
// over them; damaged ones and those below the first segment too.
func (rc *recovery) finishProducers() error {
	l, r := rc.l, rc.r
	leo := l.endOffset()
	floor := l.segments[0].base
	for _, s := range rc.deadSnapshots {
		if err := l.removeSnapshot(s); err != nil {
			return err
		}
	}
	tooNew := false
	for _, s := range append([]uint64(nil), l.snapshots...) {
		switch {
		case s > leo:
			r.ProducerSnapshotsIgnored = append(r.ProducerSnapshotsIgnored,
				fmt.Sprintf("%s: past the recovered log end %d", producerSnapshotName(s), leo))
			tooNew = true
		case s < floor:
			r.LeftoversDeleted = append(r.LeftoversDeleted, producerSnapshotName(s))
		default:
			continue
		}
		if err := l.removeSnapshot(s); err != nil {
			return err
		}
	}
	if tooNew {
		if err := l.fs.SyncDir(l.dir); err != nil {
			return l.fail(fmt.Errorf("log: open: %w", err))
		}
	}

	var m producerMap
	durable := false // m is the snapshot at leo, as Close wrote it
	if r.Clean {
		if l.hasSnapshot(leo) {
			loaded, err := l.loadProducerSnapshot(leo)
			switch {
			case errors.Is(err, errBadProducerSnapshot):
				r.ProducerSnapshotsIgnored = append(r.ProducerSnapshotsIgnored, err.Error())
				if err := l.removeSnapshot(leo); err != nil {
					return err
				}
			case err != nil:
				return l.fail(fmt.Errorf("log: open: %w", err))
			default:
				m, durable = loaded, true
				r.ProducerSnapshot, r.HaveProducerSnapshot = leo, true
			}
		}
		if m == nil && leo > floor {
			r.ProducerStateRebuilt = true
		}
	} else if rc.droppedAll {
		// Every segment lay below the checkpointed log start: the
		// leftovers of a TruncateFullyAndStartAt a crash interrupted
		// (retention never deletes the last segment), which forgets
		// every producer — unless the log start itself was the recovery
		// point with its snapshot (the start moved up to the log end, and
		// the producers stay until they expire). TruncateFullyAndStartAt
		// past the log end leaves no snapshot at its new start.
		m = producerMap{}
		if rc.rpFound && rc.rp == leo && l.hasSnapshot(leo) {
			loaded, err := l.loadProducerSnapshot(leo)
			switch {
			case errors.Is(err, errBadProducerSnapshot):
				r.ProducerSnapshotsIgnored = append(r.ProducerSnapshotsIgnored, err.Error())
			case err != nil:
				return l.fail(fmt.Errorf("log: open: %w", err))
			default:
				m = loaded
				r.ProducerSnapshot, r.HaveProducerSnapshot = leo, true
			}
		}
	} else if p := rc.pr; p != nil && !p.straddle && p.from <= leo {
		m = p.m
		r.ProducerSnapshot, r.HaveProducerSnapshot, r.ProducerBatchesReplayed = p.snap, p.haveSnap, p.replayed
	} else {
		r.ProducerStateRebuilt = true
	}
	if m == nil {
		rebuilt, snap, ok, n, ignored, err := l.producerStateAt(leo)
		r.ProducerSnapshotsIgnored = append(r.ProducerSnapshotsIgnored, ignored...)
		if err != nil {
			return err
		}
		m = rebuilt
		r.ProducerSnapshot, r.HaveProducerSnapshot, r.ProducerBatchesReplayed = snap, ok, n
	}
	l.producers = m
	l.producersGen++
	r.Producers = len(m)
	switch {
	case durable:
		l.snapDurable = snapshotMark{off: leo, gen: l.producersGen, ok: true}
	case r.Clean && r.ProducerStateRebuilt:
		// The unclean path writes it with the recovery point; after a
		// clean shutdown nothing else would until the next Flush.
		if snap, ok := l.snapshotFile(); ok {
			if err := l.writeCheckpoints(snap); err != nil {
				return err
			}
			return l.snapshotWritten(leo)
		}
	}
	return nil
}
