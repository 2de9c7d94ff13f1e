// Package log is one Kafka partition replica on disk: RecordBatch v2 batches
// (byte-compatible with Kafka's DefaultRecordBatch) kept in a directory of
// segments, with the offsets replication is built on.
//
// The package has two halves. The codec (ReadBatchHeader, VerifyBatch,
// AppendBatch, DecodeBatch, BatchScanner, ...) reads and writes batches. The
// storage (Open and the methods of Log) keeps them: appends and reads never
// re-encode a batch, so what a producer checksummed is what a follower or
// consumer reads, byte for byte (only compaction rewrites batches).
//
// # A partition is a directory
//
//	orders-0/
//	    00000000000000000000.log      segment: batches with offsets >= 0
//	    00000000000000000000.index    its sparse offset index
//	    00000000000000004127.log      next segment, rolled at offset 4127
//	    00000000000000004127.index
//	    high-watermark-checkpoint     the HW, written atomically
//
// A segment is named by its base offset, zero-padded to 20 digits as in
// Kafka, so names sort in offset order. It holds whole batches exactly as
// they arrived on the wire; the last segment is the active one and the only
// one written to. An append that would take a non-empty active segment past
// Options.SegmentBytes rolls a new segment whose base offset is the log end
// offset. One append is never split across segments.
//
// A Log knows three offsets. StartOffset is the first offset it can still
// serve (the oldest segment's base; retention raises it). EndOffset, the log
// end offset or LEO, is the offset the next record gets: 0 for an empty log,
// never -1. HighWatermark is an exclusive bound: offsets below it are
// committed. StartOffset <= HighWatermark <= EndOffset always.
//
// # On-disk formats
//
// A batch (big-endian; Kafka RecordBatch v2, magic 2):
//
//	offset width field
//	     0     8 baseOffset            stamped by the leader; not in the CRC
//	     8     4 batchLength           bytes after this field
//	    12     4 partitionLeaderEpoch  stamped by the leader; not in the CRC
//	    16     1 magic                 2
//	    17     4 crc                   CRC-32C of bytes [21, end of batch)
//	    21     2 attributes
//	    23     4 lastOffsetDelta       last offset = baseOffset + this
//	    27     8 baseTimestamp
//	    35     8 maxTimestamp          retention by time reads this
//	    43     8 producerId
//	    51     2 producerEpoch
//	    53     4 baseSequence
//	    57     4 recordCount
//	    61     - records (varint-framed)
//
// An index entry (8 bytes, big-endian, as in Kafka's OffsetIndex):
//
//	offset width field
//	     0     4 relative offset  batch base offset - segment base offset
//	     4     4 position         byte position of that batch in the .log
//
// A batch gets an entry when it starts at least Options.IndexIntervalBytes
// (default 4096) after the previous entry, or after the segment start. A
// read binary-searches the entries for the last one at or below its offset
// and reads batch headers forward from there: less than one interval plus
// one batch, never the whole segment. Unlike Kafka, which keys an entry by
// the batch's last offset, entries here are keyed by its base offset, so
// every entry names a batch boundary that can be checked.
//
// The high-watermark checkpoint is two text lines, a version and the HW:
//
//	0
//	4127
//
// It is replaced atomically (write a temporary file, fsync it, rename it
// over the old one, fsync the directory) by CheckpointHighWatermark, Close,
// and TruncateTo when it lowers the HW.
//
// # Guarantees
//
// Appends are all-or-nothing. AppendAsLeader and AppendAsFollower verify
// every batch (framing and CRC-32C) before writing anything; a corrupt or
// misplaced batch is an error and the log is unchanged. The leader stamps
// baseOffset and partitionLeaderEpoch in place in the caller's slice; the
// CRC does not cover them, so it is never recomputed. A follower keeps the
// leader's bytes and offsets and must continue its log exactly
// (ErrNotAtLogEnd otherwise).
//
// Readers never see a partial batch. A Log is safe for concurrent use:
// mutations are serialized, and Read runs alongside them, copying with
// pread only bytes that were completely written before it started.
//
// Durability is the SyncPolicy. SyncNever (the default) survives a process
// crash: the bytes are in the page cache when an append returns. With
// SyncEveryAppend an append returns only after an fsync, so it survives
// power loss. Flush forces everything out on demand. Index files are never
// fsynced: they are derived from the segments.
//
// Open recovers whatever a crash left. It reads every segment and verifies
// every batch; at the first torn, corrupt or out-of-order batch it truncates
// that segment there and deletes every later segment, because nothing after
// a hole can be trusted to continue the log. Every batch before that point
// survives. Index files that are missing, torn or wrong are rebuilt from
// their segments, and leftover temporary files are deleted. A missing HW
// checkpoint means HW 0; an empty or garbled one makes Open fail with
// ErrBadCheckpoint rather than guess; one above the recovered LEO is clamped
// to it (the records it covered were torn off, possible with SyncNever).
//
// Offsets never move. Retention (DeleteRetainedSegments) forgets whole
// oldest segments, never the active one and never one holding an offset at
// or above the HW. Compaction (Compact) keeps the newest record of every key
// in closed segments below the HW, rewriting batches in place of their
// original offsets, and swaps each segment in by rename, so a crash leaves
// either the old or the new file.
//
// # Eager high watermark
//
// A new Log is in eager-HW mode: every append moves the HW to the new LEO.
// That is not a shortcut but Kafka's rule for one replica: the HW is the
// smallest LEO among the in-sync replicas, and with one replica that is the
// leader's own. With a second replica it stops being true, and the HW must
// come from the replication layer, which learns each follower's LEO from
// its fetch requests. The course's Cluster::open does exactly this for both
// brokers before anything else:
//
//	leader.partition.log_guard().stop_eager_high_watermark();
//	follower.partition.log_guard().stop_eager_high_watermark();
//
// In Go that is StopEagerHighWatermark. Afterwards only SetHighWatermark
// raises the HW (never backwards) and only TruncateTo lowers it, and the
// LEO runs ahead of the HW: IsolationLogEnd reads (followers) see records
// that IsolationHighWatermark reads (consumers) do not see yet.
//
// # Errors
//
// Conditions a caller can act on wrap exported sentinels, matched with
// errors.Is: ErrOffsetOutOfRange, ErrNotAtLogEnd, ErrClosed,
// ErrHighWatermarkBackwards, ErrHighWatermarkBeyondEnd, ErrBadCheckpoint,
// ErrInvalidBatch and ErrInvalidArgument from the storage; corrupt input is
// a *CorruptError that matches ErrCorrupt and one specific codec sentinel
// (ErrBadCRC, ErrTruncated, ...). Nothing panics on bad input.
//
// # Performance
//
// Figures from the 2-core development VM (Go 1.26, SyncNever, page cache,
// 100-byte record values, one batch per append, 1 MiB per read),
// reproduced with
//
//	go test -run '^$' -bench . -benchtime 1s ./log/
//
// The figures, per benchmark:
//
//	benchmark                         MB/s   records/s  allocs/op
//	AppendAsLeader      1 record/batch    75      441 k        0
//	AppendAsLeader    100 records/batch 1195     10.8 M        0
//	AppendAsLeader   1000 records/batch 3358     30.3 M        0
//	AppendAsFollower    1 record/batch    72      424 k        0
//	AppendAsFollower  100 records/batch 1095      9.9 M        0
//	AppendAsFollower 1000 records/batch 3217     29.0 M        0
//	Read                1 record/batch  5106     30.0 M        0
//	Read              100 records/batch 6640     60.2 M        0
//	Read             1000 records/batch 9118     82.2 M        0
//	AppendAsLeader 1000, SyncEveryAppend 235      2.1 M        0
//
// The codec, in memory, 1000 records per batch (1, 100 per batch are in the
// benchmark output):
//
//	benchmark                         MB/s   records/s  allocs/op
//	AppendBatch (encode + CRC)         2523     22.7 M        0
//	VerifyBatch (header + CRC)        24895      224 M        0
//	BatchScanner (walk + CRC, 1 MiB)  22120      199 M        0
//	DecodeBatch (new []Record)         1493     13.5 M        1
//	Batch.Decode (reused Batch)        3181     28.7 M        0
//
// Verifying is what the append and fetch paths do: they check each batch's
// header and CRC and never decode a record. Decoding into Go Records is for
// callers that want them; Batch.Decode reuses one Batch's records and is
// bound by varint decoding (about 35 ns a record, 3.5 GB/s at 100 records a
// batch), DecodeBatch adds one []Record allocation per batch.
//
// An append costs one pwrite plus CRC verification at about memory speed,
// so small batches are bound by the system call. A read costs one pread
// per segment touched plus a walk over the batch headers after the last
// index entry it copied; over 95% of its time is the kernel's copy out of
// the page cache, which is faster for files written in large appends (the
// same log written 1 MiB per append reads at 7 to 20 GB/s). The few bytes
// per append reported are the segment files created at rolls, amortized;
// the steady state allocates nothing per record.
package log
