package log

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Field positions within a batch; BatchHeader documents the layout. Every
// read of a stored header goes through them (or ReadBatchHeader).
const (
	posBaseOffset           = 0
	posBatchLength          = 8
	posPartitionLeaderEpoch = 12
	posMagic                = 16
	posCRC                  = 17
	posAttributes           = 21
	posLastOffsetDelta      = 23
	posBaseTimestamp        = 27
	posMaxTimestamp         = 35
	posProducerID           = 43
	posProducerEpoch        = 51
	posBaseSequence         = 53
	posRecordCount          = 57
)

// storedSize is the size of the batch whose header starts hdr (at least
// its first 12 bytes), from its batchLength field, unchecked: a corrupt
// length gives a size below BatchHeaderSize, which every caller refuses.
func storedSize(hdr []byte) int64 {
	return BatchLogOverhead + int64(int32(binary.BigEndian.Uint32(hdr[posBatchLength:])))
}

// storedBaseOffset and storedLastOffsetDelta read those fields of the
// header at hdr[0:], unchecked.
func storedBaseOffset(hdr []byte) uint64 { return binary.BigEndian.Uint64(hdr[posBaseOffset:]) }

func storedLastOffsetDelta(hdr []byte) uint32 {
	return binary.BigEndian.Uint32(hdr[posLastOffsetDelta:])
}

// storedAttributes reads the attributes of the header at hdr[0:], unchecked.
func storedAttributes(hdr []byte) int16 { return int16(binary.BigEndian.Uint16(hdr[posAttributes:])) }

// BatchHeaderSize is the number of bytes of a RecordBatch v2 before its first
// record. A batch is never shorter.
const BatchHeaderSize = 61

// BatchLogOverhead is the size of the baseOffset and batchLength fields, the
// bytes of a batch that batchLength does not count: a batch occupies
// BatchLogOverhead + batchLength bytes.
const BatchLogOverhead = 12

// Magic is the record format version this package reads and writes (Kafka's
// RecordBatch v2). Any other value at byte 16 is ErrBadMagic.
const Magic = 2

// minBatchLength is the smallest legal batchLength: a header with no records.
const minBatchLength = BatchHeaderSize - BatchLogOverhead

// BatchHeader is the decoded fixed part of a RecordBatch v2 (Kafka's
// DefaultRecordBatch, magic 2). On disk and on the wire, all integers
// big-endian:
//
//	pos  size  field
//	  0     8  baseOffset            offset of the first record; stamped by the leader
//	  8     4  batchLength           bytes after this field
//	 12     4  partitionLeaderEpoch  epoch of the leader that appended the batch; stamped by it
//	 16     1  magic                 always 2
//	 17     4  crc                   CRC-32C of bytes [21, end of batch)
//	 21     2  attributes            see AttrCompressionMask and friends
//	 23     4  lastOffsetDelta       last offset minus baseOffset
//	 27     8  baseTimestamp
//	 35     8  maxTimestamp          retention by time reads it
//	 43     8  producerId            -1 when none
//	 51     2  producerEpoch         -1 when none
//	 53     4  baseSequence          -1 when none
//	 57     4  recordCount
//	 61        records (varint-framed, see Record)
//
// baseOffset and partitionLeaderEpoch sit before the CRC'd range on purpose:
// a leader assigns both when it appends a producer's batch, and because the
// CRC does not cover them it can stamp them in place (SetBaseOffset,
// SetPartitionLeaderEpoch) without recomputing the checksum the producer
// wrote. Followers then copy the stamped bytes verbatim, and any replica can
// still verify them end to end.
//
// Values returned by ReadBatchHeader satisfy: Magic == 2, BatchLength >= 49,
// BaseOffset and LastOffset() fit int64, LastOffsetDelta >= 0,
// RecordCount >= 0.
type BatchHeader struct {
	BaseOffset           uint64 // offset of the first record; int64 >= 0 on disk
	BatchLength          int32  // bytes after the batchLength field
	PartitionLeaderEpoch int32  // epoch of the leader that appended the batch
	Magic                int8   // record format version; always Magic
	CRC                  uint32 // CRC-32C of the bytes from attributes to the end
	Attributes           int16  // compression, timestamp type, transactional, control bits
	LastOffsetDelta      int32  // LastOffset() - BaseOffset
	BaseTimestamp        int64  // timestamp of the first record, ms
	MaxTimestamp         int64  // largest timestamp in the batch, ms
	ProducerID           int64  // -1 when none
	ProducerEpoch        int16  // -1 when none
	BaseSequence         int32  // -1 when none
	RecordCount          int32  // number of records; may be below LastOffsetDelta+1 after compaction
}

// Size returns the total number of bytes the batch occupies:
// BatchLogOverhead + BatchLength.
func (h BatchHeader) Size() int { return BatchLogOverhead + int(h.BatchLength) }

// LastOffset returns the offset of the batch's last record (or of the last
// record it had before compaction): BaseOffset + LastOffsetDelta.
func (h BatchHeader) LastOffset() uint64 { return h.BaseOffset + uint64(h.LastOffsetDelta) }

