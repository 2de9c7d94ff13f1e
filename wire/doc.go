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
// refuses a negative length.
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
// Responses carry kaenlog's own ErrorCode numbers, not Kafka's:
//
//	code  name                              Kafka's number
//	  -1  UNKNOWN_SERVER_ERROR              -1
//	   0  NONE                               0
//	   1  OFFSET_OUT_OF_RANGE                1
//	   2  NOT_ENOUGH_REPLICAS               19  (checked before append)
//	   3  NOT_ENOUGH_REPLICAS_AFTER_APPEND  20  (checked after append)
//	   4  NOT_LEADER_OR_FOLLOWER             6
//	   5  FENCED_LEADER_EPOCH               74
//	   6  UNKNOWN_LEADER_EPOCH              75
//	   7  CORRUPT_MESSAGE                    2
//	   8  UNKNOWN_REPLICA                    -  (Kafka logs and returns no records)
//	   9  REQUEST_TIMED_OUT                  7
//	  10  INVALID_REQUIRED_ACKS             21
//	  11  INVALID_REQUEST                   42
//
// ErrorCode.Err and CodeOf convert between codes and sentinel errors at the
// wire edge. A code not in the table decodes fine (a newer peer) and
// survives Err and CodeOf unchanged.
package wire
