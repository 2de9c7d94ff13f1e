package compression

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/kaenlog/kaenlog/log"
	"github.com/klauspost/compress/s2"
)

// xerialMagic starts a body in the xerial framing; a version and a
// compatible version (int32 each) follow it.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// xerialHeaderSize is the magic and the two versions.
const xerialHeaderSize = 16

var errXerialFraming = errors.New("compression: malformed xerial snappy framing")

// decompressSnappy is log's Decompressor of codec 2: xerial-framed or raw
// snappy.
func decompressSnappy(dst, src []byte, limit int) ([]byte, error) {
	if len(src) >= xerialHeaderSize && bytes.HasPrefix(src, xerialMagic) {
		return decodeXerial(dst, src[xerialHeaderSize:], limit)
	}
	n, err := s2.DecodedLen(src)
	if err != nil {
		return dst, err
	}
	if n > limit {
		return dst, inflationError(n, limit)
	}
	return appendSnappyBlock(dst, src, n)
}

// decodeXerial decodes the chunks of a xerial body after its header. It
// walks the chunk headers first (a few bytes each), summing what they
// claim to decode to and bounding the sum by limit, so that dst grows
// once and a bomb is refused before anything is decoded.
func decodeXerial(dst, chunks []byte, limit int) ([]byte, error) {
	total := 0
	for rem := chunks; len(rem) > 0; {
		block, next, err := nextXerialChunk(rem)
		if err != nil {
			return dst, err
		}
		n, err := s2.DecodedLen(block)
		if err != nil {
			return dst, err
		}
		if total += n; total > limit {
			return dst, inflationError(total, limit)
		}
		rem = next
	}
	dst = slices.Grow(dst, total)
	for len(chunks) > 0 {
		block, next, _ := nextXerialChunk(chunks)
		n, _ := s2.DecodedLen(block)
		var err error
		if dst, err = appendSnappyBlock(dst, block, n); err != nil {
			return dst, err
		}
		chunks = next
	}
	return dst, nil
}

// nextXerialChunk splits off the first chunk of b: its raw snappy block
// and what follows it.
func nextXerialChunk(b []byte) (block, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, errXerialFraming
	}
	size := binary.BigEndian.Uint32(b)
	if uint64(size) > uint64(len(b)-4) {
		return nil, nil, errXerialFraming
	}
	return b[4 : 4+size], b[4+size:], nil
}

// appendSnappyBlock decodes the raw snappy block src, of decoded length
// n (already bounded), into dst's spare capacity, which s2 decodes into
// in place when it is large enough.
func appendSnappyBlock(dst, src []byte, n int) ([]byte, error) {
	dst = slices.Grow(dst, n)
	if _, err := s2.Decode(dst[len(dst):len(dst)+n], src); err != nil {
		return dst, err
	}
	return dst[:len(dst)+n], nil
}

// inflationError is log.ErrInflationLimit for data claiming n bytes.
func inflationError(n, limit int) error {
	return fmt.Errorf("compression: data claims %d bytes, more than the %d allowed: %w", n, limit, log.ErrInflationLimit)
}
