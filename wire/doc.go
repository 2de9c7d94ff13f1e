// Package wire is kaenlog's network format: length-prefixed frames, the
// three request/response pairs replication needs (Produce, Fetch,
// OffsetsForLeaderEpoch), and kaenlog's error-code table.
//
// The package is pure: no clock, no goroutines, no connections. Encoders
// append to a caller's buffer; decoders read a payload the caller already
// holds and never copy record bytes. Record batches travel as opaque bytes;
// package log parses them.
//
// # Frames
//
// A stream is a sequence of frames. A frame is a big-endian int32 length
// followed by that many payload bytes:
//
//	+--------+--------+--------+--------+---------------------+
//	|     length (int32, big-endian)    |  payload (length B)  |
//	+--------+--------+--------+--------+---------------------+
//
// ReadFrame checks the length against a limit (DefaultMaxFrameSize, 100
// MiB, is Kafka's socket.request.max.bytes default) before allocating, and
// refuses a negative length. It then grows its buffer only as payload bytes
// arrive, from at most 64 KiB, so a length prefix alone never makes it hold
// the memory the prefix announces.
//
// # Messages
//
// Every payload starts with the same 8-byte header. All integers are
// big-endian and signed, as in Kafka. The header does not say whether a
// payload is a request or a response; the direction of the connection does.
//
//	 0      2      4             8
//	+------+------+-------------+
//	|APIKey|Vers. |CorrelationID|   APIKey int16, Version int16 (always 0),
//	+------+------+-------------+   CorrelationID int32
//
// The body follows, fixed-layout, with no trailing bytes allowed. Offsets
// are uint64 in memory and int64 on the wire (FromWireI64, ToWireI64).
//
//	FetchRequest (APIKey 1), 32 bytes:
//	  header(8) ReplicaID i32 | FetchOffset i64 | CurrentLeaderEpoch i32
//	            | LastFetchedEpoch i32 | MaxBytes i32
//
//	FetchResponse (APIKey 1), 42 bytes + records:
//	  header(8) ErrorCode i16 | HighWatermark i64 | LogStartOffset i64
//	            | DivergingEpoch.Epoch i32 | DivergingEpoch.EndOffset i64
//	            | RecordsLength i32 | Records [RecordsLength]byte
//
//	OffsetsForLeaderEpochRequest (APIKey 23), 20 bytes:
//	  header(8) ReplicaID i32 | CurrentLeaderEpoch i32 | LeaderEpoch i32
//
//	OffsetsForLeaderEpochResponse (APIKey 23), 22 bytes:
//	  header(8) ErrorCode i16 | Epoch i32 | EndOffset i64
//
//	ProduceRequest (APIKey 0), 18 bytes + records:
//	  header(8) Acks i16 | TimeoutMs i32
//	            | RecordsLength i32 | Records [RecordsLength]byte
//
//	ProduceResponse (APIKey 0), 18 bytes:
//	  header(8) ErrorCode i16 | BaseOffset i64
//
// The API key numbers are Kafka's (Produce 0, Fetch 1, OffsetForLeaderEpoch
// 23); the bodies are kaenlog's own, one partition per message.
//
// # -1 only at the edge
//
// Kafka writes -1 for "none" in several places. Here -1 exists only in the
// encoded bytes; in memory "none" is a bool beside the value, in the comma-ok
// spirit:
//
//	wire                              memory
//	DivergingEpoch (-1, -1)           FetchResponse.HasDivergingEpoch == false
//	(Epoch, EndOffset) (-1, -1)       OffsetsForLeaderEpochResponse.Found == false
//	BaseOffset -1                     ProduceResponse.HasBaseOffset == false
//
// Any other negative offset, or a pair with only one -1, is malformed. Two
// int32 fields keep Kafka's -1 in memory because they are identifiers, not
// offsets: ReplicaID (ConsumerReplicaID, a consumer) and request epochs
// (NoEpoch, "none" or "do not check"); epochs below -1 are malformed.
//
// # Errors
//
// Decoding errors match ErrMalformed plus a precise sentinel
// (ErrTruncated, ErrTrailingBytes, ErrWrongAPIKey, ErrUnknownAPIKey,
// ErrUnsupportedVersion, ErrNegativeLength, ErrNegativeOffset,
// ErrInvalidEpoch, ErrNegativeTimeout) and name the field. Framing has
// ErrFrameTooLarge and ErrShortFrame (which also matches
// io.ErrUnexpectedEOF); encoding has ErrOffsetOverflow. Encoders refuse
// exactly what decoders refuse, so anything encoded decodes.
//
// Responses carry kaenlog's own ErrorCode numbers, not Kafka's. Each code
// is one row of one table, printed here: kaenlog's number, the Kafka name,
// Kafka's number in Errors.java ("-" where Kafka has no such code),
// whether Kafka calls it retriable (its exception extends
// RetriableException: the same request may succeed later), and what it
// means. A test keeps this block equal to the table.
//
//	code  name                              Kafka  retriable  meaning
//	  -1  UNKNOWN_SERVER_ERROR                 -1             unexpected broker error
//	   0  NONE                                  0             no error
//	   1  OFFSET_OUT_OF_RANGE                   1             fetch offset outside the log
//	   2  NOT_ENOUGH_REPLICAS                  19  yes        ISR below min.insync.replicas, checked before append
//	   3  NOT_ENOUGH_REPLICAS_AFTER_APPEND     20  yes        written, but ISR shrank below min.insync.replicas
//	   4  NOT_LEADER_OR_FOLLOWER                6  yes        broker is not the partition leader
//	   5  FENCED_LEADER_EPOCH                  74  yes        request epoch older than the broker's
//	   6  UNKNOWN_LEADER_EPOCH                 75  yes        request epoch newer than the broker's
//	   7  CORRUPT_MESSAGE                       2  yes        record batches failed validation
//	   8  UNKNOWN_REPLICA                       -  yes        replica id is not assigned to the partition
//	   9  REQUEST_TIMED_OUT                     7  yes        not committed within the timeout
//	  10  INVALID_REQUIRED_ACKS                21             acks must be -1, 0 or 1
//	  11  INVALID_REQUEST                      42             request did not decode
//	  12  MESSAGE_TOO_LARGE                    10             record batch larger than the broker accepts
//	  13  INVALID_RECORD                       87             records failed the broker's validation
//	  14  UNSUPPORTED_COMPRESSION_TYPE         76             compression codec not supported
//	  15  KAFKA_STORAGE_ERROR                  56  yes        the partition's log directory failed
//	  16  UNKNOWN_TOPIC_OR_PARTITION            3  yes        broker does not host the partition
//	  17  LEADER_NOT_AVAILABLE                  5  yes        partition has no leader
//	  18  STALE_BROKER_EPOCH                   77             broker epoch older than the registration
//	  19  INVALID_UPDATE_VERSION               95             partition epoch is stale
//	  20  NEW_LEADER_ELECTED                  108             ISR change applied, but the leader changed
//	  21  INELIGIBLE_REPLICA                  107             proposed ISR has an ineligible replica
//	  22  OPERATION_NOT_ATTEMPTED              55             not attempted: another part of the request failed
//	  23  ELIGIBLE_LEADERS_NOT_AVAILABLE       83  yes        no replica is eligible to lead
//	  24  TOPIC_ALREADY_EXISTS                 36             topic exists
//	  25  INVALID_REPLICATION_FACTOR           38             replication factor below 1 or above the broker count
//	  26  INVALID_PARTITIONS                   37             partition count below 1
//	  27  NOT_CONTROLLER                       41  yes        broker is not the controller
//	  28  BROKER_ID_NOT_REGISTERED            102             broker id has no registration
//	  29  OUT_OF_ORDER_SEQUENCE_NUMBER         45             producer sequence number out of order
//	  30  DUPLICATE_SEQUENCE_NUMBER            46             producer sequence number already written
//	  31  INVALID_PRODUCER_EPOCH               47             producer epoch is stale
//	  32  UNKNOWN_PRODUCER_ID                  59             no state for the producer id
//	  33  INVALID_TOPIC_EXCEPTION              17             invalid topic name
//	  34  UNSUPPORTED_VERSION                  35             message version not supported
//	  35  NETWORK_EXCEPTION                    13  yes        connection closed before the response
//
// Each code's sentinel error is an *Error: ErrorCode.Err and CodeOf convert
// between codes and sentinels at the wire edge, errors.Is matches a
// wrapped sentinel, and IsRetriable(err) and (*Error).Retriable read the
// flag. A code not in the table decodes fine (a newer peer) and survives
// Err and CodeOf unchanged. The one sentinel shared with decoding is
// ErrUnsupportedVersion: our own version failure matches it as well as
// ErrMalformed, and CodeOf answers it with CodeUnsupportedVersion.
package wire
