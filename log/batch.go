package log

import (
	"fmt"
	"math"
	"slices"
)

// Batch is a decoded RecordBatch v2: the header fields a writer chooses plus
// the records. The derived header fields (batchLength, magic, crc,
// lastOffsetDelta, recordCount) are computed by AppendBatch and checked by
// DecodeBatch, so they are not here.
type Batch struct {
	BaseOffset           uint64   // offset of Records[i] is BaseOffset + OffsetDelta; must fit int64
	PartitionLeaderEpoch int32    // stamped by the leader; outside the CRC
	Attributes           int16    // Attr* bits; compression bits must be 0
	BaseTimestamp        int64    // ms; record timestamps are deltas against it
	MaxTimestamp         int64    // ms; largest record timestamp, kept as given
	ProducerID           int64    // -1 when none
	ProducerEpoch        int16    // -1 when none
	BaseSequence         int32    // -1 when none
	Records              []Record // at least one to encode; keys and values alias the input after decoding
}

// SetSequentialOffsetDeltas numbers b's records 0, 1, ..., n-1, the usual
// layout of a freshly produced batch (a compacted batch keeps its original,
// gapped deltas instead).
func (b *Batch) SetSequentialOffsetDeltas() {
	for i := range b.Records {
		b.Records[i].OffsetDelta = int32(i)
	}
}

// AppendBatch encodes b as a RecordBatch v2 onto dst and returns the extended
// slice. It derives recordCount from len(b.Records) and lastOffsetDelta from
// the last record's OffsetDelta, takes every other field (including each
// record's OffsetDelta; see SetSequentialOffsetDeltas) as given, and computes
// batchLength and the CRC-32C.
//
// It returns dst unchanged and an error (not a *CorruptError) for:
// no records (ErrEmptyBatch); compression bits in Attributes (ErrCompressed);
// offset deltas that are negative or not strictly increasing, or a base or
// last offset that does not fit int64 (ErrBadOffset); a field or the batch
// too long for an int32 length (ErrBadLength).
//
// It grows dst at most once, and does not allocate if dst has capacity for
// the encoded batch.
func AppendBatch(dst []byte, b *Batch) ([]byte, error) {
	if len(b.Records) == 0 {
		return dst, fmt.Errorf("log: AppendBatch: %w", ErrEmptyBatch)
	}
	if b.Attributes&AttrCompressionMask != 0 {
		return dst, fmt.Errorf("log: AppendBatch: attributes %#x: %w", b.Attributes, ErrCompressed)
	}
	batchLength := minBatchLength
	prevDelta := int32(-1)
	for i := range b.Records {
		r := &b.Records[i]
		if r.OffsetDelta <= prevDelta {
			return dst, fmt.Errorf("log: AppendBatch: record %d offset delta %d not above %d: %w", i, r.OffsetDelta, prevDelta, ErrBadOffset)
		}
		prevDelta = r.OffsetDelta
		body, ok := recordBodySize(r)
		if !ok {
			return dst, fmt.Errorf("log: AppendBatch: record %d too large: %w", i, ErrBadLength)
		}
		batchLength += varintSize(int32(body)) + body
		if batchLength > math.MaxInt32 {
			return dst, fmt.Errorf("log: AppendBatch: batch longer than %d bytes: %w", math.MaxInt32, ErrBadLength)
		}
	}
	lastDelta := prevDelta
	if b.BaseOffset > math.MaxInt64-uint64(lastDelta) {
		return dst, fmt.Errorf("log: AppendBatch: base offset %d + last offset delta %d does not fit int64: %w", b.BaseOffset, lastDelta, ErrBadOffset)
	}

	start := len(dst)
	dst = slices.Grow(dst, BatchLogOverhead+batchLength)
	dst = dst[:start+BatchHeaderSize] // the header is written last, over the records' CRC
	for i := range b.Records {
		body, _ := recordBodySize(&b.Records[i]) // checked above
		dst = appendRecord(dst, &b.Records[i], body)
	}
	putBatchHeader(dst[start:], &BatchHeader{
		BaseOffset: b.BaseOffset, PartitionLeaderEpoch: b.PartitionLeaderEpoch, Attributes: b.Attributes,
		LastOffsetDelta: lastDelta, BaseTimestamp: b.BaseTimestamp, MaxTimestamp: b.MaxTimestamp,
		ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch, BaseSequence: b.BaseSequence,
		RecordCount: int32(len(b.Records)),
	})
	return dst, nil
}

// DecodeBatch verifies the batch at buf[0:] (as VerifyBatch does) and decodes
// its records, returning the batch and its size in bytes; bytes after the
// batch are ignored. Record keys, values and header values alias buf (with
// capacity clipped to their length), so buf must not be modified while they
// are in use; header keys are copied into strings. A compressed batch is
// decompressed first, with its codec's registered Decompressor
// (RegisterDecompressor; none is ErrUnsupportedCompression), into a new
// buffer that its records then alias; its records may inflate
// to at most DefaultMaxInflatedBytes (ErrInflationLimit), and record
// error positions count in the batch as decompressed (its header, then
// the inflated records).
//
// Beyond VerifyBatch's checks it requires exactly recordCount records filling
// the batch to its last byte, each one self-consistent (ErrBadLength,
// ErrVarintOverflow, ErrNegativeCount) with offset deltas strictly increasing
// from 0 or more and at most lastOffsetDelta (ErrBadOffset). These errors are
// *CorruptError with Pos at the offending field.
func DecodeBatch(buf []byte) (Batch, int, error) {
	var b Batch
	n, err := b.decodeAt(buf, 0, DefaultMaxInflatedBytes)
	if err != nil {
		return Batch{}, 0, err
	}
	return b, n, nil
}

