package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/kaenlog/kaenlog/log"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit codes: 0 nothing damaged, 1 damage found, 2 usage or I/O error.
const (
	exitOK      = 0
	exitDamaged = 1
	exitError   = 2
)

type dumper struct {
	out         io.Writer
	records     bool
	printValues bool
	from        uint64
	max         int // batches to print in all; 0: no limit
	printed     int
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("dumplog", flag.ContinueOnError)
	fl.SetOutput(stderr)
	d := &dumper{out: stdout}
	fl.BoolVar(&d.records, "records", false, "print each record of each batch")
	fl.BoolVar(&d.printValues, "print-values", false, "with -records, print keys, values and headers (implies -records)")
	fl.Uint64Var(&d.from, "from", 0, "print only batches and records at or above this offset")
	fl.IntVar(&d.max, "max", 0, "print at most this many batches in all (0: no limit)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: dumplog [-records] [-print-values] [-from offset] [-max N] DIR-or-segment-file...")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitError
	}
	if fl.NArg() == 0 || d.max < 0 {
		fl.Usage()
		return exitError
	}
	d.records = d.records || d.printValues
	code := exitOK
	for _, arg := range fl.Args() {
		damaged, err := d.dump(arg)
		if err != nil {
			fmt.Fprintf(stderr, "dumplog: %v\n", err)
			return exitError
		}
		if damaged {
			code = exitDamaged
		}
	}
	return code
}

// dump prints one directory, or one segment file of its directory.
func (d *dumper) dump(arg string) (damaged bool, err error) {
	info, err := os.Stat(arg)
	if err != nil {
		return false, err
	}
	dir, only := arg, ""
	if !info.IsDir() {
		dir, only = filepath.Dir(arg), filepath.Base(arg)
	}
	r, err := log.OpenReadOnly(dir, log.Options{})
	if err != nil {
		return false, err
	}
	segs := r.Segments()
	found := false
	for _, s := range segs {
		if only != "" && s.File != only {
			continue
		}
		found = true
		if d.max > 0 && d.printed >= d.max {
			break
		}
		if err := d.segment(r, s); err != nil {
			return false, err
		}
	}
	if only != "" && !found {
		return false, fmt.Errorf("%s is not a segment file of %s", only, dir)
	}
	d.summary(r, segs)
	_, damaged = r.Damage()
	return damaged, nil
}

func (d *dumper) segment(r *log.ReadOnlyLog, s log.ReadOnlySegment) error {
	fmt.Fprintf(d.out, "Dumping %s\n", filepath.Join(r.Dir(), s.File))
	fmt.Fprintf(d.out, "Log starting offset: %d\n", s.BaseOffset)
	var valid int64 // bytes framed
	var decodeErr error
	err := r.ScanSegment(s.BaseOffset, func(b log.StoredBatch) bool {
		valid = b.Pos + int64(b.Header.Size())
		if b.Header.LastOffset() < d.from {
			return true
		}
		if d.max > 0 && d.printed >= d.max {
			return false
		}
		d.printed++
		d.batch(b)
		if d.records {
			decodeErr = d.recordsOf(b)
		}
		return decodeErr == nil
	})
	if decodeErr != nil {
		return decodeErr
	}
	var ce *log.CorruptError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintf(d.out, "Found %d invalid bytes at the end of %s (%v)\n", s.Size-valid, s.File, ce.Err)
	case err != nil:
		return err
	}
	return nil
}

func timestampType(attrs int16) string {
	if attrs&log.AttrLogAppendTime != 0 {
		return "LogAppendTime"
	}
	return "CreateTime"
}

// lastSequence is Kafka's DefaultRecordBatch.lastSequence: the base
// sequence plus the offset delta, wrapping after MaxInt32; -1 without one.
func lastSequence(h log.BatchHeader) int64 {
	if h.BaseSequence < 0 {
		return -1
	}
	s := int64(h.BaseSequence) + int64(h.LastOffsetDelta)
	if s > math.MaxInt32 {
		s -= math.MaxInt32 + 1
	}
	return s
}

func (d *dumper) batch(b log.StoredBatch) {
	h := b.Header
	fmt.Fprintf(d.out, "baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d producerId: %d producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %t isControl: %t position: %d %s: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %t",
		h.BaseOffset, h.LastOffset(), h.RecordCount, h.BaseSequence, lastSequence(h), h.ProducerID, h.ProducerEpoch,
		h.PartitionLeaderEpoch, h.Attributes&log.AttrTransactional != 0, h.Attributes&log.AttrControl != 0,
		b.Pos, timestampType(h.Attributes), h.MaxTimestamp, h.Size(), h.Magic, log.CompressionOf(h.Attributes), h.CRC, b.Err == nil)
	if b.Err != nil {
		fmt.Fprintf(d.out, " error: %v", b.Err)
	}
	fmt.Fprintln(d.out)
}

