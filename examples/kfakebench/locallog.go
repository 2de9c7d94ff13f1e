package main

import (
	"fmt"
	"time"

	"github.com/kaenlog/kaenlog/log"
)

// localBatch encodes one batch of as many records of value as fit in
// batchBytes (at least one), as the producer fills its batches, and
// returns it with its record count.
func localBatch(value []byte, batchBytes int) ([]byte, int, error) {
	now := time.Now().UnixMilli()
	encode := func(n int) ([]byte, error) {
		recs := make([]log.Record, n)
		for i := range recs {
			recs[i] = log.Record{OffsetDelta: int32(i), Value: value}
		}
		return log.AppendBatch(nil, &log.Batch{BaseTimestamp: now, MaxTimestamp: now,
			ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs})
	}
	// The largest count that fits, by bisection: a record takes at least
	// len(value)+1 bytes.
	lo, hi := 1, max(1, batchBytes/(len(value)+1))
	for lo < hi {
		mid := (lo + hi + 1) / 2
		b, err := encode(mid)
		if err != nil {
			return nil, 0, err
		}
		if len(b) <= batchBytes {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	b, err := encode(lo)
	return b, lo, err
}

// localRead is the consumer's reference: n records of value in one local
// log in dir (written beforehand in batches of batchBytes as the producer
// makes them, and closed), then, timed, log.Open and reads of 1 MiB (the consumer's
// max.partition.fetch.bytes) from the start, each batch decoded and each
// record's value looked at, as the consumer does. It returns the time of
// Open plus the reads, and of Open alone.
func localRead(dir string, value []byte, n, batchBytes int) (total, open time.Duration, err error) {
	batch, per, err := localBatch(value, batchBytes)
	if err != nil {
		return 0, 0, err
	}
	l, err := log.Open(dir, log.Options{})
	if err != nil {
		return 0, 0, err
	}
	const batchesPerAppend = 64
	var buf []byte
	for written := 0; written < n; {
		buf = buf[:0]
		for i := 0; i < batchesPerAppend && written < n; i++ {
			buf = append(buf, batch...)
			written += per
		}
		if _, err := l.AppendAsLeader(buf, 0); err != nil {
			l.Close()
			return 0, 0, err
		}
	}
	if err := l.Close(); err != nil {
		return 0, 0, err
	}

	start := time.Now()
	l, err = log.Open(dir, log.Options{})
	if err != nil {
		return 0, 0, err
	}
	defer l.Close()
	open = time.Since(start)
	var off uint64
	got, bytes := 0, 0
	buf = make([]byte, 0, 2<<20)
	for got < n {
		buf, err = l.Read(buf[:0], off, 1<<20, log.IsolationLogEnd)
		if err != nil {
			return 0, 0, err
		}
		if len(buf) == 0 {
			return 0, 0, fmt.Errorf("local log: nothing at offset %d, %d records read", off, got)
		}
		for rest := buf; len(rest) > 0; {
			b, size, err := log.DecodeBatch(rest)
			if err != nil {
				return 0, 0, err
			}
			rest = rest[size:]
			for i := range b.Records {
				if b.BaseOffset+uint64(b.Records[i].OffsetDelta) >= off && got < n {
					bytes += len(b.Records[i].Value)
					got++
				}
			}
			off = b.BaseOffset + uint64(b.Records[len(b.Records)-1].OffsetDelta) + 1
		}
	}
	total = time.Since(start)
	if bytes != n*len(value) {
		return 0, 0, fmt.Errorf("local log: %d value bytes read, want %d", bytes, n*len(value))
	}
	return total, open, nil
}
