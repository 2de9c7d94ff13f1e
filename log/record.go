package log

import (
	"fmt"
	"math"
	"slices"
)

// Header is one record header: a non-null key and an optional value.
type Header struct {
	Key   string // never null on the wire; "" is an empty key
	Value []byte // nil = null value; []byte{} = empty value
}

// Record is one record of a RecordBatch v2. On the wire it is:
//
//	length          varint   bytes after this field
//	attributes      int8     unused by Kafka, kept as given
//	timestampDelta  varlong  timestamp - batch BaseTimestamp (may be negative)
//	offsetDelta     varint   offset - batch BaseOffset
//	keyLength       varint   -1 = null key
//	key             bytes
//	valueLength     varint   -1 = null value
//	value           bytes
//	headerCount     varint
//	headers         keyLength varint, key, valueLength varint (-1 = null), value
//
// Offsets and timestamps are deltas against the batch header, which is what
// lets a leader restamp a batch's base offset without touching its records.
type Record struct {
	Attributes     int8     // unused by Kafka; written and read back as given
	TimestampDelta int64    // timestamp - Batch.BaseTimestamp, in ms; may be negative
	OffsetDelta    int32    // offset - Batch.BaseOffset; strictly increasing within a batch
	Key            []byte   // nil = null key
	Value          []byte   // nil = null value
	Headers        []Header // nil or empty = no headers
}

// minRecordSize is the smallest encoded record: a one-byte length and six
// one-byte fields (attributes, timestampDelta, offsetDelta, keyLength,
// valueLength, headerCount). It bounds how many records a batch can claim.
const minRecordSize = 7

// minHeaderSize is the smallest encoded header: empty key, null value.
const minHeaderSize = 2

// bytesFieldSize is the encoded size of a nullable length-prefixed field.
func bytesFieldSize(b []byte) int {
	if b == nil {
		return varintSize(-1)
	}
	return varintSize(int32(len(b))) + len(b)
}

