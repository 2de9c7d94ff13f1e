package log

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
)

// stCompress rewrites the uncompressed batch b with its records compressed
// by gzip and its codec bits set to codec, as a producer sends it.
func stCompress(t testing.TB, b []byte, codec Compression) []byte {
	t.Helper()
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	if _, err := w.Write(b[BatchHeaderSize:]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return stWithBody(b[:BatchHeaderSize], z.Bytes(), codec)
}

// stWithBody returns the batch of header hdr with body as its records and
// codec bits codec, its length and CRC set.
func stWithBody(hdr, body []byte, codec Compression) []byte {
	out := append(bytes.Clone(hdr), body...)
	binary.BigEndian.PutUint32(out[posBatchLength:], uint32(len(out)-BatchLogOverhead))
	attrs := binary.BigEndian.Uint16(out[posAttributes:])&^uint16(AttrCompressionMask) | uint16(codec)
	binary.BigEndian.PutUint16(out[posAttributes:], attrs)
	return vdRecrc(out)
}

// TestAGzipBatchIsStoredAsSentAndReadEverywhere: the leader decompresses a
// gzip batch to validate it and stores it compressed, as sent (only the
// header stamped); reads return those bytes; DecodeBatch, the lookups by
// time and compaction read its records; a follower copies the bytes
// without decompressing; recovery keeps them.
func TestAGzipBatchIsStoredAsSentAndReadEverywhere(t *testing.T) {
	dir := t.TempDir()
	opts := Options{IndexIntervalBytes: 1, SegmentBytes: 4096}
	l := stOpen(t, dir, opts)
	recs := stRecords(50, 40, func(i int) []byte { return []byte{'k', byte('0' + i%5)} })
	plain := stBatchOf(t, 0, 1_000, recs)
	sent := stCompress(t, plain, CompressionGzip)
	if len(sent) >= len(plain) {
		t.Fatalf("gzip did not shrink the batch: %d >= %d", len(sent), len(plain))
	}
	var all []byte
	for range 6 {
		b := bytes.Clone(sent)
		if _, err := l.AppendAsLeader(b, 2); err != nil {
			t.Fatalf("AppendAsLeader(gzip): %v", err)
		}
		if !bytes.Equal(b[posAttributes:], sent[posAttributes:]) {
			t.Fatal("the leader changed the compressed batch beyond its header stamps")
		}
		all = append(all, b...)
	}
	if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, all) {
		t.Fatal("read back differs from the batches as stamped")
	}
	decoded, err := DecodeBatches(all)
	if err != nil || len(decoded) != 6 || len(decoded[5].Records) != 50 || string(decoded[5].Records[7].Value) != string(recs[7].Value) {
		t.Fatalf("DecodeBatches: %d batches, %v", len(decoded), err)
	}
	stCheckLookups(t, l, "gzip batches")

	// A follower copies the bytes; it needs no decompressor for that.
	saved, _ := decompressorFor(CompressionGzip)
	decompressors[CompressionGzip].Store(nil)
	f := stOpen(t, t.TempDir(), opts)
	_, ferr := f.AppendAsFollower(bytes.Clone(all))
	decompressors[CompressionGzip].Store(&saved)
	if ferr != nil {
		t.Fatalf("AppendAsFollower without a gzip decompressor: %v", ferr)
	}
	if got := stReadAll(t, f, IsolationLogEnd); !bytes.Equal(got, all) {
		t.Fatal("the follower's copy differs")
	}

	// Recovery verifies the CRC and headers; the bytes stay.
	stClose(t, l)
	stUnflush(t, dir)
	l = stOpen(t, dir, opts)
	if got := stReadAll(t, l, IsolationLogEnd); !bytes.Equal(got, all) {
		t.Fatal("recovered log differs")
	}
	stCheckLookups(t, l, "gzip batches after recovery")

	// Compaction keeps a compressed batch whole, but its keys supersede
	// older records.
	if err := l.SetHighWatermark(l.EndOffset()); err != nil {
		t.Fatal(err)
	}
	older := stBatchOf(t, 0, 900, stRecords(3, 5, func(i int) []byte { return []byte{'k', '1'} }))
	c := stOpen(t, t.TempDir(), opts)
	for _, b := range [][]byte{older, bytes.Clone(sent), stBatch(t, 0, 60, 60, 2_000)} {
		if _, err := c.AppendAsLeader(b, 1); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.segments) < 2 {
		t.Fatalf("%d segments", len(c.segments))
	}
	n, err := c.Compact()
	if err != nil || n != 3 {
		t.Fatalf("Compact = %d, %v; want the 3 older k1 records removed, the gzip batch kept whole", n, err)
	}
	if got := stReadAll(t, c, IsolationLogEnd); !bytes.Contains(got, sent[posAttributes:]) {
		t.Fatal("the gzip batch did not survive compaction byte for byte")
	}
}

