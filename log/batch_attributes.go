package log

// Bits of the RecordBatch v2 attributes field (Kafka's DefaultRecordBatch):
//
//	bits 0-2  compression codec (Compression; this package writes only 0
//	          and decompresses through RegisterDecompressor)
//	bit 3     timestamp type (0 = CreateTime, 1 = LogAppendTime)
//	bit 4     transactional
//	bit 5     control batch (transaction markers)
//	bit 6     delete horizon set (compaction)
//	bits 7-15 unused
//
// The codec keeps attributes as given; these constants let callers test and
// set the bits by name.
const (
	// AttrCompressionMask selects the compression codec bits
	// (CompressionOf). A batch with any of them set is compressed;
	// DecodeBatch decompresses it.
	AttrCompressionMask int16 = 0x07
	// AttrLogAppendTime marks a batch whose MaxTimestamp was set by the
	// broker rather than the producer.
	AttrLogAppendTime int16 = 0x08
	// AttrTransactional marks a batch written inside a transaction.
	AttrTransactional int16 = 0x10
	// AttrControl marks a batch of control records (transaction markers),
	// which consumers never see as data.
	AttrControl int16 = 0x20
	// AttrDeleteHorizon marks a batch whose BaseTimestamp holds the
	// compaction delete horizon instead of the first record's timestamp.
	AttrDeleteHorizon int16 = 0x40
)