// recordBodySize returns the size of r's encoding after its length varint,
// or ok == false if a field or the body does not fit an int32 length.
func recordBodySize(r *Record) (size int, ok bool) {
	if len(r.Key) > math.MaxInt32 || len(r.Value) > math.MaxInt32 || len(r.Headers) > math.MaxInt32 {
		return 0, false
	}
	size = 1 + varlongSize(r.TimestampDelta) + varintSize(r.OffsetDelta) +
		bytesFieldSize(r.Key) + bytesFieldSize(r.Value) + varintSize(int32(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		if len(h.Key) > math.MaxInt32 || len(h.Value) > math.MaxInt32 {
			return 0, false
		}
		size += varintSize(int32(len(h.Key))) + len(h.Key) + bytesFieldSize(h.Value)
		if size > math.MaxInt32 {
			return 0, false
		}
	}
	if size > math.MaxInt32 {
		return 0, false
	}
	return size, true
}

// RecordSize returns the number of bytes r takes in a batch, its length
// varint included: what AppendRecord appends for it. ok is false when a
// field or the record does not fit an int32 length: r cannot be encoded.
// It does not allocate.
func RecordSize(r *Record) (size int, ok bool) {
	body, ok := recordBodySize(r)
	if !ok {
		return 0, false
	}
	return varintSize(int32(body)) + body, true
}

// AppendRecord appends r to dst as AppendBatch encodes each record of a
// batch, length varint first, and returns the extended slice. A producer
// that builds a batch in place (room for the header, the records appended
// as they come, then PutBatchHeader) encodes its records with it. It
// checks only that r can be encoded (RecordSize; ErrBadLength otherwise,
// dst unchanged): the offset and timestamp deltas are the caller's. It
// grows dst at most once, and does not allocate if dst has room.
func AppendRecord(dst []byte, r *Record) ([]byte, error) {
	body, ok := recordBodySize(r)
	if !ok {
		return dst, fmt.Errorf("log: AppendRecord: record too large: %w", ErrBadLength)
	}
	dst = slices.Grow(dst, varintSize(int32(body))+body)
	return appendRecord(dst, r, body), nil
}

func appendBytesField(dst, b []byte) []byte {
	if b == nil {
		return appendVarint(dst, -1)
	}
	dst = appendVarint(dst, int32(len(b)))
	return append(dst, b...)
}

// appendRecord appends r with its length prefix; bodySize must come from
// recordBodySize(r).
func appendRecord(dst []byte, r *Record, bodySize int) []byte {
	dst = appendVarint(dst, int32(bodySize))
	dst = append(dst, byte(r.Attributes))
	dst = appendVarlong(dst, r.TimestampDelta)
	dst = appendVarint(dst, r.OffsetDelta)
	dst = appendBytesField(dst, r.Key)
	dst = appendBytesField(dst, r.Value)
	dst = appendVarint(dst, int32(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		dst = appendVarint(dst, int32(len(h.Key)))
		dst = append(dst, h.Key...)
		dst = appendBytesField(dst, h.Value)
	}
	return dst
}

// recordDecoder reads fields of one record from buf[pos:end], reporting
// failures as *CorruptError at absolute positions in buf.
type recordDecoder struct {
	buf []byte
	pos int // next byte to read
	end int // end of the current record (or batch, for the length prefix)
}

// varint reads a zigzag varint, taking a one-byte value without the general
// loop: most lengths and deltas in a batch of small records fit one byte.
func (d *recordDecoder) varint() (int32, error) {
	if d.pos < d.end {
		if b := d.buf[d.pos]; b < 0x80 {
			d.pos++
			return int32(b>>1) ^ -int32(b&1), nil
		}
	}
	return d.varintSlow()
}

func (d *recordDecoder) varintSlow() (int32, error) {
	v, n := readVarint(d.buf[d.pos:d.end])
	switch {
	case n == 0:
		return 0, corruptAt(d.pos, ErrBadLength)
	case n < 0:
		return 0, corruptAt(d.pos, ErrVarintOverflow)
	}
	d.pos += n
	return v, nil
}

// varlong is varint's 64-bit twin, with the same one-byte fast path.
func (d *recordDecoder) varlong() (int64, error) {
	if d.pos < d.end {
		if b := d.buf[d.pos]; b < 0x80 {
			d.pos++
			return int64(b>>1) ^ -int64(b&1), nil
		}
	}
	return d.varlongSlow()
}

func (d *recordDecoder) varlongSlow() (int64, error) {
	v, n := readVarlong(d.buf[d.pos:d.end])
	switch {
	case n == 0:
		return 0, corruptAt(d.pos, ErrBadLength)
	case n < 0:
		return 0, corruptAt(d.pos, ErrVarintOverflow)
	}
	d.pos += n
	return v, nil
}

// bytesField reads a length-prefixed field. -1 is null (nil) if nullable;
// any other negative length is ErrNegativeCount. The result aliases buf and
// its capacity is clipped so that appending to it cannot overwrite the
// bytes that follow.
func (d *recordDecoder) bytesField(nullable bool) ([]byte, error) {
	at := d.pos
	n, err := d.varint()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		if n == -1 && nullable {
			return nil, nil
		}
		return nil, corruptAt(at, ErrNegativeCount)
	}
	if int(n) > d.end-d.pos {
		return nil, corruptAt(at, ErrBadLength)
	}
	b := d.buf[d.pos : d.pos+int(n) : d.pos+int(n)]
	d.pos += int(n)
	return b, nil
}

// decodeRecord decodes the record starting at d.pos, which must lie before
// batchEnd. prevDelta is the previous record's offsetDelta (-1 for the first)
// and lastDelta the batch's lastOffsetDelta: a record's offsetDelta must be
// strictly above the first and at most the second. On success d.pos is just
// past the record.
func (d *recordDecoder) decodeRecord(r *Record, batchEnd int, prevDelta, lastDelta int32) error {
	at := d.pos
	d.end = batchEnd
	length, err := d.varint()
	if err != nil {
		return err
	}
	if length < 0 || int(length) > batchEnd-d.pos {
		return corruptAt(at, ErrBadLength)
	}
	d.end = d.pos + int(length)
	if d.pos == d.end {
		return corruptAt(d.pos, ErrBadLength)
	}
	r.Attributes = int8(d.buf[d.pos])
	d.pos++
	if r.TimestampDelta, err = d.varlong(); err != nil {
		return err
	}
	at = d.pos
	if r.OffsetDelta, err = d.varint(); err != nil {
		return err
	}
	if r.OffsetDelta <= prevDelta || r.OffsetDelta > lastDelta {
		return corruptAt(at, ErrBadOffset)
	}
	if r.Key, err = d.bytesField(true); err != nil {
		return err
	}
	if r.Value, err = d.bytesField(true); err != nil {
		return err
	}
	at = d.pos
	count, err := d.varint()
	if err != nil {
		return err
	}
	if count < 0 {
		return corruptAt(at, ErrNegativeCount)
	}
	// Bound the allocation by what the record can hold, so a corrupt count
	// cannot ask for gigabytes.
	if int(count) > (d.end-d.pos)/minHeaderSize {
		return corruptAt(at, ErrBadLength)
	}
	// Reuse the record's header slice when decoding into a recycled Batch;
	// a fresh Record has none, so DecodeBatch still yields nil for no headers.
	r.Headers = r.Headers[:0]
	if count > 0 {
		r.Headers = slices.Grow(r.Headers, int(count))[:count]
		for i := range r.Headers {
			key, err := d.bytesField(false)
			if err != nil {
				return err
			}
			r.Headers[i].Key = string(key)
			if r.Headers[i].Value, err = d.bytesField(true); err != nil {
				return err
			}
		}
	}
	if d.pos != d.end {
		// The record's fields ended before its length did.
		return corruptAt(d.pos, ErrBadLength)
	}
	return nil
}