// TestCompressedBatchesThatCannotBeCheckedAreRefused: a codec with no
// decompressor is UNSUPPORTED_COMPRESSION_TYPE; a body that does not
// decompress, or whose records do not decode, is CORRUPT_MESSAGE; the
// refused append changes nothing.
func TestCompressedBatchesThatCannotBeCheckedAreRefused(t *testing.T) {
	l := stOpen(t, t.TempDir(), Options{})
	plain := stBatch(t, 0, 20, 30, 5)
	good := stCompress(t, plain, CompressionGzip)
	flipped := bytes.Clone(good)
	flipped[len(flipped)-6] ^= 0x40 // inside the deflate stream or its CRC-32
	badRecords := bytes.Clone(plain)
	badRecords[BatchHeaderSize] = 0xff // a record length that is no varint
	for _, tc := range []struct {
		name    string
		in      []byte
		want    error
		corrupt bool
	}{
		{"snappy, no decompressor", stWithBody(plain[:BatchHeaderSize], []byte("whatever"), CompressionSnappy), ErrUnsupportedCompression, false},
		{"zstd, no decompressor", stWithBody(plain[:BatchHeaderSize], []byte("whatever"), CompressionZstd), ErrUnsupportedCompression, false},
		{"codec 5, unknown to Kafka", stWithBody(plain[:BatchHeaderSize], []byte("whatever"), 5), ErrUnsupportedCompression, false},
		{"gzip that is not gzip", stWithBody(plain[:BatchHeaderSize], []byte("not gzip at all"), CompressionGzip), ErrBadCompressedData, true},
		{"gzip with a flipped bit", vdRecrc(flipped), ErrBadCompressedData, true},
		{"gzip cut short", stWithBody(plain[:BatchHeaderSize], good[BatchHeaderSize:len(good)-10], CompressionGzip), ErrBadCompressedData, true},
		{"gzip of records that do not decode", stCompress(t, badRecords, CompressionGzip), ErrBadLength, true},
	} {
		before := rvSnapshot(t, l)
		_, err := l.AppendAsLeader(bytes.Clone(tc.in), 1)
		if !errors.Is(err, tc.want) || errors.Is(err, ErrCorrupt) != tc.corrupt {
			t.Errorf("%s: %v, want %v (corrupt %v)", tc.name, err, tc.want, tc.corrupt)
		}
		if !before.equal(rvSnapshot(t, l)) {
			t.Errorf("%s: the log changed", tc.name)
		}
	}
	if _, err := l.AppendAsLeader(good, 1); err != nil {
		t.Fatalf("the good gzip batch: %v", err)
	}
}

// TestADecompressionBombIsRefusedWhileInflating: records that inflate past
// MaxInflation times MaxBatchBytes are CORRUPT_MESSAGE, and refusing them
// holds no more than about that bound in memory.
func TestADecompressionBombIsRefusedWhileInflating(t *testing.T) {
	opts := Options{MaxBatchBytes: 64 << 10, MaxInflation: 2}
	l := stOpen(t, t.TempDir(), opts)
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(make([]byte, 64<<20)) // 64 MiB of zeros in about 64 KiB
	w.Close()
	plain := stBatch(t, 0, 1, 1, 1)
	bomb := stWithBody(plain[:BatchHeaderSize], z.Bytes(), CompressionGzip)
	if len(bomb) > opts.MaxBatchBytes {
		t.Fatalf("bomb of %d bytes is over the batch limit", len(bomb))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := l.AppendAsLeader(bomb, 1)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrInflationLimit) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("AppendAsLeader(bomb) = %v, want ErrInflationLimit (CORRUPT_MESSAGE)", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*uint64(opts.MaxInflation*opts.MaxBatchBytes) {
		t.Fatalf("refusing the bomb allocated %d bytes, the bound is %d", grew, opts.MaxInflation*opts.MaxBatchBytes)
	}
	// Just under the bound is fine.
	recs := stRecords(1, 100<<10, nil)
	ok := stCompress(t, stBatchOf(t, 0, 1, recs), CompressionGzip)
	if _, err := l.AppendAsLeader(ok, 1); err != nil {
		t.Fatalf("a batch inflating to 100 KiB of a 128 KiB bound: %v", err)
	}
	if _, _, err := DecodeBatch(bomb); !errors.Is(err, ErrInflationLimit) {
		t.Fatalf("DecodeBatch(bomb) = %v, want ErrInflationLimit", err)
	}
}

// TestANestedModuleCanRegisterACodec: RegisterDecompressor makes a codec
// the main module lacks usable by every Log at once.
func TestANestedModuleCanRegisterACodec(t *testing.T) {
	defer decompressors[CompressionSnappy].Store(nil)
	// A stand-in for snappy: the "compressed" bytes are gzip, which is
	// all a Decompressor has to know.
	RegisterDecompressor(CompressionSnappy, func(dst, src []byte, limit int) ([]byte, error) {
		z, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return dst, err
		}
		return AppendDecompressed(dst, z, limit)
	})
	l := stOpen(t, t.TempDir(), Options{})
	b := stCompress(t, stBatch(t, 0, 5, 10, 1), CompressionSnappy)
	if _, err := l.AppendAsLeader(b, 1); err != nil {
		t.Fatalf("AppendAsLeader with a registered codec: %v", err)
	}
	for _, c := range []Compression{CompressionNone, 5, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterDecompressor(%v) did not panic", c)
				}
			}()
			RegisterDecompressor(c, gzipDecompressor)
		}()
	}
}

