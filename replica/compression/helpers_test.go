package compression

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"
)

// testSeed seeds every generated batch; failures print it.
const testSeed = 17

// plainBatch returns an uncompressed producer batch of n records of about
// size bytes each: JSON-like values with seeded ids and amounts, keys
// from a small set.
func plainBatch(t testing.TB, n, size int) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(testSeed, uint64(n)))
	b := &log.Batch{BaseTimestamp: 1_700_000_000_000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: make([]log.Record, n)}
	for i := range b.Records {
		v := fmt.Appendf(nil, `{"id":%d,"user":"u-%05d","amount":%d.%02d,"region":"%s"}`,
			1_000_000+i, rng.IntN(100000), rng.IntN(1000), rng.IntN(100), []string{"eu-west", "us-east", "ap-south"}[rng.IntN(3)])
		for len(v) < size-12 {
			v = append(v, ' ')
		}
		b.Records[i] = log.Record{TimestampDelta: int64(i / 10), Key: fmt.Appendf(nil, "k%03d", rng.IntN(500)), Value: v}
	}
	b.SetSequentialOffsetDeltas()
	out, err := log.AppendBatch(nil, b)
	if err != nil {
		t.Fatalf("seed %d: %v", testSeed, err)
	}
	return out
}

// withBody returns the batch of plain's header with body as its records
// and codec's bits set, its length and CRC recomputed, as a producer
// sends a compressed batch.
func withBody(t testing.TB, plain, body []byte, codec log.Compression) []byte {
	t.Helper()
	h, err := log.ReadBatchHeader(plain)
	if err != nil {
		t.Fatal(err)
	}
	out := append(bytes.Clone(plain[:log.BatchHeaderSize]), body...)
	h.Attributes = h.Attributes&^log.AttrCompressionMask | int16(codec)
	if err := log.PutBatchHeader(out, h); err != nil {
		t.Fatal(err)
	}
	return out
}

// An encoder compresses a batch's records as one client or library does.
type encoder struct {
	name   string
	codec  log.Compression
	encode func(t testing.TB, records []byte) []byte
	// unchecked: the data carries no checksum of its own (snappy, a zstd
	// frame without one), so a flipped bit may decode.
	unchecked bool
}

// kgoEncoder is franz-go's producer compressor for codec.
func kgoEncoder(codec kgo.CompressionCodec) func(testing.TB, []byte) []byte {
	return func(t testing.TB, records []byte) []byte {
		c, err := kgo.DefaultCompressor(codec)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := c.Compress(new(bytes.Buffer), records)
		return bytes.Clone(out)
	}
}

// xerial frames records as Kafka's Java producer does (snappy-java's
// SnappyOutputStream): the header, then chunks of at most chunk input
// bytes, each a big-endian length and a raw snappy block.
func xerial(chunk int) func(testing.TB, []byte) []byte {
	return func(_ testing.TB, records []byte) []byte {
		out := append(bytes.Clone(xerialMagic), 0, 0, 0, 1, 0, 0, 0, 1)
		for len(records) > 0 {
			n := min(chunk, len(records))
			block := s2.EncodeSnappy(nil, records[:n])
			out = binary.BigEndian.AppendUint32(out, uint32(len(block)))
			out = append(out, block...)
			records = records[n:]
		}
		return out
	}
}

// lz4Frame is pierrec/lz4's writer with the given options.
func lz4Frame(opts ...lz4.Option) func(testing.TB, []byte) []byte {
	return func(t testing.TB, records []byte) []byte {
		var buf bytes.Buffer
		w := lz4.NewWriter(&buf)
		if err := w.Apply(opts...); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(records); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
}

// zstdStream is klauspost's streaming zstd writer (no content size in
// the frame header); zstdAll is its EncodeAll (content size declared).
func zstdStream(opts ...zstd.EOption) func(testing.TB, []byte) []byte {
	return func(t testing.TB, records []byte) []byte {
		var buf bytes.Buffer
		w, err := zstd.NewWriter(&buf, opts...)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(records)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
}

func zstdAll(opts ...zstd.EOption) func(testing.TB, []byte) []byte {
	return func(t testing.TB, records []byte) []byte {
		w, err := zstd.NewWriter(nil, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		return w.EncodeAll(records, nil)
	}
}

// encoders are every client's and library's way of compressing records
// that the tests round-trip.
var encoders = []encoder{
	{"snappy/kgo (raw)", log.CompressionSnappy, kgoEncoder(kgo.SnappyCompression()), true},
	{"snappy/raw s2.EncodeSnappy", log.CompressionSnappy, func(_ testing.TB, r []byte) []byte { return s2.EncodeSnappy(nil, r) }, true},
	{"snappy/xerial 32 KiB chunks (Java)", log.CompressionSnappy, xerial(32 << 10), true},
	{"snappy/xerial 1 MiB chunks", log.CompressionSnappy, xerial(1 << 20), true},
	{"lz4/kgo", log.CompressionLZ4, kgoEncoder(kgo.Lz4Compression()), false},
	{"lz4/64 KiB blocks, block checksums", log.CompressionLZ4, lz4Frame(lz4.BlockSizeOption(lz4.Block64Kb), lz4.BlockChecksumOption(true)), false},
	{"lz4/256 KiB blocks, level 9", log.CompressionLZ4, lz4Frame(lz4.BlockSizeOption(lz4.Block256Kb), lz4.CompressionLevelOption(lz4.Level9)), false},
	{"zstd/kgo", log.CompressionZstd, kgoEncoder(kgo.ZstdCompression()), false},
	{"zstd/stream, no content size", log.CompressionZstd, zstdStream(), false},
	{"zstd/EncodeAll best, no checksum", log.CompressionZstd, zstdAll(zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderCRC(false)), true},
}

// firstDifference returns the index of the first record of got that
// differs from want's (or the shorter length), -1 if none does.
func firstDifference(want, got []log.Record) int {
	for i := range min(len(want), len(got)) {
		w, g := want[i], got[i]
		if w.TimestampDelta != g.TimestampDelta || w.OffsetDelta != g.OffsetDelta || !bytes.Equal(w.Key, g.Key) ||
			!bytes.Equal(w.Value, g.Value) || (w.Key == nil) != (g.Key == nil) || len(w.Headers) != len(g.Headers) {
			return i
		}
	}
	if len(want) != len(got) {
		return min(len(want), len(got))
	}
	return -1
}
