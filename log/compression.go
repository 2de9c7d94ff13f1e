package log

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
)

// Compression is a batch's compression codec, the attributes' bits 0-2
// (AttrCompressionMask), numbered as Kafka numbers them.
type Compression int8

// The codecs Kafka defines.
const (
	CompressionNone   Compression = 0
	CompressionGzip   Compression = 1
	CompressionSnappy Compression = 2
	CompressionLZ4    Compression = 3
	CompressionZstd   Compression = 4
)

// String returns the codec's Kafka name ("none", "gzip", "snappy", "lz4",
// "zstd") or "codec(n)".
func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "none"
	case CompressionGzip:
		return "gzip"
	case CompressionSnappy:
		return "snappy"
	case CompressionLZ4:
		return "lz4"
	case CompressionZstd:
		return "zstd"
	}
	return fmt.Sprintf("codec(%d)", int8(c))
}

// CompressionOf returns the codec a batch's attributes name.
func CompressionOf(attributes int16) Compression {
	return Compression(attributes & AttrCompressionMask)
}

// A Decompressor appends to dst what src, a compressed batch's records,
// decompresses to, and returns the extended slice (like append: dst's
// contents are kept, and it may be reallocated). src is in the format
// Kafka's clients write for the codec (gzip: RFC 1952 members; snappy:
// the xerial framing or raw snappy; lz4: the LZ4 frame format; zstd: zstd
// frames). It may write at most limit bytes after len(dst): data that
// decompresses to more is a decompression bomb, for which it stops and
// returns an error matching ErrInflationLimit. It must bound every size
// the compressed data claims (a decoded length, a window, a block size)
// by limit before it allocates memory for it, so that refusing a bomb
// costs at most about limit bytes. Any other error means src does not
// decompress. A Decompressor is called concurrently and keeps neither dst
// nor src; AppendDecompressed serves one over a streaming decoder.
type Decompressor func(dst, src []byte, limit int) ([]byte, error)