// FuzzValidateCompressedBatch: a batch compressed with gzip validates
// exactly as the same batch uncompressed (the same refusal, with error
// positions in the batch as decompressed, or the same header), and
// arbitrary bytes as a gzip body never panic and are refused as
// corruption or accepted only if they decompress to valid records.
func FuzzValidateCompressedBatch(f *testing.F) {
	for _, seed := range vdFuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < BatchHeaderSize {
			return
		}
		plain := bytes.Clone(data)
		if h, err := ReadBatchHeader(plain); err == nil && h.Attributes&AttrCompressionMask == 0 {
			plain = vdRecrc(plain[:h.Size()])
			zipped := stCompress(t, plain, CompressionGzip)
			ph, perr := validateLeaderBatch(plain, 1<<20)
			zh, zerr := validateLeaderBatch(zipped, 1<<20)
			switch {
			case (perr == nil) != (zerr == nil):
				t.Fatalf("plain: %v; gzip: %v", perr, zerr)
			case perr == nil && (ph.MaxTimestamp != zh.MaxTimestamp || ph.RecordCount != zh.RecordCount):
				t.Fatalf("plain %+v, gzip %+v", ph, zh)
			case perr != nil && !vdSameError(perr, zerr) && errors.Is(perr, ErrCorrupt) && perr.(*CorruptError).Pos >= BatchHeaderSize:
				t.Fatalf("plain: %v; gzip: %v", perr, zerr)
			}
		}
		raw := stWithBody(data[:BatchHeaderSize], data[BatchHeaderSize:], CompressionGzip)
		if _, err := validateLeaderBatch(raw, 1<<20); err != nil && !errors.Is(err, ErrCorrupt) &&
			!errors.Is(err, ErrInvalidRecord) && !errors.Is(err, ErrBatchTooLarge) {
			t.Fatalf("arbitrary gzip body: %v", err)
		}
	})
}

