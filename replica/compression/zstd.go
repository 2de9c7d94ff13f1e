package compression

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/kaenlog/kaenlog/log"
	"github.com/klauspost/compress/zstd"
)

// zstdDecoder is the shared decoder: a zstd.Decoder is safe for
// concurrent DecodeAll, which decodes into the output (the window needs
// no memory of its own there). Its own size bound is the largest a Log's
// can be (log's Options keep the inflation bound within an int32); the
// bound of each call is kept by zstdBound before decoding.
var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	return newZstdDecoder(1<<31 - 1)
})

// newZstdDecoder returns a decoder whose output, window and declared
// content size are bounded by limit: the decoder refuses a frame
// declaring more before allocating, and stops once a frame's output
// passes it (checked per block), counting every frame.
func newZstdDecoder(limit int) *zstd.Decoder {
	d, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0), // GOMAXPROCS calls at once
		zstd.WithDecoderMaxMemory(uint64(limit)),
		zstd.WithDecoderMaxWindow(uint64(max(limit, zstd.MinWindowSize))))
	if err != nil {
		panic(err) // only for invalid options
	}
	return d
}

// boundedZstdDecoders holds a decoder per inflation bound (a Log's, and
// DecodeBatch's) for the data zstdBound cannot bound; past
// maxBoundedZstdDecoders bounds, one is made for the call.
var (
	boundedZstdMu          sync.Mutex
	boundedZstdDecoders    = map[int]*zstd.Decoder{}
	maxBoundedZstdDecoders = 16
)

// boundedZstdDecoder returns the decoder of limit, and whether the caller
// must close it.
func boundedZstdDecoder(limit int) (*zstd.Decoder, bool) {
	boundedZstdMu.Lock()
	defer boundedZstdMu.Unlock()
	if d, ok := boundedZstdDecoders[limit]; ok {
		return d, false
	}
	d := newZstdDecoder(limit)
	if len(boundedZstdDecoders) >= maxBoundedZstdDecoders {
		return d, true
	}
	boundedZstdDecoders[limit] = d
	return d, false
}

// decompressZstd is log's Decompressor of codec 4: zstd frames.
//
// zstdBound reads the frame and block headers first (a few bytes per 128
// KiB block). When what they allow is within limit, the frames decode
// into dst with the shared decoder, growing it to at most that. When it
// is not, the data is a bomb or (rarely) frames whose compressed blocks
// fall short of the block maximum zstdBound counts them at: the decoder
// of limit decodes them into dst grown by limit (and a block), and stops
// a bomb there. That decoder refuses a window above limit, which the
// shared one does not need to: a frame without a content size, with a
// window above the bound, that decodes to within its last block of the
// bound is refused as a bomb.
func decompressZstd(dst, src []byte, limit int) ([]byte, error) {
	bound, err := zstdBound(src, limit)
	if err != nil {
		return dst, err
	}
	d := zstdDecoder()
	if bound > limit {
		var closeIt bool
		if d, closeIt = boundedZstdDecoder(limit); closeIt {
			defer d.Close()
		}
		// Room for the limit and the block that passes it, so that the
		// output never reallocates on the way to the refusal.
		dst = slices.Grow(dst, limit+zstdMaxBlock+zstdSlack)
	} else {
		// Room for all the frames can produce (bounded by limit), and the
		// slack that keeps the decoder's fast copies to the last byte.
		dst = slices.Grow(dst, bound+zstdSlack)
	}
	// The output goes to an empty slice over dst's spare room: given one
	// that is not empty (the batch header the log puts first), the
	// decoder decodes every block into a buffer of its own and copies it
	// after.
	start := len(dst)
	out, err := d.DecodeAll(src, dst[start:start])
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded):
		return dst, fmt.Errorf("compression: zstd data inflates past %d bytes: %w", limit, log.ErrInflationLimit)
	case err != nil:
		return dst, err
	case len(out) > limit:
		return dst, inflationError(len(out), limit)
	case len(out) == 0:
		return dst, nil
	case len(out) <= cap(dst)-start && &out[0] == &dst[start : start+1][0]:
		return dst[:start+len(out)], nil // decoded in place
	}
	// The decoder outgrew the room (frames whose bound is not exact).
	return append(dst, out...), nil
}