// recordsOf prints the records of a batch; a batch that does not decode
// gets one line saying why. The error is the output's.
func (d *dumper) recordsOf(b log.StoredBatch) error {
	if b.Err != nil {
		_, err := fmt.Fprintf(d.out, "| records not decoded: the batch does not verify\n")
		return err
	}
	batch, _, err := log.DecodeBatch(b.Bytes)
	if err != nil {
		_, err := fmt.Fprintf(d.out, "| records not decoded: %v\n", err)
		return err
	}
	tsType := timestampType(batch.Attributes)
	for _, rec := range batch.Records {
		off := batch.BaseOffset + uint64(rec.OffsetDelta)
		if off < d.from {
			continue
		}
		ts := batch.BaseTimestamp + rec.TimestampDelta
		if batch.Attributes&log.AttrLogAppendTime != 0 {
			ts = batch.MaxTimestamp // Kafka's record timestamp under LogAppendTime
		}
		seq := int64(-1)
		if batch.BaseSequence >= 0 {
			seq = int64(batch.BaseSequence) + int64(rec.OffsetDelta)
			if seq > math.MaxInt32 {
				seq -= math.MaxInt32 + 1
			}
		}
		keys := make([]string, len(rec.Headers))
		for i, h := range rec.Headers {
			keys[i] = fmt.Sprintf("%q", h.Key)
		}
		var line strings.Builder
		fmt.Fprintf(&line, "| offset: %d %s: %d keySize: %d valueSize: %d sequence: %d headerKeys: [%s]",
			off, tsType, ts, size(rec.Key), size(rec.Value), seq, strings.Join(keys, ","))
		if d.printValues {
			if rec.Key != nil {
				fmt.Fprintf(&line, " key: %q", rec.Key)
			}
			if rec.Value != nil {
				fmt.Fprintf(&line, " payload: %q", rec.Value)
			}
			if len(rec.Headers) > 0 {
				hs := make([]string, len(rec.Headers))
				for i, h := range rec.Headers {
					if h.Value == nil {
						hs[i] = fmt.Sprintf("%q=null", h.Key)
					} else {
						hs[i] = fmt.Sprintf("%q=%q", h.Key, h.Value)
					}
				}
				fmt.Fprintf(&line, " headers: [%s]", strings.Join(hs, ","))
			}
		}
		line.WriteByte('\n')
		if _, err := io.WriteString(d.out, line.String()); err != nil {
			return err
		}
	}
	return nil
}

// size is a key's or value's length, -1 for null, as Kafka prints it.
func size(b []byte) int {
	if b == nil {
		return -1
	}
	return len(b)
}

func (d *dumper) summary(r *log.ReadOnlyLog, segs []log.ReadOnlySegment) {
	rp := "none"
	if off, ok := r.RecoveryPoint(); ok {
		rp = fmt.Sprint(off)
	}
	batches := 0
	for _, s := range segs {
		batches += s.Batches
	}
	fmt.Fprintf(d.out, "Summary: %s: %d segments, %d valid batches, offsets [%d, %d), high watermark %d, recovery point %s, clean shutdown %t, printed %d batches\n",
		r.Dir(), len(segs), batches, r.StartOffset(), r.EndOffset(), r.HighWatermark(), rp, r.CleanShutdown(), d.printed)
	if why := r.MarkerIgnored(); why != "" {
		fmt.Fprintf(d.out, "Clean-shutdown marker ignored: %s\n", why)
	}
	for _, c := range r.CheckpointsIgnored() {
		fmt.Fprintf(d.out, "Checkpoint ignored: %s\n", c)
	}
	if left := r.Leftovers(); len(left) > 0 {
		fmt.Fprintf(d.out, "Leftovers recovery would delete: %s\n", strings.Join(left, " "))
	}
	if stale := r.IndexesStale(); len(stale) > 0 {
		fmt.Fprintf(d.out, "Index files recovery would rewrite: %s\n", strings.Join(stale, " "))
	}
	cut, ok := r.Damage()
	if !ok {
		fmt.Fprintln(d.out, "Damage: none")
		return
	}
	below := "past the recovery point: a torn write Open would cut"
	if cut.BelowRecoveryPoint {
		below = "below the recovery point: flushed data, which Open refuses unless Repair"
	}
	fmt.Fprintf(d.out, "Damage: %s position %d, offsets from %d: %v (%s)\n", cut.File, cut.Pos, cut.FirstOffset, cut.Reason, below)
}
