package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Sentinels of the leader's produce validation (validateLeaderBatch). They
// are not corruption: the batch's bytes are intact, the producer may not send
// them, so they never match ErrCorrupt. Undecodable records are the codec's
// *CorruptError instead.
var (
	// ErrBatchTooLarge is returned for a producer's batch larger than the
	// log's maximum batch size (Kafka's message.max.bytes), so that every
	// batch the leader accepts fits one fetch response. It maps to Kafka's
	// MESSAGE_TOO_LARGE (10).
	ErrBatchTooLarge = errors.New("log: record batch too large")

	// ErrUnsupportedCompression is returned for a batch whose attributes
	// name a compression codec that has no registered Decompressor (see
	// RegisterDecompressor; codecs 5-7 are unknown to Kafka and can have
	// none): the leader must decompress a producer's batch to
	// check its records. It maps to Kafka's UNSUPPORTED_COMPRESSION_TYPE
	// (76).
	ErrUnsupportedCompression = errors.New("log: unsupported compression type")

	// ErrInvalidRecord is returned for an intact (correctly checksummed and
	// decodable) batch that a producer may not send, Kafka's
	// InvalidRecordException: a control batch, a non-zero baseOffset, no
	// records, a record count that differs from lastOffsetDelta+1, records
	// whose offset deltas are not 0, 1, 2, ..., inconsistent idempotent
	// producer fields, a timestamp type of LogAppendTime, or a record
	// timestamp outside int64. It maps to Kafka's INVALID_RECORD (87).
	ErrInvalidRecord = errors.New("log: invalid record batch from a producer")
)

// validateLeaderBatch checks the producer batch at batch[0:] the way a
// partition leader must before appending it (in the spirit of Kafka's
// LogValidator), and returns its header with MaxTimestamp replaced by the
// largest record timestamp. Bytes after the
// batch are ignored; error positions are relative to batch[0]. It reads the
// header, checks the CRC and walks every record once, without building
// Record values, and allocates nothing unless it fails. It never writes to
// batch.
//
// The checks, in order:
//   - framing, as ReadBatchHeader (a *CorruptError);
//   - h.Size() <= maxBatchBytes, else ErrBatchTooLarge (before the CRC, so
//     an oversized batch costs nothing to refuse);
//   - the CRC, as VerifyBatch (a *CorruptError, ErrBadCRC at Pos 17);
//   - not a control batch, timestamp type CreateTime (Kafka answers
//     LogAppendTime from a producer with INVALID_TIMESTAMP; here it is
//     ErrInvalidRecord), baseOffset 0, at least one record and recordCount
//     == lastOffsetDelta+1, else ErrInvalidRecord;
//   - the idempotent producer fields: producerId -1 (none) with baseSequence
//     -1, or producerId >= 0 with producerEpoch >= 0 and baseSequence >= 0,
//     else ErrInvalidRecord (a producerId below -1 is refused too);
//   - a compressed batch's codec has a registered Decompressor, else
//     ErrUnsupportedCompression, and its records inflate within the bound
//     (ErrBadCompressedData, ErrInflationLimit: *CorruptError); the
//     checks below then read the inflated records;
//   - every record decodes, exactly as DecodeBatch decodes it, with the
//     same *CorruptError (sentinel and Pos) where DecodeBatch fails: lengths
//     and varints inside their record and the batch, keys, values and
//     header values of length >= -1, header keys not null, header counts
//     bounded by the bytes left, and exactly recordCount records filling
//     the batch to its last byte;
//   - record i has offsetDelta i (a producer's batch is dense), else
//     ErrInvalidRecord, or DecodeBatch's ErrBadOffset where DecodeBatch
//     would fail there too;
//   - every record timestamp (BaseTimestamp + timestampDelta) fits int64,
//     else ErrInvalidRecord.
//
// MaxTimestamp: the returned header's MaxTimestamp is BaseTimestamp plus the
// largest timestampDelta (CreateTime), whatever the producer wrote; all its
// other fields, CRC included, are the stored ones. kaenlog does what Kafka
// does with a wrong MaxTimestamp: it rewrites it (and so the CRC) instead of
// refusing the batch. This function does not write; once the append is
// going ahead, the caller stamps the batch with setLeaderMaxTimestamp, which
// costs a comparison when the producer's value is right (every Kafka client
// computes it) and one CRC pass only when it is wrong.
func validateLeaderBatch(batch []byte, maxBatchBytes int) (BatchHeader, error) {
	return validateLeaderBatchInflating(batch, maxBatchBytes, DefaultMaxInflation*maxBatchBytes)
}

