package log

// Kafka's record fields use zigzag varints: the signed value is mapped to an
// unsigned one so that small magnitudes of either sign are short
// ((v << 1) ^ (v >> 63)), then written 7 bits per byte, least significant
// group first, with the high bit of each byte set when more bytes follow.
// A varint carries 32 bits (at most 5 bytes), a varlong 64 (at most 10).

const (
	maxVarintLen  = 5
	maxVarlongLen = 10
)

// appendVarint appends the zigzag varint encoding of v to dst.
func appendVarint(dst []byte, v int32) []byte {
	return appendUvarint(dst, uint64(uint32((v<<1)^(v>>31))))
}

// appendVarlong appends the zigzag varlong encoding of v to dst.
func appendVarlong(dst []byte, v int64) []byte {
	return appendUvarint(dst, uint64(v<<1)^uint64(v>>63))
}

func appendUvarint(dst []byte, u uint64) []byte {
	for u >= 0x80 {
		dst = append(dst, byte(u)|0x80)
		u >>= 7
	}
	return append(dst, byte(u))
}

// varintSize is the number of bytes appendVarint writes for v.
func varintSize(v int32) int {
	return uvarintSize(uint64(uint32((v << 1) ^ (v >> 31))))
}

// varlongSize is the number of bytes appendVarlong writes for v.
func varlongSize(v int64) int {
	return uvarintSize(uint64(v<<1) ^ uint64(v>>63))
}

func uvarintSize(u uint64) int {
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// readVarint decodes a zigzag varint from the start of buf. (The record
// decoder takes one-byte values itself before calling it.) It returns the
// value and the number of bytes read (n > 0); n == 0 means buf ended before
// the varint did; n < 0 means the varint is longer than 5 bytes or its value
// does not fit 32 bits (ErrVarintOverflow). Non-minimal encodings, which
// Kafka also accepts, are accepted.
func readVarint(buf []byte) (int32, int) {
	var u uint32
	for i := 0; i < maxVarintLen; i++ {
		if i == len(buf) {
			return 0, 0
		}
		b := buf[i]
		if i == maxVarintLen-1 && b > 0x0f {
			// The fifth byte holds bits 28..31: a continuation bit or any
			// higher bit means the value does not fit 32 bits.
			return 0, -1
		}
		u |= uint32(b&0x7f) << (7 * i)
		if b < 0x80 {
			return int32(u>>1) ^ -int32(u&1), i + 1
		}
	}
	return 0, -1 // unreachable: the fifth byte either ends or overflows
}

// readVarlong is readVarint for 64-bit values: at most 10 bytes, and the
// tenth may only hold bit 63.
func readVarlong(buf []byte) (int64, int) {
	var u uint64
	for i := 0; i < maxVarlongLen; i++ {
		if i == len(buf) {
			return 0, 0
		}
		b := buf[i]
		if i == maxVarlongLen-1 && b > 0x01 {
			return 0, -1
		}
		u |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1
		}
	}
	return 0, -1 // unreachable: the tenth byte either ends or overflows
}
