package compression

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"
)

// gib is what the bombs inflate to (or claim to).
const gib = 1 << 30

// zeros is an endless reader of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// bombs are made once: compressing a GiB takes a while.
var bombs = sync.OnceValue(func() []struct {
	name  string
	codec log.Compression
	body  []byte
} {
	type bomb = struct {
		name  string
		codec log.Compression
		body  []byte
	}
	var out []bomb

	// zstd: 1 GiB of zeros streamed (no content size in the header).
	var z bytes.Buffer
	zw, _ := zstd.NewWriter(&z, zstd.WithEncoderConcurrency(1))
	zw.ReadFrom(io.LimitReader(zeros{}, gib))
	zw.Close()
	out = append(out, bomb{"zstd, 1 GiB of zeros streamed", log.CompressionZstd, z.Bytes()})
	// zstd: a frame declaring its content size, 8 MiB.
	ze, _ := zstd.NewWriter(nil)
	out = append(out, bomb{"zstd, a frame declaring 8 MiB", log.CompressionZstd, ze.EncodeAll(make([]byte, 8<<20), nil)})

	// lz4: 1 GiB of zeros in 64 KiB blocks.
	var l bytes.Buffer
	lw := lz4.NewWriter(&l)
	lw.Apply(lz4.BlockSizeOption(lz4.Block64Kb))
	io.Copy(lw, io.LimitReader(zeros{}, gib))
	lw.Close()
	out = append(out, bomb{"lz4, 1 GiB of zeros in 64 KiB blocks", log.CompressionLZ4, l.Bytes()})
	// lz4: a frame declaring 4 MiB blocks (kgo's), more than the limit.
	out = append(out, bomb{"lz4, 4 MiB blocks declared", log.CompressionLZ4, lz4Frame(lz4.BlockSizeOption(lz4.Block4Mb))(nil, make([]byte, 100))})

	// snappy, raw: a block whose decoded length says 1 GiB.
	small := s2.EncodeSnappy(nil, make([]byte, 1000))
	_, hl := binary.Uvarint(small)
	out = append(out, bomb{"snappy raw, a block declaring 1 GiB", log.CompressionSnappy, append(binary.AppendUvarint(nil, gib), small[hl:]...)})
	// snappy, xerial: 1 GiB of zeros in 256 chunks of 4 MiB.
	chunk := s2.EncodeSnappy(nil, make([]byte, 4<<20))
	x := append(bytes.Clone(xerialMagic), 0, 0, 0, 1, 0, 0, 0, 1)
	for range 256 {
		x = binary.BigEndian.AppendUint32(x, uint32(len(chunk)))
		x = append(x, chunk...)
	}
	out = append(out, bomb{"snappy xerial, 1 GiB of zeros in 4 MiB chunks", log.CompressionSnappy, x})
	return out
})

// decompressors are this package's, by codec.
var decompressors = map[log.Compression]log.Decompressor{
	log.CompressionSnappy: decompressSnappy,
	log.CompressionLZ4:    decompressLZ4,
	log.CompressionZstd:   decompressZstd,
}

// TestABombIsRefusedWithoutInflating: a body that inflates (or claims to)
// past the limit is log.ErrInflationLimit, from each decompressor and from
// log's DecodeBatch (CORRUPT_MESSAGE), and refusing it allocates no more
// than about the limit, measured as the heap allocated during the call.
func TestABombIsRefusedWithoutInflating(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses a GiB per codec")
	}
	const limit = 1 << 20
	one := plainBatch(t, 1, 10)
	header := one[:log.BatchHeaderSize]
	// Warm the decoders of this limit (the shared zstd decoder, lz4's
	// pooled reader) so that only the bomb's cost is measured.
	for c, d := range decompressors {
		body := map[log.Compression][]byte{
			log.CompressionSnappy: s2.EncodeSnappy(nil, []byte("warm")),
			log.CompressionLZ4:    lz4Frame(lz4.BlockSizeOption(lz4.Block64Kb))(t, []byte("warm")),
			log.CompressionZstd:   zstdAll()(t, []byte("warm")),
		}[c]
		if _, err := d(bytes.Clone(header), body, limit); err != nil {
			t.Fatalf("warming %v: %v", c, err)
		}
	}
	boundedZstdDecoder(limit)
	boundedZstdDecoder(log.DefaultMaxInflatedBytes)
	for _, b := range bombs() {
		dst := make([]byte, len(header))
		copy(dst, header)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := decompressors[b.codec](dst, b.body, limit)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, log.ErrInflationLimit) {
			t.Errorf("%s (%d bytes): %v, want log.ErrInflationLimit", b.name, len(b.body), err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 3*limit {
			t.Errorf("%s: refusing it allocated %d bytes; the limit is %d", b.name, grew, limit)
		}
		if len(b.body) > 1<<24 || !strings.Contains(b.name, "1 GiB") {
			continue // under log's default bound, or too large a batch
		}
		// Through log, at its default bound (16 MiB).
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, _, err = log.DecodeBatch(withBody(t, one, b.body, b.codec))
		runtime.ReadMemStats(&after)
		if !errors.Is(err, log.ErrInflationLimit) || !errors.Is(err, log.ErrCorrupt) {
			t.Errorf("%s: DecodeBatch: %v, want log.ErrInflationLimit (CORRUPT_MESSAGE)", b.name, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 3*log.DefaultMaxInflatedBytes+uint64(len(b.body)) {
			t.Errorf("%s: DecodeBatch allocated %d bytes refusing it; the limit is %d", b.name, grew, log.DefaultMaxInflatedBytes)
		}
	}
}

// TestDataJustUnderTheLimitIsAccepted: the bound is not a guess on the
// safe side: records inflating to just under it decode, with each codec,
// and kgo's 4 MiB lz4 blocks are taken where the bound is at least that.
func TestDataJustUnderTheLimitIsAccepted(t *testing.T) {
	plain := plainBatch(t, 10000, 100)
	records := plain[log.BatchHeaderSize:]
	limit := len(records)
	for _, enc := range encoders {
		body := enc.encode(t, records)
		out, err := decompressors[enc.codec](nil, body, limit)
		if enc.name == "lz4/kgo" || enc.name == "zstd/stream, no content size" {
			// kgo writes 4 MiB lz4 blocks, refused under a bound below
			// that; the zstd stream has no content size and an 8 MiB
			// window, and its last compressed block may pass the bound.
			if !errors.Is(err, log.ErrInflationLimit) {
				t.Errorf("%s at a limit of %d: %v, want log.ErrInflationLimit", enc.name, limit, err)
			}
			continue
		} else if err != nil || !bytes.Equal(out, records) {
			t.Errorf("%s at a limit of exactly its %d bytes: %d bytes, %v", enc.name, limit, len(out), err)
		}
		if _, err := decompressors[enc.codec](nil, body, limit-1); !errors.Is(err, log.ErrInflationLimit) && enc.name != "lz4/kgo" {
			t.Errorf("%s at a limit one byte short: %v, want log.ErrInflationLimit", enc.name, err)
		}
	}
	kgoLZ4 := kgoEncoder(kgo.Lz4Compression())(t, records)
	if _, err := decompressLZ4(nil, kgoLZ4, 4<<20); err != nil {
		t.Errorf("kgo's lz4 at a 4 MiB bound: %v", err)
	}
}