// validateLeaderBatchInflating is validateLeaderBatch with the bound of a
// compressed batch's inflated records. A compressed batch is decompressed
// with its codec's registered Decompressor (none:
// ErrUnsupportedCompression), at most maxInflated bytes of records
// (ErrInflationLimit, a *CorruptError: Kafka's CORRUPT_MESSAGE), into a
// buffer of inflationBuffers, and its records are walked there exactly
// as an uncompressed batch's are, as Kafka's LogValidator does for a v2
// batch it need not recompress; error positions then count in the batch
// as decompressed. The compressed bytes are what the log stores.
func validateLeaderBatchInflating(batch []byte, maxBatchBytes, maxInflated int) (BatchHeader, error) {
	h, err := ReadBatchHeader(batch)
	if err != nil {
		return BatchHeader{}, err
	}
	size := h.Size()
	if size > maxBatchBytes {
		return BatchHeader{}, fmt.Errorf("log: batch of %d bytes exceeds the maximum batch size %d: %w", size, maxBatchBytes, ErrBatchTooLarge)
	}
	if ChecksumCRC32C(batch[posAttributes:size]) != h.CRC {
		return BatchHeader{}, corruptAt(posCRC, ErrBadCRC)
	}
	if err := checkProducerHeader(&h); err != nil {
		return BatchHeader{}, err
	}
	records := batch[:size]
	if h.Attributes&AttrCompressionMask != 0 {
		buf := inflationBuffers.Get().(*[]byte)
		defer releaseInflationBuffer(buf)
		if want := min(inflatedKeepBytes, BatchHeaderSize+maxInflated); cap(*buf) < want {
			// Once per pooled buffer: room for an lz4 block, which its
			// reader decodes in place only into that much.
			*buf = make([]byte, 0, want)
		}
		*buf, err = inflate(*buf, records, maxInflated)
		if err != nil {
			return BatchHeader{}, err
		}
		records = *buf
	}
	// As DecodeBatch: a count the bytes cannot hold is a length error.
	if int(h.RecordCount) > (len(records)-BatchHeaderSize)/minRecordSize {
		return BatchHeader{}, corruptAt(posRecordCount, ErrBadLength)
	}
	lo, hi, err := walkProducerRecords(records, h.RecordCount)
	if err != nil {
		return BatchHeader{}, err
	}
	base := h.BaseTimestamp
	if (hi > 0 && base > math.MaxInt64-hi) || (lo < 0 && base < math.MinInt64-lo) {
		return BatchHeader{}, fmt.Errorf("log: batch base timestamp %d with timestamp deltas [%d, %d] leaves int64: %w", base, lo, hi, ErrInvalidRecord)
	}
	h.MaxTimestamp = base + hi
	return h, nil
}