// NextOffset returns the offset that follows the batch: LastOffset() + 1.
// Appending this batch moves the log end offset to it.
func (h BatchHeader) NextOffset() uint64 { return h.LastOffset() + 1 }

// ReadBatchHeader parses the batch header at buf[0:] and checks its framing
// only, in this order:
//   - at least BatchHeaderSize bytes, else ErrTruncated (Pos 0);
//   - magic == 2, else ErrBadMagic (Pos 16);
//   - batchLength >= BatchHeaderSize-BatchLogOverhead, else ErrBadLength (Pos 8);
//   - BatchLogOverhead+batchLength bytes present, else ErrTruncated (Pos 0);
//   - baseOffset >= 0, else ErrBadOffset (Pos 0);
//   - lastOffsetDelta >= 0 and the last offset fits int64, else ErrBadOffset (Pos 23);
//   - recordCount >= 0, else ErrNegativeCount (Pos 57).
//
// It does not check the CRC (see VerifyBatch) nor decode the records. Bytes
// after the batch are ignored. It does not allocate unless it fails; errors
// are *CorruptError.
func ReadBatchHeader(buf []byte) (BatchHeader, error) {
	if len(buf) < BatchHeaderSize {
		return BatchHeader{}, corruptAt(0, ErrTruncated)
	}
	h := BatchHeader{
		BatchLength:          int32(binary.BigEndian.Uint32(buf[posBatchLength:])),
		PartitionLeaderEpoch: int32(binary.BigEndian.Uint32(buf[posPartitionLeaderEpoch:])),
		Magic:                int8(buf[posMagic]),
		CRC:                  binary.BigEndian.Uint32(buf[posCRC:]),
		Attributes:           int16(binary.BigEndian.Uint16(buf[posAttributes:])),
		LastOffsetDelta:      int32(binary.BigEndian.Uint32(buf[posLastOffsetDelta:])),
		BaseTimestamp:        int64(binary.BigEndian.Uint64(buf[posBaseTimestamp:])),
		MaxTimestamp:         int64(binary.BigEndian.Uint64(buf[posMaxTimestamp:])),
		ProducerID:           int64(binary.BigEndian.Uint64(buf[posProducerID:])),
		ProducerEpoch:        int16(binary.BigEndian.Uint16(buf[posProducerEpoch:])),
		BaseSequence:         int32(binary.BigEndian.Uint32(buf[posBaseSequence:])),
		RecordCount:          int32(binary.BigEndian.Uint32(buf[posRecordCount:])),
	}
	if h.Magic != Magic {
		return BatchHeader{}, corruptAt(posMagic, ErrBadMagic)
	}
	if h.BatchLength < minBatchLength {
		return BatchHeader{}, corruptAt(posBatchLength, ErrBadLength)
	}
	if len(buf)-BatchLogOverhead < int(h.BatchLength) {
		return BatchHeader{}, corruptAt(0, ErrTruncated)
	}
	base := int64(binary.BigEndian.Uint64(buf[posBaseOffset:]))
	if base < 0 {
		return BatchHeader{}, corruptAt(posBaseOffset, ErrBadOffset)
	}
	if h.LastOffsetDelta < 0 || base > math.MaxInt64-int64(h.LastOffsetDelta) {
		return BatchHeader{}, corruptAt(posLastOffsetDelta, ErrBadOffset)
	}
	if h.RecordCount < 0 {
		return BatchHeader{}, corruptAt(posRecordCount, ErrNegativeCount)
	}
	h.BaseOffset = uint64(base)
	return h, nil
}

// VerifyBatch is ReadBatchHeader plus the CRC-32C check over bytes
// [21, h.Size()): a mismatch is ErrBadCRC (Pos 17). A nil error means the
// batch's bytes are exactly what its writer checksummed (apart from the
// unchecksummed baseOffset and partitionLeaderEpoch); the records themselves
// are not parsed. It does not allocate unless it fails.
func VerifyBatch(buf []byte) (BatchHeader, error) {
	h, err := ReadBatchHeader(buf)
	if err != nil {
		return BatchHeader{}, err
	}
	if ChecksumCRC32C(buf[posAttributes:h.Size()]) != h.CRC {
		return BatchHeader{}, corruptAt(posCRC, ErrBadCRC)
	}
	return h, nil
}

// PutBatchHeader writes h as the header of the batch that is all of batch:
// BatchHeaderSize bytes of room, then the encoded records. It sets Magic,
// BatchLength (len(batch) - BatchLogOverhead) and the CRC-32C of bytes [21,
// len(batch)), ignoring those fields of h. A producer builds a batch in
// place with it: each record encoded once onto a buffer that starts with
// room for the header, the header last. It fails, writing nothing, if batch
// is shorter than BatchHeaderSize or longer than an int32 length
// (ErrBadLength), or if h's offsets or record count are negative or do not
// fit int64 (ErrBadOffset, ErrNegativeCount). The records are not checked.
func PutBatchHeader(batch []byte, h BatchHeader) error {
	switch {
	case len(batch) < BatchHeaderSize || len(batch)-BatchLogOverhead > math.MaxInt32:
		return fmt.Errorf("log: PutBatchHeader: a batch of %d bytes: %w", len(batch), ErrBadLength)
	case h.LastOffsetDelta < 0 || h.BaseOffset > math.MaxInt64-uint64(h.LastOffsetDelta):
		return fmt.Errorf("log: PutBatchHeader: base offset %d, last offset delta %d: %w", h.BaseOffset, h.LastOffsetDelta, ErrBadOffset)
	case h.RecordCount < 0:
		return fmt.Errorf("log: PutBatchHeader: record count %d: %w", h.RecordCount, ErrNegativeCount)
	}
	putBatchHeader(batch, &h)
	return nil
}

