package log

import (
	"errors"
	"fmt"
)

// Codec sentinel errors. Every error returned by the batch decoders
// (ReadBatchHeader, VerifyBatch, DecodeBatch, DecodeBatches, CountRecords,
// BatchScanner) is a *CorruptError wrapping exactly one of these, so callers
// can match the specific cause with errors.Is, or ask "corrupt at all?" with
// ErrCorrupt — but for DecodeBatch and DecodeBatches on a compressed batch
// whose codec has no registered Decompressor: ErrUnsupportedCompression,
// which is not corruption.
var (
	// ErrCorrupt matches every *CorruptError: errors.Is(err, ErrCorrupt) is
	// true for any decode failure, whatever its specific cause.
	ErrCorrupt = errors.New("log: corrupt record batch")

	// ErrTruncated is returned when the input holds fewer bytes than the
	// batch header (61 bytes) or than its batchLength field announces. At
	// the end of a segment this is the torn tail of an interrupted write.
	ErrTruncated = errors.New("log: truncated record batch")

	// ErrBadMagic is returned when the magic byte at position 16 is not 2
	// (Magic): the bytes are not a RecordBatch v2.
	ErrBadMagic = errors.New("log: bad record batch magic")

	// ErrBadCRC is returned when the CRC-32C stored at position 17 does not
	// match the bytes from the attributes field to the end of the batch.
	ErrBadCRC = errors.New("log: record batch CRC mismatch")

	// ErrBadLength is returned when a length is impossible or inconsistent:
	// a batchLength smaller than the fixed header, a record length that runs
	// past the batch or disagrees with the record's fields, a key, value or
	// header that runs past its record, or bytes left over after the last
	// record of a batch. AppendBatch also returns it for a batch too large to
	// describe in int32 lengths.
	ErrBadLength = errors.New("log: bad record batch length")

	// ErrVarintOverflow is returned when a varint is longer than 5 bytes or
	// its value does not fit 32 bits, or a varlong is longer than 10 bytes or
	// does not fit 64 bits. (A varint cut short by the end of its record is
	// ErrBadLength.)
	ErrVarintOverflow = errors.New("log: varint overflow")

	// ErrNegativeCount is returned for a negative record count, a negative
	// header count, or a negative key, value or header length other than -1
	// (which means null for keys, values and header values; header keys
	// cannot be null, so -1 is rejected there too).
	ErrNegativeCount = errors.New("log: negative count or length")

	// ErrBadOffset is returned for a negative baseOffset or lastOffsetDelta
	// read from disk, a batch whose last offset does not fit int64, and a
	// record offsetDelta that is negative, not above the previous record's,
	// or beyond the batch's lastOffsetDelta. The storage uses it for a
	// stored batch that starts below the end of the batch before it, or a
	// segment's last batch that runs past the next segment's base.
	// SetBaseOffset and AppendBatch
	// return it (not wrapped in a CorruptError) for offsets that do not fit
	// int64 or record offset deltas that are not strictly increasing from 0
	// or more.
	ErrBadOffset = errors.New("log: bad offset")

	// ErrBadCompressedData is returned when a compressed batch's records
	// do not decompress with its codec (Pos is BatchHeaderSize, where they
	// start). It maps to Kafka's CORRUPT_MESSAGE, as every CorruptError.
	ErrBadCompressedData = errors.New("log: compressed records do not decompress")

	// ErrInflationLimit is returned when a compressed batch's records
	// inflate past the bound (Options.MaxInflation times
	// Options.MaxBatchBytes for a Log, DefaultMaxInflatedBytes for
	// DecodeBatch): a decompression bomb, refused while decompressing,
	// before more than the bound is held.
	ErrInflationLimit = errors.New("log: compressed records inflate past the limit")
)

// Errors for well-formed input this codec does not handle. They are not
// corruption: they are never wrapped in a *CorruptError and do not match
// ErrCorrupt, so a storage layer must not treat them as a torn tail.
var (
	// ErrCompressed is returned by AppendBatch when asked to set the
	// compression bits: this package decompresses (see
	// RegisterDecompressor) but never compresses. ReadBatchHeader,
	// VerifyBatch, CountRecords and BatchScanner do not look at the
	// records and accept compressed batches; DecodeBatch decompresses them.
	ErrCompressed = errors.New("log: compressing record batches is not supported")

	// ErrEmptyBatch is returned by AppendBatch for a batch with no records:
	// a producer never sends one, and its offsets would be meaningless.
	ErrEmptyBatch = errors.New("log: record batch has no records")
)

// CorruptError reports where and why decoding a record batch failed, or,
// with File set, where and why the storage stopped trusting a segment file.
// Err is one of the codec sentinels (ErrTruncated, ErrBadMagic, ErrBadCRC,
// ErrBadLength, ErrVarintOverflow, ErrNegativeCount, ErrBadOffset) or one of
// the storage's (ErrHole, ErrEpochMismatch).
type CorruptError struct {
	// Pos is the byte position in the decoder's input (buf[0] is 0) of the
	// field at which decoding failed: the magic byte for ErrBadMagic, the crc
	// field for ErrBadCRC, the varint or length for record errors. For
	// ErrTruncated it is the start of the incomplete batch, so a storage
	// layer can cut a torn tail at exactly Pos.
	Pos int
	// Err is the specific sentinel.
	Err error
	// File is the segment file the storage found the damage in, with Pos
	// its byte position in that file; "" for errors about a caller's bytes.
	File string
}

// Error describes the failure and its position.
func (e *CorruptError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%v in %s at byte %d", e.Err, e.File, e.Pos)
	}
	return fmt.Sprintf("%v at byte %d", e.Err, e.Pos)
}

// Unwrap returns the specific sentinel, so errors.Is(err, ErrBadCRC) works.
func (e *CorruptError) Unwrap() error { return e.Err }

// Is reports true for ErrCorrupt, so every decode error matches it.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// corruptAt builds a *CorruptError. It is a function so that the error is only
// allocated on the failure path.
func corruptAt(pos int, err error) error {
	return &CorruptError{Pos: pos, Err: err}
}
