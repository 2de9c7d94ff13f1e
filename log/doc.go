// Package log is one Kafka partition replica on disk: RecordBatch v2 batches
// (byte-compatible with Kafka's DefaultRecordBatch) kept in a directory of
// segments, with the offsets replication is built on, and a promise: the
// log never lies about data. It never serves bytes that were not written,
// never drops or invents data silently, and never forgets that a write
// failed.
//
// The package has two halves. The codec (ReadBatchHeader, VerifyBatch,
// AppendBatch, DecodeBatch, BatchScanner, ...) reads and writes batches;
// AppendRecord and RecordSize are its record encoding, for a producer that
// builds a batch in place (PutBatchHeader last). The
// storage (Open and the methods of Log) keeps them: appends and reads never
// re-encode a batch, so what a producer checksummed is what a follower or
// consumer reads, byte for byte (only compaction rewrites batches). Every
// file operation of the storage goes through a vfs.FS (Options.FS; package
// log/vfs), so tests can cut the power at any call.
//
// # A partition is a directory
//
//	orders-0/
//	    00000000000000000000.log              segment: batches from offset 0
//	    00000000000000000000.index            its sparse offset index
//	    00000000000000000000.timeindex        its sparse time index
//	    00000000000000004127.log              next segment, rolled at offset 4127
//	    00000000000000004127.index
//	    00000000000000004127.timeindex
//	    high-watermark-checkpoint             the HW
//	    recovery-point-offset-checkpoint      offsets below it are on disk
//	    log-start-offset-checkpoint           the log start offset
//	    leader-epoch-checkpoint               the leader-epoch cache (Kafka's format)
//	    00000000000000004127.snapshot         producer state as of offset 4127 (a few of these)
//	    .kafka_cleanshutdown                  written last by Close, deleted first by Open
//	    .lock                                 the directory lock, holding the holder's pid
//	    verify-from-offset-checkpoint         only after damage was found in a trusted segment
//	    *.tmp, *.cleaned                      only while a write is in progress
//	    *.damaged                             a checkpoint path that was not a regular file, moved aside by Repair
//
// A segment is named by its base offset, zero-padded to 20 digits as in
// Kafka, so names sort in offset order. It holds whole batches exactly as
// they arrived; the last segment is the active one and the only one
// written to. An append that would take a non-empty active segment past
// Options.SegmentBytes rolls a new segment whose base offset is the log end
// offset. One append is never split across segments. On Linux the active
// segment's disk blocks are reserved 8 MiB ahead of its appends (fallocate
// without changing the file size, as Kafka's preallocate option reserves a
// whole segment), which makes a page-cache append cheaper on ext4; a roll
// and Close give the unused blocks back, and a file size is always the
// bytes written. The reservation goes through vfs.Preallocator, which
// only the files of vfs.OS implement: it changes no byte that a read or a
// recovery can see.
//
// A Log knows three offsets. StartOffset is the first offset it can still
// serve: the larger of the oldest segment's base and the checkpointed log
// start. EndOffset, the log end offset or LEO, is the offset the next record
// gets: 0 for an empty log, never -1. HighWatermark is an exclusive bound:
// offsets below it are committed. StartOffset <= HighWatermark <= EndOffset
// always.
//
// # The log has no holes
//
// A log covers every offset from its first segment's base to the LEO
// exactly once, with batches: within a segment each batch starts where the
// previous one ended (base offset == the previous NextOffset), the first
// exactly at the segment's base; each segment ends exactly where the next
// begins. Compaction keeps it so (an emptied run of batches becomes one
// empty batch), and so does a follower whose leader's log has a gap (it
// covers the gap with an empty batch of its own). Recovery checks it batch
// by batch; anything that breaks it is a hole (ErrHole) or damage, and
// trust ends there. Logs compacted before kaenlog wrote empty batches have
// gaps: they are treated as holes.
//
// # On-disk formats
//
// A batch is Kafka's RecordBatch v2 (magic 2, big-endian): the 61-byte
// header that [BatchHeader] draws field by field, then the records
// (varint-framed, [Record]; compression.go for compressed records).
//
// An empty batch (compaction's, or a follower's over its leader's gap) is
// exactly these 61 bytes: recordCount 0, attributes 0, producer fields -1,
// a lastOffsetDelta spanning the offsets it covers, a valid CRC.
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
// A time index entry (12 bytes, big-endian, as in Kafka's TimeIndex;
// timeindex.go):
//
//	offset width field
//	     0     8 timestamp        the segment's largest timestamp so far
//	     8     4 relative offset  last offset of the first batch reaching it - segment base offset
//
// A segment's largest timestamp is the largest MaxTimestamp of its batches
// with records (an empty batch has none), and its offset the last offset
// of the first batch that reached it (Kafka's maxTimestampSoFar and
// offsetOfMaxTimestampSoFar, a strict ">"). Every batch that gets an
// offset index entry also gets a time index entry, holding the largest
// timestamp including that batch, when that is above the last entry's
// (Kafka's maybeAppend where the offset index appends); so timestamps
// strictly increase, offsets never decrease, and every batch before the one
// an entry names has a smaller MaxTimestamp. Unlike Kafka, no entry is
// added at a roll or Close, so that the entries are a pure function of the
// batches like the offset index's; a truncation keeps exactly the entries
// its kept batches added, and recomputes the largest timestamp from the
// last kept entry and the headers after the last kept offset index entry
// (less than one interval).
//
// Both indexes are derived data: recovery rebuilds them and rewrites a
// file that differs (reported as IndexesRebuilt). An append adds its
// entries in memory only; the active segment's index files catch up at a
// roll, a Flush and Close, so that an append costs one write system call.
// Nothing read from an index file is trusted for a read or a lookup: only
// the active segment's, after a clean shutdown, are loaded (bounded by the
// segment size before anything is allocated, and checked for the
// invariants above) so that appends continue them; the first read or
// lookup verifies the segment, which rebuilds both. An implausible file,
// or a missing time index, means an unclean recovery.
//
// The high-watermark, recovery-point, log-start and verify-from checkpoints
// are each two text lines, a version and an offset:
//
//	0
//	4127
//
// The leader-epoch checkpoint is Kafka's leader-epoch-checkpoint: a
// version line "0", a count, and one "epoch start_offset" line per entry
// (epoch.AppendCheckpoint). Every checkpoint, and the clean-shutdown
// marker, is replaced atomically: a temporary ".tmp" file is written and
// fsynced, renamed over the old one, and the directory fsynced; a leftover
// ".tmp" is an interrupted write, and Open deletes it.
//
// The clean-shutdown marker (marker.go) is text: a header line, the log
// start and end, one "base size" line per segment, and a CRC-32C line:
//
//	kaenlog clean shutdown 2
//	start 0
//	end 4127
//	max-timestamp 1700000000000 4120
//	segments 2
//	0 1073741590
//	4127 51020
//	crc 1a2b3c4d
//
// max-timestamp is the active segment's largest timestamp and its offset
// (-1 0 when it has none), which appends after a clean Open continue the
// time index from. A version-1 marker (before the time index) is ignored:
// Open then verifies the segments past the recovery point, the active one.
//
// The lock file holds the decimal pid of the process holding the lock.
//
// A producer-state snapshot (producer_snapshot.go; kaenlog's own format,
// big-endian) holds the state of every producer as of the offset in its
// name, the state the batches below that offset build:
//
//	offset width field
//	     0     2 version       1
//	     2     4 crc           CRC-32C of bytes [6, end)
//	     6     8 offset        the offset in the file name
//	    14     4 producers     how many follow
//	    18     - per producer, by ascending producer id:
//	             8 producerId    >= 0
//	             2 epoch         >= 0
//	             1 batches       1 to 5, oldest first, 32 bytes each:
//	               4 firstSeq      >= 0
//	               4 lastSeq       firstSeq + lastOffset - firstOffset, wrapping at MaxInt32
//	               8 firstOffset   above the previous batch's lastOffset
//	               8 lastOffset    >= firstOffset, below the snapshot's offset
//	               8 maxTimestamp
//
// Every count is checked against the bytes left before anything is
// allocated, every field against its range, and a file with a byte to
// spare is refused, so the encoding is canonical. It is replaced like a
// checkpoint, except at a segment roll, where it is renamed into place
// without an fsync (a torn copy fails its CRC and is ignored).
//
// # Appends
//
// AppendAsLeader validates every batch of a producer's request in one
// pass with its CRC, as Kafka's LogValidator does: at most
// Options.MaxBatchBytes (ErrBatchTooLarge), producer-legal
// (ErrInvalidRecord: base offset 0, at least one record, recordCount ==
// lastOffsetDelta+1, no control batch, ...), records that decode (the
// codec's *CorruptError), decompressed first if the batch is compressed
// (see Compression). Then it stamps the batches in the
// caller's slice: baseOffset, partitionLeaderEpoch (both outside the CRC),
// and maxTimestamp when the producer's is wrong (recomputing the CRC).
// AppendAsFollower verifies each batch once and keeps the leader's bytes,
// offsets and epochs; it refuses only a first batch below the LEO (Kafka's
// rule), and covers a first batch above it with an empty batch. Both
// return an AppendInfo computed in the same pass.
//
// An append is all-or-nothing for errors: a refused append changes
// nothing. It is not all-or-nothing for crashes: a crash can keep a prefix
// of its batches, and recovery keeps whole batches only.
//
// A batch with a producer id is also checked against the producer state
// before anything is written, and must be the only batch of its append;
// see Producer state.
//
// The leader-epoch cache lives in the log (Kafka's UnifiedLog owns it too).
// An append assigns the epochs of its batches in the pass that verifies
// them and writes the leader-epoch checkpoint before writing the batches,
// so that after any crash every batch's epoch is in the checkpoint.
// AssignEpoch is the leader's entry at its LEO; truncation takes entries
// along; epochs never go backwards in the log (an older epoch is refused).
//
// # Producer state
//
// The log owns the state of Kafka's idempotent producers, as it owns the
// leader-epoch cache, because the batches build it and truncation must cut
// it with them. For every producer id it holds the producer epoch and the
// metadata of the producer's last five batches of that epoch: first and
// last sequence, first and last offset, max timestamp (Kafka's
// ProducerStateEntry, NUM_BATCHES_TO_RETAIN = 5). Producers and Producer
// show it.
//
// AppendAsLeader applies Kafka's rules (UnifiedLog's
// analyzeAndValidateProducerState, ProducerAppendInfo) to a batch with a
// producer id, before anything is written:
//
//   - it must be the only batch of its append (ErrInvalidRecord): Kafka's
//     producers send one batch per partition per request;
//   - the same epoch and the same sequence range as one of the five cached
//     batches is a duplicate: nothing is written, and AppendInfo.Duplicate
//     carries the original batch's offsets, which Kafka answers a retry
//     with;
//   - an epoch below the known one is ErrInvalidProducerEpoch;
//   - a newer epoch must start at sequence 0, else ErrOutOfOrderSequence;
//   - the same epoch must continue at the last sequence plus one, wrapping
//     from MaxInt32 to 0, else ErrOutOfOrderSequence;
//   - a producer the log has no state for may start at any epoch and
//     sequence (Kafka accepts it: retention may have taken its batches).
//
// A refused append changes nothing. AppendAsFollower applies the leader's
// producer fields without checks, as Kafka does for replicated appends, so
// a follower that becomes the leader answers retries as its leader would
// have. Batches without a producer id (or with its epoch or sequence
// unset) and control batches leave the state alone.
//
// Truncation leaves the state exactly as if the cut batches had never been
// appended: a producer whose last batch is cut takes its state from the
// log (the newest snapshot at or below the new end, then the batch headers
// after it, as Kafka's truncateAndReload does) or is forgotten; every
// other producer is untouched. TruncateFullyAndStartAt forgets every
// producer. Retention keeps the state, as Kafka does, until it expires:
// RemoveExpiredProducers(nowMs) forgets a producer whose last batch's
// timestamp is Options.ProducerIDExpirationMs or more before nowMs (Kafka's
// producer.id.expiration.ms, one day), but never one with a batch at or
// above the high watermark, whose retry must still be recognised.
//
// The state reaches disk as a snapshot (see On-disk formats): with the
// recovery-point checkpoint, in the same atomic write, whenever the
// recovery point is the LEO (Flush, CheckpointRecoveryPoint, Open after a
// crash); at Close; and, without an fsync, at every segment roll, to spare
// truncation work (FlushRolled later fsyncs the newest roll's, with the
// segments below it, and moves the recovery point to it). The log keeps
// the durable one and the newest few others (a truncation below the oldest
// rebuilds from the log's first batch);
// retention deletes those of the segments it deletes, a truncation those
// past its new end, durably, before anything can be appended over them.
// Before retention, IncrementStartOffset or a truncation leaves history
// that recovery would not read (segments wholly below the log start), a
// durable snapshot at or past what recovery keeps and at or below the
// recovery point must exist; if none does, the log is flushed, which
// writes one at the LEO. So a crash never rebuilds the state from a log
// that lost the batches of producers the state still held.
//
// Open after a clean shutdown loads the snapshot at the log end and reads
// no batch. After a crash it loads the newest snapshot at or below the
// recovery point and replays only the batches past it, in the pass that
// verifies them. A missing, damaged or too-new snapshot is never taken as
// "no producers": the state is rebuilt from an older snapshot, or the log's
// first batch, by reading batch headers, and the report says so
// (RecoveryReport.ProducerStateRebuilt). Snapshots past the recovered log
// end are deleted, durably.
//
// Where kaenlog differs from Kafka: its snapshot keeps all five batches of
// a producer (Kafka's keeps the last), so that a retry of any of them after
// a restart is still a duplicate; it keeps a few snapshots rather than one
// per segment, so that Open lists no more files than segments and indexes
// and stays inside its budget; Open expires nothing (it has no clock: the
// replica's next RemoveExpiredProducers does); and there are no
// transactions (no control batches, coordinator epochs or last stable
// offset). Compaction rewrites batches but not the state, so a rebuild
// from a compacted log may know less of a producer whose batches it
// emptied (Kafka's cleaner keeps each producer's last batch; kaenlog's
// compaction does not).
//
// # Compression
//
// A batch is stored as its producer sent it: a compressed one stays
// compressed, with the codec its attributes name (1 gzip, 2 snappy, 3 lz4,
// 4 zstd), and nothing recompresses it. The leader decompresses it once,
// to walk its records as it walks an uncompressed batch's (Kafka's
// LogValidator for a v2 batch it need not recompress), then stamps only
// the header. A follower, recovery and the producer state read headers
// and CRCs only, so they never decompress: a follower needs no codec to
// copy its leader's bytes.
//
// Decompressors are registered by codec (RegisterDecompressor, like
// archive/zip's): gzip, from the standard library, by default; snappy, lz4
// and zstd by a module that has them, since this module depends on no
// codec library (importing github.com/kaenlog/kaenlog/replica/compression
// registers all three). A Decompressor is given the bound and appends
// into the caller's reused buffer, so it can refuse a size its data
// claims before allocating it. A batch whose codec has none (or a codec Kafka does not
// define, 5 to 7) is ErrUnsupportedCompression (Kafka's
// UNSUPPORTED_COMPRESSION_TYPE). The records may inflate to at most
// Options.MaxInflation (16) times Options.MaxBatchBytes, a bound that
// holds while decompressing: a decompression bomb costs at most that much
// memory and is refused with ErrInflationLimit, and a body that does not
// decompress with ErrBadCompressedData, both *CorruptError (Kafka's
// CORRUPT_MESSAGE). The leader inflates into buffers that every Log in
// the process shares (one per append in progress, not one per
// partition); one that grew past a 4 MiB lz4 block is dropped after
// its batch. DecodeBatch decompresses likewise, bounded by
// DefaultMaxInflatedBytes; its record error positions then count in the
// batch as decompressed.
//
// What else reads records decompresses too: a lookup by time, and
// compaction's search for each key's latest record. Compaction keeps a
// compressed batch whole, its superseded records included (Kafka's cleaner
// recompresses it with its codec; this module has no compressors and keeps
// what the producer sent), while its keys supersede older records like any
// others. A rewritten uncompressed batch's MaxTimestamp becomes its kept
// records' largest, as Kafka's cleaner computes it.
//
// # Lookups by time
//
// OffsetForTimestamp is Kafka's ListOffsets by timestamp: the first
// segment whose largest timestamp is at least ts, its time index entry at
// or below ts, the offset index entry at or below that entry's offset,
// then batch headers forward to the first batch whose MaxTimestamp is at
// least ts, and in it the first record whose timestamp is. That is the
// first record of the log, in offset order, with a timestamp at least ts.
// OffsetOfMaxTimestamp is ListOffsets -3 (KIP-734): the first record with
// the log's largest timestamp. Both search the whole log from the log
// start, above the HW too, as Kafka's log does (a broker drops an answer at
// or above the HW for consumers), and verify the segments they read.
//
// # Durability
//
// Durability is the SyncPolicy. SyncNever (the default) survives a process
// crash: the bytes are in the page cache when an append returns. With
// SyncEveryAppend an append returns only after an fsync, so it survives
// power loss. Flush forces everything out on demand and writes the recovery
// point: every offset below it is on disk, segments and the directory
// entries naming them. Under SyncEveryAppend appends advance the recovery
// point in memory; Flush, CheckpointRecoveryPoint and Close write it, with
// the producer-state snapshot at it.
//
// Under SyncEveryAppend an acknowledged append needs nothing that was not
// fsynced before the acknowledgement, in this order: its bytes are written
// to the active segment and fsynced through the descriptor that wrote them
// — fsync, not fdatasync, so the file's size and the extents the bytes
// landed in (written into blocks reserved ahead by fallocate, which the
// file system converts from unwritten) are made durable with them, as
// POSIX requires of data made retrievable — and a segment an append rolls
// has its name fsynced in the directory before any byte goes in it (a new
// log's directory, and its parent's entry, before Open returns). The index
// file is not needed: Open rebuilds a lagging one. A test pins the order
// through the vfs seam (a power cut that loses every unsynced write, size
// and name, and the index files, right after any acknowledgement loses no
// acknowledged batch). A file system that loses an acknowledged batch
// after a successful fsync loses it on its own: ext4 without a journal was
// seen to read one back as zeros after a later fsync failed with EIO,
// where journalled ext4 kept it (the likely cause, inferred rather than
// reproduced: without a journal ext4 rewrites its metadata in place, such
// as the extent records every append into reserved blocks updates, so a
// device that starts failing writes can undo what an earlier fsync made
// durable). The batch's CRC then fails,
// Open cuts it as a torn write, and it is never served: such a file
// system's acknowledgements are as good as its fsync, and kaenlog cannot
// make them better.
// TruncateTo makes its cut durable before it returns, whatever the policy: a
// truncation a power cut undid could otherwise leave an old segment
// overlapping one rolled after it. Retention, IncrementStartOffset and
// TruncateTo also flush when the history they leave below what recovery
// keeps is covered by no durable producer-state snapshot (see Producer
// state).
//
// A rolled segment is made durable as Kafka makes it after a roll (its
// scheduler's flush of everything below the new segment): FlushRolled
// fsyncs the rolled segments not yet synced, their index files, the
// producer-state snapshot the roll took and the directory, then moves the
// recovery point to the active segment's base. Its directory fsync spares
// the next Flush one, unless a roll created a segment while it ran: that
// entry may have missed it. The roll itself does not
// fsync, so an append never waits for one; FlushRolled runs its fsyncs
// without the append lock, so appends go on meanwhile, and the runtime
// calls it outside its own locks when RolledUnflushed says there is work
// (replica/server's Host does after every event; the deterministic
// runtimes do not). Rolled segments are also fsynced by Flush, Close, the
// cases above, and when more than MaxOpenSegments of them wait. Under
// SyncNever a power cut thus takes at most the active segment's records
// and any rolled segment whose FlushRolled had not finished; replication,
// not the disk, is what SyncNever relies on for those.
//
// Close makes everything durable (segments, index files, every
// checkpoint, the producer-state snapshot) and then writes the
// clean-shutdown marker. On a full disk Close cannot
// write its checkpoints: the old ones stand (with no HW checkpoint the HW
// is 0 after the restart, so retention frees nothing until the replica
// layer learns the HW again), no marker is written, and Close still closes
// every file and releases the lock.
//
// # A failed write is never forgotten
//
// Any failed write, fsync, truncation, rename, removal, open or read in the
// directory puts the Log in a failed state: every later call (appends,
// Flush, truncation, checkpoints, retention, compaction, SetHighWatermark
// and Read) returns an error wrapping ErrLogFailed and the first cause, and
// never succeeds again. After a failed fsync the kernel may hold bytes that
// never reach the disk, so neither a retried fsync nor a read can be
// trusted. Nothing is repaired in place: only a fresh Open, which verifies
// the files again, clears the state. Close of a failed log releases the
// files and the lock and returns the failure.
//
// # Recovery
//
// Open takes the directory lock (ErrLocked, naming the holder's pid, if
// another Log in any process holds it), deletes leftovers of interrupted
// operations, and then:
//
//   - after a clean shutdown (a marker that parses, passes its CRC, and
//     matches the directory: the same segments, the active one of the
//     recorded size with plausible index files, the checkpoints Close
//     writes),
//     it reads no segment at all;
//   - otherwise it verifies, batch by batch, every segment holding offsets
//     at or past the recovery point (all of them without a recovery-point
//     checkpoint, or to rebuild a missing or empty leader-epoch
//     checkpoint): framing and CRC, each batch starting where the previous
//     ended, the first at the segment's base, the last ending exactly at
//     the next segment's base, offsets the index can express, epochs that
//     never decrease and agree with the leader-epoch checkpoint for each
//     batch's last offset, and the index and time index files equal to the
//     ones rebuilt.
//
// The marker is deleted, and the directory fsynced, before anything else
// changes. At the first failure trust ends: that segment is cut at the
// failing batch and every later one is deleted, newest first. A cut at or
// past the recovery point is a torn write: cut, reported, and Open goes on.
// A cut below it is damage to data that was flushed: Open refuses with an
// error wrapping ErrDamageBelowRecoveryPoint and a *CorruptError naming
// the file and byte position, unless Options.Repair is set, in which case
// it cuts and reports LostFlushedData, so the replica layer can tell the
// controller. Flushed offsets with no segment left (deleted files) are
// damage too; a directory emptied of segments whose recovery point says
// nothing was flushed opens empty at its log start.
//
// Segments Open did not verify (below the recovery point, or after a clean
// shutdown) are opened and verified in full the first time anything needs
// their batches: a read, truncation, compaction, retention by time, a
// lookup by time. Damage
// found then is a *CorruptError to the caller, puts the log in the failed
// state, and is recorded in verify-from-offset-checkpoint, so that the next
// Open verifies that segment too and refuses (or, with Repair, cuts). Older
// segments' files are kept open only up to Options.MaxOpenSegments, least
// recently used first.
//
// The producer state is the snapshot's, with the batches past it replayed
// in the same pass (see Producer state).
//
// The leader-epoch cache is the checkpoint's, without entries at or past
// the recovered LEO; a missing or empty checkpoint beside a non-empty log
// is rebuilt from the epochs stamped in the batches, as Kafka's log loader
// does. The HW is the checkpoint's, 0 without one, raised to the log start
// and clamped to the LEO (the report says when the checkpoint was above
// it: committed records were lost locally). A damaged checkpoint of any
// kind makes Open refuse with ErrBadCheckpoint; with Repair it is ignored
// (the epoch cache rebuilt, the recovery point and a damage hint taken as
// absent, the log start as the first segment's base, the HW as 0). A
// checkpoint's, the marker's or a ".tmp" file's path that is not a regular
// file (a directory) is damage of the same kind: it can be neither read
// nor replaced, so the default Open refuses it with ErrBadCheckpoint, and
// Repair, which cannot prove what it holds, deletes nothing: it moves it
// aside to name.damaged (the report names it), so that the log writes the
// checkpoint again and the next Open needs no Repair. Segments wholly below the checkpointed log start are leftovers of
// retention or of TruncateFullyAndStartAt and are deleted. Recovery
// reports everything it found and did (RecoveryReport).
//
// # Read-only
//
// OpenReadOnly looks at a directory without changing it: it checks every
// segment as recovery after an unclean shutdown would, reads the
// checkpoints and the marker, and compares the index files with the ones
// recovery rebuilds, through the same vfs.FS, but opens every file
// read-only and writes, renames, truncates, deletes and fsyncs nothing;
// the marker stays and no lock is taken (it may run beside a Log). Where
// recovery would cut, it reports the Cut it would make; a damaged
// checkpoint is reported and taken as absent. examples/dumplog is built on
// it.
//
// # Reads
//
// Readers never see a partial batch. A Log is safe for concurrent use:
// mutations are serialized, and Read runs alongside them, copying with
// pread only bytes that were completely written before it started. Read's
// maxBytes is clamped to Options.MaxReadBytes; the first batch is returned
// whole even if larger (Kafka's KIP-74), and a leader never accepts a batch
// larger than Options.MaxBatchBytes. A read from where a recent append
// began (a follower's next fetch) reads no header to find its first batch,
// and one near it reads one: the active segment remembers where its recent
// appends began. A leader that still holds an append's bytes may send them
// instead of reading them back, when Log.ReadsAppended says that a read
// would return exactly those bytes: its Generation vouches that the log
// was only appended to since.
//
// # Offsets never move
//
// Retention (DeleteRetainedSegments) forgets whole oldest segments, never
// the active one and never one holding an offset at or above the HW.
// IncrementStartOffset moves the log start forward, never past the HW.
// Both checkpoint the new log start before deleting any file, so a crash
// cannot move it back. TruncateFullyAndStartAt empties the log and restarts
// it at an offset (a follower whose leader no longer has its fetch
// offset): the new start is checkpointed first. Compaction (Compact) keeps
// the newest record of every key in closed segments below the HW,
// rewriting batches in place of their original offsets, and swaps each
// segment in by rename, so a crash leaves either the old or the new file.
// Truncating into the range of an empty batch removes it whole, so the LEO
// may go back well below the offset asked for; no record is lost by that.
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
// raises the HW (never backwards) and only truncation lowers it, and the
// LEO runs ahead of the HW: IsolationLogEnd reads (followers) see records
// that IsolationHighWatermark reads (consumers) do not see yet.
//
// # Choices where Kafka and the design leave room
//
//   - A failed read or open of a segment fails the log like a failed write
//     (Kafka takes the whole log directory offline on any I/O error).
//   - AssignEpoch takes only the epoch: it starts at the LEO, the only
//     offset where a new epoch can begin without contradicting the batches.
//   - A leader append or AssignEpoch with an epoch older than the cache's
//     latest is ErrInvalidArgument; a follower batch older than the log's
//     last batch is ErrNotAtLogEnd (the logs diverged), one with a negative
//     epoch ErrInvalidBatch. Otherwise recovery would find epochs going
//     backwards and cut.
//   - A follower gap of more than 2^31 offsets (more than one empty batch
//     can cover) is ErrInvalidArgument.
//   - TruncateTo fsyncs its cut whatever the SyncPolicy (see Durability).
//   - A truncation whose batch begins below the log start empties the log
//     at the log start.
//   - Open makes what it verified durable (fsync) and starts with the
//     recovery point at the LEO.
//
// # Errors
//
// Conditions a caller can act on wrap exported sentinels, matched with
// errors.Is: ErrOffsetOutOfRange, ErrNotAtLogEnd, ErrClosed, ErrLogFailed,
// ErrLocked, ErrDamageBelowRecoveryPoint, ErrHighWatermarkBackwards,
// ErrHighWatermarkBeyondEnd, ErrBadCheckpoint, ErrInvalidBatch,
// ErrInvalidArgument, ErrBatchTooLarge, ErrUnsupportedCompression,
// ErrInvalidRecord, ErrInvalidProducerEpoch and ErrOutOfOrderSequence; corrupt input is a *CorruptError that matches
// ErrCorrupt and one specific sentinel (ErrBadCRC, ErrTruncated, ErrHole,
// ErrEpochMismatch, ErrBadCompressedData, ErrInflationLimit, ...), with File set when the storage found it in a
// segment file. Nothing panics on bad input. Benchmark figures are in
// BENCHMARKS.md.
package log