// BenchmarkValidateCompressedBatch measures the leader's validation of a
// gzip batch (decompress, walk every record, CRC) against decompressing
// the same bytes alone, with the same pooled reader, into a reused
// buffer: the ratio decompress/validate is what validation keeps of raw
// decompression's speed. 1 MB of records, 10,000 of 100 bytes, as a
// producer's largest default batch before compression, in two shapes: one
// value repeated (gzip takes it to a thirtieth, and decompresses it fastest)
// and JSON-like events. BENCHMARKS.md has the figures and the command.
func BenchmarkValidateCompressedBatch(b *testing.B) {
	repetitive, err := AppendBatch(nil, benchBatch(10000))
	if err != nil {
		b.Fatal(err)
	}
	// JSON-like events with varying ids, names and amounts (seeded), as
	// applications send them: gzip takes them to about a quarter.
	rng := rand.New(rand.NewPCG(1, 2))
	events := &Batch{BaseTimestamp: 1_700_000_000_000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: make([]Record, 10000)}
	for i := range events.Records {
		v := fmt.Appendf(nil, `{"id":%d,"user":"u-%05d","item":"sku-%04x","qty":%d,"amount":%d.%02d,"region":"%s"}`,
			1_000_000+i, rng.IntN(100000), rng.IntN(1<<16), 1+rng.IntN(9), rng.IntN(1000), rng.IntN(100),
			[]string{"eu-west", "us-east", "ap-south"}[rng.IntN(3)])
		events.Records[i] = Record{TimestampDelta: int64(i / 10), Key: fmt.Appendf(nil, "u-%05d", rng.IntN(100000)), Value: v}
	}
	events.SetSequentialOffsetDeltas()
	json, err := AppendBatch(nil, events)
	if err != nil {
		b.Fatal(err)
	}
	for _, shape := range []struct {
		name  string
		plain []byte
	}{{"repetitive", repetitive}, {"json", json}} {
		zipped := stCompress(b, shape.plain, CompressionGzip)
		b.Run(shape.name+"/decompress", func(b *testing.B) {
			out := make([]byte, 0, len(shape.plain))
			b.SetBytes(int64(len(shape.plain)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if out, err = gzipDecompressor(out[:0], zipped[BatchHeaderSize:], DefaultMaxInflatedBytes); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(shape.plain))/float64(len(zipped)), "ratio")
		})
		b.Run(shape.name+"/validate", func(b *testing.B) {
			b.SetBytes(int64(len(shape.plain)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := validateLeaderBatchInflating(zipped, len(zipped), DefaultMaxInflatedBytes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAppendDecompressedHoldsTheLimitWhileReading: a stream of exactly
// limit bytes is read whole; one byte more is ErrInflationLimit, found
// without reading further or growing dst past the limit; dst's contents
// are kept; the reader's own errors come back as they are.
func TestAppendDecompressedHoldsTheLimitWhileReading(t *testing.T) {
	const limit = 10_000
	data := bytes.Repeat([]byte("0123456789"), limit/10)
	got, err := AppendDecompressed([]byte("hdr"), bytes.NewReader(data), limit)
	if err != nil || !bytes.Equal(got, append([]byte("hdr"), data...)) {
		t.Fatalf("exactly the limit: %d bytes, %v", len(got), err)
	}
	endless := &countingReader{}
	got, err = AppendDecompressed(nil, endless, limit)
	if !errors.Is(err, ErrInflationLimit) || len(got) != limit || cap(got) > 2*limit || endless.n > limit+1 {
		t.Fatalf("an endless stream: len %d cap %d, read %d, %v; want ErrInflationLimit at %d", len(got), cap(got), endless.n, err, limit)
	}
	broken := io.MultiReader(bytes.NewReader(data[:10]), iotestErrReader{})
	if _, err := AppendDecompressed(nil, broken, limit); !errors.Is(err, errBrokenStream) {
		t.Fatalf("a failing stream: %v, want its error", err)
	}
}

// countingReader reads zeros forever, counting them.
type countingReader struct{ n int }

func (r *countingReader) Read(p []byte) (int, error) {
	clear(p)
	r.n += len(p)
	return len(p), nil
}

var errBrokenStream = errors.New("broken stream")

type iotestErrReader struct{}

func (iotestErrReader) Read([]byte) (int, error) { return 0, errBrokenStream }

// TestADecompressorThatOverrunsItsLimitIsRefused: a registered
// Decompressor that writes more than the limit it was given is refused as
// a bomb all the same; one that fails is ErrBadCompressedData.
func TestADecompressorThatOverrunsItsLimitIsRefused(t *testing.T) {
	defer decompressors[CompressionLZ4].Store(nil)
	plain := stBatch(t, 0, 5, 10, 1)
	b := stWithBody(plain[:BatchHeaderSize], []byte("x"), CompressionLZ4)
	RegisterDecompressor(CompressionLZ4, func(dst, src []byte, limit int) ([]byte, error) {
		return append(dst, make([]byte, limit+1)...), nil
	})
	if _, err := validateLeaderBatch(b, 1<<20); !errors.Is(err, ErrInflationLimit) {
		t.Fatalf("an overrunning decompressor: %v, want ErrInflationLimit", err)
	}
	RegisterDecompressor(CompressionLZ4, func(dst, src []byte, limit int) ([]byte, error) {
		return dst, errBrokenStream
	})
	if _, err := validateLeaderBatch(b, 1<<20); !errors.Is(err, ErrBadCompressedData) || errors.Is(err, errBrokenStream) {
		t.Fatalf("a failing decompressor: %v, want ErrBadCompressedData", err)
	}
}