// checkProducerHeader applies the header rules of validateLeaderBatch that
// follow the CRC.
func checkProducerHeader(h *BatchHeader) error {
	switch {
	case h.Attributes&AttrControl != 0:
		return fmt.Errorf("log: producers may not send control batches: %w", ErrInvalidRecord)
	case h.Attributes&AttrLogAppendTime != 0:
		return fmt.Errorf("log: producers may not set the LogAppendTime timestamp type: %w", ErrInvalidRecord)
	case h.BaseOffset != 0:
		return fmt.Errorf("log: producer batch has base offset %d, not 0: %w", h.BaseOffset, ErrInvalidRecord)
	case h.RecordCount == 0:
		return fmt.Errorf("log: batch has no records: %w", ErrInvalidRecord)
	case int64(h.RecordCount) != int64(h.LastOffsetDelta)+1:
		return fmt.Errorf("log: batch has %d records but lastOffsetDelta %d: %w", h.RecordCount, h.LastOffsetDelta, ErrInvalidRecord)
	case h.ProducerID >= 0 && (h.ProducerEpoch < 0 || h.BaseSequence < 0):
		return fmt.Errorf("log: batch of producer %d has epoch %d and base sequence %d: %w",
			h.ProducerID, h.ProducerEpoch, h.BaseSequence, ErrInvalidRecord)
	case h.ProducerID == -1 && h.BaseSequence != -1:
		return fmt.Errorf("log: batch without a producer id has base sequence %d: %w", h.BaseSequence, ErrInvalidRecord)
	case h.ProducerID < -1:
		return fmt.Errorf("log: batch has producer id %d: %w", h.ProducerID, ErrInvalidRecord)
	}
	return nil
}

// walkProducerRecords checks the n records of the batch b (b holds exactly
// the batch; its records start at BatchHeaderSize) and returns the smallest
// and largest timestampDelta. Record i must have offsetDelta i.
//
// fastRecords takes as many records as it can; whatever it stops at (the
// last bytes of the batch, a field it does not handle, or an error) is
// checked by checkRecord from the record's start, so that the errors are
// exactly DecodeBatch's.
func walkProducerRecords(b []byte, n int32) (lo, hi int64, err error) {
	lo, hi = math.MaxInt64, math.MinInt64
	p, i := BatchHeaderSize, int32(0)
	for {
		p, i, lo, hi = fastRecords(b, p, i, n, lo, hi)
		if i == n {
			break
		}
		d := recordDecoder{buf: b, pos: p}
		ts, err := d.checkRecord(len(b), i, n-1)
		if err != nil {
			return 0, 0, err
		}
		lo, hi = min(lo, ts), max(hi, ts)
		p, i = d.pos, i+1
	}
	if p != len(b) {
		// Bytes after the last counted record.
		return 0, 0, corruptAt(p, ErrBadLength)
	}
	return lo, hi, nil
}