// zstdSlack is room past a zstd output that lets the decoder copy in
// 16-byte steps up to its last byte (klauspost/compress's
// compressedBlockOverAlloc).
const zstdSlack = 16

// zstd's frame format (RFC 8878, section 3.1).
const (
	zstdMagic         = 0xFD2FB528
	zstdSkippableMask = 0xFFFFFFF0
	zstdSkippable     = 0x184D2A50
	zstdMaxBlock      = 128 << 10
)

var errZstdFraming = errors.New("compression: malformed zstd frame")

// zstdBound walks the frames of src, their headers and block headers, and
// returns the most they can decode to: a raw or RLE block's size, a
// compressed block's maximum (the window, at most 128 KiB), or the
// frame's declared content size if smaller (the decoder refuses a frame
// that does not decode to it). A declared content size above limit is
// log.ErrInflationLimit. It allocates nothing.
func zstdBound(src []byte, limit int) (int, error) {
	total := 0
	for len(src) > 0 {
		if len(src) < 4 {
			return 0, errZstdFraming
		}
		magic := binary.LittleEndian.Uint32(src)
		if magic&zstdSkippableMask == zstdSkippable {
			if len(src) < 8 || uint64(binary.LittleEndian.Uint32(src[4:])) > uint64(len(src)-8) {
				return 0, errZstdFraming
			}
			src = src[8+binary.LittleEndian.Uint32(src[4:]):]
			continue
		}
		if magic != zstdMagic || len(src) < 5 {
			return 0, errZstdFraming
		}
		fhd := src[4]
		single := fhd&0x20 != 0
		fcsSize := [4]int{0, 2, 4, 8}[fhd>>6]
		if fcsSize == 0 && single {
			fcsSize = 1
		}
		p := 5
		var window uint64
		if !single {
			if len(src) <= p {
				return 0, errZstdFraming
			}
			exp, mantissa := uint64(src[p]>>3), uint64(src[p]&7)
			base := uint64(1) << (10 + exp)
			window = base + base/8*mantissa
			p++
		}
		p += [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
		if len(src) < p+fcsSize {
			return 0, errZstdFraming
		}
		fcs, hasFCS := uint64(0), fcsSize > 0
		switch fcsSize {
		case 1:
			fcs = uint64(src[p])
		case 2:
			fcs = uint64(binary.LittleEndian.Uint16(src[p:])) + 256
		case 4:
			fcs = uint64(binary.LittleEndian.Uint32(src[p:]))
		case 8:
			fcs = binary.LittleEndian.Uint64(src[p:])
		}
		p += fcsSize
		if hasFCS && fcs > uint64(limit) {
			return 0, inflationError(int(min(fcs, 1<<62)), limit)
		}
		if single {
			window = fcs
		}
		blockMax := int(min(window, zstdMaxBlock))
		frame := 0
		for last := false; !last; {
			if len(src) < p+3 {
				return 0, errZstdFraming
			}
			h := int(src[p]) | int(src[p+1])<<8 | int(src[p+2])<<16
			p += 3
			last = h&1 != 0
			size := h >> 3
			switch h >> 1 & 3 {
			case 0: // raw
				frame += size
			case 1: // RLE: one byte, repeated size times
				frame, size = frame+size, 1
			case 2: // compressed
				frame += blockMax
			default:
				return 0, errZstdFraming
			}
			if len(src)-p < size {
				return 0, errZstdFraming
			}
			p += size
		}
		if fhd&4 != 0 { // content checksum
			p += 4
		}
		if len(src) < p {
			return 0, errZstdFraming
		}
		if hasFCS {
			frame = min(frame, int(fcs))
		}
		total = min(total+frame, 1<<40)
		src = src[p:]
	}
	return total, nil
}
