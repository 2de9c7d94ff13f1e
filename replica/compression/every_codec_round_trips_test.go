package compression

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
)

// TestEveryCodecRoundTripsBatchesOfKgoAndTheLibraryEncoders: a batch
// compressed by franz-go's producer compressor or by the codec library's
// own encoders, in each framing, decodes to the records it was made of,
// and a leader accepts it and stores it as sent (only the header stamped).
func TestEveryCodecRoundTripsBatchesOfKgoAndTheLibraryEncoders(t *testing.T) {
	for _, shape := range []struct {
		name       string
		n, size    int
		compressed bool // must the encoders shrink it
	}{{"one record", 1, 40, false}, {"2000 records", 2000, 100, true}, {"1 MiB of records", 10000, 100, true}} {
		plain := plainBatch(t, shape.n, shape.size)
		want, _, err := log.DecodeBatch(plain)
		if err != nil {
			t.Fatal(err)
		}
		for _, enc := range encoders {
			body := enc.encode(t, plain[log.BatchHeaderSize:])
			sent := withBody(t, plain, body, enc.codec)
			if shape.compressed && len(sent) >= len(plain) {
				t.Errorf("%s, %s: %d bytes compressed from %d", shape.name, enc.name, len(sent), len(plain))
			}
			got, n, err := log.DecodeBatch(sent)
			if err != nil || n != len(sent) {
				t.Errorf("%s, %s: DecodeBatch = %d, %v (seed %d)", shape.name, enc.name, n, err, testSeed)
				continue
			}
			if i := firstDifference(want.Records, got.Records); i >= 0 || log.CompressionOf(got.Attributes) != enc.codec {
				t.Errorf("%s, %s: codec %v, record %d of %d differs", shape.name, enc.name, log.CompressionOf(got.Attributes), i, len(want.Records))
			}
			l, err := log.Open("/log", log.Options{FS: vfs.NewMem(), SegmentBytes: 8 << 20})
			if err != nil {
				t.Fatal(err)
			}
			b := bytes.Clone(sent)
			if _, err := l.AppendAsLeader(b, 3); err != nil {
				t.Errorf("%s, %s: AppendAsLeader: %v", shape.name, enc.name, err)
			} else if h, _ := log.ReadBatchHeader(b); !bytes.Equal(b[log.BatchHeaderSize:], body) || h.Attributes != got.Attributes || h.PartitionLeaderEpoch != 3 {
				t.Errorf("%s, %s: the leader changed the compressed batch beyond its header stamps", shape.name, enc.name)
			}
			l.Close()
		}
	}
}

// TestTruncatedOrGarbledBodiesAreCorrupt: a compressed body cut anywhere
// is CORRUPT_MESSAGE (log.ErrCorrupt), never records; one with a flipped
// bit is too, for the codecs that checksum their data (lz4, zstd; a
// snappy block has no checksum of its own: the batch CRC, computed over
// the compressed bytes, is what catches a flip, and here it is
// recomputed), and never panics.
func TestTruncatedOrGarbledBodiesAreCorrupt(t *testing.T) {
	plain := plainBatch(t, 300, 100)
	for _, enc := range encoders {
		body := enc.encode(t, plain[log.BatchHeaderSize:])
		for _, cut := range []int{0, 1, 4, 7, 15, 16, 17, len(body) / 3, len(body) / 2, len(body) - 5, len(body) - 1} {
			_, _, err := log.DecodeBatch(withBody(t, plain, body[:cut], enc.codec))
			if !errors.Is(err, log.ErrCorrupt) {
				t.Errorf("%s cut to %d of %d bytes: %v, want log.ErrCorrupt", enc.name, cut, len(body), err)
			}
		}
		for _, at := range []int{0, 3, 5, 6, 9, 20, len(body) / 2, len(body) - 3} {
			garbled := bytes.Clone(body)
			garbled[at] ^= 0x10
			_, _, err := log.DecodeBatch(withBody(t, plain, garbled, enc.codec))
			if err != nil && !errors.Is(err, log.ErrCorrupt) {
				t.Errorf("%s with byte %d flipped: %v, want log.ErrCorrupt", enc.name, at, err)
			}
			if err == nil && !enc.unchecked {
				t.Errorf("%s with byte %d flipped decoded: its checksums did not catch it", enc.name, at)
			}
		}
	}
	// Bytes after the last xerial chunk that are no chunk.
	body := append(xerial(1<<10)(t, plain[log.BatchHeaderSize:]), 0, 0, 1)
	if _, _, err := log.DecodeBatch(withBody(t, plain, body, log.CompressionSnappy)); !errors.Is(err, log.ErrBadCompressedData) {
		t.Errorf("xerial with a torn chunk header after its chunks: %v, want log.ErrBadCompressedData", err)
	}
}
