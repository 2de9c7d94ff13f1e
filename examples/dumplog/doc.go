// Command dumplog is kaenlog's kafka-dump-log (Kafka's DumpLogSegments):
// it prints the batches, and on request the records, of a partition's
// log directory or of some of its segment files, and changes nothing on
// disk.
//
//	go run ./examples/dumplog [-records] [-print-values] [-from offset] [-max N] DIR-or-segment-file...
//
// It opens each directory with log.OpenReadOnly, which checks it as
// Open's recovery does but writes, renames, truncates, deletes and fsyncs
// nothing, keeps the clean-shutdown marker and takes no lock: it may run
// beside a broker that holds the directory (it then sees each file as
// large as it was when opened). A segment file argument dumps that file,
// with its directory opened for the checks.
//
// Each segment starts with
//
//	Dumping DIR/00000000000000000000.log
//	Log starting offset: 0
//
// and each batch is one line, in Kafka's words and order:
//
//	baseOffset: 0 lastOffset: 2 count: 3 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 7 isTransactional: false isControl: false position: 0 CreateTime: 1700000000002 size: 103 magic: 2 compresscodec: none crc: 1674183080 isvalid: true
//
// CreateTime or LogAppendTime is the batch's timestamp type and its
// maxTimestamp; crc is the stored CRC-32C in decimal, isvalid whether it
// matches (a batch that does not verify also gets " error: " and why).
// With -records each record follows its batch:
//
//	| offset: 9 CreateTime: 1700000000030 keySize: 3 valueSize: 7 sequence: -1 headerKeys: ["trace","null"]
//
// and with -print-values (which implies -records) its key, value and
// headers too, Go-quoted:
//
//	... headerKeys: ["trace","null"] key: "k-0" payload: "value-0" headers: ["trace"="t0","null"=null]
//
// (a null key or value is left out, as Kafka leaves it out). A batch with a bad CRC, or compressed with a codec that has no
// registered decompressor, gets "| records not decoded: ..." instead.
// -from skips batches wholly below the offset, and records below it;
// -max stops after that many batches in all.
//
// A segment whose bytes cannot all be framed ends with "Found N invalid
// bytes at the end of FILE (why)", as Kafka's tool says. The
// output of examples/dumplog/testdata/dump.golden shows each case. Each argument
// ends with a summary line (segments, valid batches, the offsets Open
// would recover, the high watermark and recovery point, whether the
// clean-shutdown marker matches the directory, batches printed), then the
// marker or checkpoints that were ignored, the leftovers and the index
// files recovery would delete and rewrite, and "Damage: none" or where the valid prefix ends: the file,
// byte position, first offset lost, the corrupt error, and whether it is
// below the recovery point (flushed data) or past it (a torn write).
//
// The exit status is 0 when nothing is damaged, 1 when damage was found,
// 2 for a usage or I/O error.
//
// Where it differs from Kafka's tool: no deleteHorizonMs field, no index,
// time index, snapshot or transaction index dumps (the index files are
// compared with what recovery rebuilds instead), no --deep-iteration (the
// records are decoded whenever -records is given), and keys and values
// are quoted rather than printed raw, so that the output is one line per
// record whatever the bytes are.
package main
