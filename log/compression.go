package log

import (
	"compress/gzip"
	"fmt"
	"io"
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

// A Decompressor returns a reader of what r decompresses to, in the
// stream format Kafka's clients write for the codec (gzip: RFC 1952;
// snappy: the xerial framing or raw snappy; lz4: the LZ4 frame format;
// zstd: a zstd frame). Reads past the end of the compressed data return
// io.EOF; corrupt data is any other error. Close releases the reader (an
// implementation may pool it). It is like archive/zip's Decompressor, with
// the constructor's error returned at once.
type Decompressor func(r io.Reader) (io.ReadCloser, error)

// decompressors holds the registered Decompressor of each codec; index 0
// (no compression) is never set.
var decompressors [CompressionZstd + 1]atomic.Pointer[Decompressor]

// RegisterDecompressor makes d the decompressor of codec c for every Log
// and for DecodeBatch, replacing any registered before (so a program can
// swap the standard library's gzip for a faster one). gzip is registered
// by default; snappy, lz4 and zstd are not, since the main module keeps
// the standard library's codecs only: a module that has them registers
// them, typically from an init function. A batch whose codec has none is
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

// pooledGzip returns its reader to gzipReaders on Close.
type pooledGzip struct{ *gzip.Reader }

func (p pooledGzip) Close() error {
	err := p.Reader.Close()
	gzipReaders.Put(p.Reader)
	return err
}

// gzipDecompressor is the standard library's gzip, its readers pooled.
// Kafka's clients may write several gzip members; all are read.
func gzipDecompressor(r io.Reader) (io.ReadCloser, error) {
	if z, ok := gzipReaders.Get().(*gzip.Reader); ok {
		if err := z.Reset(r); err != nil {
			gzipReaders.Put(z)
			return nil, err
		}
		return pooledGzip{z}, nil
	}
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	return pooledGzip{z}, nil
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

// inflate decompresses the records of the compressed batch b (which holds
// exactly one verified batch) and returns dst[:0] holding the batch as if
// it were not compressed: its 61-byte header, then the records, so that
// the record walkers read it as they read an uncompressed batch. The
// records may inflate to at most limit bytes: the bound holds while
// decompressing (dst grows as the output does, never past limit plus one
// read), so a decompression bomb costs at most limit bytes of memory and
// is refused with ErrInflationLimit. A codec without a registered
// Decompressor is ErrUnsupportedCompression (not a CorruptError);
// compressed bytes that do not decompress are ErrBadCompressedData at
// BatchHeaderSize; those two are *CorruptError and match ErrCorrupt.
func inflate(dst, b []byte, limit int) ([]byte, error) {
	attrs := int16(b[posAttributes])<<8 | int16(b[posAttributes+1])
	c := CompressionOf(attrs)
	d, ok := decompressorFor(c)
	if !ok {
		return dst[:0], fmt.Errorf("log: batch compressed with %v, which has no registered decompressor: %w", c, ErrUnsupportedCompression)
	}
	br := bytesReaders.Get().(*bytesReader)
	br.b, br.i = b[BatchHeaderSize:], 0
	defer func() { br.b = nil; bytesReaders.Put(br) }()
	r, err := d(br)
	if err != nil {
		return dst[:0], &CorruptError{Pos: BatchHeaderSize, Err: ErrBadCompressedData}
	}
	dst = append(dst[:0], b[:BatchHeaderSize]...)
	end := BatchHeaderSize + limit
	if cap(dst) < BatchHeaderSize+4*len(b) {
		// A first guess of the output size; it grows below as needed.
		dst = append(dst, make([]byte, min(4*len(b), limit))...)[:BatchHeaderSize]
	}
	for {
		if len(dst) >= min(cap(dst), end) {
			if len(dst) >= end {
				// Full at the limit: one more byte is a bomb.
				var one [1]byte
				n, rerr := io.ReadFull(r, one[:])
				r.Close()
				if n > 0 {
					return dst[:0], &CorruptError{Pos: BatchHeaderSize, Err: ErrInflationLimit}
				}
				if rerr != io.EOF {
					return dst[:0], &CorruptError{Pos: BatchHeaderSize, Err: ErrBadCompressedData}
				}
				return dst, nil
			}
			grow := min(end-len(dst), max(cap(dst), 4096))
			dst = append(dst, make([]byte, grow)...)[:len(dst)]
		}
		n, rerr := r.Read(dst[len(dst):min(cap(dst), end)])
		dst = dst[:len(dst)+n]
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			r.Close()
			return dst[:0], &CorruptError{Pos: BatchHeaderSize, Err: ErrBadCompressedData}
		}
	}
	if err := r.Close(); err != nil {
		return dst[:0], &CorruptError{Pos: BatchHeaderSize, Err: ErrBadCompressedData}
	}
	return dst, nil
}
