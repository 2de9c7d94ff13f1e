package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
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
	// elem is 1 + the index of the array element being read, or 0 outside
	// an array; fail puts the index into the field's name.
	elem int
}

func (d *decoder) fail(sentinel error, field string, detail string) {
	if d.err == nil {
		if d.elem > 0 {
			field = indexField(field, d.elem-1)
		}
		d.err = fieldError(sentinel, d.msg, field, detail)
	}
}

// lastName is a field's own name without the path to it:
// lastName("Partitions.DivergingEpoch.Epoch") is "Epoch". Error details
// use it for the other half of a pair, which the error's field names in
// full.
func lastName(field string) string {
	return field[strings.LastIndexByte(field, '.')+1:]
}

// indexField names element i of the array a field belongs to:
// indexField("Partitions.Topic", 3) is "Partitions[3].Topic". It runs only
// on the way to an error, so success never pays for the formatting.
func indexField(field string, i int) string {
	arr, rest, ok := strings.Cut(field, ".")
	if !ok {
		return fmt.Sprintf("%s[%d]", field, i)
	}
	return fmt.Sprintf("%s[%d].%s", arr, i, rest)
}

// take returns the next n bytes, or nil after recording ErrTruncated (or
// once an error is recorded).
func (d *decoder) take(field string, n int) []byte {
	if d.err == nil && uint(n) <= uint(len(d.buf)-d.off) {
		b := d.buf[d.off : d.off+n : d.off+n]
		d.off += n
		return b
	}
	d.takeFailed(field, n)
	return nil
}

// takeFailed records why take could not: an earlier error stands, or the
// payload is too short.
func (d *decoder) takeFailed(field string, n int) {
	if d.err == nil {
		d.fail(ErrTruncated, field, fmt.Sprintf(": need %d bytes, have %d", n, len(d.buf)-d.off))
	}
}

// int16, int32 and int64 read one big-endian integer, or return zero once
// an error is recorded. They read the payload directly rather than
// through take, which saves a call per field.
func (d *decoder) int16(field string) int16 {
	if d.err == nil && len(d.buf)-d.off >= 2 {
		v := binary.BigEndian.Uint16(d.buf[d.off:])
		d.off += 2
		return int16(v)
	}
	d.takeFailed(field, 2)
	return 0
}

func (d *decoder) int32(field string) int32 {
	if d.err == nil && len(d.buf)-d.off >= 4 {
		v := binary.BigEndian.Uint32(d.buf[d.off:])
		d.off += 4
		return int32(v)
	}
	d.takeFailed(field, 4)
	return 0
}

func (d *decoder) int64(field string) int64 {
	if d.err == nil && len(d.buf)-d.off >= 8 {
		v := binary.BigEndian.Uint64(d.buf[d.off:])
		d.off += 8
		return int64(v)
	}
	d.takeFailed(field, 8)
	return 0
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
		d.fail(ErrInvalidEpoch, epochField, fmt.Sprintf(" = %d with %s = %d; only (-1, -1) means none", e, lastName(offsetField), o))
		return 0, 0, false
	}
	end, err := FromWireI64(o)
	if err != nil {
		d.fail(ErrNegativeOffset, offsetField, fmt.Sprintf(" = %d with %s = %d; only (-1, -1) means none", o, lastName(epochField), e))
		return 0, 0, false
	}
	return e, end, true
}

// leaderAndEpoch reads a (leader id int32, leader epoch int32) pair where
// (-1, -1) means "none"; otherwise both halves must be >= 0. It returns
// ok=false for "none" — the -1s stop here.
func (d *decoder) leaderAndEpoch(idField, epochField string) (l LeaderAndEpoch, ok bool) {
	id := d.int32(idField)
	e := d.int32(epochField)
	switch {
	case d.err != nil:
		return LeaderAndEpoch{}, false
	case id == NoLeader && e == NoEpoch:
		return LeaderAndEpoch{}, false
	case id < 0:
		d.fail(ErrInvalidValue, idField, fmt.Sprintf(" = %d with %s = %d; only (-1, -1) means none", id, lastName(epochField), e))
		return LeaderAndEpoch{}, false
	case e < 0:
		d.fail(ErrInvalidEpoch, epochField, fmt.Sprintf(" = %d with %s = %d; only (-1, -1) means none", e, lastName(idField), id))
		return LeaderAndEpoch{}, false
	}
	return LeaderAndEpoch{LeaderID: id, LeaderEpoch: e}, true
}

// optionalOffset reads an int64 offset where -1 means "none" (ok=false)
// and any other negative value is malformed.
func (d *decoder) optionalOffset(field string) (v uint64, ok bool) {
	w := d.int64(field)
	switch {
	case d.err != nil, w == -1:
		return 0, false
	case w < 0:
		d.fail(ErrNegativeOffset, field, fmt.Sprintf(" = %d; only -1 means none", w))
		return 0, false
	}
	return uint64(w), true
}

