package compression

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"sync"

	"github.com/kaenlog/kaenlog/log"
	"github.com/pierrec/lz4/v4"
)

var errNotLZ4Frame = errors.New("compression: lz4 data is not an LZ4 frame")

// lz4Magic starts an LZ4 frame (little-endian 0x184D2204).
const lz4Magic = 0x184D2204

// lz4Decoder is a pooled lz4 reader with the bytes.Reader it reads from,
// so that a decompression allocates neither (the reader's block buffers
// come from lz4's own pools).
type lz4Decoder struct {
	src bytes.Reader
	r   *lz4.Reader
}

var lz4Decoders = sync.Pool{New: func() any {
	d := new(lz4Decoder)
	d.r = lz4.NewReader(&d.src)
	return d
}}

// decompressLZ4 is log's Decompressor of codec 3: LZ4 frames.
func decompressLZ4(dst, src []byte, limit int) ([]byte, error) {
	blockMax, ok := lz4BlockMaxSize(src)
	if !ok {
		// Not an LZ4 frame (the legacy format included, which Kafka
		// never wrote for v2 batches and whose reader takes 8 MiB).
		return dst, errNotLZ4Frame
	}
	if blockMax > limit {
		// The reader would take a block buffer that large.
		return dst, inflationError(blockMax, limit)
	}
	// Room for a whole block lets the reader decode straight into dst
	// instead of its own buffer. The leader's pooled buffers have it;
	// where dst does not (DecodeBatch's new buffer, which the records
	// then alias), it is not made: 4 MiB for a batch of a few KB would be
	// allocated, zeroed and kept by every decoded batch. There the
	// reader decodes into its own pooled block buffer and copies out,
	// into a first guess of the output's size that grows as needed.
	if cap(dst)-len(dst) < blockMax {
		dst = slices.Grow(dst, min(limit, 4*len(src)))
	}
	d := lz4Decoders.Get().(*lz4Decoder)
	defer lz4Decoders.Put(d)
	d.src.Reset(src)
	d.r.Reset(&d.src)
	dst, err := log.AppendDecompressed(dst, d.r, limit)
	d.src.Reset(nil)
	d.r.Reset(&d.src) // gives the block buffer back to lz4's pool
	return dst, err
}

// lz4BlockMaxSize returns the block maximum size that the frame
// descriptor at the start of src declares (its BD byte, bits 4-6: 4 is
// 64 KiB, 5 256 KiB, 6 1 MiB, 7 4 MiB); ok is false if src does not start
// with an LZ4 frame header.
func lz4BlockMaxSize(src []byte) (int, bool) {
	if len(src) < 7 || binary.LittleEndian.Uint32(src) != lz4Magic {
		return 0, false
	}
	id := src[5] >> 4 & 7
	if id < 4 {
		return 0, false
	}
	return 1 << (8 + 2*id), true
}
