// Package compression registers the snappy, lz4 and zstd decompressors
// with package log, so that a Log validates (and DecodeBatch reads)
// batches compressed with every codec Kafka defines. Import it for its
// side effect, as image/png is imported:
//
//	import _ "github.com/kaenlog/kaenlog/replica/compression"
//
// gzip is built into log (the standard library's); this package adds
// the three codecs that need libraries, the ones franz-go uses:
// github.com/klauspost/compress (s2 for snappy, zstd) and
// github.com/pierrec/lz4/v4. It is a module of its own so that the main
// module keeps its two dependencies.
//
// # Formats
//
// They are the formats Kafka's clients write into a RecordBatch v2:
//
//   - snappy (codec 2): either the xerial framing the Java client writes
//     (the 8-byte magic "\x82SNAPPY\x00", a version and a compatible
//     version, then chunks, each a big-endian int32 length and a raw
//     snappy block; Kafka's SnappyOutputStream from snappy-java), or one
//     raw snappy block, as librdkafka and franz-go write it. The xerial
//     magic tells them apart, as Kafka's and franz-go's readers do. The
//     blocks are decoded by s2's decoder, which also reads s2's extension
//     of snappy (a repeated offset), as franz-go does.
//   - lz4 (codec 3): LZ4 frames (lz4 frame format 1.6) with a correct
//     header checksum, which KIP-57 made the rule for magic 1 and later.
//     The frame header, block and content checksums are verified.
//   - zstd (codec 4): zstd frames (RFC 8878), skippable frames allowed,
//     checksums verified.
//
// # Limits
//
// log passes each decompressor the bound of what the records may inflate
// to (log.Options.MaxInflation times MaxBatchBytes); more is
// log.ErrInflationLimit, Kafka's CORRUPT_MESSAGE. Every size the
// compressed data claims is bounded by it before anything is allocated
// for it:
//
//   - snappy: each block's decoded length, summed over the xerial chunks
//     before the first is decoded;
//   - zstd: the frame and block headers are read first (a frame's
//     declared content size above the bound is refused there); when the
//     blocks they allow fit the bound, one shared decoder (safe for
//     concurrent DecodeAll, which decodes into the output, so the window
//     needs no memory of its own) decodes them; otherwise a decoder of
//     that bound (WithDecoderMaxMemory, which also bounds the window)
//     decodes into a buffer of the bound and stops a bomb there. A frame
//     without a content size whose window exceeds the bound and whose
//     output comes within a block of it is refused as a bomb;
//   - lz4: a frame declaring a block maximum size above the bound is
//     refused before the reader takes a block buffer (franz-go writes
//     4 MiB blocks, so a log whose bound is under 4 MiB refuses them);
//     the frames stream into the output through log.AppendDecompressed,
//     which stops one byte past the bound.
//
// Decoders are pooled (lz4), shared (zstd) or stateless (snappy), and
// each decodes straight into the buffer log hands it (one of a pool the
// Logs share), so validating a compressed batch costs its decompression
// and the record walk, with no copy between them: zstd decodes into an
// empty slice over the buffer's room after the batch header, sized from
// the frame headers' bound, since its decoder copies every block when
// handed a slice that is not empty (BENCHMARKS.md).
//
// Bodies that do not decompress (truncated, garbled, a checksum that
// does not match, bytes after the last xerial chunk that are no chunk)
// are log.ErrBadCompressedData.
package compression