// nonNegative32 reads an int32 that must not be negative, refusing a
// negative one with sentinel (ErrNegativeLength for byte bounds,
// ErrNegativeTimeout for times).
func (d *decoder) nonNegative32(field string, sentinel error) int32 {
	v := d.int32(field)
	if d.err == nil && v < 0 {
		d.fail(sentinel, field, fmt.Sprintf(" = %d", v))
		return 0
	}
	return v
}

// records reads a Records field: an int32 length and that many bytes,
// aliasing the payload with capacity clipped, so appending to the result
// cannot overwrite the payload. A zero length gives nil so that "no
// records" has one in-memory form.
func (d *decoder) records(field string) []byte {
	n := d.int32(field)
	if d.err != nil {
		return nil
	}
	if n < 0 {
		d.fail(ErrNegativeLength, field, fmt.Sprintf(" length = %d", n))
		return nil
	}
	b := d.take(field, int(n))
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

// wireOrNone is the wire form of an optional offset: -1 when !ok. The
// encoder has checked v.
func wireOrNone(v uint64, ok bool) int64 {
	if !ok {
		return -1
	}
	return int64(v)
}

func fitsInt32(n int) bool { return uint64(n) <= math.MaxInt32 }

// checker is the encoders' twin of decoder: it applies to in-memory values
// the rules the decoder applies to wire values, with the same sentinels and
// field names, so an encoder refuses exactly what the decoder would. The
// first refusal sticks; encoders check every field before appending any,
// so a refusal leaves dst unchanged.
type checker struct {
	msg  string
	err  error
	elem int // as decoder.elem
}

func (c *checker) fail(sentinel error, field string, detail string) {
	if c.err == nil {
		if c.elem > 0 {
			field = indexField(field, c.elem-1)
		}
		c.err = fieldError(sentinel, c.msg, field, detail)
	}
}

// offset refuses an offset a wire int64 cannot hold.
func (c *checker) offset(field string, v uint64) {
	if v > math.MaxInt64 {
		c.fail(ErrOffsetOverflow, field, fmt.Sprintf(" = %d", v))
	}
}

// epoch refuses an epoch below min (NoEpoch where "none" is allowed, 0
// where it is not).
func (c *checker) epoch(field string, v, min int32) {
	if v < min {
		c.fail(ErrInvalidEpoch, field, fmt.Sprintf(" = %d, want >= %d", v, min))
	}
}

// nonNegative refuses a negative int32 with sentinel, as
// decoder.nonNegative32 does.
func (c *checker) nonNegative(field string, v int32, sentinel error) {
	if v < 0 {
		c.fail(sentinel, field, fmt.Sprintf(" = %d", v))
	}
}

// brokerEpoch refuses a broker epoch below NoBrokerEpoch.
func (c *checker) brokerEpoch(field string, v int64) {
	if v < NoBrokerEpoch {
		c.fail(ErrInvalidValue, field, fmt.Sprintf(" = %d, want >= -1", v))
	}
}

// topic refuses a name that is not a Kafka topic name.
func (c *checker) topic(field string, t string) {
	if why := topicProblem(t); why != "" {
		c.fail(ErrInvalidTopic, field, fmt.Sprintf(" = %q%s", t, why))
	}
}

// partition refuses a negative partition index.
func (c *checker) partition(field string, p int32) {
	if p < 0 {
		c.fail(ErrInvalidPartition, field, fmt.Sprintf(" = %d, want >= 0", p))
	}
}

// count refuses an array an int32 count cannot describe.
func (c *checker) count(field string, n int) {
	if !fitsInt32(n) {
		c.fail(ErrFrameTooLarge, field, fmt.Sprintf(" count = %d", n))
	}
}

// records refuses Records an int32 length cannot describe.
func (c *checker) records(field string, r []byte) {
	if !fitsInt32(len(r)) {
		c.fail(ErrFrameTooLarge, field, fmt.Sprintf(" length = %d", len(r)))
	}
}

// epochEndOffset refuses a found pair the decoder would refuse.
func (c *checker) epochEndOffset(epochField, offsetField string, e EpochEndOffset) {
	c.epoch(epochField, e.Epoch, 0)
	c.offset(offsetField, e.EndOffset)
}

// leaderAndEpoch refuses a set (leader, epoch) pair the decoder would
// refuse.
func (c *checker) leaderAndEpoch(idField, epochField string, l LeaderAndEpoch) {
	if l.LeaderID < 0 {
		c.fail(ErrInvalidValue, idField, fmt.Sprintf(" = %d, want >= 0", l.LeaderID))
	}
	c.epoch(epochField, l.LeaderEpoch, 0)
}
