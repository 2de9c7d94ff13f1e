package wire

import (
	"encoding/binary"
	"fmt"
	"math"
)

// decoder reads fixed-layout big-endian fields from one payload. It lives on
// the caller's stack and never allocates on success. The first error sticks:
// later reads return zero, so a decode function can read every field and
// check d.err once, yet still report the field that went wrong first.
type decoder struct {
	msg string // message name, for error text only
	buf []byte
	off int
	err error
}

func (d *decoder) fail(sentinel error, field string, detail string) {
	if d.err == nil {
		d.err = fieldError(sentinel, d.msg, field, detail)
	}
}

// take returns the next n bytes, or nil after recording ErrTruncated.
func (d *decoder) take(field string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.buf)-d.off {
		d.fail(ErrTruncated, field, fmt.Sprintf(": need %d bytes, have %d", n, len(d.buf)-d.off))
		return nil
	}
	b := d.buf[d.off : d.off+n : d.off+n]
	d.off += n
	return b
}

func (d *decoder) int16(field string) int16 {
	b := d.take(field, 2)
	if b == nil {
		return 0
	}
	return int16(binary.BigEndian.Uint16(b))
}

func (d *decoder) int32(field string) int32 {
	b := d.take(field, 4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (d *decoder) int64(field string) int64 {
	b := d.take(field, 8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// header checks the 8-byte message header against the expected API key and
// returns the correlation id.
func (d *decoder) header(want APIKey) int32 {
	key := APIKey(d.int16("APIKey"))
	version := d.int16("Version")
	corr := d.int32("CorrelationID")
	if d.err != nil {
		return 0
	}
	if key != want {
		d.fail(ErrWrongAPIKey, "APIKey", fmt.Sprintf(" = %d (%s), want %d (%s)", key, key, want, want))
		return 0
	}
	if version != messageVersion {
		d.fail(errBadVersion, "Version", fmt.Sprintf(" = %d, want %d", version, messageVersion))
		return 0
	}
	return corr
}

// offset reads a wire int64 that must be a valid offset. The rule is
// FromWireI64's; the error is rebuilt here only to name the field.
func (d *decoder) offset(field string) uint64 {
	v := d.int64(field)
	if d.err != nil {
		return 0
	}
	u, err := FromWireI64(v)
	if err != nil {
		d.fail(ErrNegativeOffset, field, fmt.Sprintf(" = %d", v))
		return 0
	}
	return u
}

// epoch reads a wire int32 leader epoch that may be NoEpoch but nothing lower.
func (d *decoder) epoch(field string) int32 {
	v := d.int32(field)
	if d.err == nil && v < NoEpoch {
		d.fail(ErrInvalidEpoch, field, fmt.Sprintf(" = %d", v))
		return 0
	}
	return v
}

// epochEndOffset reads an (epoch int32, end offset int64) pair where (-1, -1)
// means "none", the default Kafka gives both halves; any other negative half
// is malformed. It returns ok=false for "none" — the -1s stop here.
func (d *decoder) epochEndOffset(epochField, offsetField string) (epoch int32, end uint64, ok bool) {
	e := d.int32(epochField)
	o := d.int64(offsetField)
	switch {
	case d.err != nil:
		return 0, 0, false
	case e == NoEpoch && o == -1:
		return 0, 0, false
	case e < 0:
		d.fail(ErrInvalidEpoch, epochField, fmt.Sprintf(" = %d with %s = %d; only (-1, -1) means none", e, offsetField, o))
		return 0, 0, false
	}
	end, err := FromWireI64(o)
	if err != nil {
		d.fail(ErrNegativeOffset, offsetField, fmt.Sprintf(" = %d with %s = %d; only (-1, -1) means none", o, epochField, e))
		return 0, 0, false
	}
	return e, end, true
}

// records reads the Records field: an int32 length and that many bytes,
// aliasing the payload. A zero length gives nil so that "no records" has one
// in-memory form.
func (d *decoder) records() []byte {
	n := d.int32("Records")
	if d.err != nil {
		return nil
	}
	if n < 0 {
		d.fail(ErrNegativeLength, "Records", fmt.Sprintf(" length = %d", n))
		return nil
	}
	b := d.take("Records", int(n))
	if len(b) == 0 {
		return nil
	}
	return b
}

// finish rejects trailing bytes and returns the first error, if any.
func (d *decoder) finish() error {
	if d.err == nil && d.off != len(d.buf) {
		d.fail(ErrTrailingBytes, "", fmt.Sprintf(": %d bytes after the last field", len(d.buf)-d.off))
	}
	return d.err
}

// Encoding helpers. Encoders validate every field before appending, so on
// error they return dst unchanged and nothing half-written escapes.

func appendHeader(dst []byte, key APIKey, corr int32) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(key))
	dst = binary.BigEndian.AppendUint16(dst, uint16(messageVersion))
	return binary.BigEndian.AppendUint32(dst, uint32(corr))
}

func appendInt16(dst []byte, v int16) []byte {
	return binary.BigEndian.AppendUint16(dst, uint16(v))
}

func appendInt32(dst []byte, v int32) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(v))
}

func appendInt64(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v))
}

func appendRecords(dst []byte, records []byte) []byte {
	dst = appendInt32(dst, int32(len(records)))
	return append(dst, records...)
}

// fieldError formats a refusal, by an encoder or the decoder, naming the
// message and field.
func fieldError(sentinel error, msg, field string, detail string) error {
	if field == "" {
		return fmt.Errorf("%w: %s%s", sentinel, msg, detail)
	}
	return fmt.Errorf("%w: %s.%s%s", sentinel, msg, field, detail)
}

// checkOffset is ToWireI64 with the field named in the error.
func checkOffset(msg, field string, v uint64) (int64, error) {
	w, err := ToWireI64(v)
	if err != nil {
		return 0, fieldError(ErrOffsetOverflow, msg, field, fmt.Sprintf(" = %d", v))
	}
	return w, nil
}

// checkEpoch refuses an epoch the decoder would refuse.
func checkEpoch(msg, field string, v int32, min int32) error {
	if v < min {
		return fieldError(ErrInvalidEpoch, msg, field, fmt.Sprintf(" = %d, want >= %d", v, min))
	}
	return nil
}

// checkRecords refuses Records an int32 length cannot describe.
func checkRecords(msg, field string, records []byte) error {
	if !fitsInt32(len(records)) {
		return fieldError(ErrFrameTooLarge, msg, field, fmt.Sprintf(" length = %d", len(records)))
	}
	return nil
}

func fitsInt32(n int) bool { return uint64(n) <= math.MaxInt32 }