// fastRecords checks records i, i+1, ... of b from position p for as long as
// each one is valid and simple: it starts at least 16 bytes before the end
// of the batch, its offsetDelta takes at most three bytes (fewer than 2^20
// records), and its other varints but the timestampDelta at most two (so
// values and keys below 8 KiB, fewer than 64 headers). It returns where it
// stopped (position, index) and lo and hi extended by the timestamp deltas
// it saw. It accepts only records checkRecord accepts, with the same end
// and timestamp; anything else it leaves to checkRecord.
//
// This is the hot loop of a leader's append, written for few instructions:
// the first bytes of a record (length, attributes, timestampDelta,
// offsetDelta: at most 8 bytes here but for a three-byte offsetDelta) are
// decoded from one 8-byte word, and varints stay zigzag-encoded where only
// a comparison is needed (offsetDelta i is 2i; a null length is 1 and a
// length n >= 0 is 2n, so the bytes to skip are u>>1 for both). It calls
// nothing: Go's calling convention keeps no register across a call, so a
// call anywhere in the loop (even on a path no record takes) makes every
// record spill and reload the loop's state; the long timestampDelta and
// the headers are decoded inline. Reads never leave b: the word, a
// three-byte offsetDelta and the key length lie within the 16 bytes from
// the record's start (or the 8 after a long timestampDelta), the value
// length is read only where two bytes of the record remain, and end <=
// len(b). A varint that runs past its record leaves a position past end,
// which a later check refuses, as positions only grow.
func fastRecords(b []byte, p int, i, n int32, lo, hi int64) (int, int32, int64, int64) {
	// want is record i's offsetDelta, zigzag-encoded: the loop counts
	// with it alone.
	want, last := uint64(i)<<1, uint64(n)<<1
records:
	for ; want < last && p <= len(b)-16; want += 2 {
		x := binary.LittleEndian.Uint64(b[p:])
		var u uint64
		var k, end int
		// Record length: even (not negative). end is where the record
		// ends (the length's zigzag decoding folded in), k where its
		// timestampDelta starts. (A length below the six one-byte fields
		// is refused at the value length, as end-2 < k.)
		if x&1 != 0 {
			break
		}
		if x&0x80 == 0 {
			end, x, k = p+1+int(x>>1&0x3f), x>>16, p+2 // and the attributes byte
		} else if x&0x8000 == 0 {
			end, x, k = p+2+int(x>>1&0x3f|x>>2&0x1fc0), x>>24, p+3
		} else {
			break
		}
		if end > len(b) {
			break
		}
		// timestampDelta: up to 3 bytes (deltas below 17 minutes) from x,
		// longer ones (event times) as readVarlong reads them, within the
		// record.
		if x&0x80 == 0 {
			u, x, k = x&0x7f, x>>8, k+1
		} else if x&0x8000 == 0 {
			u, x, k = x&0x7f|x>>1&0x3f80, x>>16, k+2
		} else if x&0x800000 == 0 {
			u, x, k = x&0x7f|x>>1&0x3f80|x>>2&0x1fc000, x>>24, k+3
		} else {
			u = 0
			for s := 0; ; s += 7 {
				if k >= end || (s == 63 && b[k] > 1) {
					break records
				}
				c := b[k]
				k++
				u |= uint64(c&0x7f) << s
				if c < 0x80 {
					break
				}
			}
			if k > len(b)-8 {
				break
			}
			x = binary.LittleEndian.Uint64(b[k:])
		}
		ts := int64(u>>1) ^ -int64(u&1)
		// offsetDelta: i, in three bytes from record 8192 on (a batch of
		// 1 MB of 100-byte records has 10,000). x may hold fewer than
		// three of its bytes, so the third case reads them again.
		if x&0x80 == 0 {
			u, k = x&0x7f, k+1
		} else if x&0x8000 == 0 {
			u, k = x&0x7f|x>>1&0x3f80, k+2
		} else if x = load24(b, k); x&0x800000 == 0 {
			u, k = x&0x7f|x>>1&0x3f80|x>>2&0x1fc000, k+3
		} else {
			break
		}
		if u != want {
			break
		}
		// Key length, then value length: odd is negative, and only -1
		// (1, null) is allowed; it skips 0.
		x = load16(b, k)
		if x&0x80 == 0 {
			u, k = x&0x7f, k+1
		} else if x&0x8000 == 0 {
			u, k = x&0x7f|x>>1&0x3f80, k+2
		} else {
			break
		}
		if u&1 != 0 && u != 1 {
			break
		}
		if k += int(u >> 1); k > end-2 {
			break
		}
		x = load16(b, k)
		if x&0x80 == 0 {
			u, k = x&0x7f, k+1
		} else if x&0x8000 == 0 {
			u, k = x&0x7f|x>>1&0x3f80, k+2
		} else {
			break
		}
		if u&1 != 0 && u != 1 {
			break
		}
		// Usually the value fills the record but for a header count of 0;
		// otherwise a header count of 1 to 63 and that many headers, with
		// lengths of one or two bytes, must fill it exactly (checkRecord
		// accepts the same bytes).
		if k += int(u >> 1); k != end-1 || b[end-1] != 0 {
			if k >= end {
				break
			}
			count := b[k]
			if count >= 0x80 || count&1 != 0 {
				break
			}
			k++
			for h := 0; h < int(count>>1)*2; h++ {
				// Key length (h even): not negative, so not null
				// either; value length: not negative but -1 (null).
				if k >= end {
					break records
				}
				if c := b[k]; c < 0x80 {
					u, k = uint64(c), k+1
				} else if k+1 < end && b[k+1] < 0x80 {
					u, k = uint64(c&0x7f)|uint64(b[k+1])<<7, k+2
				} else {
					break records
				}
				if u&1 != 0 && (h&1 == 0 || u != 1) {
					break records
				}
				k += int(u >> 1)
			}
			if k != end {
				break
			}
		}
		lo, hi = min(lo, ts), max(hi, ts)
		p = end
	}
	return p, int32(want >> 1), lo, hi
}