// putBatchHeader is PutBatchHeader for arguments already checked.
func putBatchHeader(batch []byte, h *BatchHeader) {
	binary.BigEndian.PutUint64(batch[posBaseOffset:], h.BaseOffset)
	binary.BigEndian.PutUint32(batch[posBatchLength:], uint32(len(batch)-BatchLogOverhead))
	binary.BigEndian.PutUint32(batch[posPartitionLeaderEpoch:], uint32(h.PartitionLeaderEpoch))
	batch[posMagic] = Magic
	binary.BigEndian.PutUint16(batch[posAttributes:], uint16(h.Attributes))
	binary.BigEndian.PutUint32(batch[posLastOffsetDelta:], uint32(h.LastOffsetDelta))
	binary.BigEndian.PutUint64(batch[posBaseTimestamp:], uint64(h.BaseTimestamp))
	binary.BigEndian.PutUint64(batch[posMaxTimestamp:], uint64(h.MaxTimestamp))
	putProducer(batch, h.ProducerID, h.ProducerEpoch, h.BaseSequence)
	binary.BigEndian.PutUint32(batch[posRecordCount:], uint32(h.RecordCount))
	binary.BigEndian.PutUint32(batch[posCRC:], ChecksumCRC32C(batch[posAttributes:]))
}

// putProducer writes the producer fields; the caller writes the CRC.
func putProducer(batch []byte, id int64, epoch int16, seq int32) {
	binary.BigEndian.PutUint64(batch[posProducerID:], uint64(id))
	binary.BigEndian.PutUint16(batch[posProducerEpoch:], uint16(epoch))
	binary.BigEndian.PutUint32(batch[posBaseSequence:], uint32(seq))
}

// SetProducer overwrites the producer id, epoch and base sequence of the
// batch at batch[0:] in place and recomputes its CRC (the fields are inside
// the checksummed range): an idempotent producer renumbers a batch that was
// never written under a new epoch. It fails, changing nothing, if the header
// does not frame a batch within batch (ReadBatchHeader's errors, or
// ErrTruncated). It does not allocate unless it fails.
func SetProducer(batch []byte, id int64, epoch int16, seq int32) error {
	h, err := ReadBatchHeader(batch)
	if err != nil {
		return err
	}
	if h.Size() > len(batch) {
		return corruptAt(posBatchLength, ErrTruncated)
	}
	putProducer(batch, id, epoch, seq)
	binary.BigEndian.PutUint32(batch[posCRC:], ChecksumCRC32C(batch[posAttributes:h.Size()]))
	return nil
}

// SetBaseOffset overwrites the baseOffset field of the batch at batch[0:] in
// place. baseOffset is outside the CRC'd range, so the stored CRC stays valid
// and is left untouched. It fails, changing nothing, if batch is shorter than
// BatchHeaderSize (*CorruptError, ErrTruncated), if the stored lastOffsetDelta
// is negative (*CorruptError, ErrBadOffset) or if base or base+lastOffsetDelta
// does not fit int64 (ErrBadOffset, not a CorruptError: the input is fine,
// the requested offset is not). It does not allocate unless it fails.
func SetBaseOffset(batch []byte, base uint64) error {
	if len(batch) < BatchHeaderSize {
		return corruptAt(0, ErrTruncated)
	}
	delta := int32(binary.BigEndian.Uint32(batch[posLastOffsetDelta:]))
	if delta < 0 {
		return corruptAt(posLastOffsetDelta, ErrBadOffset)
	}
	if base > math.MaxInt64-uint64(delta) {
		return fmt.Errorf("log: base offset %d with last offset delta %d does not fit int64: %w", base, delta, ErrBadOffset)
	}
	binary.BigEndian.PutUint64(batch[posBaseOffset:], base)
	return nil
}

// SetPartitionLeaderEpoch overwrites the partitionLeaderEpoch field of the
// batch at batch[0:] in place. The field is outside the CRC'd range, so the
// stored CRC stays valid and is left untouched. It fails, changing nothing,
// if batch is shorter than BatchHeaderSize (*CorruptError, ErrTruncated). It
// does not allocate unless it fails.
func SetPartitionLeaderEpoch(batch []byte, epoch int32) error {
	if len(batch) < BatchHeaderSize {
		return corruptAt(0, ErrTruncated)
	}
	binary.BigEndian.PutUint32(batch[posPartitionLeaderEpoch:], uint32(epoch))
	return nil
}