// AppendDecompressed appends to dst what r reads up to io.EOF, and
// returns the extended slice: at most limit bytes, growing dst as the
// output does, never to more than limit bytes past len(dst); a byte more
// is a decompression bomb, ErrInflationLimit. Other errors are r's. It is
// the bounded read loop of a Decompressor over a streaming decoder (the
// built-in gzip's).
func AppendDecompressed(dst []byte, r io.Reader, limit int) ([]byte, error) {
	end := len(dst) + limit
	for {
		if len(dst) >= end {
			// Full at the limit: one more byte is a bomb.
			var one [1]byte
			n, err := io.ReadFull(r, one[:])
			switch {
			case n > 0:
				return dst, fmt.Errorf("log: compressed records inflate past %d bytes: %w", limit, ErrInflationLimit)
			case err == io.EOF:
				return dst, nil
			}
			return dst, err
		}
		if len(dst) == cap(dst) {
			dst = slices.Grow(dst, min(end-len(dst), max(cap(dst), 4096)))
		}
		n, err := r.Read(dst[len(dst):min(cap(dst), end)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// decompressors holds the registered Decompressor of each codec; index 0
// (no compression) is never set.
var decompressors [CompressionZstd + 1]atomic.Pointer[Decompressor]

// RegisterDecompressor makes d the decompressor of codec c for every Log
// and for DecodeBatch, replacing any registered before (so a program can
// swap the standard library's gzip for a faster one). gzip is registered
// by default; snappy, lz4 and zstd are not, since the main module keeps
// the standard library's codecs only: a module that has them registers
// them, typically from an init function (importing
// github.com/kaenlog/kaenlog/replica/compression registers all three). A batch whose codec has none is
// ErrUnsupportedCompression, as is one of the codecs 5-7, which Kafka does
// not define. It is safe to call concurrently with everything else; it
// panics for a c other than gzip, snappy, lz4 and zstd, or a nil d.
func RegisterDecompressor(c Compression, d Decompressor) {
	if c <= CompressionNone || int(c) >= len(decompressors) || d == nil {
		panic(fmt.Sprintf("log: RegisterDecompressor(%v): invalid codec or nil decompressor", c))
	}
	decompressors[c].Store(&d)
}

// decompressorFor returns the registered decompressor of c.
func decompressorFor(c Compression) (Decompressor, bool) {
	if c <= CompressionNone || int(c) >= len(decompressors) {
		return nil, false
	}
	d := decompressors[c].Load()
	if d == nil {
		return nil, false
	}
	return *d, true
}

func init() { RegisterDecompressor(CompressionGzip, gzipDecompressor) }

// gzipReaders keeps gzip readers for reuse: a new one allocates its
// 32 KiB window.
var gzipReaders sync.Pool

// gzipDecompressor is the standard library's gzip, its readers pooled.
// Kafka's clients may write several gzip members; all are read. The
// window is gzip's fixed 32 KiB, whatever the data claims.
func gzipDecompressor(dst, src []byte, limit int) ([]byte, error) {
	br := bytesReaders.Get().(*bytesReader)
	br.b, br.i = src, 0
	defer func() { br.b = nil; bytesReaders.Put(br) }()
	z, ok := gzipReaders.Get().(*gzip.Reader)
	if ok {
		if err := z.Reset(br); err != nil {
			gzipReaders.Put(z)
			return dst, err
		}
	} else {
		var err error
		if z, err = gzip.NewReader(br); err != nil {
			return dst, err
		}
	}
	defer gzipReaders.Put(z)
	// A first guess of the output size; it grows as needed.
	dst = slices.Grow(dst, min(4*len(src), limit))
	return AppendDecompressed(dst, z, limit)
}

// DefaultMaxInflation is Options.MaxInflation when 0.
const DefaultMaxInflation = 16

// DefaultMaxInflatedBytes bounds what DecodeBatch lets a compressed
// batch's records inflate to: DefaultMaxInflation times
// DefaultMaxBatchBytes, what a Log with default Options accepts.
const DefaultMaxInflatedBytes = DefaultMaxInflation * DefaultMaxBatchBytes

// bytesReader is a reusable io.Reader over a byte slice, so that handing
// the compressed bytes to a decompressor does not allocate.
type bytesReader struct {
	b []byte
	i int
}

func (r *bytesReader) Read(p []byte) (int, error) {
	if r.i >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.i:])
	r.i += n
	return n, nil
}

// ReadByte lets compress/flate read without wrapping the reader in a
// bufio.Reader of its own (flate.Reader).
func (r *bytesReader) ReadByte() (byte, error) {
	if r.i >= len(r.b) {
		return 0, io.EOF
	}
	r.i++
	return r.b[r.i-1], nil
}

var bytesReaders = sync.Pool{New: func() any { return new(bytesReader) }}

// inflationBuffers hold the buffers a leader's validation inflates
// compressed batches into, shared by every Log: a broker keeps about one
// per append in progress, not one per partition, and a log's compressed
// appends reuse one another's (a new buffer costs its allocation and
// zeroing, as much as a walk of its records). The pool keeps boxes, so
// that putting one back does not allocate; releaseInflationBuffer drops
// a buffer larger than inflatedKeepBytes (what the bound let one batch
// inflate to), so the pool's buffers stay small whatever the bound.
var inflationBuffers = sync.Pool{New: func() any { return new([]byte) }}

// inflatedKeepBytes is the size of the pool's inflation buffers (or the
// log's bound, if smaller), and the largest one it keeps: a batch's header
// and an lz4 block of the largest size (4 MiB, franz-go's), which an lz4
// reader decodes in place only into room that large, with the
// allocator's rounding up.
const inflatedKeepBytes = 4<<20 + 64<<10

// releaseInflationBuffer puts buf back into inflationBuffers, emptied,
// or drops its bytes if they are more than inflatedKeepBytes.
func releaseInflationBuffer(buf *[]byte) {
	if cap(*buf) > inflatedKeepBytes {
		*buf = nil
	}
	*buf = (*buf)[:0]
	inflationBuffers.Put(buf)
}

// inflate decompresses the records of the compressed batch b (which holds
// exactly one verified batch) and returns dst[:0] holding the batch as if
// it were not compressed: its 61-byte header, then the records, so that
// the record walkers read it as they read an uncompressed batch. The
// records may inflate to at most limit bytes, a bound the Decompressor
// keeps while decompressing, so a decompression bomb costs at most about
// limit bytes of memory and is refused with ErrInflationLimit. A codec
// without a registered Decompressor is ErrUnsupportedCompression (not a
// CorruptError); compressed bytes that do not decompress are
// ErrBadCompressedData at BatchHeaderSize; those two are *CorruptError
// and match ErrCorrupt.
func inflate(dst, b []byte, limit int) ([]byte, error) {
	attrs := int16(b[posAttributes])<<8 | int16(b[posAttributes+1])
	c := CompressionOf(attrs)
	d, ok := decompressorFor(c)
	if !ok {
		return dst[:0], fmt.Errorf("log: batch compressed with %v, which has no registered decompressor: %w", c, ErrUnsupportedCompression)
	}
	dst, err := d(append(dst[:0], b[:BatchHeaderSize]...), b[BatchHeaderSize:], limit)
	switch {
	case errors.Is(err, ErrInflationLimit) || (err == nil && len(dst)-BatchHeaderSize > limit):
		// (The second case is a Decompressor that broke its contract.)
		return dst[:0], &CorruptError{Pos: BatchHeaderSize, Err: ErrInflationLimit}
	case err != nil || len(dst) < BatchHeaderSize:
		return dst[:0], &CorruptError{Pos: BatchHeaderSize, Err: ErrBadCompressedData}
	}
	return dst, nil
}