// load16 and load24 read 2 and 3 little-endian bytes at b[k:] with one
// bounds check (they inline).
func load16(b []byte, k int) uint64 {
	_ = b[k+1]
	return uint64(b[k]) | uint64(b[k+1])<<8
}

func load24(b []byte, k int) uint64 {
	_ = b[k+2]
	return uint64(b[k]) | uint64(b[k+1])<<8 | uint64(b[k+2])<<16
}

// checkRecord is decodeRecord for a producer's record index i without
// building it: the same checks in the same order, so the same
// *CorruptError, plus offsetDelta == i. It returns the record's
// timestampDelta; on success d.pos is just past the record. An offsetDelta
// that decodeRecord would refuse (not above i-1, or above lastDelta) is its
// ErrBadOffset; one it would take (a gap) is ErrInvalidRecord.
func (d *recordDecoder) checkRecord(batchEnd int, i, lastDelta int32) (int64, error) {
	at := d.pos
	d.end = batchEnd
	length, err := d.varint()
	if err != nil {
		return 0, err
	}
	if length < 0 || int(length) > batchEnd-d.pos {
		return 0, corruptAt(at, ErrBadLength)
	}
	d.end = d.pos + int(length)
	if d.pos == d.end {
		return 0, corruptAt(d.pos, ErrBadLength)
	}
	d.pos++ // attributes, unused
	ts, err := d.varlong()
	if err != nil {
		return 0, err
	}
	at = d.pos
	delta, err := d.varint()
	if err != nil {
		return 0, err
	}
	if delta != i {
		if delta < i || delta > lastDelta {
			return 0, corruptAt(at, ErrBadOffset)
		}
		return 0, fmt.Errorf("log: record %d has offset delta %d; a producer's batch is dense: %w", i, delta, ErrInvalidRecord)
	}
	if _, err := d.bytesField(true); err != nil { // key
		return 0, err
	}
	if _, err := d.bytesField(true); err != nil { // value
		return 0, err
	}
	at = d.pos
	count, err := d.varint()
	if err != nil {
		return 0, err
	}
	if count < 0 {
		return 0, corruptAt(at, ErrNegativeCount)
	}
	if int(count) > (d.end-d.pos)/minHeaderSize {
		return 0, corruptAt(at, ErrBadLength)
	}
	for range count {
		if _, err := d.bytesField(false); err != nil { // header key
			return 0, err
		}
		if _, err := d.bytesField(true); err != nil { // header value
			return 0, err
		}
	}
	if d.pos != d.end {
		return 0, corruptAt(d.pos, ErrBadLength)
	}
	return ts, nil
}

// setLeaderMaxTimestamp stamps maxTimestamp, as computed by
// validateLeaderBatch, into the validated batch at batch[0:] in place, and
// reports whether it had to. When the stored value already equals it (the
// common case) nothing is written and the producer's CRC stays; otherwise
// the field is rewritten and the CRC recomputed over the whole batch, as
// Kafka's LogValidator does. The batch must have passed validateLeaderBatch.
func setLeaderMaxTimestamp(batch []byte, maxTimestamp int64) bool {
	if int64(binary.BigEndian.Uint64(batch[posMaxTimestamp:])) == maxTimestamp {
		return false
	}
	size := BatchLogOverhead + int(binary.BigEndian.Uint32(batch[posBatchLength:]))
	binary.BigEndian.PutUint64(batch[posMaxTimestamp:], uint64(maxTimestamp))
	binary.BigEndian.PutUint32(batch[posCRC:], ChecksumCRC32C(batch[posAttributes:size]))
	return true
}
