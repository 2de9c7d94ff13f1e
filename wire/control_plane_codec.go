package wire

import (
	"fmt"
	"math"
	"slices"
)

// Field helpers for the control plane's messages (control_plane.go). They extend
// the decoder of codec.go with the shapes those messages need: one-byte
// booleans and enums, int16-length strings, 16-byte ids, and int32-counted
// arrays whose count is checked against the bytes left before anything is
// allocated, so a hostile count cannot make a decoder allocate more than a
// small multiple of the payload it was handed.

// ErrInvalidValue is returned when a field holds a value its type does not
// have: a boolean other than 0 or 1, an unknown LeaderRecoveryState, a broker
// epoch, producer id or producer epoch below -1. It matches ErrMalformed.
var ErrInvalidValue error = &valueError{}

// valueError is ErrInvalidValue's type: a decoding sentinel in the
// ErrMalformed family.
type valueError struct{}

// Error returns the sentinel's text.
func (*valueError) Error() string { return "wire: invalid field value" }

// Unwrap puts ErrInvalidValue in the ErrMalformed family.
func (*valueError) Unwrap() error { return ErrMalformed }

// maxStringLength is the longest string an int16 length can describe.
const maxStringLength = math.MaxInt16

// boolean reads a one-byte boolean: 0 is false, 1 is true, anything else
// is malformed, so the encoding stays canonical.
func (d *decoder) boolean(field string) bool {
	b := d.take(field, 1)
	if b == nil {
		return false
	}
	switch b[0] {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail(ErrInvalidValue, field, fmt.Sprintf(" = %d, want 0 or 1", b[0]))
	return false
}

// recoveryState reads a LeaderRecoveryState byte.
func (d *decoder) recoveryState(field string) LeaderRecoveryState {
	b := d.take(field, 1)
	if b == nil {
		return 0
	}
	s := LeaderRecoveryState(int8(b[0]))
	if !s.valid() {
		d.fail(ErrInvalidValue, field, fmt.Sprintf(" = %d", int8(b[0])))
		return 0
	}
	return s
}

// brokerEpoch reads a broker epoch, which may be NoBrokerEpoch (-1) but
// nothing lower.
func (d *decoder) brokerEpoch(field string) int64 {
	v := d.int64(field)
	if d.err == nil && v < NoBrokerEpoch {
		d.fail(ErrInvalidValue, field, fmt.Sprintf(" = %d, want >= -1", v))
		return 0
	}
	return v
}

// producerID reads a producer id, which may be NoProducerID (-1) but
// nothing lower.
func (d *decoder) producerID(field string) int64 {
	v := d.int64(field)
	if d.err == nil && v < NoProducerID {
		d.fail(ErrInvalidValue, field, fmt.Sprintf(" = %d, want >= -1", v))
		return 0
	}
	return v
}

// producerEpoch reads a producer epoch, which may be NoProducerEpoch (-1)
// but nothing lower.
func (d *decoder) producerEpoch(field string) int16 {
	v := d.int16(field)
	if d.err == nil && v < NoProducerEpoch {
		d.fail(ErrInvalidValue, field, fmt.Sprintf(" = %d, want >= -1", v))
		return 0
	}
	return v
}

// nonNegativeEpoch reads a leader or partition epoch that must be set.
func (d *decoder) nonNegativeEpoch(field string) int32 {
	v := d.int32(field)
	if d.err == nil && v < 0 {
		d.fail(ErrInvalidEpoch, field, fmt.Sprintf(" = %d, want >= 0", v))
		return 0
	}
	return v
}

// uuid reads a 16-byte identifier.
func (d *decoder) uuid(field string) [16]byte {
	var id [16]byte
	copy(id[:], d.take(field, 16))
	return id
}

// str reads an int16 length and that many bytes, copied into a string. A
// negative length is malformed: these messages have no null strings.
func (d *decoder) str(field string) string {
	n := d.int16(field)
	if d.err != nil {
		return ""
	}
	if n < 0 {
		d.fail(ErrNegativeLength, field, fmt.Sprintf(" length = %d", n))
		return ""
	}
	return string(d.take(field, int(n)))
}

// trailingStr reads a string that ends a message and is left out when
// empty (BrokerRegistrationRequest.KafkaEndpoint): "" when nothing is
// left, and an empty string written out is trailing bytes, so each value
// has one encoding.
func (d *decoder) trailingStr(field string) string {
	if d.err != nil || d.off == len(d.buf) {
		return ""
	}
	s := d.str(field)
	if d.err == nil && s == "" {
		d.fail(ErrTrailingBytes, field, ": an empty string, which is encoded by leaving it out")
	}
	return s
}

// count reads an int32 element count and checks, before the caller
// allocates, that the bytes left can hold that many elements of at least
// minSize bytes each. A negative count is malformed.
func (d *decoder) count(field string, minSize int) int {
	return d.checkedCount(field, d.int32(field), minSize)
}

// nullableCount is count for an array where -1 means null (Kafka's
// nullable array); it reports null separately from an empty array.
func (d *decoder) nullableCount(field string, minSize int) (n int, null bool) {
	v := d.int32(field)
	if d.err == nil && v == -1 {
		return 0, true
	}
	return d.checkedCount(field, v, minSize), false
}

func (d *decoder) checkedCount(field string, n int32, minSize int) int {
	if d.err != nil {
		return 0
	}
	if n < 0 {
		d.fail(ErrNegativeLength, field, fmt.Sprintf(" count = %d", n))
		return 0
	}
	if left := len(d.buf) - d.off; int64(n)*int64(minSize) > int64(left) {
		d.fail(ErrTruncated, field, fmt.Sprintf(": %d elements need at least %d bytes, have %d", n, int64(n)*int64(minSize), left))
		return 0
	}
	return int(n)
}

// int32s reads an int32-counted array of int32. Empty decodes as nil, so
// "none" has one in-memory form.
func (d *decoder) int32s(field string) []int32 {
	n := d.count(field, 4)
	if d.err != nil || n == 0 {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = d.int32(field)
	}
	return out
}

// Encoding side. Each encoder checks its fields with these first, so a
// refusal leaves dst unchanged.

func appendInt8(dst []byte, v int8) []byte { return append(dst, byte(v)) }

func appendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

func appendString(dst []byte, s string) []byte {
	dst = appendInt16(dst, int16(len(s)))
	return append(dst, s...)
}

func appendInt32s(dst []byte, vs []int32) []byte {
	dst = appendInt32(dst, int32(len(vs)))
	for _, v := range vs {
		dst = appendInt32(dst, v)
	}
	return dst
}

// checkString refuses a string an int16 length cannot describe.
func checkString(msg, field string, s string) error {
	if len(s) > maxStringLength {
		return fieldError(ErrFrameTooLarge, msg, field, fmt.Sprintf(" length = %d, max %d", len(s), maxStringLength))
	}
	return nil
}

// checkCount refuses an array an int32 count cannot describe.
func checkCount(msg, field string, n int) error {
	if !fitsInt32(n) {
		return fieldError(ErrFrameTooLarge, msg, field, fmt.Sprintf(" count = %d", n))
	}
	return nil
}

// checkBrokerEpoch refuses a broker epoch below NoBrokerEpoch.
func checkBrokerEpoch(msg, field string, v int64) error {
	if v < NoBrokerEpoch {
		return fieldError(ErrInvalidValue, msg, field, fmt.Sprintf(" = %d, want >= -1", v))
	}
	return nil
}

// checkProducer refuses a producer id or epoch below -1.
func checkProducer(msg string, id int64, epoch int16) error {
	if id < NoProducerID {
		return fieldError(ErrInvalidValue, msg, "ProducerID", fmt.Sprintf(" = %d, want >= -1", id))
	}
	if epoch < NoProducerEpoch {
		return fieldError(ErrInvalidValue, msg, "ProducerEpoch", fmt.Sprintf(" = %d, want >= -1", epoch))
	}
	return nil
}

// checkRecoveryState refuses a LeaderRecoveryState the decoder would refuse.
func checkRecoveryState(msg, field string, s LeaderRecoveryState) error {
	if !s.valid() {
		return fieldError(ErrInvalidValue, msg, field, fmt.Sprintf(" = %d", int8(s)))
	}
	return nil
}

// encodedString is the encoded size of s.
func encodedString(s string) int { return 2 + len(s) }

// grow is slices.Grow, named for the encoders' one-allocation habit.
func grow(dst []byte, n int) []byte { return slices.Grow(dst, n) }