// Decode is DecodeBatch into b, reusing the capacity of b.Records (and of
// each record's Headers) so that decoding batch after batch into the same
// Batch allocates nothing once it has grown, except one string per record
// header key, and the buffer a compressed batch inflates into. It returns
// the batch's size in bytes. The checks and errors are DecodeBatch's; on
// an error b's contents are unspecified.
func (b *Batch) Decode(buf []byte) (int, error) {
	return b.decodeAt(buf, 0, DefaultMaxInflatedBytes)
}

// decodeAt decodes the batch at buf[start:] into b, reporting error
// positions relative to buf[0]; a compressed batch's records may inflate
// to at most maxInflated bytes.
func (b *Batch) decodeAt(buf []byte, start, maxInflated int) (int, error) {
	h, err := VerifyBatch(buf[start:])
	if err != nil {
		return 0, shiftCorruptPos(err, start)
	}
	size := h.Size()
	if h.Attributes&AttrCompressionMask != 0 {
		inflated, err := inflate(nil, buf[start:start+size], maxInflated)
		if err != nil {
			return 0, shiftCorruptPos(err, start)
		}
		// The records are decoded from the inflated copy, whose positions
		// count from its header like the batch's.
		buf, start = inflated, 0
	}
	*b = Batch{
		BaseOffset:           h.BaseOffset,
		PartitionLeaderEpoch: h.PartitionLeaderEpoch,
		Attributes:           h.Attributes,
		BaseTimestamp:        h.BaseTimestamp,
		MaxTimestamp:         h.MaxTimestamp,
		ProducerID:           h.ProducerID,
		ProducerEpoch:        h.ProducerEpoch,
		BaseSequence:         h.BaseSequence,
		Records:              b.Records[:0],
	}
	end := start + len(buf[start:])
	if h.Attributes&AttrCompressionMask == 0 {
		end = start + size
	}
	d := recordDecoder{buf: buf, pos: start + BatchHeaderSize}
	// Bound the allocation by what the batch can hold, so a corrupt (but
	// correctly checksummed) count cannot ask for gigabytes.
	if int(h.RecordCount) > (end-d.pos)/minRecordSize {
		return 0, corruptAt(start+posRecordCount, ErrBadLength)
	}
	b.Records = slices.Grow(b.Records, int(h.RecordCount))[:h.RecordCount]
	prevDelta := int32(-1)
	for i := range b.Records {
		if err := d.decodeRecord(&b.Records[i], end, prevDelta, h.LastOffsetDelta); err != nil {
			return 0, err
		}
		prevDelta = b.Records[i].OffsetDelta
	}
	if d.pos != end {
		// Bytes after the last counted record.
		return 0, corruptAt(d.pos, ErrBadLength)
	}
	if len(b.Records) == 0 {
		b.Records = nil // an empty batch decodes as no records, as it always has
	}
	return size, nil
}

// shiftCorruptPos moves a *CorruptError's position from batch-relative to
// input-relative. The error was just created by this package, so changing it
// in place is safe.
func shiftCorruptPos(err error, by int) error {
	if ce, ok := err.(*CorruptError); ok {
		ce.Pos += by
	}
	return err
}

// DecodeBatches decodes every batch in buf, which must consist of whole
// batches back to back (an empty buf yields no batches). It fails on the
// first batch DecodeBatch rejects, with error positions relative to buf[0];
// a torn last batch is ErrTruncated with Pos at its start.
func DecodeBatches(buf []byte) ([]Batch, error) {
	// Count the batches first (headers only, cheap) so the slice is
	// allocated once; the real checks happen below.
	n := 0
	for pos := 0; pos < len(buf); n++ {
		h, err := ReadBatchHeader(buf[pos:])
		if err != nil {
			break
		}
		pos += h.Size()
	}
	batches := make([]Batch, 0, n)
	for pos := 0; pos < len(buf); {
		var b Batch
		size, err := b.decodeAt(buf, pos, DefaultMaxInflatedBytes)
		if err != nil {
			return nil, err
		}
		batches = append(batches, b)
		pos += size
	}
	return batches, nil
}

// CountRecords verifies every batch in buf (framing and CRC, as VerifyBatch
// does, without parsing records) and returns the sum of their record counts.
// buf must consist of whole batches; on the first bad batch it returns 0 and
// the *CorruptError, with Pos relative to buf[0]. It does not allocate unless
// it fails.
func CountRecords(buf []byte) (int, error) {
	var s BatchScanner
	s.Reset(buf)
	n := 0
	for s.Next() {
		n += int(s.Header().RecordCount)
	}
	if err := s.Err(); err != nil {
		return 0, err
	}
	return n, nil
}
