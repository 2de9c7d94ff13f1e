package compression

import (
	"bytes"
	"io"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// fuzzLimit bounds the fuzzed decompressors' output.
const fuzzLimit = 1 << 20

// fuzzDecompressor checks d on arbitrary bodies: no panic; dst's contents
// kept; output within the limit; whatever ref (the library's decoder, unbounded but for a
// LimitReader or its own bound) decodes within the limit, d decodes to
// the same bytes, and (but for zstd, whose reference has the bound's
// window rule) d decodes nothing ref refuses.
func fuzzDecompressor(f *testing.F, codec log.Compression, ref func([]byte) ([]byte, error)) {
	plain := plainBatch(f, 200, 100)
	for _, enc := range encoders {
		if enc.codec == codec {
			f.Add(enc.encode(f, plain[log.BatchHeaderSize:]))
			f.Add(enc.encode(f, []byte("x")))
		}
	}
	d := decompressors[codec]
	f.Fuzz(func(t *testing.T, body []byte) {
		hdr := []byte("header")
		out, err := d(bytes.Clone(hdr), body, fuzzLimit)
		if !bytes.HasPrefix(out, hdr) || len(out)-len(hdr) > fuzzLimit {
			t.Fatalf("%d bytes out, prefix kept %v", len(out), bytes.HasPrefix(out, hdr))
		}
		want, rerr := ref(body)
		if rerr == nil && len(want) <= fuzzLimit && (err != nil || !bytes.Equal(out[len(hdr):], want)) {
			t.Fatalf("the library decodes %d bytes; the decompressor: %d bytes, %v", len(want), len(out)-len(hdr), err)
		}
		if err == nil && rerr != nil && codec != log.CompressionZstd {
			t.Fatalf("decoded %d bytes that the library refuses: %v", len(out)-len(hdr), rerr)
		}
	})
}

func FuzzSnappy(f *testing.F) {
	fuzzDecompressor(f, log.CompressionSnappy, func(b []byte) ([]byte, error) {
		if len(b) >= xerialHeaderSize && bytes.HasPrefix(b, xerialMagic) {
			var out []byte
			for rem := b[xerialHeaderSize:]; len(rem) > 0; {
				block, next, err := nextXerialChunk(rem)
				if err != nil {
					return nil, err
				}
				if n, err := s2.DecodedLen(block); err != nil || len(out)+n > fuzzLimit {
					return nil, io.ErrShortBuffer
				}
				d, err := s2.Decode(nil, block)
				if err != nil {
					return nil, err
				}
				out, rem = append(out, d...), next
			}
			return out, nil
		}
		if n, err := s2.DecodedLen(b); err != nil || n > fuzzLimit {
			return nil, io.ErrShortBuffer
		}
		return s2.Decode(nil, b)
	})
}

func FuzzLZ4(f *testing.F) {
	fuzzDecompressor(f, log.CompressionLZ4, func(b []byte) ([]byte, error) {
		if blockMax, ok := lz4BlockMaxSize(b); !ok || blockMax > fuzzLimit {
			return nil, errNotLZ4Frame // refused by the frame header
		}
		return io.ReadAll(io.LimitReader(lz4.NewReader(bytes.NewReader(b)), fuzzLimit+1))
	})
}

func FuzzZstd(f *testing.F) {
	ref, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(fuzzLimit), zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Fatal(err)
	}
	defer ref.Close()
	fuzzDecompressor(f, log.CompressionZstd, func(b []byte) ([]byte, error) { return ref.DecodeAll(b, nil) })
}
