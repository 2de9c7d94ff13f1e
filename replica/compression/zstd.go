package compression

import (
	"errors"
	"fmt"
	"sync"

	"github.com/kaenlog/kaenlog/log"
	"github.com/klauspost/compress/zstd"
)

// zstdDecoders holds one decoder per inflation bound (a Log's, and
// DecodeBatch's): a zstd.Decoder is safe for concurrent DecodeAll, and
// its WithDecoderMaxMemory is the bound. A program has a few bounds; past
// maxZstdDecoders of them a decoder is made for the call and closed.
var (
	zstdMu       sync.Mutex
	zstdDecoders = map[int]*zstd.Decoder{}
)

const maxZstdDecoders = 16

// zstdDecoder returns the shared decoder of limit, and whether the
// caller must close it.
func zstdDecoder(limit int) (*zstd.Decoder, bool, error) {
	zstdMu.Lock()
	defer zstdMu.Unlock()
	if d, ok := zstdDecoders[limit]; ok {
		return d, false, nil
	}
	// The max memory bounds a frame's declared content size and window
	// (the window is bounded by it too) before anything is allocated,
	// and every frame's output while decoding, summed over the frames.
	d, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0), // GOMAXPROCS DecodeAll calls at once
		zstd.WithDecoderMaxMemory(uint64(limit)),
		zstd.WithDecoderMaxWindow(uint64(max(limit, zstd.MinWindowSize))),
	)
	if err != nil {
		return nil, false, err
	}
	if len(zstdDecoders) >= maxZstdDecoders {
		return d, true, nil
	}
	zstdDecoders[limit] = d
	return d, false, nil
}

// decompressZstd is log's Decompressor of codec 4: zstd frames.
func decompressZstd(dst, src []byte, limit int) ([]byte, error) {
	d, closeIt, err := zstdDecoder(limit)
	if err != nil {
		return dst, err
	}
	if closeIt {
		defer d.Close()
	}
	start := len(dst)
	out, err := d.DecodeAll(src, dst)
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded):
		return dst, fmt.Errorf("compression: zstd data inflates past %d bytes: %w: %w", limit, log.ErrInflationLimit, err)
	case err != nil:
		return dst, err
	case len(out)-start > limit:
		return dst, inflationError(len(out)-start, limit)
	}
	return out, nil
}
